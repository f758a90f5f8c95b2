"""What a training run writes and reports, below both training loops.

Why its own module: the SB3 loop (``training/run.py``) dispatches to the AlphaZero loop
(``training/alphazero``), and both write checkpoints the same atomic way and return the
same result; holding these here keeps the two loops from importing each other.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["TrainResult", "atomic_write", "in_main_thread", "set_threads"]


@dataclass
class TrainResult:
    """What a finished (or interrupted) run reports."""

    out: Path
    num_timesteps: int
    start_timesteps: int
    seconds: float
    learner_steps_per_s: float
    decisions_per_s: float
    env_steps_per_s: float
    interrupted: bool = False
    lines: tuple[str, ...] = ()  # a summary of its own (alphazero), printed as is

    @property
    def model_path(self) -> Path:
        return self.out / "model.zip"


def atomic_write(path: Path, write: Callable[[Path], Any], suffix: str = "") -> None:
    """Write ``path`` through a temporary file and ``os.replace``: a reader (or a run
    resumed after SIGKILL) sees the old file or the new one, never half of one. ``suffix``
    ends the temporary name (SB3 appends ``.zip`` / ``.pkl`` to names without them)."""
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}{suffix}")
    write(tmp)
    with open(tmp, "rb+") as f:
        os.fsync(f.fileno())
    os.replace(tmp, path)


def in_main_thread() -> bool:
    """True in the main thread (only there may a run install signal handlers)."""
    import threading

    return threading.current_thread() is threading.main_thread()


def set_threads(threads: int) -> None:
    """Torch and Numba threads. Default 1: small batched kernels in a parallel region wait
    for every worker thread, which on a busy 2-core machine made a board game's env step
    ten times slower than one thread (measured: 4.1k vs 45k learner steps/s)."""
    import numba
    import torch as th

    from envs.core.threads import keep_threads, start_numba_pool

    keep_threads()  # the run's own choice: the VecEnvs and agents leave it as set here
    # Numba's pool first: its start resets torch's count (envs/core/threads.py)
    numba.set_num_threads(max(1, min(threads, start_numba_pool())))
    th.set_num_threads(threads)
