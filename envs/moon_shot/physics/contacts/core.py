"""The contact protocol (MS-8) and the bookkeeping every contact kind shares.

A contact is between two bodies ``ia`` and ``ib`` (a piece index 0..2, or -1 for the
static tube wall), found by a *detector* (one module per interaction:
:mod:`.piece_piece`, :mod:`.piece_wall`) as a manifold: the unit normal (nx, ny) from a to
b, a contact point (cx, cy) and the penetration depth. A *response model* takes exactly
that, plus the restitution of the pair, and changes the bodies' velocities and positions:

    model(P, st, ia, ib, nx, ny, cx, cy, depth, e) -> None

The one model here is :func:`.impulse._apply_contact` (Newton restitution with Coulomb
contact friction, then position projection); a new model is a new module with that
signature, chosen in :mod:`.resolve`. Slots: the 3 piece pairs (0,1), (0,2), (1,2)
(``_pair_index``) then 3 walls per piece (``3 + 3 k + w``), for the cached gap bounds.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.moon_shot.geometry import (
    NO_REFCOUNT,
    nb_world_pentagon,
)
from envs.moon_shot.params import (
    I_PIECE0,
    PIECE_STRIDE,
    PK_I,
    PK_M,
)
from envs.moon_shot.physics.core import SOM, SPHI, STAMP, SVX, SVY, SX, SY, drop_stale


@njit(inline="always", **NO_REFCOUNT)
def _contact_body(
    P: np.ndarray, st: np.ndarray, i: int, cx: float, cy: float
) -> tuple[float, float, float, float, float, float]:
    """Body ``i`` at contact point (cx, cy): inverse mass, inverse inertia, lever arm and the
    contact point's velocity; all zero for a static wall (i = -1)."""
    if i < 0:
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    base = I_PIECE0 + i * PIECE_STRIDE
    rx = cx - st[i, SX]
    ry = cy - st[i, SY]
    vx = st[i, SVX] - st[i, SOM] * ry
    vy = st[i, SVY] + st[i, SOM] * rx
    return 1.0 / P[base + PK_M], 1.0 / P[base + PK_I], rx, ry, vx, vy


@njit(cache=True, inline="always")
def _pair_index(i: int, j: int) -> int:
    return i + j - 1  # (0,1)->0, (0,2)->1, (1,2)->2


@njit(cache=True, inline="always")
def _refresh_poly(
    P: np.ndarray, st: np.ndarray, polys: np.ndarray, valid: np.ndarray, k: int
) -> None:
    if not valid[k]:
        nb_world_pentagon(P, k, st[k, SX], st[k, SY], st[k, SPHI], polys[k])
        valid[k] = True


@njit(**NO_REFCOUNT)
def _forget(gl: np.ndarray, ign_next: np.ndarray, k: int) -> None:
    """Drop the cached gap bounds and overlap-check schedules involving piece k (its motion
    changed in a contact)."""
    for j in range(3):
        if j != k:
            gl[_pair_index(min(j, k), max(j, k))] = -1e300
            ign_next[_pair_index(min(j, k), max(j, k))] = 0.0
        gl[3 + 3 * k + j] = -1e300


@njit(cache=True)
def _stamp_probe() -> int:
    return STAMP


drop_stale(globals(), _stamp_probe)
