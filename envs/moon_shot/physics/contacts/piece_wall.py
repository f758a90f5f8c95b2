"""Piece-wall contacts (MS-3, MS-8): the wall detector and gap bounds to a tube wall.

The tube's walls are axis-aligned rectangles (MS-3), static bodies (index -1 in the
contact protocol of ``core``). Cheap lower bounds on a piece's distance to a wall (its
bounding circle, then its bounding box) decide whether the exact SAT test
(``geometry.nb_sat``) is needed, in the stepping and in ``_resolve_wall``, the detector
that hands an overlap to the response model with the tube's restitution
``restitution_tube`` (MS-8).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from envs.moon_shot.geometry import NO_REFCOUNT, nb_manifold, nb_sat
from envs.moon_shot.params import I_E_TUBE
from envs.moon_shot.physics.contacts.core import _forget, _refresh_poly
from envs.moon_shot.physics.contacts.impulse import _apply_contact
from envs.moon_shot.physics.core import STAMP, SX, SY, drop_stale


@njit(cache=True, inline="always")
def _circle_rect_gap(x: float, y: float, r: float, rect: np.ndarray) -> float:
    """Distance from a circle to an axis-aligned rectangle (negative inside: a lower bound)."""
    x0 = rect[0, 0]
    y0 = rect[0, 1]
    x1 = rect[2, 0]
    y1 = rect[2, 1]
    dx = max(x0 - x, 0.0, x - x1)
    dy = max(y0 - y, 0.0, y - y1)
    return math.sqrt(dx * dx + dy * dy) - r


@njit(cache=True, inline="always")
def _aabb_rect_gap(poly: np.ndarray, rect: np.ndarray) -> float:
    """Separation of a polygon's bounding box from an axis-aligned rectangle along x or y
    (a lower bound on their distance; negative when the boxes overlap)."""
    mnx = poly[0, 0]
    mxx = poly[0, 0]
    mny = poly[0, 1]
    mxy = poly[0, 1]
    for q in range(1, poly.shape[0]):
        mnx = min(mnx, poly[q, 0])
        mxx = max(mxx, poly[q, 0])
        mny = min(mny, poly[q, 1])
        mxy = max(mxy, poly[q, 1])
    return max(rect[0, 0] - mxx, mnx - rect[2, 0], rect[0, 1] - mxy, mny - rect[2, 1])


@njit(inline="always", **NO_REFCOUNT)
def _resolve_wall(
    P: np.ndarray,
    st: np.ndarray,
    polys: np.ndarray,
    valid: np.ndarray,
    i: int,
    ri: float,
    wall: np.ndarray,
    gl: np.ndarray,
    ign_next: np.ndarray,
) -> bool:
    """Resolve an overlap of piece i (bounding radius ``ri``) with ``wall`` after a
    substep; True when there was one (the piece then forgets its cached gaps)."""
    if _circle_rect_gap(st[i, SX], st[i, SY], ri, wall) >= 0.0:
        return False  # bounding circle clear of the wall
    _refresh_poly(P, st, polys, valid, i)
    sep, edge, ref = nb_sat(wall, polys[i])
    if not sep < 0.0:  # touching or apart (the test of the old code, NaN included)
        return False
    nx, ny, cx, cy, depth = nb_manifold(wall, polys[i], edge, ref)
    _apply_contact(P, st, -1, i, nx, ny, cx, cy, depth, P[I_E_TUBE])  # MS-8, static wall
    valid[i] = False
    _forget(gl, ign_next, i)
    return True


@njit(cache=True)
def _stamp_probe() -> int:
    return STAMP


drop_stale(globals(), _stamp_probe)
