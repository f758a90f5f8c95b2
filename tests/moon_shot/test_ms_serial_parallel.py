"""Moon Shot's batched physics gives the same bits from a serial and a threaded run.

Why: a shot's outcome must depend only on (action, seed, params, tube distance), never on
the batch it sits in or the thread count (MS-6..MS-10; ``envs/moon_shot/physics``'s
docstring). Two batch paths run threads:

* ``simulate`` / ``simulate_recorded`` split a batch into chunks for Python threads over
  the ``nogil`` serial kernel (``physics/batching.py``, ``_run_chunked``);
* ``simulate_states`` runs ``_simulate_states_batch``, the package's one ``prange`` loop.
  It is compared with a serial compile of the same source: Numba 0.68 was seen to drop,
  in a ``prange`` loop, writes to arrays unpacked from a tuple (the stepping code unpacks
  ``bodies`` / ``scene`` tuples), while the serial compile was right.

The shots are chosen to collide (MS-7 launch overlaps, MS-8 contacts) and to land in and
beside the tube (MS-10, MS-20); frames are recorded so every substep's pose is compared.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
import pytest
from numba import njit

from envs.moon_shot.params import PhysicsParams
from envs.moon_shot.physics import (
    action_to_physical,
    friction_table,
    launch_states,
    seed_normals,
    simulate_recorded,
    simulate_states,
)
from envs.moon_shot.physics.batching import _simulate_states_batch

P = PhysicsParams(max_shot_seconds=1.0)
FIELDS = ("poses", "toppled", "in_tube", "fully_in_tube", "substeps", "sim_time", "launch",
          "struck", "final_states")  # fmt: skip

#: the same loop compiled without ``parallel`` (not cached: a test-only twin)
_states_serial = njit(cache=False)(_simulate_states_batch.py_func)


def _threads(n: int, fn: Callable[[], Any]) -> Any:
    """fn() with Numba's thread count set to n (at most what Numba was started with)."""
    old = numba.get_num_threads()
    numba.set_num_threads(max(1, min(n, numba.config.NUMBA_NUM_THREADS)))  # type: ignore[attr-defined]
    try:
        return fn()
    finally:
        numba.set_num_threads(old)


def _same(a: Any, b: Any) -> None:
    for name in FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        if x is None:
            assert y is None, name
        else:
            np.testing.assert_array_equal(x, y, err_msg=name)


def _colliding_states(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Three pieces near each other thrown at one another (some start overlapping, MS-7),
    some pieces inactive."""
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.03], [0.03, -0.02], [-0.03, -0.02]])
    at = centres[(np.arange(n)[:, None] + np.arange(3)) % 3] + rng.uniform(-0.01, 0.01, (n, 3, 2))
    to = -at / np.linalg.norm(at, axis=2, keepdims=True) + rng.normal(0, 0.3, (n, 3, 2))
    to *= rng.uniform(0.3, 2.0, (n, 3, 1)) / np.linalg.norm(to, axis=2, keepdims=True)
    heading, spin = rng.uniform(-3, 3, (n, 3, 1)), rng.uniform(-30, 30, (n, 3, 1))
    st = np.concatenate([at, heading, to, spin], axis=2)  # [x, y, heading, vx, vy, omega]
    active = rng.random((n, 3)) > 0.15
    return st, active


def _states_outputs(kernel: Any, st: np.ndarray, active: np.ndarray, dist: np.ndarray) -> tuple:
    """Every output array of the states batch kernel ``kernel`` (frames every 5 ms)."""
    n = st.shape[0]
    frames = int(round(P.max_shot_seconds / P.dt)) // 5 + 1
    out = (np.zeros((n, 3, 6)), np.zeros((n, 3), np.bool_), np.zeros((n, 3), np.bool_),
           np.zeros(n, np.int64), np.zeros(n), np.zeros((n, frames, 3, 3)))  # fmt: skip
    kernel(P.to_array(), friction_table(P), st.copy(), active.copy(), dist, *out, 5)
    return out


@pytest.mark.parametrize("n", [1, 6, 40])
@pytest.mark.parametrize("seed", [3, 11])
def test_states_batch_prange_equals_serial_compile(n: int, seed: int) -> None:
    """MS-7/MS-8/MS-10: the prange loop (2 threads and 1) and its serial compile agree on
    final states, tube flags, substeps, times and every recorded frame."""
    st, active = _colliding_states(n, seed)
    dist = np.random.default_rng(seed).uniform(0.05, 0.2, n)
    ref = _states_outputs(_states_serial, st, active, dist)
    for threads in (2, 1):
        got = _threads(threads, lambda: _states_outputs(_simulate_states_batch, st, active, dist))
        for name, x, y in zip(("final", "inn", "full", "substeps", "time", "rec"), ref, got,
                              strict=True):  # fmt: skip
            np.testing.assert_array_equal(x, y, err_msg=f"{name}, {threads} threads")
    assert ref[3].min() > 0  # every shot moved


@pytest.mark.parametrize("n", [64, 97])
def test_shot_batches_one_thread_or_chunks(n: int) -> None:
    """MS-5..MS-10: a batch big enough for the thread pool (two chunks) gives the same
    shots and frames as on one thread, and as each shot alone."""
    rng = np.random.default_rng(n)
    a = rng.uniform(-1, 1, (n, 4))
    a[:, 0] *= 0.2  # mostly at the pieces
    seeds = rng.integers(0, 2**63, n, dtype=np.uint64)
    dist = rng.uniform(0.16, 0.3, n)
    one, rec1 = _threads(1, lambda: simulate_recorded(a, seeds, P, dist, record_every_ms=5))
    two, rec2 = _threads(2, lambda: simulate_recorded(a, seeds, P, dist, record_every_ms=5))
    _same(one, two)
    np.testing.assert_array_equal(rec1, rec2)
    for i in (0, n // 2, n - 1):
        alone, rec = simulate_recorded(a[i : i + 1], seeds[i : i + 1], P, dist[i], 5)
        for name in FIELDS[:-1]:
            np.testing.assert_array_equal(getattr(alone, name)[0], getattr(one, name)[i], name)
        np.testing.assert_array_equal(rec[0], rec1[i])


def test_states_batch_of_launched_shots_equals_shot_batch() -> None:
    """The two batch paths agree: a shot's launch state (MS-5..MS-7) run through the prange
    states batch comes to rest exactly where the chunked shot batch puts it."""
    rng = np.random.default_rng(5)
    n = 40
    a = rng.uniform(-1, 1, (n, 4))
    a[:, 0] *= 0.2
    seeds = rng.integers(0, 2**63, n, dtype=np.uint64)
    shots, _ = _threads(2, lambda: simulate_recorded(a, seeds, P, 0.2, record_every_ms=5))
    st = np.zeros((n, 3, 6))
    act = np.zeros((n, 3), np.bool_)
    Pa = P.to_array()
    for i in range(n):
        st[i], act[i], _, _ = launch_states(
            *action_to_physical(Pa, a[i]), normals=seed_normals(int(seeds[i])), params=P
        )
    res, _ = _threads(2, lambda: simulate_states(st, act, P, 0.2))
    for name in ("poses", "in_tube", "fully_in_tube", "substeps", "sim_time"):
        np.testing.assert_array_equal(getattr(res, name), getattr(shots, name), err_msg=name)
