"""Batches of shots: one full shot from (action, seed), N shots over threads (MS-5..MS-10).

``_one_shot`` chains the pieces: the shot's normals (:mod:`.streams`), the launch
(:mod:`.launch`), then ``_settle`` (shared with the batches of given states): the
launch-overlap pairs (MS-7), the stepping until rest (:mod:`.stepping`) and where the
pieces lie (MS-10 / MS-20, ``geometry.nb_in_tube``).
Shots are independent, so a batch is split into contiguous chunks run by Python threads
over the ``nogil`` serial kernel (``_run_chunked``); small batches stay on the calling
thread. The results are bit-identical whatever the split.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numba
import numpy as np
from numba import njit, prange

from envs.core.threads import start_numba_pool
from envs.moon_shot.geometry import (
    nb_in_tube,
    nb_world_pentagon,
)
from envs.moon_shot.physics.contacts.piece_piece import _init_ignore
from envs.moon_shot.physics.core import SPHI, STAMP, SX, SY, drop_stale
from envs.moon_shot.physics.launch import _launch, action_to_physical
from envs.moon_shot.physics.stepping import run_shot
from envs.moon_shot.physics.streams import N_NORMALS, shot_normals


@njit(cache=True)
def _score(
    P: np.ndarray,
    st: np.ndarray,
    active: np.ndarray,
    dist: float,
    inn: np.ndarray,
    full: np.ndarray,
) -> None:
    poly = np.empty((5, 2))
    for k in range(3):
        if active[k]:
            nb_world_pentagon(P, k, st[k, SX], st[k, SY], st[k, SPHI], poly)
            a, b = nb_in_tube(P, poly, dist)
            inn[k] = a
            full[k] = b
        else:
            inn[k] = False
            full[k] = False


@njit(cache=True)
def _settle(
    P: np.ndarray,
    tab: np.ndarray,
    st: np.ndarray,
    active: np.ndarray,
    dist: float,
    inn: np.ndarray,
    full: np.ndarray,
    rec: np.ndarray,
    rec_every: int,
) -> tuple[int, float]:
    """A launched shot (state ``st``, ``active`` pieces) run to rest and scored: the
    launch overlaps set aside first (MS-7), the stepping (MS-8), then which pieces lie in
    the tube (MS-10). Returns (body-substeps, seconds)."""
    ignore = np.zeros(3, dtype=np.bool_)
    polys = np.empty((3, 5, 2))
    _init_ignore(P, st, active, ignore, polys)
    ns, t = run_shot(P, tab, st, active, ignore, dist, rec, rec_every)
    _score(P, st, active, dist, inn, full)
    return ns, t


@njit(cache=True)
def _one_shot(
    P: np.ndarray,
    tab: np.ndarray,
    action: np.ndarray,
    seed: np.uint64,
    dist: float,
    pose: np.ndarray,
    toppled: np.ndarray,
    inn: np.ndarray,
    full: np.ndarray,
    realized: np.ndarray,
    rec: np.ndarray,
    rec_every: int,
) -> tuple[int, float, int]:
    """One full shot from its action and seed; returns (body-substeps, seconds, struck)."""
    nrm = np.empty(N_NORMALS)
    shot_normals(seed, nrm)
    st = np.empty((3, 6))
    active = np.empty(3, dtype=np.bool_)
    th, v, z, o = action_to_physical(P, action)
    hit = _launch(P, th, v, z, o, nrm, st, active, realized)
    ns, t = _settle(P, tab, st, active, dist, inn, full, rec, rec_every)
    for k in range(3):
        pose[k, 0] = st[k, SX]
        pose[k, 1] = st[k, SY]
        pose[k, 2] = st[k, SPHI]
        toppled[k] = active[k]
    return ns, t, hit


@njit(cache=True, nogil=True)
def _simulate_batch_serial(
    P: np.ndarray,
    tab: np.ndarray,
    actions: np.ndarray,
    seeds: np.ndarray,
    dists: np.ndarray,
    poses: np.ndarray,
    toppled: np.ndarray,
    inn: np.ndarray,
    full: np.ndarray,
    substeps: np.ndarray,
    sim_time: np.ndarray,
    realized: np.ndarray,
    struck: np.ndarray,
    rec: np.ndarray,
    rec_every: int,
) -> None:
    for i in range(actions.shape[0]):
        ns, t, hit = _one_shot(
            P, tab, actions[i], seeds[i], dists[i], poses[i], toppled[i], inn[i], full[i],
            realized[i], rec[i], rec_every,
        )  # fmt: skip
        substeps[i] = ns
        sim_time[i] = t
        struck[i] = hit


@njit(cache=True, parallel=True)
def _simulate_states_batch(
    P: np.ndarray,
    tab: np.ndarray,
    states: np.ndarray,
    active_in: np.ndarray,
    dists: np.ndarray,
    final: np.ndarray,
    inn: np.ndarray,
    full: np.ndarray,
    substeps: np.ndarray,
    sim_time: np.ndarray,
    rec: np.ndarray,
    rec_every: int,
) -> None:
    for i in prange(states.shape[0]):
        st = states[i].copy()
        ns, t = _settle(
            P, tab, st, active_in[i].copy(), dists[i], inn[i], full[i], rec[i], rec_every
        )
        final[i] = st
        substeps[i] = ns
        sim_time[i] = t


SERIAL_BELOW = 32  # batches smaller than this run on the calling thread (no pool wake-up)

# Shots are spread over Python threads running the nogil serial kernel on contiguous
# chunks. A prange loop over shots stopped scaling once the shot loop was compiled without
# Numba's reference counting (its work stayed on one thread); chunked nogil threads give
# the full speed-up and the same bits, since shots are independent.
_POOL: ThreadPoolExecutor | None = None
_POOL_SIZE = 0


def _run_chunked(args: tuple[np.ndarray, ...], n: int, rec_every: int) -> None:
    """Run ``_simulate_batch_serial`` over ``numba.get_num_threads()`` contiguous chunks."""
    global _POOL, _POOL_SIZE
    kernel: Any = _simulate_batch_serial
    start_numba_pool()  # the pool may start here: keep torch's count (envs/core/threads.py)
    threads = max(1, min(numba.get_num_threads(), n // SERIAL_BELOW))
    if threads == 1:
        kernel(*args, rec_every)
        return
    if _POOL is None or _POOL_SIZE < threads:
        _POOL = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="moon_shot")
        _POOL_SIZE = threads
    bounds = np.linspace(0, n, threads + 1).astype(np.int64)
    chunks = [(int(lo), int(hi)) for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]
    P, tab = args[0], args[1]
    futures = []
    for lo, hi in chunks:
        chunk_args: tuple[Any, ...] = (P, tab, *(a[lo:hi] for a in args[2:]), rec_every)
        futures.append(_POOL.submit(kernel, *chunk_args))
    for f in futures:
        f.result()


@njit(cache=True)
def _stamp_probe() -> int:
    return STAMP


drop_stale(globals(), _stamp_probe)
