"""The launch (MS-5..MS-7): action to physical values, noise and clip, the launch map.

* MS-5: the linear map of an action in [-1, 1]^4 to (theta, v, z, o).
* MS-6: Gaussian noise on each of them (scaled by ``noise``), then the clip to the ranges.
* MS-7: the struck piece is the one whose band holds z; it leaves with ``c_hit`` v in the
  aimed direction (plus its scatter) and the spin ``o omega_max``; pieces above ride with
  ``c_ride``, pieces below slide out with ``c_below``; a piece slower than ``v_topple``
  stays standing and takes no further part. Formulas and checks: docs/moon_shot_physics.md.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from envs.moon_shot.params import (
    I_C_BELOW,
    I_C_HIT,
    I_C_RIDE,
    I_NOISE,
    I_O_MAX,
    I_OMEGA_MAX,
    I_PIECE0,
    I_SIGMA_DELTA_HIT_DEG,
    I_SIGMA_DELTA_RIDE_DEG,
    I_SIGMA_O,
    I_SIGMA_SPIN,
    I_SIGMA_THETA_DEG,
    I_SIGMA_V_REL,
    I_SIGMA_Z,
    I_THETA_MAX_DEG,
    I_V_MAX,
    I_V_MIN,
    I_V_TOPPLE,
    I_Z_BASE_MEDIUM,
    I_Z_BASE_SMALL,
    I_Z_MAX,
    I_Z_MIN,
    PIECE_STRIDE,
    PK_S,
    PK_ZBASE,
)
from envs.moon_shot.physics.core import DEG, SOM, SPHI, STAMP, SVX, SVY, SX, SY, drop_stale


@njit(cache=True)
def action_to_physical(P: np.ndarray, a: np.ndarray) -> tuple[float, float, float, float]:
    """MS-5 linear map of an action in [-1, 1]^4 to (theta rad, v m/s, z m, o)."""
    theta = a[0] * P[I_THETA_MAX_DEG] * DEG
    v = P[I_V_MIN] + (a[1] + 1.0) * 0.5 * (P[I_V_MAX] - P[I_V_MIN])
    z = P[I_Z_MIN] + (a[2] + 1.0) * 0.5 * (P[I_Z_MAX] - P[I_Z_MIN])
    o = a[3] * P[I_O_MAX]
    return theta, v, z, o


@njit(cache=True)
def struck_piece(P: np.ndarray, z: float) -> int:
    """MS-6/MS-7: piece whose band contains z; a z exactly on a boundary strikes the upper."""
    if z >= P[I_Z_BASE_SMALL]:
        return 0
    if z >= P[I_Z_BASE_MEDIUM]:
        return 1
    return 2


@njit(cache=True)
def _launch(
    P: np.ndarray,
    theta0: float,
    v0: float,
    z0: float,
    o0: float,
    nrm: np.ndarray,
    state: np.ndarray,
    active: np.ndarray,
    realized: np.ndarray,
) -> int:
    """MS-6 noise + clip, then the MS-7 launch map; fills state (3, 6) and active (3,).

    ``nrm`` holds N_NORMALS standard normals: theta, v, z, o, then per piece k
    (small, medium, large) delta_k and spin_k. Returns the struck piece.
    """
    ns = P[I_NOISE]
    tmax = P[I_THETA_MAX_DEG] * DEG
    theta = theta0 + ns * P[I_SIGMA_THETA_DEG] * DEG * nrm[0]
    theta = min(max(theta, -tmax), tmax)
    v = v0 * (1.0 + ns * P[I_SIGMA_V_REL] * nrm[1])
    v = max(v, 0.0)
    z = z0 + ns * P[I_SIGMA_Z] * nrm[2]
    z = min(max(z, P[I_Z_MIN]), P[I_Z_MAX])
    o = o0 + ns * P[I_SIGMA_O] * nrm[3]
    o = min(max(o, -P[I_O_MAX]), P[I_O_MAX])
    realized[0] = theta
    realized[1] = v
    realized[2] = z
    realized[3] = o
    hit = struck_piece(P, z)
    zhit = P[I_PIECE0 + hit * PIECE_STRIDE + PK_ZBASE]
    ct = math.cos(theta)
    st = math.sin(theta)
    for k in range(3):
        base = I_PIECE0 + k * PIECE_STRIDE
        zk = P[base + PK_ZBASE]
        if k == hit:
            speed = v * P[I_C_HIT]
            direction = theta + ns * P[I_SIGMA_DELTA_HIT_DEG] * DEG * nrm[4 + 2 * k]
            omega = o * P[I_OMEGA_MAX]
        elif zk > zhit:  # riders above the struck piece
            speed = v * P[I_C_RIDE]
            direction = theta + ns * P[I_SIGMA_DELTA_RIDE_DEG] * DEG * nrm[4 + 2 * k]
            omega = P[I_C_RIDE] * o * P[I_OMEGA_MAX] + ns * P[I_SIGMA_SPIN] * nrm[5 + 2 * k]
        else:  # below the struck piece
            speed = v * P[I_C_BELOW]
            direction = theta
            omega = P[I_C_RIDE] * o * P[I_OMEGA_MAX] + ns * P[I_SIGMA_SPIN] * nrm[5 + 2 * k]
        if speed < P[I_V_TOPPLE]:
            # stays standing in the tree and takes no further part (never scores)
            active[k] = False
            state[k, SX] = 0.0
            state[k, SY] = 0.0
            state[k, SPHI] = theta
            state[k, SVX] = 0.0
            state[k, SVY] = 0.0
            state[k, SOM] = 0.0
        else:
            active[k] = True
            r0 = zk + P[base + PK_S] / 3.0
            state[k, SX] = r0 * ct
            state[k, SY] = r0 * st
            state[k, SPHI] = direction
            state[k, SVX] = speed * math.cos(direction)
            state[k, SVY] = speed * math.sin(direction)
            state[k, SOM] = omega
    return hit


@njit(cache=True)
def _stamp_probe() -> int:
    return STAMP


drop_stale(globals(), _stamp_probe)
