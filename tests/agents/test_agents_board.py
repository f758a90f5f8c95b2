"""Board-game agents: legality over many games, strength against RandomAgent, MCTS details.

Strength tests are seat-swapped (half the games in each seat) and seeded, so they are
deterministic; the sample sizes are chosen so that an agent whose true win rate were at the
threshold would fail them with high probability (figures in docs/agents.md).
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import ActContext, Agent
from agents.mcts import MCTSAgent
from agents.random_agent import RandomAgent, sample_legal
from agents.registry import make_agent
from agents.rollout import random_playout
from envs.proteus.batch import ProteusBatch
from envs.proteus.heuristic import ProteusHeuristicAgent
from envs.virus_fight.batch import VirusFightBatch
from envs.virus_fight.heuristic import VirusFightHeuristicAgent
from tests.tictactoe import TicTacToe
from training.ladder import IllegalActionError, TurnBasedRunner


class MaskRecorder(Agent):
    """Wraps an agent and checks every answer against its mask (independently of the runner)."""

    def __init__(self, inner: Agent) -> None:
        self.inner = inner
        self.name = inner.name
        self.needs_context = inner.needs_context
        self.decisions = 0

    def act(self, obs, mask, context=None):  # type: ignore[no-untyped-def]
        a = self.inner.act(obs, mask, context)
        assert a.shape == (len(mask),)
        assert mask[np.arange(len(mask)), a].all(), f"{self.name} played an illegal action"
        self.decisions += len(mask)
        return a


def play(game, agents, n, seed=0):  # type: ignore[no-untyped-def]
    """(n, P) rewards of n games with agents[s] in seat s."""
    out = TurnBasedRunner(game).play(agents, seed, np.arange(n))
    return np.array([o.rewards for o in out])


def win_rate_vs_random(game, make, n_per_seat: int, seed: int = 0) -> float:  # type: ignore[no-untyped-def]
    """Share of games won by ``make(seed)`` against random opponents, seat-rotated."""
    wins = 0
    for seat in range(game.num_players):
        agents: list[Agent] = [RandomAgent(100 + seed + s) for s in range(game.num_players)]
        agents[seat] = make(seed + seat)
        r = play(game, agents, n_per_seat, seed=seed + 7 * seat)
        wins += int((r[:, seat] > 0).sum())
    return wins / (n_per_seat * game.num_players)


GAMES = {
    "proteus": lambda: ProteusBatch(),
    "vf2": lambda: VirusFightBatch(2),
    "vf3": lambda: VirusFightBatch(3),
    "vf4": lambda: VirusFightBatch(4),
}
HEURISTIC = {
    "proteus": ProteusHeuristicAgent,
    "vf2": VirusFightHeuristicAgent,
    "vf3": VirusFightHeuristicAgent,
    "vf4": VirusFightHeuristicAgent,
}


def test_sample_legal_only_picks_legal_and_rejects_empty_rows() -> None:
    rng = np.random.default_rng(0)
    mask = np.zeros((500, 7), bool)
    mask[np.arange(500), rng.integers(0, 7, 500)] = True
    mask[::3, 2] = True
    a = sample_legal(rng, mask)
    assert mask[np.arange(500), a].all()
    with pytest.raises(ValueError, match="no legal action"):
        sample_legal(rng, np.zeros((2, 7), bool))


def test_random_agent_is_uniform_and_seeded() -> None:
    mask = np.zeros((20000, 5), bool)
    mask[:, [0, 2, 3]] = True
    a = RandomAgent(1).act(np.zeros((20000, 1)), mask)
    counts = np.bincount(a, minlength=5)
    assert counts[1] == counts[4] == 0
    assert np.all(np.abs(counts[[0, 2, 3]] / 20000 - 1 / 3) < 0.02)
    b = RandomAgent(1).act(np.zeros((20000, 1)), mask)
    assert np.array_equal(a, b)
    c = RandomAgent(1).act(np.zeros((7, 1)), None)  # Moon Shot: the [-1, 1]^4 box
    assert c.shape == (7, 4) and c.dtype == np.float32 and np.all(np.abs(c) <= 1)


def test_runner_rejects_an_illegal_agent() -> None:
    class Bad(Agent):
        name = "bad"

        def act(self, obs, mask, context=None):  # type: ignore[no-untyped-def]
            return np.argmin(mask, axis=1)  # an illegal action whenever one exists

    with pytest.raises(IllegalActionError, match="bad"):
        play(TicTacToe(), [RandomAgent(0), Bad()], 4)


@pytest.mark.parametrize("game_key", sorted(GAMES))
def test_random_and_heuristic_agents_never_play_illegal_actions(game_key: str) -> None:
    game = GAMES[game_key]()
    p = game.num_players
    rec = [MaskRecorder(RandomAgent(s)) for s in range(p)]
    r = play(game, rec, 120, seed=3)
    assert all(x.decisions > 0 for x in rec)
    assert np.all(np.isin(r, (-1.0, 0.0, 1.0)))
    mixed = [
        MaskRecorder(HEURISTIC[game_key](seed=s) if s % 2 == 0 else RandomAgent(s))
        for s in range(p)
    ]
    play(game, mixed, 40, seed=4)
    assert mixed[0].decisions > 0


@pytest.mark.slow
@pytest.mark.parametrize("game_key", sorted(GAMES))
def test_mcts_never_plays_illegal_actions(game_key: str) -> None:
    game = GAMES[game_key]()
    p = game.num_players
    # short playouts: legality does not depend on how far the playouts run
    agents = [
        MaskRecorder(
            MCTSAgent(simulations=12, max_rollout_steps=40, seed=s) if s == 0 else RandomAgent(s)
        )
        for s in range(p)
    ]
    play(game, agents, 6, seed=5)
    assert agents[0].decisions > 0


@pytest.mark.slow
@pytest.mark.parametrize(("game_key", "n_per_seat"), [("proteus", 60), ("vf2", 60), ("vf3", 30)])
def test_heuristic_beats_random_at_least_80_percent(game_key: str, n_per_seat: int) -> None:
    game = GAMES[game_key]()
    rate = win_rate_vs_random(game, lambda s: HEURISTIC[game_key](seed=s), n_per_seat)
    assert rate >= 0.80, f"heuristic won only {rate:.0%} against random in {game_key}"


def test_mcts_beats_random_at_tictactoe() -> None:
    # 40 games per seat at 40 playouts: random wins about 1 in 20 against it, and a draw
    # is the best random can hope for in most games.
    game = TicTacToe()
    for seat in (0, 1):
        agents: list[Agent] = [RandomAgent(11), RandomAgent(12)]
        agents[seat] = MCTSAgent(simulations=40, seed=seat)
        r = play(game, agents, 40, seed=seat)
        assert (r[:, seat] > 0).mean() >= 0.6
        assert (r[:, seat] < 0).mean() <= 0.15


@pytest.mark.slow
def test_mcts_beats_random_at_virus_fight() -> None:
    rate = win_rate_vs_random(VirusFightBatch(2), lambda s: MCTSAgent(simulations=30, seed=s), 10)
    assert rate >= 0.75, f"mcts:30 won only {rate:.0%} against random in Virus Fight"


def test_mcts_takes_a_win_in_one_and_blocks_a_loss_in_one() -> None:
    game = TicTacToe()
    st = game.init(2, 0)
    # game 0: seat 0 (X) to move with X X . in the top row -> must play 2
    # game 1: seat 0 to move, O threatens 6-7-8 and X has no win -> must block at 8
    st.board[0, [0, 1, 4, 3]] = [0, 0, 1, 1]
    st.board[1, [0, 5, 6, 7]] = [0, 0, 1, 1]
    seats = game.current_player(st)
    agent = MCTSAgent(simulations=300, seed=0)
    a = agent.act(game.observe(st, seats), game.legal_mask(st), ActContext(game, st, seats))
    assert a[0] == 2
    assert a[1] == 8


def test_mcts_per_seat_backup_three_players() -> None:
    # 3-seat tic-tac-toe: seat 1 to move can complete 3-4-5 at once.
    game = TicTacToe(num_players=3)
    st = game.init(1, 0)
    st.board[0, [3, 4, 0, 8, 1]] = [1, 1, 0, 2, 2]
    st.player[0] = 1
    seats = game.current_player(st)
    a = MCTSAgent(simulations=200, seed=1).act(
        game.observe(st, seats), game.legal_mask(st), ActContext(game, st, seats)
    )
    assert a[0] == 5


def test_mcts_determinizes_hidden_setup_and_never_sees_the_hidden_program() -> None:
    # During Virus Fight's setup (VF-11) seat 1's search must not depend on seat 0's
    # program: two games that differ only in seat 0's hidden program get the same answer
    # from identically seeded searches.
    game = VirusFightBatch(2)
    st = game.init(2, 0)
    put0 = 0
    n = game.board_size * game.board_size
    bottom = (game.board_size - 1) * game.board_size
    # seat 0 writes a one-instruction program at different cells with different pieces
    game.step(st, np.array([put0 + 0 * n + bottom, put0 + 11 * n + bottom + 3]))
    mask = game.legal_mask(st)
    marker = np.flatnonzero(mask[0])[-1]
    marker1 = np.flatnonzero(mask[1])[-1]
    game.step(st, np.array([marker, marker1]))
    assert np.array_equal(game.current_player(st), [1, 1])
    obs = game.observe(st, np.array([1, 1]))
    assert np.array_equal(obs[0], obs[1]), "the observation must hide seat 0's program"
    answers = []
    for i in (0, 1):
        sub = game.take(st, np.array([i]))
        agent = MCTSAgent(simulations=40, determinizations=2, seed=9)
        answers.append(
            int(
                agent.act(
                    obs[i : i + 1], game.legal_mask(sub), ActContext(game, sub, np.array([1]))
                )[0]
            )
        )
    assert answers[0] == answers[1]


def test_random_playout_copies_play_different_games() -> None:
    game = VirusFightBatch(2)
    st = game.take(game.init(1, 0), np.zeros(64, np.int64))  # 64 copies of one game
    r = random_playout(game, st, np.random.default_rng(0))
    assert r.shape == (64, 2)
    assert len(np.unique(r[:, 0])) > 1  # copies share a key; reseeding must decorrelate them


def test_registry_makes_every_board_agent_and_rejects_bad_names() -> None:
    for game in ("proteus", "virus_fight"):
        for name in ("random", "heuristic", "mcts", "mcts:7"):
            assert make_agent(game, name, 0).name == name
    assert make_agent("proteus", "mcts:7").simulations == 7  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("proteus", "alphazero")
    with pytest.raises(ValueError, match="integer"):
        make_agent("proteus", "mcts:many")
    with pytest.raises(ValueError, match="unknown game"):
        make_agent("chess", "random")


def test_concat_follows_each_fields_game_axis() -> None:
    from dataclasses import dataclass

    from agents.rollout import batch_axes, concat

    @dataclass
    class S:
        a: np.ndarray  # (B, 2)
        hist: np.ndarray  # (H, B): games on the second axis

    class G:
        def take(self, s: S, idx: np.ndarray) -> S:
            return S(s.a[idx], s.hist[:, idx])

    g = G()
    s1 = S(np.array([[1, 2]]), np.array([[10], [11], [12]]))
    s2 = S(np.array([[3, 4]]), np.array([[20], [21], [22]]))
    assert batch_axes(g, s1) == {"a": 0, "hist": 1}
    c = concat(g, [s1, s2])
    assert c.a.tolist() == [[1, 2], [3, 4]]
    assert c.hist.tolist() == [[10, 20], [11, 21], [12, 22]]


def test_safe_actions_removes_moves_that_allow_a_win_in_one() -> None:
    from agents.mcts import safe_actions

    game = TicTacToe()
    st = game.init(1, 0)
    # X (seat 0) on 0 and 8, O on 1 and 4 threatening 1-4-7; X to move: only 7 is safe
    st.board[0, [0, 8, 1, 4]] = [0, 0, 1, 1]
    safe = safe_actions(game, st, 0)
    assert np.flatnonzero(safe).tolist() == [7]
