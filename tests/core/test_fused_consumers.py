"""Consumers on the fused learner step play the same games as on the plain protocol (#14 item 3).

Each consumer (the single-agent Gymnasium env, the ladder's ``TurnBasedRunner``, the SB3
self-play VecEnv) takes the fused path when the facade has the learner step
(``envs.core.batch.has_learner_step``): seat and mask from ``learner_view``, no second
legality check in ``step`` after the consumer's own mask check. Here every consumer runs
twice under the same seeds, once on the facade and once on :class:`Plain`, the same
facade with the learner step hidden (the protocol calls ``current_player``,
``legal_mask``, ``observe`` and the validated ``step``, as before the fused step): the
moves, rewards, endings and observations must agree.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from agents.random_agent import RandomAgent
from agents.registry import resolve
from agents.single_agent import MaskedSingleAgentEnv
from envs import registry
from envs.core.batch import has_learner_step
from envs.core.match import TurnBasedRunner
from training.opponents import OpponentPool
from training.vec_env import SelfPlayVecEnv

#: (game, players): every board game, Virus Fight with eliminations (VF-15/VF-16) too
GAMES = [("proteus", 2), ("virus_fight", 2), ("virus_fight", 3), ("virus_fight", 4)]


class Plain:
    """A facade with its fused learner step hidden: consumers take the plain protocol."""

    learner_buffers = learner_step = learner_view = decode = None

    def __init__(self, game: Any) -> None:
        self._game = game

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)


def test_the_board_facades_have_the_learner_step_and_plain_hides_it() -> None:
    for game, players in GAMES:
        facade = registry.make_batch(game, players)
        assert has_learner_step(facade)
        assert not has_learner_step(Plain(facade))


# ----------------------------------------------------------------------------- single agent


def _episodes(env: MaskedSingleAgentEnv, seeds: range, check_done: bool) -> list[Any]:
    rng = np.random.default_rng(7)
    trace: list[Any] = []
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        trace.append((obs.tobytes(), info["seat"], info["action_mask"].tobytes()))
        over = False
        while not over:
            a = int(rng.choice(np.flatnonzero(env.action_masks())))
            obs, reward, over, trunc, info = env.step(a)
            trace.append((obs.tobytes(), reward, over, trunc, info["opponent_moves"]))
            trace.append(info["action_mask"].tobytes())
            if check_done:  # the episode ends exactly when the protocol says the seat is done
                g, st = env.game, env._state
                done = g.seat_done(st)[0, env.seat] if hasattr(g, "seat_done") else None
                if done is None:
                    done = g.terminated(st)[0]
                assert over == bool(done)
    return trace


@pytest.mark.parametrize("game, players", GAMES)
def test_single_agent_env_same_episodes_fused_and_plain(game: str, players: int) -> None:
    kwargs: dict[str, Any] = {"num_players": players, "opponent": "random"}
    if players == 3:
        kwargs["opponent"] = ["random", "heuristic"]
    fused = MaskedSingleAgentEnv(game, **kwargs)
    plain = MaskedSingleAgentEnv(game, **kwargs)
    plain.game = Plain(plain.game)
    plain._fused = False
    assert fused._fused
    seeds = range(6 if game == "proteus" else 3)
    assert _episodes(fused, seeds, check_done=True) == _episodes(plain, seeds, check_done=False)


# ----------------------------------------------------------------------------- ladder runner


@pytest.mark.parametrize("game, players", GAMES)
def test_turn_based_runner_same_games_fused_and_plain(game: str, players: int) -> None:
    facade = registry.make_batch(game, players)
    names = ["random", "heuristic", "random", "heuristic"][:players]

    def play(g: Any) -> list[Any]:
        agents = [resolve(game, n)(10 + s) for s, n in enumerate(names)]
        return TurnBasedRunner(g).play(agents, seed=3, indices=np.arange(5, 17))

    a, b = play(facade), play(Plain(facade))
    assert len(a) == len(b) == 12
    for x, y in zip(a, b, strict=True):
        assert x.rewards.tolist() == y.rewards.tolist()
        assert x.finish.tolist() == y.finish.tolist()
        assert (x.length, x.moves, x.seats, x.digest) == (y.length, y.moves, y.seats, y.digest)


# ----------------------------------------------------------------------------- SB3 VecEnv


def _vec(game: Any, n: int) -> SelfPlayVecEnv:
    pool = OpponentPool()
    pool.add_baseline("random", RandomAgent(seed=5), 1.0)
    return SelfPlayVecEnv(game, n, pool, seed=11)


@pytest.mark.parametrize("game, players", GAMES)
def test_self_play_vec_env_same_rollout_fused_and_plain(game: str, players: int) -> None:
    facade = registry.make_batch(game, players)
    fused, plain = _vec(facade, 12), _vec(Plain(facade), 12)
    assert fused._fused and not plain._fused
    # decode rounds a fraction plane (turn / round count) down to steps of 1/255
    step = 1.0 / 255.0
    obs_f: Any = fused.reset()
    obs_p: Any = plain.reset()
    rng = np.random.default_rng(2)
    for _ in range(60):
        np.testing.assert_allclose(obs_f, obs_p, atol=step + 1e-6)
        mask = fused.action_masks()
        assert (mask == plain.action_masks()).all()
        scores = rng.random(mask.shape)
        scores[~mask] = -1.0
        act = scores.argmax(axis=1)
        obs_f, rew_f, done_f, info_f = fused.step(act)
        obs_p, rew_p, done_p, info_p = plain.step(act)
        assert rew_f.tolist() == rew_p.tolist() and done_f.tolist() == done_p.tolist()
        for i_f, i_p in zip(info_f, info_p, strict=True):
            if "terminal_observation" in i_p:  # float planes on both sides
                assert (i_f.pop("terminal_observation") == i_p.pop("terminal_observation")).all()
            assert i_f == i_p
    assert fused.opponent_decisions == plain.opponent_decisions


def test_self_play_vec_env_refuses_an_illegal_learner_action_and_keeps_the_state() -> None:
    env = _vec(registry.make_batch("virus_fight", 2), 4)
    env.reset()
    mask = env.action_masks()
    act = mask.argmax(axis=1)
    act[2] = int(np.flatnonzero(~mask[2])[0])
    before = [a.copy() for a in env.state.arrays()]
    with pytest.raises(ValueError, match="illegal action .* in game 2"):
        env.step(act)
    with pytest.raises(ValueError, match="illegal action 99999 for the learner in game 0"):
        env.step(np.full(4, 99999))
    assert all((x == y).all() for x, y in zip(before, env.state.arrays(), strict=True))
    env.step(mask.argmax(axis=1))  # the mask still holds: a legal step goes through
