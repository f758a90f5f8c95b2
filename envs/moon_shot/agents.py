"""Moon Shot agents: a calibrated aim and a noise-aware planner, plus the facade they search with.

Both agents search with the physics (``MoonShotBatch.simulate``: one batched
``physics.simulate`` call) at *their own* noise seeds, drawn from their own generators;
they never see the environment's shot seeds (``game.shot_seeds(key, turn)``), so they plan
against the noise distribution, not against the noise that will happen.

* :class:`CalibratedAimAgent` aims straight down the tube axis (theta = 0, MS-3/MS-5) with
  the speed, strike height and spin that score best at the game's tube distance. They are
  chosen once per configuration by an offline grid search (:func:`calibration_table`:
  ``speeds x heights x spins`` candidates, ``samples`` own noise seeds each) maximising
  ``E[points] + 2 P(colony) - 4 P(crack)``; the table is cached per configuration and
  calibration seed, so every instance of a ladder shares it.
* :class:`PlannerAgent` scores every candidate of the same table for the *current game
  state* (:func:`state_values`: a colony is worth +1 if it leaves us on top, else -1
  (MS-14); a crack +1 if we have the fewest points, else -1 (MS-15); a landing ``0.25``
  per point; nothing 0), then refines the best one by a few rounds of the cross-entropy
  method (CEM): ``population`` Gaussian perturbations, each simulated at ``samples`` fresh
  own seeds, the ``elite`` best refit the mean and spread. All games of a batch share one
  physics call per round. It plays the best mean-value action it evaluated.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from envs.core.agent import ActContext, Agent
from envs.moon_shot.batch import MoonShotBatch

LANDING_VALUE = 0.25  # value of one point that does not end the game (planner)


#: The facade the search agents and the ladder use (configuration, shots, observations):
#: Moon Shot's batch facade; the old name stays as an alias.
MoonShotFacade = MoonShotBatch


@dataclass(frozen=True)
class CalibrationTable:
    """Candidate actions and their simulated outcomes at ``samples`` own noise seeds each."""

    actions: np.ndarray  # (M, 4)
    points: np.ndarray  # (M, K) int
    colony: np.ndarray  # (M, K) bool
    crack: np.ndarray  # (M, K) bool

    def aim_scores(self) -> np.ndarray:
        """The aim agent's state-free objective per candidate."""
        return self.points.mean(1) + 2.0 * self.colony.mean(1) - 4.0 * self.crack.mean(1)


_TABLES: dict[tuple[Any, ...], CalibrationTable] = {}


def calibration_table(
    facade: MoonShotFacade,
    speeds: int = 9,
    heights: int = 5,
    spins: int = 3,
    samples: int = 12,
    seed: int = 0,
) -> CalibrationTable:
    """The offline grid search (cached per configuration, grid and seed)."""
    key = (repr(facade.config), speeds, heights, spins, samples, seed)
    if key not in _TABLES:
        grid = itertools.product(
            [0.0],
            np.linspace(-1, 1, speeds),
            np.linspace(-1, 1, heights),
            np.linspace(-1, 1, spins),
        )
        cands = np.array(list(grid), np.float64)
        seeds = np.random.default_rng(seed).integers(0, 2**63, size=samples).astype(np.uint64)
        shots = facade.simulate(np.repeat(cands, samples, axis=0), np.tile(seeds, len(cands)))
        sc = shots.score
        _TABLES[key] = CalibrationTable(
            actions=cands,
            points=np.asarray(sc.points).reshape(len(cands), samples),
            colony=np.asarray(sc.colony, bool).reshape(len(cands), samples),
            crack=np.asarray(sc.crack, bool).reshape(len(cands), samples),
        )
    return _TABLES[key]


def state_values(
    points: np.ndarray,
    colony: np.ndarray,
    crack: np.ndarray,
    mine: np.ndarray,
    best_other: np.ndarray,
    worst_other: np.ndarray,
) -> np.ndarray:
    """Value of shot outcomes for a shooter with ``mine`` points (see module docstring).

    Arrays broadcast: outcome arrays (..., K) against per-game scores (..., 1).
    """
    colony_win = mine + points >= best_other  # MS-14: the colonist wins ties at the top
    crack_win = mine <= worst_other  # MS-15: the cracker wins ties at the bottom
    return np.where(
        crack,
        np.where(crack_win, 1.0, -1.0),
        np.where(colony, np.where(colony_win, 1.0, -1.0), LANDING_VALUE * points),
    )


