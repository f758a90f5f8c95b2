"""Training runs small enough for a test: one place for the tiny-run settings."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from training.train import TrainConfig

#: a tiny PPO: 8 envs x 16 steps, batches of 64, one epoch, one 32-unit layer
SMALL = {"n_envs": 8, "n_steps": 16, "batch_size": 64, "n_epochs": 1, "net": "32"}


def small_config(game: str, out: str | Path, **fields: Any) -> TrainConfig:
    """A ``TrainConfig`` of :data:`SMALL` for ``game`` writing to ``out``; ``fields``
    override or add to it."""
    from training.train import TrainConfig

    return TrainConfig(game=game, out=str(out), **{**SMALL, **fields})
