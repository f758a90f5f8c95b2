"""The match protocol: play batches of games between seated agents.

Below both ``agents/`` and ``training/`` so that measuring an agent (``agents.measure``),
the ladder, evaluation and the demo share one runner without importing upward. A
*runner* plays games ``indices`` of the series seeded by ``seed`` with ``agents[s]`` in
seat ``s`` and returns one :class:`GameOutcome` per game. :class:`TurnBasedRunner` plays
any turn-based facade of the batch-game protocol (``envs/core/batch.py``); a game whose
turn loop is its own (continuous actions) names its runner in its registry entry
(``envs/registry.py``), and :func:`make_runner` builds whichever the entry says.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from envs.core.agent import ActContext, Agent
from envs.core.batch import LearnerBuffers, has_learner_step
from envs.core.records import split_trace, state_digest

#: Below this many games per kernel call, search and ladder loops run Numba single-threaded:
#: a ``prange`` over a few dozen games costs more in thread wake-ups than it saves (measured
#: 17x faster MCTS playouts on the 2-core machine under load).
SMALL_BATCH = 1024


@contextlib.contextmanager
def numba_threads(n: int | None) -> Iterator[None]:
    """Run the block with ``n`` Numba threads (None: leave as is); restores the setting."""
    if n is None:
        yield
        return
    import numba

    from envs.core.threads import start_numba_pool

    start_numba_pool()  # before numba.get_num_threads(): its start could raise torch's count
    old = numba.get_num_threads()
    numba.set_num_threads(max(1, min(n, old)))
    try:
        yield
    finally:
        numba.set_num_threads(old)


class IllegalActionError(RuntimeError):
    """An agent answered an action its mask forbids (a bug in that agent)."""


@dataclass
class GameOutcome:
    """Result of one played game: per-seat reward and a tie-break (later/higher is better)."""

    rewards: np.ndarray  # (P,) float
    finish: np.ndarray  # (P,) float: step a seat's game ended (or points)
    length: int  # decisions (turn-based games) or shots played
    # the game record's raw material (envs/core/records.py): action and seat per move,
    # final-state digest; a game with its own turn loop: one dict per move (``shots``)
    moves: list[Any] = field(default_factory=list)
    seats: list[int] = field(default_factory=list)
    digest: str = ""
    shots: list[dict[str, Any]] = field(default_factory=list)


class Runner(Protocol):
    """Plays batches of games between seated agents for one game configuration."""

    num_players: int
    config: str

    def play(self, agents: Sequence[Agent], seed: int, indices: np.ndarray) -> list[GameOutcome]:
        """Games ``indices`` of the series seeded by ``seed``, agents[s] in seat s."""
        ...


class TurnBasedRunner:
    """Plays a BatchGame (envs/core/batch.py): all games advance together, each agent acts
    on the sub-batch of games where its seat is to move; finished games leave the batch."""

    def __init__(self, game: Any, config: str | None = None) -> None:
        self.game = game
        self.num_players = int(game.num_players)
        self.config = config or f"players={self.num_players}"

    def play(self, agents: Sequence[Agent], seed: int, indices: np.ndarray) -> list[GameOutcome]:
        """Games ``indices`` of the series ``seed``; raises IllegalActionError on a bad move."""
        game = self.game
        if len(agents) != self.num_players:
            raise ValueError(f"{game.name} needs {self.num_players} agents, got {len(agents)}")
        indices = np.asarray(indices, np.int64)
        n = len(indices)
        if n == 0:
            return []
        with numba_threads(1 if n < SMALL_BATCH else None):
            return self._play(agents, seed, indices)

    def _to_move(
        self, state: Any, view: LearnerBuffers | None, k: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """(seats to act (B,), their masks (B, A) bool) of a batch of running games.

        A facade with the fused learner step writes both in one kernel call into rows of
        buffers allocated once per series (the batch only shrinks as games finish).
        """
        game = self.game
        if view is None:
            seats = np.asarray(game.current_player(state), np.int64)
            if (seats < 0).any():
                raise RuntimeError(f"{game.name}: a game in the batch has no seat to act")
            return seats, np.asarray(game.legal_mask(state), bool)
        rows = LearnerBuffers(*(getattr(view, f.name)[:k] for f in dataclasses.fields(view)))
        game.learner_view(state, rows)
        return rows.seat, rows.mask

    def _act(
        self,
        agents: Sequence[Agent],
        state: Any,
        indices: np.ndarray,
        view: LearnerBuffers | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(one legal action per game of ``state`` from the agent of its seat, the seats)."""
        game = self.game
        seats, mask = self._to_move(state, view, len(indices))
        obs = game.observe(state, seats)
        actions = np.zeros(len(seats), np.int64)
        for s, agent in enumerate(agents):
            sel = np.flatnonzero(seats == s)
            if len(sel) == 0:
                continue
            ctx = None
            if agent.needs_context:
                ctx = ActContext(game=game, state=game.take(state, sel), seats=seats[sel])
            a = np.asarray(agent.act(obs[sel], mask[sel], ctx), np.int64).reshape(-1)
            ok = (a >= 0) & (a < mask.shape[1])
            ok[ok] = mask[sel[ok], a[ok]]
            if not ok.all():
                bad = int(np.flatnonzero(~ok)[0])
                raise IllegalActionError(
                    f"agent {agent.name!r} (seat {s}) chose illegal action {int(a[bad])}"
                    f" in {game.name} game {int(indices[sel[bad]])}"
                )
            actions[sel] = a
        return actions, seats

    def _play(self, agents: Sequence[Agent], seed: int, indices: np.ndarray) -> list[GameOutcome]:
        game = self.game
        n = len(indices)
        state = game.take(game.init(int(indices.max()) + 1, seed), indices)
        p = self.num_players
        total = np.zeros((n, p), np.float64)
        finish = np.full((n, p), -1.0)
        length = np.zeros(n, np.int64)
        alive = np.arange(n)
        t = 0
        trace = []  # (games, actions, seats) per step, for the game records
        digests = [""] * n
        fused = has_learner_step(game)
        view = game.learner_buffers(n) if fused else None  # rows reused as the batch shrinks
        while len(alive):
            actions, movers = self._act(agents, state, indices[alive], view)
            trace.append((alive, actions, movers.copy()))
            if fused:  # every action was checked against the kernel's mask in _act
                rewards, done = game.step(state, actions, validate=False)
            else:
                rewards, done = game.step(state, actions)
            t += 1
            total[alive] += rewards
            length[alive] += 1
            got = (np.asarray(rewards) != 0) & (finish[alive] < 0)
            done = np.asarray(done, bool)
            got |= done[:, None] & (finish[alive] < 0)
            f = finish[alive]
            f[got] = t
            finish[alive] = f
            if done.any():
                for j in np.flatnonzero(done).tolist():
                    digests[int(alive[j])] = state_digest(state, j)
                keep = np.flatnonzero(~done)
                alive = alive[keep]
                if len(alive):
                    state = game.take(state, keep)
        moves, seats = split_trace(trace, n)
        return [
            GameOutcome(total[i], finish[i], int(length[i]), moves[i], seats[i], digests[i])
            for i in range(n)
        ]


def turn_based_runner(game: str, players: int | None = None) -> TurnBasedRunner:
    """A :class:`TurnBasedRunner` over the registered batch facade of ``game``."""
    from envs import registry

    facade = registry.make_batch(game, players)
    return TurnBasedRunner(facade, config=f"players={facade.num_players}")


def make_runner(game: str, players: int | None = None) -> Runner:
    """The runner of a registered game: its entry's ``runner``, else a TurnBasedRunner."""
    from envs import registry

    spec = registry.get(game)
    if players is not None:
        spec.check_players(players)
    if spec.runner is None:
        return turn_based_runner(game, players)
    return registry.load(spec.runner)(players if players is not None else spec.default_players)
