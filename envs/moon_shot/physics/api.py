"""The Python face of the physics: input checks, result arrays, simulate* (MS-4..MS-10)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envs.core.threads import start_numba_pool
from envs.moon_shot.params import (
    DEFAULT_PARAMS,
    PhysicsParams,
)
from envs.moon_shot.physics.batching import _run_chunked, _simulate_states_batch
from envs.moon_shot.physics.friction import friction_table
from envs.moon_shot.physics.launch import _launch
from envs.moon_shot.physics.streams import N_NORMALS, shot_normals


@dataclass
class ShotResult:
    """Outcome of N shots (piece index 0 small, 1 medium, 2 large)."""

    poses: np.ndarray  # (N, 3, 3) resting [x, y, heading]; a standing piece: [0, 0, theta]
    toppled: np.ndarray  # (N, 3) bool; False = stayed standing (MS-7 v_topple)
    in_tube: np.ndarray  # (N, 3) bool, footprint overlaps the interior (MS-10)
    fully_in_tube: np.ndarray  # (N, 3) bool, whole footprint inside the interior (MS-20)
    substeps: np.ndarray  # (N,) int64 body-substeps simulated
    sim_time: np.ndarray  # (N,) float64 simulated seconds until rest (or the cap)
    launch: np.ndarray  # (N, 4) realised [theta rad, v m/s, z m, o] after noise and clip
    struck: np.ndarray  # (N,) int64 struck piece (MS-7)
    final_states: np.ndarray | None = None  # (N, 3, 6) for simulate_states


def _check_dist(
    tube_distance: np.ndarray | float | None, n: int, params: PhysicsParams
) -> np.ndarray:
    if tube_distance is None:
        return np.full(n, params.tube_distance, dtype=np.float64)
    d = np.asarray(tube_distance, dtype=np.float64)
    if d.ndim == 0:
        d = np.full(n, float(d))
    if d.shape != (n,):
        raise ValueError(f"tube_distance must be a scalar or shape ({n},), got {d.shape}")
    if not np.all(np.isfinite(d)) or np.any(d < 0.0):
        raise ValueError("tube_distance must be finite and >= 0")
    return np.ascontiguousarray(d)


def _check_actions(actions: np.ndarray, seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(actions, dtype=np.float64)
    if a.ndim != 2 or a.shape[1] != 4:
        raise ValueError(f"actions must have shape (N, 4), got {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError("actions must be finite")
    if np.any(a < -1.0) or np.any(a > 1.0):
        raise ValueError("actions must lie in [-1, 1] (MS-5)")
    s = np.asarray(seeds)
    if s.shape != (a.shape[0],):
        raise ValueError(f"seeds must have shape ({a.shape[0]},), got {s.shape}")
    if s.dtype.kind not in "ui":
        raise ValueError(f"seeds must be integers, got dtype {s.dtype}")
    return np.ascontiguousarray(a), np.ascontiguousarray(s.astype(np.uint64))


def _run_batch(
    actions: np.ndarray,
    seeds: np.ndarray,
    params: PhysicsParams,
    tube_distance: np.ndarray | float | None,
    frames: int,
    rec_every: int,
) -> tuple[ShotResult, np.ndarray]:
    a, s = _check_actions(actions, seeds)
    n = a.shape[0]
    dists = _check_dist(tube_distance, n, params)
    P = params.to_array()
    tab = friction_table(params)
    poses = np.zeros((n, 3, 3))
    toppled = np.zeros((n, 3), dtype=np.bool_)
    inn = np.zeros((n, 3), dtype=np.bool_)
    full = np.zeros((n, 3), dtype=np.bool_)
    substeps = np.zeros(n, dtype=np.int64)
    sim_time = np.zeros(n)
    realized = np.zeros((n, 4))
    struck = np.zeros(n, dtype=np.int64)
    rec = np.zeros((n, frames, 3, 3))
    _run_chunked(
        (P, tab, a, s, dists, poses, toppled, inn, full, substeps, sim_time, realized, struck, rec),
        n,
        rec_every,
    )
    res = ShotResult(poses, toppled, inn, full, substeps, sim_time, realized, struck)
    return res, rec


def simulate(
    actions: np.ndarray,
    seeds: np.ndarray,
    params: PhysicsParams = DEFAULT_PARAMS,
    tube_distance: np.ndarray | float | None = None,
) -> ShotResult:
    """Simulate N shots (MS-5..MS-8): actions (N, 4) in [-1, 1], one uint64 seed per shot."""
    res, _ = _run_batch(actions, seeds, params, tube_distance, 0, 1)
    return res


def n_frames(params: PhysicsParams, record_every_ms: int) -> int:
    """Number of recorded frames (launch frame included) for a shot of max_shot_seconds."""
    steps = int(round(params.max_shot_seconds / params.dt))
    every = max(1, int(round(record_every_ms * 1e-3 / params.dt)))
    return steps // every + 1


def simulate_recorded(
    actions: np.ndarray,
    seeds: np.ndarray,
    params: PhysicsParams = DEFAULT_PARAMS,
    tube_distance: np.ndarray | float | None = None,
    record_every_ms: int = 10,
) -> tuple[ShotResult, np.ndarray]:
    """As ``simulate`` plus poses (N, T, 3, 3) every ``record_every_ms`` (frame 0 = launch;
    frames after rest repeat the resting pose)."""
    if int(record_every_ms) < 1:
        raise ValueError("record_every_ms must be >= 1")
    every = max(1, int(round(int(record_every_ms) * 1e-3 / params.dt)))
    return _run_batch(
        actions, seeds, params, tube_distance, n_frames(params, record_every_ms), every
    )


def simulate_states(
    states: np.ndarray,
    active: np.ndarray | None = None,
    params: PhysicsParams = DEFAULT_PARAMS,
    tube_distance: np.ndarray | float | None = None,
    record_every_ms: int = 0,
) -> tuple[ShotResult, np.ndarray]:
    """Simulate arbitrary initial piece states (N, 3, 6) = [x, y, heading, vx, vy, omega]
    without the launch map (for tests and scenes). Inactive pieces take no part. Pieces that
    overlap at the start ignore each other until they separate, as at launch (MS-7).
    Returns (result with ``final_states``, recorded poses or an empty (N, 0, 3, 3))."""
    st = np.ascontiguousarray(np.asarray(states, dtype=np.float64))
    if st.ndim != 3 or st.shape[1:] != (3, 6):
        raise ValueError(f"states must have shape (N, 3, 6), got {st.shape}")
    if not np.all(np.isfinite(st)):
        raise ValueError("states must be finite")
    n = st.shape[0]
    act = np.ones((n, 3), dtype=np.bool_) if active is None else np.asarray(active, np.bool_)
    if act.shape != (n, 3):
        raise ValueError(f"active must have shape ({n}, 3), got {act.shape}")
    act = np.ascontiguousarray(act)
    dists = _check_dist(tube_distance, n, params)
    if record_every_ms > 0:
        frames = n_frames(params, record_every_ms)
        every = max(1, int(round(int(record_every_ms) * 1e-3 / params.dt)))
    else:
        frames, every = 0, 1
    P = params.to_array()
    tab = friction_table(params)
    final = np.zeros((n, 3, 6))
    inn = np.zeros((n, 3), dtype=np.bool_)
    full = np.zeros((n, 3), dtype=np.bool_)
    substeps = np.zeros(n, dtype=np.int64)
    sim_time = np.zeros(n)
    rec = np.zeros((n, frames, 3, 3))
    start_numba_pool()  # a prange kernel: the pool may start here (envs/core/threads.py)
    _simulate_states_batch(P, tab, st, act, dists, final, inn, full, substeps, sim_time, rec, every)
    res = ShotResult(
        poses=final[:, :, :3].copy(),
        toppled=act.copy(),
        in_tube=inn,
        fully_in_tube=full,
        substeps=substeps,
        sim_time=sim_time,
        launch=np.full((n, 4), np.nan),
        struck=np.full(n, -1, dtype=np.int64),
        final_states=final,
    )
    return res, rec


def launch_states(
    theta: float,
    v: float,
    z: float,
    o: float,
    normals: np.ndarray | None = None,
    params: PhysicsParams = DEFAULT_PARAMS,
) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
    """MS-6/MS-7 launch from physical values (theta rad, v m/s, z m, o) and the shot's
    standard normals (default: zeros, i.e. no noise). Returns (states (3, 6), active (3,),
    struck piece, realised [theta, v, z, o])."""
    nrm = np.zeros(N_NORMALS) if normals is None else np.asarray(normals, np.float64)
    if nrm.shape != (N_NORMALS,):
        raise ValueError(f"normals must have shape ({N_NORMALS},)")
    st = np.zeros((3, 6))
    act = np.zeros(3, dtype=np.bool_)
    real = np.zeros(4)
    hit = _launch(params.to_array(), float(theta), float(v), float(z), float(o), nrm, st, act, real)
    return st, act, int(hit), real


def seed_normals(seed: int) -> np.ndarray:
    """The N_NORMALS standard normals a shot with ``seed`` uses (see _launch for the order)."""
    out = np.zeros(N_NORMALS)
    shot_normals(np.uint64(seed), out)
    return out
