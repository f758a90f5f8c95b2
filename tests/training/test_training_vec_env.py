"""The self-play VecEnv's contract, on a tiny tic-tac-toe BatchGame (and Virus Fight 3p).

What matters most (STYLE.md's known traps): the learner receives its OWN reward,
including the -1 of a game the opponent ends by winning inside ``step``; masks are
those of the learner's seat and never let an illegal move through; seeds reproduce.
"""

from __future__ import annotations

import numpy as np
import pytest
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

from agents.base import ActContext, Agent
from agents.random_agent import RandomAgent
from tests.tictactoe import TicTacToe
from training.opponents import OpponentPool, parse_opponents
from training.vec_env import SelfPlayVecEnv, put


class FirstLegal(Agent):
    """Scripted opponent: the lowest-numbered legal cell."""

    name = "first"

    def act(
        self, obs: np.ndarray, mask: np.ndarray | None, context: ActContext | None = None
    ) -> np.ndarray:
        assert mask is not None
        return np.asarray(mask, bool).argmax(axis=1).astype(np.int64)


def make_env(n: int = 8, seed: int = 0, agent: Agent | None = None) -> SelfPlayVecEnv:
    pool = OpponentPool()
    pool.add_baseline("opp", agent or RandomAgent(seed=123), 1.0)
    return SelfPlayVecEnv(TicTacToe(), n, pool, seed=seed)


