"""One batch loop, two Numba compiles: a serial one and a ``prange`` (thread-pool) one.

The rule kernels loop over the games of a batch. Large batches want the thread pool;
small ones (the AEC env's batch of one, a search agent's few candidates) lose more to a
thread-pool launch than the work takes, and stall badly when the cores are busy. So each
loop is written once with ``prange`` and compiled twice: with ``parallel=False`` Numba
runs ``prange`` as a plain ``range``, so both compiles share one source and give the same
results.

The parallel compile runs a copy of the function under another ``__qualname__``: Numba's
on-disk cache (``cache=True``) names an entry by module and qualname and keys it by
signature and bytecode, not by the ``parallel`` flag, so two compiles of one function
object would read and overwrite each other's cached machine code.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

from numba import njit


def serial_and_parallel(loop: Callable[..., Any], **options: Any) -> tuple[Any, Any]:
    """(serial, parallel) njit dispatchers of ``loop`` (written with ``prange``), cached.

    ``options`` go to both compiles (e.g. ``error_model="numpy"``).
    """
    twin = types.FunctionType(
        loop.__code__, loop.__globals__, loop.__name__ + "_par", loop.__defaults__, loop.__closure__
    )
    twin.__qualname__ = loop.__qualname__ + "_par"
    twin.__module__ = loop.__module__
    twin.__doc__ = loop.__doc__
    serial = njit(cache=True, **options)(loop)
    parallel = njit(cache=True, parallel=True, **options)(twin)
    return serial, parallel