def _check_context(context: ActContext | None, who: str) -> ActContext:
    if context is None or not hasattr(context.game, "simulate"):
        raise ValueError(f"{who} needs an ActContext with the Moon Shot facade")
    return context


class CalibratedAimAgent(Agent):
    """Straight at the tube with the calibrated speed, height and spin (module docstring)."""

    needs_context = True
    name = "aim"

    def __init__(self, seed: int | None = 0, calibration_seed: int = 0, samples: int = 12) -> None:
        self.calibration_seed = calibration_seed
        self.samples = samples

    def best_action(self, facade: MoonShotFacade) -> np.ndarray:
        table = calibration_table(facade, samples=self.samples, seed=self.calibration_seed)
        return table.actions[int(np.argmax(table.aim_scores()))].astype(np.float32)

    def act(
        self, obs: np.ndarray, mask: np.ndarray | None, context: ActContext | None = None
    ) -> np.ndarray:
        ctx = _check_context(context, "CalibratedAimAgent")
        return np.tile(self.best_action(ctx.game), (len(obs), 1))


class PlannerAgent(Agent):
    """State-aware candidate choice plus CEM refinement at its own seeds (module docstring)."""

    needs_context = True
    name = "planner"

    def __init__(
        self,
        seed: int | None = 0,
        iterations: int = 2,
        population: int = 16,
        samples: int = 8,
        elite: int = 4,
        sigma: float = 0.15,
        calibration_seed: int = 0,
        table_samples: int = 12,
    ) -> None:
        self.rng = np.random.default_rng(seed)
        self.iterations = iterations
        self.population = population
        self.samples = samples
        self.elite = elite
        self.sigma = sigma
        self.calibration_seed = calibration_seed
        self.table_samples = table_samples

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(
        self, obs: np.ndarray, mask: np.ndarray | None, context: ActContext | None = None
    ) -> np.ndarray:
        ctx = _check_context(context, "PlannerAgent")
        facade, state = ctx.game, ctx.state
        seats = np.asarray(ctx.seats, np.int64)
        n = len(seats)
        scores = np.asarray(state.scores, np.int64)
        rows = np.arange(n)
        mine = scores[rows, seats].astype(np.float64)
        others = scores.astype(np.float64).copy()
        others[rows, seats] = np.nan
        best_other = np.nanmax(others, axis=1)
        worst_other = np.nanmin(others, axis=1)
        table = calibration_table(facade, samples=self.table_samples, seed=self.calibration_seed)
        # (n, M) expected state value of every table candidate
        v = state_values(
            table.points[None],
            table.colony[None],
            table.crack[None],
            mine[:, None, None],
            best_other[:, None, None],
            worst_other[:, None, None],
        ).mean(axis=2)
        pick = v.argmax(axis=1)
        best_a = table.actions[pick].copy()  # (n, 4)
        best_v = v[rows, pick]
        mean = best_a.copy()
        std = np.full((n, 4), self.sigma)
        p, k = self.population, self.samples
        for _ in range(self.iterations):
            cand = np.clip(
                mean[:, None, :] + std[:, None, :] * self.rng.standard_normal((n, p, 4)), -1, 1
            )
            seeds = self.rng.integers(0, 2**63, size=(n, p, k)).astype(np.uint64)
            shots = facade.simulate(np.repeat(cand.reshape(-1, 4), k, axis=0), seeds.reshape(-1))
            sc = shots.score
            vals = state_values(
                np.asarray(sc.points).reshape(n, p, k),
                np.asarray(sc.colony, bool).reshape(n, p, k),
                np.asarray(sc.crack, bool).reshape(n, p, k),
                mine[:, None, None],
                best_other[:, None, None],
                worst_other[:, None, None],
            ).mean(axis=2)  # (n, p)
            order = np.argsort(-vals, axis=1)
            top = order[:, : self.elite]
            elite = cand[rows[:, None], top]  # (n, e, 4)
            mean = elite.mean(axis=1)
            std = np.maximum(elite.std(axis=1), 0.02)
            better = vals[rows, order[:, 0]] > best_v
            best_a[better] = cand[rows[better], order[better, 0]]
            best_v[better] = vals[rows[better], order[better, 0]]
        return best_a.astype(np.float32)
