"""What a game's trainer hands the run (:class:`TrainerSetup`) and the opponent pool.

Below both the run plumbing (``training/run.py``) and the per-game setups
(``training/selfplay.py``, a game's own trainer) so neither imports the other.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from training.config import DEFAULT_OPPONENTS, TrainConfig


@dataclass
class TrainerSetup:
    """What a game's trainer hands the run: algorithm, env, pool, how to make a model."""

    algo: Any  # an SB3 algorithm class (``load`` restores a saved run)
    venv: Any  # the SB3 VecEnv (before VecMonitor)
    pool: Any | None  # the OpponentPool, or None when there are no opponents
    build: Callable[[Any], Any]  # (monitored env) -> a fresh model
    describe: str = ""  # one line for the start of the run
    after_load: Callable[[Any, Path], None] | None = None  # e.g. reload SAC's replay buffer


def build_pool(cfg: TrainConfig, game_name: str) -> Any:
    """The opponent pool of a run: baselines now, snapshots added by the trainer."""
    from agents import registry
    from training.opponents import OpponentPool, parse_opponents

    items = parse_opponents(cfg.opponents)
    self_weight = sum(w for n, w in items if n == "self")
    pool = OpponentPool(self_weight=self_weight, max_snapshots=cfg.max_snapshots)
    for k, (name, weight) in enumerate(items):
        if name == "self" or weight == 0:
            continue
        try:
            if ":" in game_name:  # a module:Class facade: only the generic baselines
                if name != "random":
                    raise ValueError(f"opponent {name!r} is not available for {game_name}")
                from agents.random_agent import RandomAgent

                agent: Any = RandomAgent(seed=cfg.seed + 1000 + k)
                agent.name = "random"
            else:
                agent = registry.make_agent(game_name, name, seed=cfg.seed + 1000 + k)
        except (ImportError, ValueError) as exc:
            if cfg.opponents != DEFAULT_OPPONENTS:
                raise ValueError(f"--opponents: cannot build {name!r}: {exc}") from None
            print(f"arena train: default opponent {name!r} skipped: {exc}", file=sys.stderr)
            continue
        pool.add_baseline(name, agent, weight)
    return pool
