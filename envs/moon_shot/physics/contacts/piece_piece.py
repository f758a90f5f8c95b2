"""Piece-piece contacts (MS-7, MS-8): the pair detector and the launch-overlap rule.

``_resolve_pair`` is the detector of the contact protocol (``core``) for two pieces:
bounding circles first, then the exact SAT test and the contact manifold of the two
pentagon footprints (MS-4, ``geometry``); an overlap goes to the response model with the
pieces' restitution ``restitution_piece`` (MS-8).

MS-7: the tree's pieces start stacked, so their footprints overlap at launch; such a pair
takes no part in contacts until the footprints have separated. ``_init_ignore`` marks
those pairs, ``_update_ignore`` re-checks them no earlier than they could separate.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from envs.moon_shot.geometry import (
    NO_REFCOUNT,
    nb_manifold,
    nb_sat,
)
from envs.moon_shot.params import (
    I_E_PIECE,
    I_G,
    I_MU,
    I_PIECE0,
    PIECE_STRIDE,
    PK_R,
    PK_RHO,
)
from envs.moon_shot.physics.contacts.core import _forget, _pair_index, _refresh_poly
from envs.moon_shot.physics.contacts.impulse import _apply_contact
from envs.moon_shot.physics.core import SOM, STAMP, SVX, SVY, SX, SY, drop_stale


@njit(inline="always", **NO_REFCOUNT)
def _resolve_pair(
    P: np.ndarray,
    st: np.ndarray,
    polys: np.ndarray,
    valid: np.ndarray,
    i: int,
    j: int,
    ri: float,
    gl: np.ndarray,
    ign_next: np.ndarray,
) -> bool:
    """Resolve an overlap of pieces i < j (bounding radius ``ri`` of i) after a substep;
    True when there was one (both pieces then forget their cached gaps)."""
    rj = P[I_PIECE0 + j * PIECE_STRIDE + PK_R]
    dx = st[j, SX] - st[i, SX]
    dy = st[j, SY] - st[i, SY]
    if dx * dx + dy * dy >= (ri + rj) * (ri + rj):
        return False  # bounding circles apart
    _refresh_poly(P, st, polys, valid, i)
    _refresh_poly(P, st, polys, valid, j)
    sep, edge, ref = nb_sat(polys[i], polys[j])
    if not sep < 0.0:  # touching or apart (the test of the old code, NaN included)
        return False
    nx, ny, cx, cy, depth = nb_manifold(polys[i], polys[j], edge, ref)
    _apply_contact(P, st, i, j, nx, ny, cx, cy, depth, P[I_E_PIECE])  # MS-8
    valid[i] = False
    valid[j] = False
    _forget(gl, ign_next, i)
    _forget(gl, ign_next, j)
    return True


@njit(**NO_REFCOUNT)
def _update_ignore(
    P: np.ndarray,
    st: np.ndarray,
    active: np.ndarray,
    ignore: np.ndarray,
    polys: np.ndarray,
    valid: np.ndarray,
    tnow: float,
    ign_next: np.ndarray,
) -> None:
    """MS-7: pieces overlapping at launch ignore each other until their footprints separate.

    A pair overlapping by depth D (SAT) cannot separate before D has been covered by the
    rate at which any SAT term can change, |v_i - v_j| + (|w_i| + |w_j|) L with
    L = 3 (R_i + R_j), a rate that friction can raise by at most
    mu g (2 + L (R_i / rho_i^2 + R_j / rho_j^2)) per second; the next exact check is
    scheduled at that earliest time (contacts with third bodies reset the schedule).
    """
    for i in range(3):
        for j in range(i + 1, 3):
            pi = _pair_index(i, j)
            if not ignore[pi]:
                continue
            if not (active[i] and active[j]):
                ignore[pi] = False
                continue
            if tnow < ign_next[pi]:
                continue
            if (
                st[i, SVX] == 0.0
                and st[i, SVY] == 0.0
                and st[i, SOM] == 0.0
                and st[j, SVX] == 0.0
                and st[j, SVY] == 0.0
                and st[j, SOM] == 0.0
            ):
                continue  # both at rest: nothing changes
            bi = I_PIECE0 + i * PIECE_STRIDE
            bj = I_PIECE0 + j * PIECE_STRIDE
            ri = P[bi + PK_R]
            rj = P[bj + PK_R]
            dx = st[j, SX] - st[i, SX]
            dy = st[j, SY] - st[i, SY]
            if dx * dx + dy * dy >= (ri + rj) * (ri + rj):
                ignore[pi] = False
                continue
            _refresh_poly(P, st, polys, valid, i)
            _refresh_poly(P, st, polys, valid, j)
            sep, _, _ = nb_sat(polys[i], polys[j])
            if sep > 0.0:
                ignore[pi] = False
                continue
            lev = 3.0 * (ri + rj)
            dvx = st[j, SVX] - st[i, SVX]
            dvy = st[j, SVY] - st[i, SVY]
            b0 = math.sqrt(dvx * dvx + dvy * dvy) + (abs(st[i, SOM]) + abs(st[j, SOM])) * lev
            rhoi = P[bi + PK_RHO]
            rhoj = P[bj + PK_RHO]
            mr = P[I_MU] * P[I_G] * (2.0 + lev * (ri / (rhoi * rhoi) + rj / (rhoj * rhoj)))
            depth = -sep
            if mr > 0.0:
                wait = (math.sqrt(b0 * b0 + 2.0 * mr * depth) - b0) / mr
            elif b0 > 0.0:
                wait = depth / b0
            else:
                wait = 0.0
            ign_next[pi] = tnow + wait


@njit(cache=True)
def _init_ignore(
    P: np.ndarray, st: np.ndarray, active: np.ndarray, ignore: np.ndarray, polys: np.ndarray
) -> None:
    valid = np.zeros(3, dtype=np.bool_)
    for i in range(3):
        for j in range(i + 1, 3):
            pi = _pair_index(i, j)
            ignore[pi] = False
            if active[i] and active[j]:
                _refresh_poly(P, st, polys, valid, i)
                _refresh_poly(P, st, polys, valid, j)
                sep, _, _ = nb_sat(polys[i], polys[j])
                ignore[pi] = sep <= 0.0


@njit(cache=True)
def _stamp_probe() -> int:
    return STAMP


drop_stale(globals(), _stamp_probe)
