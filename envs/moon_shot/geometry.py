"""Moon Shot geometry: piece footprints (MS-4), the tube (MS-3) and convex-polygon queries.

Shared by the physics kernel, scoring and the renderer. The njit functions (prefixed ``nb_``)
work on the packed parameter vector of ``PhysicsParams.to_array()``; the plain functions
below them are the convenient numpy face of the same formulas.

Conventions: polygons are counter-clockwise (k, 2) float64 arrays; a pose is
``[x, y, heading]`` of the piece's centre of mass, heading = direction from base to apex.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from envs.moon_shot.params import (
    DEFAULT_PARAMS,
    I_PIECE0,
    I_TUBE_INNER,
    I_TUBE_LENGTH,
    I_TUBE_WALL,
    LAYOUT,
    PIECE_STRIDE,
    PK_B,
    PK_D,
    PK_S,
    PhysicsParams,
    drop_stale_caches,
)

# Options for njit functions that allocate nothing: compiled without the Numba runtime,
# so passing arrays and taking views costs no reference counting (which was ~40 % of the
# physics kernel's time). Same code, same float results.
NO_REFCOUNT: dict[str, Any] = {"cache": True, "_nrt": False}

# --------------------------------------------------------------------------- njit core


@njit(**NO_REFCOUNT)
def nb_local_pentagon(P: np.ndarray, k: int, out: np.ndarray) -> None:
    """MS-4 footprint of piece k relative to its centre of mass (x = s/3), heading +x, CCW."""
    base = I_PIECE0 + k * PIECE_STRIDE
    b = P[base + PK_B]
    s = P[base + PK_S]
    d = P[base + PK_D]
    c = s / 3.0
    out[0, 0] = -c
    out[0, 1] = -b / 2.0
    out[1, 0] = d - c
    out[1, 1] = -b / 2.0
    out[2, 0] = s - c
    out[2, 1] = 0.0
    out[3, 0] = d - c
    out[3, 1] = b / 2.0
    out[4, 0] = -c
    out[4, 1] = b / 2.0


@njit(**NO_REFCOUNT)
def nb_world_pentagon(
    P: np.ndarray, k: int, x: float, y: float, phi: float, out: np.ndarray
) -> None:
    """Footprint of piece k at pose (x, y, phi) in world coordinates (5, 2), CCW."""
    nb_local_pentagon(P, k, out)
    c = math.cos(phi)
    s = math.sin(phi)
    for i in range(5):
        lx = out[i, 0]
        ly = out[i, 1]
        out[i, 0] = x + c * lx - s * ly
        out[i, 1] = y + s * lx + c * ly


@njit(**NO_REFCOUNT)
def nb_tube_walls(P: np.ndarray, dist: float, out: np.ndarray) -> None:
    """MS-3 tube walls as three CCW rectangles (3, 4, 2): side y>0, side y<0, closed end."""
    length = P[I_TUBE_LENGTH]
    r = P[I_TUBE_INNER] / 2.0
    w = P[I_TUBE_WALL]
    x0 = dist
    x1 = dist + length
    # rect(i, xa, xb, ya, yb)
    for i in range(3):
        if i == 0:
            xa, xb, ya, yb = x0, x1, r, r + w
        elif i == 1:
            xa, xb, ya, yb = x0, x1, -r - w, -r
        else:
            xa, xb, ya, yb = x1 - w, x1, -r, r
        out[i, 0, 0] = xa
        out[i, 0, 1] = ya
        out[i, 1, 0] = xb
        out[i, 1, 1] = ya
        out[i, 2, 0] = xb
        out[i, 2, 1] = yb
        out[i, 3, 0] = xa
        out[i, 3, 1] = yb


@njit(**NO_REFCOUNT)
def nb_sat(A: np.ndarray, B: np.ndarray) -> tuple[float, int, int]:
    """Separating-axis query between convex CCW polygons.

    Returns (separation, edge index, 0 if the edge is A's else 1). separation > 0 means
    disjoint and is a lower bound on their distance; <= 0 means overlap of depth -separation
    along the returned edge's outward normal.
    """
    na = A.shape[0]
    nb = B.shape[0]
    best = -1e300
    best_i = 0
    best_ref = 0
    for ref in range(2):
        R = A if ref == 0 else B
        C = B if ref == 0 else A
        nr = na if ref == 0 else nb
        nc = nb if ref == 0 else na
        for i in range(nr):
            j = i + 1 if i + 1 < nr else 0
            ex = R[j, 0] - R[i, 0]
            ey = R[j, 1] - R[i, 1]
            ln = math.sqrt(ex * ex + ey * ey)
            nx = ey / ln
            ny = -ex / ln
            m = 1e300
            for q in range(nc):
                dd = nx * (C[q, 0] - R[i, 0]) + ny * (C[q, 1] - R[i, 1])
                if dd < m:
                    m = dd
            # prefer A's axes on (near) ties so the choice is stable
            if m > best + 1e-12:
                best = m
                best_i = i
                best_ref = ref
    return best, best_i, best_ref


@njit(**NO_REFCOUNT)
def nb_manifold(
    A: np.ndarray, B: np.ndarray, edge: int, ref: int
) -> tuple[float, float, float, float, float]:
    """Contact of overlapping polygons from the SAT reference edge (Box2D-style clipping).

    Returns (nx, ny, px, py, depth): unit normal pointing from A to B, the contact point
    (average of the clipped incident points below the reference face) and the largest depth.
    """
    R = A if ref == 0 else B
    C = B if ref == 0 else A
    nr = R.shape[0]
    nc = C.shape[0]
    i2 = edge + 1 if edge + 1 < nr else 0
    v1x, v1y = R[edge, 0], R[edge, 1]
    v2x, v2y = R[i2, 0], R[i2, 1]
    ex = v2x - v1x
    ey = v2y - v1y
    ln = math.sqrt(ex * ex + ey * ey)
    tx = ex / ln
    ty = ey / ln
    nx = ty
    ny = -tx
    # incident edge: the edge of C whose normal is most anti-parallel to n
    inc = 0
    best = 1e300
    for q in range(nc):
        q2 = q + 1 if q + 1 < nc else 0
        fx = C[q2, 0] - C[q, 0]
        fy = C[q2, 1] - C[q, 1]
        fl = math.sqrt(fx * fx + fy * fy)
        dot = (nx * fy - ny * fx) / fl
        if dot < best:
            best = dot
            inc = q
    inc2 = inc + 1 if inc + 1 < nc else 0
    p0x, p0y = C[inc, 0], C[inc, 1]
    p1x, p1y = C[inc2, 0], C[inc2, 1]
    # clip the incident segment to the reference edge's side planes
    lo = tx * v1x + ty * v1y
    hi = tx * v2x + ty * v2y
    a0 = tx * p0x + ty * p0y
    a1 = tx * p1x + ty * p1y
    ok = True
    # keep a >= lo
    if a0 < lo and a1 < lo:
        ok = False
    elif a0 < lo:
        f = (lo - a0) / (a1 - a0)
        p0x += f * (p1x - p0x)
        p0y += f * (p1y - p0y)
        a0 = lo
    elif a1 < lo:
        f = (lo - a1) / (a0 - a1)
        p1x += f * (p0x - p1x)
        p1y += f * (p0y - p1y)
        a1 = lo
    if ok:
        if a0 > hi and a1 > hi:
            ok = False
        elif a0 > hi:
            f = (a0 - hi) / (a0 - a1)
            p0x += f * (p1x - p0x)
            p0y += f * (p1y - p0y)
        elif a1 > hi:
            f = (a1 - hi) / (a1 - a0)
            p1x += f * (p0x - p1x)
            p1y += f * (p0y - p1y)
    cx = 0.0
    cy = 0.0
    cnt = 0
    depth = 0.0
    if ok:
        s0 = nx * (p0x - v1x) + ny * (p0y - v1y)
        s1 = nx * (p1x - v1x) + ny * (p1y - v1y)
        if s0 <= 0.0:
            cx += p0x
            cy += p0y
            cnt += 1
            depth = max(depth, -s0)
        if s1 <= 0.0:
            cx += p1x
            cy += p1y
            cnt += 1
            depth = max(depth, -s1)
    if cnt == 0:
        # numerical corner case: fall back to the deepest vertex of C
        dmin = 1e300
        for q in range(nc):
            dd = nx * (C[q, 0] - v1x) + ny * (C[q, 1] - v1y)
            if dd < dmin:
                dmin = dd
                cx = C[q, 0]
                cy = C[q, 1]
        cnt = 1
        depth = max(0.0, -dmin)
    cx /= cnt
    cy /= cnt
    if ref == 1:  # normal was B's outward normal (B -> A); report A -> B
        nx = -nx
        ny = -ny
    return nx, ny, cx, cy, depth


@njit(cache=True)
def nb_overlap_positive(A: np.ndarray, B: np.ndarray) -> bool:
    """True iff two convex polygons intersect with positive area (MS-10)."""
    sep, _, _ = nb_sat(A, B)
    return sep < 0.0


@njit(cache=True)
def nb_interior(P: np.ndarray, dist: float) -> tuple[float, float, float, float]:
    """MS-3 open interior rectangle (x0, x1, y0, y1) of a tube with mouth at ``dist``."""
    r = P[I_TUBE_INNER] / 2.0
    return dist, dist + P[I_TUBE_LENGTH] - P[I_TUBE_WALL], -r, r


@njit(cache=True)
def nb_in_tube(P: np.ndarray, poly: np.ndarray, dist: float) -> tuple[bool, bool]:
    """MS-10: (footprint overlaps the open interior with positive area, footprint wholly inside)."""
    x0, x1, y0, y1 = nb_interior(P, dist)
    rect = np.empty((4, 2))
    rect[0, 0] = x0
    rect[0, 1] = y0
    rect[1, 0] = x1
    rect[1, 1] = y0
    rect[2, 0] = x1
    rect[2, 1] = y1
    rect[3, 0] = x0
    rect[3, 1] = y1
    overlap = nb_overlap_positive(poly, rect)
    full = True
    for i in range(poly.shape[0]):
        px = poly[i, 0]
        py = poly[i, 1]
        if not (x0 < px < x1 and y0 < py < y1):
            full = False
    return overlap, full and overlap


# --------------------------------------------------------------------------- numpy face


def local_footprint(piece: int, params: PhysicsParams = DEFAULT_PARAMS) -> np.ndarray:
    """MS-4 pentagon of ``piece`` (0 small, 1 medium, 2 large) about its centre of mass."""
    out = np.empty((5, 2))
    nb_local_pentagon(params.to_array(), int(piece), out)
    return out


def footprint(pose: np.ndarray, piece: int, params: PhysicsParams = DEFAULT_PARAMS) -> np.ndarray:
    """World-frame (5, 2) CCW footprint of ``piece`` at ``pose = [x, y, heading]``."""
    out = np.empty((5, 2))
    x, y, phi = (float(v) for v in np.asarray(pose, dtype=np.float64))
    nb_world_pentagon(params.to_array(), int(piece), x, y, phi, out)
    return out


def footprints(poses: np.ndarray, params: PhysicsParams = DEFAULT_PARAMS) -> np.ndarray:
    """Footprints of all three pieces: poses (..., 3, 3) -> (..., 3, 5, 2)."""
    poses = np.asarray(poses, dtype=np.float64)
    if poses.shape[-2:] != (3, 3):
        raise ValueError(f"poses must have shape (..., 3, 3), got {poses.shape}")
    local = np.stack([local_footprint(k, params) for k in range(3)])  # (3, 5, 2)
    c = np.cos(poses[..., 2])[..., None]
    s = np.sin(poses[..., 2])[..., None]
    lx = local[..., 0]
    ly = local[..., 1]
    wx = poses[..., 0:1] + c * lx - s * ly
    wy = poses[..., 1:2] + s * lx + c * ly
    return np.stack([wx, wy], axis=-1)


def tube_walls(
    tube_distance: float | None = None, params: PhysicsParams = DEFAULT_PARAMS
) -> np.ndarray:
    """MS-3 walls as (3, 4, 2) CCW rectangles: side y>0, side y<0, closed far end."""
    dist = params.tube_distance if tube_distance is None else float(tube_distance)
    out = np.empty((3, 4, 2))
    nb_tube_walls(params.to_array(), dist, out)
    return out


def tube_interior(
    tube_distance: float | None = None, params: PhysicsParams = DEFAULT_PARAMS
) -> tuple[float, float, float, float]:
    """MS-3 open interior (x0, x1, y0, y1): mouth line to 158 mm past it, |y| < 20 mm."""
    dist = params.tube_distance if tube_distance is None else float(tube_distance)
    return nb_interior(params.to_array(), dist)


def in_tube(
    poses: np.ndarray,
    tube_distance: float | np.ndarray | None = None,
    params: PhysicsParams = DEFAULT_PARAMS,
) -> tuple[np.ndarray, np.ndarray]:
    """MS-10 tests for resting poses (N, 3, 3): (overlaps interior, wholly inside), (N, 3) bool."""
    poses = np.asarray(poses, dtype=np.float64)
    if poses.ndim != 3 or poses.shape[1:] != (3, 3):
        raise ValueError(f"poses must have shape (N, 3, 3), got {poses.shape}")
    n = poses.shape[0]
    dist = np.broadcast_to(
        np.asarray(params.tube_distance if tube_distance is None else tube_distance, np.float64),
        (n,),
    )
    P = params.to_array()
    polys = footprints(poses, params)
    over = np.zeros((n, 3), dtype=bool)
    full = np.zeros((n, 3), dtype=bool)
    for i in range(n):
        for k in range(3):
            over[i, k], full[i, k] = nb_in_tube(P, np.ascontiguousarray(polys[i, k]), dist[i])
    return over, full


@njit(cache=True)
def _layout_probe() -> tuple[int, int, int, int, int, int, int]:
    return LAYOUT


drop_stale_caches(globals(), _layout_probe)
