"""Batched random playouts and state helpers on a BatchGame facade (envs/core/batch.py).

Search copies one position many times with ``game.take``; the copies share the game's own
RNG key, so ``game.random_actions`` would play the same "random" game in every copy.
:func:`random_playout` therefore gives every copy a fresh key from the caller's generator
first (:func:`reseed`), then uses the facade's fast in-kernel sampler; a facade whose state
has no recognisable key falls back to sampling the legal mask with the caller's generator.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from agents.random_agent import sample_legal
from envs.core.match import SMALL_BATCH, numba_threads

_KEY_FIELDS = ("rng", "key", "keys", "rng_key")


def _batch_size(game: Any, state: Any) -> int:
    return len(game.current_player(state))


def key_field(state: Any, batch: int | None = None) -> str | None:
    """Name of the state's per-game uint64 RNG key array (shape (B,)), if it has one."""
    for name in _KEY_FIELDS:
        arr = getattr(state, name, None)
        if isinstance(arr, np.ndarray) and arr.dtype == np.uint64 and arr.ndim == 1:
            if batch is None or arr.shape[0] == batch:
                return name
    return None


def reseed(state: Any, rng: np.random.Generator, batch: int | None = None) -> bool:
    """Give every game of ``state`` a fresh RNG key from ``rng``; False if it has none."""
    name = key_field(state, batch)
    if name is None:
        return False
    arr = getattr(state, name)
    arr[:] = rng.integers(0, 2**64 - 1, size=arr.shape, dtype=np.uint64, endpoint=True)
    return True


_AXES: dict[type, dict[str, int | None]] = {}


def batch_axes(game: Any, state: Any) -> dict[str, int | None]:
    """Per field of a dataclass state, the axis that indexes games (None: not per game).

    Found once per state type by asking the facade itself: ``take(state, [0, 0])`` doubles
    the batch axis of every per-game array (an entry-major (H, B) array included).
    """
    key = type(state)
    if key not in _AXES:
        one = game.take(state, np.array([0]))
        two = game.take(state, np.array([0, 0]))
        axes: dict[str, int | None] = {}
        for f in dataclasses.fields(state):
            a, b = getattr(one, f.name), getattr(two, f.name)
            axis = None
            if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
                grown = [
                    i for i, (x, y) in enumerate(zip(a.shape, b.shape, strict=True)) if y == 2 * x
                ]
                axis = grown[0] if grown else None
            axes[f.name] = axis
        _AXES[key] = axes
    return _AXES[key]


def concat(game: Any, states: list[Any]) -> Any:
    """One batch holding the games of ``states`` in order (dataclass-of-arrays states)."""
    if len(states) == 1:
        return states[0]
    first = states[0]
    if not dataclasses.is_dataclass(first):
        raise TypeError(f"cannot concatenate {type(first).__name__} states")
    axes = batch_axes(game, first)
    parts = {}
    for name, axis in axes.items():
        if axis is None:
            parts[name] = getattr(first, name)
        else:
            parts[name] = np.ascontiguousarray(
                np.concatenate([getattr(s, name) for s in states], axis=axis)
            )
    cls: Any = type(first)
    return cls(**parts)


def random_playout(
    game: Any, state: Any, rng: np.random.Generator, max_steps: int | None = None
) -> np.ndarray:
    """Play every game of ``state`` to its end with uniform random legal moves.

    Returns (B, P) float32: the sum of the rewards each seat received from here on. ``state``
    is consumed (stepped in place / compacted). Games still running after ``max_steps``
    steps score 0 for every seat from then on (a draw), which keeps playouts bounded.
    Finished games are dropped from the batch with ``take`` so ``step`` only ever sees
    games with a legal move.
    """
    b = _batch_size(game, state)
    total = np.zeros((b, game.num_players), np.float32)
    alive = np.flatnonzero(~np.asarray(game.terminated(state), bool))
    if len(alive) < b:
        if len(alive) == 0:
            return total
        state = game.take(state, alive)
    fast = reseed(state, rng, len(alive))
    steps = 0
    with numba_threads(1 if len(alive) < SMALL_BATCH else None):
        while len(alive) and (max_steps is None or steps < max_steps):
            if fast:
                actions = game.random_actions(state)
            else:
                actions = sample_legal(rng, game.legal_mask(state))
            rewards, done = game.step(state, actions)
            total[alive] += rewards
            steps += 1
            if done.any():
                keep = np.flatnonzero(~done)
                alive = alive[keep]
                if len(alive):
                    state = game.take(state, keep)
    return total
