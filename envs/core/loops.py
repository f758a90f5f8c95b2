"""One batch loop, two Numba compiles, and the one place that picks which one runs.

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

:func:`run_loop` is the only place in the package that chooses between them, by batch
size and by how much work one call does (results never depend on the choice: each game
touches only its own rows and its own RNG key):

* fewer than ``SINGLE_THREAD_MIN_BATCH`` games: the serial compile;
* from ``PARALLEL_MIN_BATCH`` games for calls that do much work per game (fused
  self-play's many steps; the fused learner step) and from ``STEP_PARALLEL_MIN_BATCH``
  for calls of one step per game (a step, a mask, an observation, the random actions):
  the ``prange`` compile on all of Numba's threads. Both are 1,024 since 0.5.3 (4,096
  before). Measured on the quiet 2-core machine (``python -m benchmarks.threads``,
  ``docs/benchmarks.md``, "Where the thread pool starts to pay"): every call of both board
  games ran faster by wall clock on two threads than on one from 256 games (1.09-1.75x),
  1.24-1.97x at 1,024 (the learner step 1.41-1.93x) for 0-40 % more CPU time, and
  1.5-2.1x at 4,096. On a busy machine the pool's launch and barrier can cost more than they save
  (once measured for the 5x5 board game at B = 16384 under load: one thread 1.0-1.5 M
  steps/s, prange 0.5 M): there, run with one Numba thread (``NUMBA_NUM_THREADS=1`` or
  ``numba.set_num_threads(1)``), which keeps every call on one thread, or raise these
  thresholds;
* in between: the ``prange`` compile on one thread (the faster code even then: Numba
  compiles its body as one function, the serial loop calls the per-game body; and one
  thread never waits for a busy core).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numba
from numba import literal_unroll, njit

from envs.core.threads import start_numba_pool

SINGLE_THREAD_MIN_BATCH = 64
PARALLEL_MIN_BATCH = 1024
STEP_PARALLEL_MIN_BATCH = 1024


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


def choose(batch: int, many_steps: bool = False) -> str:
    """``"serial"``, ``"one thread"`` or ``"parallel"`` for a call over ``batch`` games."""
    if batch < SINGLE_THREAD_MIN_BATCH:
        return "serial"
    start_numba_pool()  # the pool may start here: keep torch's count (envs/core/threads.py)
    threshold = PARALLEL_MIN_BATCH if many_steps else STEP_PARALLEL_MIN_BATCH
    if batch >= threshold and numba.get_num_threads() > 1:
        return "parallel"
    return "one thread"


def run_loop(
    serial: Any,
    parallel: Any,
    batch: int,
    *args: Any,
    many_steps: bool = False,
    force: bool | None = None,
) -> Any:
    """Call ``serial(*args)`` or ``parallel(*args)`` as :func:`choose` says.

    ``force=True`` / ``False`` runs the prange compile on all threads / the serial one.
    """
    if force is not None:
        if force:
            start_numba_pool()  # as in choose: the prange compile starts the pool
        return (parallel if force else serial)(*args)
    how = choose(batch, many_steps)
    if how == "serial":
        return serial(*args)
    if how == "parallel":
        return parallel(*args)
    old = numba.get_num_threads()
    if old == 1:
        return parallel(*args)
    numba.set_num_threads(1)
    try:
        return parallel(*args)
    finally:
        numba.set_num_threads(old)


@njit(cache=True, _nrt=False)  # type: ignore[call-overload]
def copy_rows(arrays, src, dst):  # type: ignore[no-untyped-def]
    """Copy game ``src`` into row ``dst`` of every array of the tuple ``arrays``.

    Why here: a search copies one game's row of each kernel array into a scratch row
    (``envs/<game>/search_api.py``); the tuple mixes dtypes and ranks, so the loop is
    unrolled at compile time (``literal_unroll``). Element by element over each array
    viewed as ``(games, -1)``: a row assignment ``a[dst] = a[src]`` of a 2-D or 3-D array
    needs Numba's runtime, and the search's per-simulation functions, which call this,
    compile without it (``agents/search/tree.py``, ``NO_REFCOUNT``).
    """
    for a in literal_unroll(arrays):
        rows = a.reshape((a.shape[0], -1))  # a view: the kernels' arrays are C-contiguous
        for j in range(rows.shape[1]):
            rows[dst, j] = rows[src, j]
