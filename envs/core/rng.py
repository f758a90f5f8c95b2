"""The one splitmix64 generator every kernel draws from (Steele, Lea & Flood 2014).

Why one module: each game derives a per-game key from ``(seed, i)`` and advances it
inside ``@njit`` code; one implementation keeps the three games' streams alike and lets a
fix land once. Both functions are pure (state in, state out) and compiled with
``cache=True``; they inline into the callers' loops.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: The Weyl increment of splitmix64 (2**64 / golden ratio, odd).
GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, inline="always")
def mix64(z: np.uint64) -> np.uint64:
    """splitmix64's output finaliser: a bijective 64-bit hash of ``z``."""
    z = np.uint64((z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9))
    z = np.uint64((z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB))
    return np.uint64(z ^ (z >> np.uint64(31)))


@njit(cache=True, inline="always")
def splitmix64(state: np.uint64) -> tuple[np.uint64, np.uint64]:
    """One splitmix64 step: (new state, 64-bit output)."""
    state = np.uint64(state + GOLDEN)
    return state, mix64(state)


@njit(cache=True, inline="always")
def hash64(z: np.uint64) -> np.uint64:
    """``mix64(z + GOLDEN)``: the stateless form used to derive keys from ``(seed, i)``."""
    return mix64(np.uint64(z + GOLDEN))
