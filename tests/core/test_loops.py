"""envs.core.loops: one prange loop compiled serial and parallel, with separate cache entries."""

from __future__ import annotations

import numpy as np
from numba import prange

from envs.core.loops import serial_and_parallel


def _square_loop(x, out):
    """out[i] = x[i] ** 2"""
    for i in prange(x.shape[0]):
        out[i] = x[i] * x[i]


SERIAL, PARALLEL = serial_and_parallel(_square_loop)


def test_both_compiles_compute_the_same() -> None:
    x = np.arange(10_000, dtype=np.int64)
    a = np.zeros_like(x)
    b = np.zeros_like(x)
    SERIAL(x, a)
    PARALLEL(x, b)
    np.testing.assert_array_equal(a, x * x)
    np.testing.assert_array_equal(b, x * x)


def test_parallel_flag_and_cache_names_differ() -> None:
    assert not SERIAL.targetoptions.get("parallel")
    assert PARALLEL.targetoptions.get("parallel")
    # Numba's cache names entries by qualname: the two compiles must not share one
    assert SERIAL.py_func.__qualname__ == "_square_loop"
    assert PARALLEL.py_func.__qualname__ == "_square_loop_par"
    assert PARALLEL.__doc__ == SERIAL.__doc__ == "out[i] = x[i] ** 2"
