"""Moon Shot games for the ladder (the match protocol of ``envs/core/match.py``).

All games of a seating advance together: each turn, the agents act on the sub-batch of
games where their seat shoots, then the batch facade's turn loop
(:meth:`~envs.moon_shot.batch.MoonShotBatch.shoot`) simulates and scores every shot of
the turn in ONE batched physics call and applies MS-14..MS-17. Shot noise comes from each
game's key exactly as in the AEC env (``shot_seeds(key, turn)``). Formerly
``training/ladder_moon_shot.py`` (that path still imports, through the registry's aliases).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from envs.core.agent import ActContext, Agent
from envs.core.match import GameOutcome, IllegalActionError
from envs.core.records import record_shots, state_digest
from envs.moon_shot.batch import MoonShotBatch, MoonShotConfig


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
            obs = facade.observe(sub, seats)
            actions = np.zeros((n, 4), np.float64)
            for s, agent in enumerate(agents):
                sel = np.flatnonzero(seats == s)
                if len(sel) == 0:
                    continue
                ctx = None
                if agent.needs_context:
                    ctx = ActContext(game=facade, state=facade.take(sub, sel), seats=seats[sel])
                a = np.asarray(agent.act(obs[sel], None, ctx), np.float64)
                if a.shape != (len(sel), 4) or not np.all(np.isfinite(a)) or np.any(np.abs(a) > 1):
                    raise IllegalActionError(
                        f"agent {agent.name!r} (seat {s}) answered an action outside [-1, 1]^4"
                        f" (shape {a.shape}) in moon_shot"
                    )
                actions[alive[sel]] = a
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