def random_legal(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    scores = rng.random(mask.shape)
    scores[~mask] = -1
    return scores.argmax(axis=1)


def set_positions(env: SelfPlayVecEnv, boards: list[str], learner_seats: list[int]) -> None:
    game = env.game
    sub = game.from_boards(boards)
    put(env.state, np.arange(len(boards)), sub)
    env.learner_seat[:] = learner_seats


def test_learner_gets_minus_one_when_opponent_wins_inside_step() -> None:
    """Learner X plays a non-blocking move; opponent O completes row 0 during step: -1."""
    env = make_env(n=2, agent=FirstLegal())
    env.reset()
    # X (seat 0) to move: O threatens a3-row (cells 0,1 -> 2). Game 1: learner is O (seat 1)
    # with X threatening cells 0,1 -> 2 after O's move.
    set_positions(env, ["oo.x..x..", "xx.o....."], [0, 1])
    assert env.action_masks()[0].tolist() == [
        False,
        False,
        True,
        False,
        True,
        True,
        False,
        True,
        True,
    ]
    obs, rew, done, infos = env.step(np.array([8, 8]))
    assert rew.tolist() == [-1.0, -1.0]
    assert done.tolist() == [True, True]
    for i, seat in enumerate((0, 1)):
        term = infos[i]["terminal_observation"]
        assert term.shape == (2, 3, 3)
        # from the learner's point of view the opponent's line (row 0) is in plane 1
        assert term[1, 0].tolist() == [1.0, 1.0, 1.0]
        assert infos[i]["TimeLimit.truncated"] is False
        assert infos[i]["outcome"] == -1.0
        assert infos[i]["learner_seat"] == seat
    # auto-reset: fresh games where it is the learner's turn again (seats rotated)
    assert env.learner_seat.tolist() == [1, 0]
    assert (env.game.current_player(env.state) == env.learner_seat).all()
    assert obs[0].sum() == 1.0  # learner now O: X (opponent) already placed one piece
    assert obs[1].sum() == 0.0


def test_learner_gets_plus_one_for_its_own_win_and_zero_for_draw() -> None:
    env = make_env(n=2, agent=FirstLegal())
    env.reset()
    # game 0: X completes the top row; game 1: X's last move fills the board, no line
    set_positions(env, ["xx.oo....", "oxxxoo.ox"], [0, 0])
    _, rew, done, infos = env.step(np.array([2, 6]))
    assert rew.tolist() == [1.0, 0.0]
    assert done.tolist() == [True, True]
    assert infos[1]["terminal_observation"].sum() == 9.0


def test_non_final_steps_give_zero_and_no_terminal_observation() -> None:
    env = make_env(n=1, agent=FirstLegal())
    env.reset()
    set_positions(env, ["........."], [0])
    _, rew, done, infos = env.step(np.array([4]))
    assert rew.tolist() == [0.0] and done.tolist() == [False]
    assert "terminal_observation" not in infos[0]
    assert infos[0]["TimeLimit.truncated"] is False
    # the opponent's answer (cell 0) was played inside the step
    assert env.state.board[0].tolist() == [1, -1, -1, -1, 0, -1, -1, -1, -1]  # O a3, X b2


def test_masks_are_the_learner_seat_legal_moves_and_reach_maskable_ppo() -> None:
    env = make_env(n=6)
    env.reset()
    assert is_masking_supported(env)
    rng = np.random.default_rng(0)
    for _ in range(40):
        masks = get_action_masks(env)
        assert masks.shape == (6, 9) and masks.dtype == bool
        np.testing.assert_array_equal(masks, env.game.legal_mask(env.state))
        np.testing.assert_array_equal(masks, env.action_masks())
        assert masks.any(axis=1).all()
        env.step(random_legal(rng, masks))


def test_illegal_learner_action_raises_and_names_it() -> None:
    env = make_env(n=1, agent=FirstLegal())
    env.reset()
    set_positions(
        env,
        [
            "x...o....",
        ],
        [0],
    )
    before = env.state.board.copy()
    with pytest.raises(ValueError, match="illegal action 4"):
        env.step(np.array([4]))
    np.testing.assert_array_equal(env.state.board, before)


def test_seed_reproduces_the_rollout_and_seats_alternate() -> None:
    def rollout(seed: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
        env = make_env(n=5, seed=99)
        env.seed(seed)
        obs = env.reset()
        rng = np.random.default_rng(1)
        seen, rewards = [obs], []
        for _ in range(30):
            obs, rew, _, _ = env.step(random_legal(rng, env.action_masks()))
            seen.append(obs)
            rewards.append(rew)
        return seen, rewards

    a, ra = rollout(7)
    b, rb = rollout(7)
    c, _ = rollout(8)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert all(np.array_equal(x, y) for x, y in zip(ra, rb, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def test_learner_plays_both_seats() -> None:
    env = make_env(n=4)
    env.reset()
    assert sorted(env.learner_seat.tolist()) == [0, 0, 1, 1]
    rng = np.random.default_rng(3)
    seats = set()
    for _ in range(60):
        _, _, done, infos = env.step(random_legal(rng, env.action_masks()))
        seats |= {infos[i]["learner_seat"] for i in np.flatnonzero(done)}
    assert seats == {0, 1}


def test_opponent_pool_weights_and_parse_errors() -> None:
    assert parse_opponents("self:0.6, random:0.4") == [("self", 0.6), ("random", 0.4)]
    assert parse_opponents("heuristic") == [("heuristic", 1.0)]
    # one colon: name and weight; two or more: the weight after the last one
    assert parse_opponents("mcts:16") == [("mcts", 16.0)]
    assert parse_opponents("self:0.5,mcts:16:0.2") == [("self", 0.5), ("mcts:16", 0.2)]
    assert parse_opponents("policy:a:b.zip:1") == [("policy:a:b.zip", 1.0)]
    for bad, msg in [
        ("random:x", "not a number"),
        ("random:-1", ">= 0"),
        ("self:0", "weight > 0"),
        ("random,random", "twice"),
    ]:
        with pytest.raises(ValueError, match=msg):
            parse_opponents(bad)
    pool = OpponentPool(self_weight=0.5, max_snapshots=2)
    pool.add_baseline("random", RandomAgent(0), 0.5)
    for k in range(3):
        pool.add_snapshot(f"self@{k}", FirstLegal())
    p = pool.probabilities()
    # self@0 left the window of 2 snapshots; latest gets half of the self weight
    np.testing.assert_allclose(p, [0.5, 0.0, 0.25, 0.25])
    draws = pool.sample(4000, np.random.default_rng(0))
    assert 1 not in draws
    assert abs((draws == 0).mean() - 0.5) < 0.05


def test_virus_fight_three_players_learner_reward_and_masks() -> None:
    """Multi-player: two pool opponents per game; episodes end on the learner's elimination."""
    pytest.importorskip("envs.virus_fight.batch")
    from training.games import make_batch_game

    game = make_batch_game("virus_fight", 3)
    pool = OpponentPool()
    pool.add_baseline("random", RandomAgent(seed=5), 1.0)
    env = SelfPlayVecEnv(game, 6, pool, seed=0)
    env.reset()
    assert (env.opponent >= 0).sum(axis=1).tolist() == [2] * 6
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(400):
        masks = get_action_masks(env)
        assert masks.any(axis=1).all()
        assert (game.current_player(env.state) == env.learner_seat).all()
        _, rew, done, infos = env.step(random_legal(rng, masks))
        assert set(np.unique(rew)) <= {-1.0, 0.0, 1.0}
        assert (rew[~done] == 0).all()
        for i in np.flatnonzero(done):
            finished += 1
            assert infos[i]["terminal_observation"].shape == game.obs_shape
    assert finished > 0


def test_put_scatters_batch_major_and_entry_major_fields() -> None:
    """``put`` finds each array's batch axis: (B, ...) fields and (H, B) histories alike."""
    from dataclasses import dataclass

    @dataclass
    class S:
        a: np.ndarray  # (B,)
        hist: np.ndarray  # (H, B) entry-major, as Proteus's repetition history

    full = S(np.zeros(5), np.zeros((3, 5)))
    part = S(np.array([1.0, 2.0]), np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    put(full, np.array([4, 1]), part)
    assert full.a.tolist() == [0, 2, 0, 0, 1]
    assert full.hist[:, 4].tolist() == [1, 3, 5] and full.hist[:, 1].tolist() == [2, 4, 6]
    with pytest.raises(ValueError, match="cannot scatter field 'hist'"):
        put(full, np.array([0, 1]), S(np.zeros(2), np.zeros((4, 2))))


def test_mask_only_opponents_skip_the_observation_and_play_the_same_games() -> None:
    """``RandomAgent.needs_observation`` is False: the VecEnv hands it a (k, 0) placeholder
    instead of observing the opponents' seats, and the rollout is the one it gives when the
    observation is computed (the agent reads only the mask)."""

    def rollout(needs_observation: bool) -> tuple[list[np.ndarray], int]:
        agent = RandomAgent(seed=123)
        agent.needs_observation = needs_observation
        env = make_env(n=8, seed=5, agent=agent)
        calls = 0
        observe = env.game.observe

        def counted(state, seats):  # type: ignore[no-untyped-def]
            nonlocal calls
            calls += 1
            return observe(state, seats)

        env.game.observe = counted  # type: ignore[method-assign]
        rng = np.random.default_rng(0)
        seen = [env.reset()]
        for _ in range(30):
            obs, rew, done, _ = env.step(random_legal(rng, env.action_masks()))
            seen += [obs, rew, done]
        return seen, calls

    skipped, calls_skipped = rollout(False)
    observed, calls_observed = rollout(True)
    assert all(np.array_equal(a, b) for a, b in zip(skipped, observed, strict=True))
    assert calls_observed > calls_skipped  # the opponents' observations were skipped
