"""Moon Shot games for the ladder (the match protocol of ``envs/core/match.py``).

All games of a seating advance together: each turn, the agents act on the sub-batch of
games where their seat shoots, then the batch facade's turn loop
(:meth:`~envs.moon_shot.batch.MoonShotBatch.shoot`) simulates and scores every shot of
the turn in ONE batched physics call and applies MS-14..MS-17. Shot noise comes from each
game's key exactly as in the AEC env (``shot_seeds(key, turn)``). Formerly
``training/ladder_moon_shot.py`` (that path still imports, through the registry's aliases).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from envs.core.agent import ActContext, Agent
from envs.core.match import GameOutcome, IllegalActionError
from envs.core.records import record_shots, state_digest
from envs.moon_shot.batch import MoonShotBatch, MoonShotConfig
from envs.moon_shot.state import GameState


def group_actions(
    facade: MoonShotBatch,
    sub: GameState,
    seats: np.ndarray,
    groups: np.ndarray,
    agent_of: Callable[[int], Agent],
    strict: bool = True,
) -> np.ndarray:
    """(n, 4) shots for the n games of ``sub``, each from the agent of its group.

    Why one function: the ladder (groups = seats) and the training opponents (groups =
    pool entries) both let every agent act once on the sub-batch of games it shoots in,
    with the facade and its state as context for agents that search. Agents are asked
    in ascending group order. ``strict`` (the ladder): an action that is not finite,
    not of shape (k, 4) or outside [-1, 1]^4 (MS-5) is an :class:`IllegalActionError`;
    otherwise (training) it is clipped to [-1, 1].
    """
    obs = facade.observe(sub, seats)
    actions = np.zeros((len(seats), 4), np.float64)
    for g in np.unique(groups):
        sel = np.flatnonzero(groups == g)
        agent = agent_of(int(g))
        ctx = None
        if getattr(agent, "needs_context", False):
            ctx = ActContext(game=facade, state=facade.take(sub, sel), seats=seats[sel])
        a = np.asarray(agent.act(obs[sel], None, ctx), np.float64)
        if not strict:
            a = np.clip(a.reshape(len(sel), 4), -1.0, 1.0)
        elif a.shape != (len(sel), 4) or not np.all(np.isfinite(a)) or np.any(np.abs(a) > 1):
            raise IllegalActionError(
                f"agent {agent.name!r} (seat {int(seats[sel[0]])}) answered an action outside "
                f"[-1, 1]^4 (shape {a.shape}) in {facade.name}"
            )
        actions[sel] = a
    return actions


class MoonShotRunner:
    """Ladder runner for turn-based Moon Shot with ``players`` seats (2..8, MS-14)."""

    def __init__(self, players: int = 2, **config: object) -> None:
        cfg = MoonShotConfig(num_players=players, **config)  # type: ignore[arg-type]
        cfg.check_players()
        self.facade = MoonShotBatch(cfg)
        self.num_players = int(players)
        extra = ",".join(f"{k}={v}" for k, v in sorted(config.items()))
        self.config = f"players={players}" + (f",{extra}" if extra else "")

    def play(self, agents: Sequence[Agent], seed: int, indices: np.ndarray) -> list[GameOutcome]:
        from envs.moon_shot.state import derive_keys, shot_seeds

        p = self.num_players
        if len(agents) != p:
            raise ValueError(f"moon_shot needs {p} agents, got {len(agents)}")
        indices = np.asarray(indices, np.int64)
        n = len(indices)
        if n == 0:
            return []
        keys = derive_keys(seed, int(indices.max()) + 1)[indices]
        facade = self.facade
        state = facade.new_games(keys)
        shots: list[list[dict]] = [[] for _ in range(n)]  # the game records' shots
        while not state.done.all():
            alive = np.flatnonzero(~state.done)
            seats = state.seat[alive].astype(np.int64)
            sub = facade.take(state, alive)
            actions = np.zeros((n, 4), np.float64)
            actions[alive] = group_actions(facade, sub, seats, seats, agents.__getitem__)
            seeds = shot_seeds(state.key[alive], state.turn[alive])
            result = facade.shoot(state, actions)  # the turn loop: one physics call, MS-14..MS-17
            record_shots(shots, alive, seats, actions[alive], seeds, result)
        return [
            GameOutcome(
                state.rewards[i].astype(np.float64),
                np.zeros(p),
                int(state.turn[i]),
                moves=[s["action"] for s in shots[i]],
                seats=[s["seat"] for s in shots[i]],
                digest=state_digest(state, i),
                shots=shots[i],
            )
            for i in range(n)
        ]
