"""Piece-wall contacts (MS-3, MS-8): gap bounds between a piece and a tube wall.

The tube's walls are axis-aligned rectangles (MS-3). Cheap lower bounds on a piece's
distance to a wall (its bounding circle, then its bounding box) decide whether the exact
SAT test (``geometry.nb_sat``) is needed; :mod:`.resolve` uses the same circle test to
find the wall contacts of a substep.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from envs.moon_shot.physics.core import STAMP, drop_stale


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


@njit(cache=True)
def _stamp_probe() -> int:
    return STAMP


drop_stale(globals(), _stamp_probe)
