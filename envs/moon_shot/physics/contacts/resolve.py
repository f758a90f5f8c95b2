"""Contact resolution after a substep (MS-8): detect overlaps, apply the response model.

For every candidate contact of the substep (marked by the stepping's conservative
advancement), in a fixed order (piece i: its pairs (i, j > i), then its walls), the
detector of that interaction finds the overlap (bounding circles, then SAT and the
manifold of ``geometry``) and the response model (:mod:`.impulse`) resolves it; a few
passes settle chains of contacts. The pieces involved forget their cached gap bounds.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.moon_shot.geometry import (
    NO_REFCOUNT,
    nb_manifold,
    nb_sat,
)
from envs.moon_shot.params import (
    I_E_PIECE,
    I_E_TUBE,
    I_PIECE0,
    PIECE_STRIDE,
    PK_R,
)
from envs.moon_shot.physics.contacts.core import _forget, _pair_index, _refresh_poly
from envs.moon_shot.physics.contacts.impulse import _apply_contact
from envs.moon_shot.physics.contacts.piece_wall import _circle_rect_gap
from envs.moon_shot.physics.core import STAMP, SX, SY, drop_stale


@njit(**NO_REFCOUNT)
def _resolve_contacts(
    P: np.ndarray,
    st: np.ndarray,
    active: np.ndarray,
    ignore: np.ndarray,
    walls: np.ndarray,
    polys: np.ndarray,
    valid: np.ndarray,
    cand: np.ndarray,
    gl: np.ndarray,
    ign_next: np.ndarray,
) -> None:
    """Detect overlaps of the candidate contacts after a substep and resolve them with
    impulses (a few passes); forget the cached gaps and launch-overlap check schedules of
    every piece involved."""
    for _it in range(4):
        hit = False
        for i in range(3):
            if not active[i]:
                continue
            ri = P[I_PIECE0 + i * PIECE_STRIDE + PK_R]
            for j in range(i + 1, 3):
                if not cand[_pair_index(i, j)] or ignore[_pair_index(i, j)]:
                    continue
                rj = P[I_PIECE0 + j * PIECE_STRIDE + PK_R]
                dx = st[j, SX] - st[i, SX]
                dy = st[j, SY] - st[i, SY]
                if dx * dx + dy * dy >= (ri + rj) * (ri + rj):
                    continue
                _refresh_poly(P, st, polys, valid, i)
                _refresh_poly(P, st, polys, valid, j)
                sep, edge, ref = nb_sat(polys[i], polys[j])
                if sep < 0.0:
                    nx, ny, cx, cy, depth = nb_manifold(polys[i], polys[j], edge, ref)
                    _apply_contact(P, st, i, j, nx, ny, cx, cy, depth, P[I_E_PIECE])
                    valid[i] = False
                    valid[j] = False
                    _forget(gl, ign_next, i)
                    _forget(gl, ign_next, j)
                    hit = True
            for w in range(3):
                if not cand[3 + 3 * i + w]:
                    continue
                if _circle_rect_gap(st[i, SX], st[i, SY], ri, walls[w]) >= 0.0:
                    continue
                _refresh_poly(P, st, polys, valid, i)
                sep, edge, ref = nb_sat(walls[w], polys[i])
                if sep < 0.0:
                    nx, ny, cx, cy, depth = nb_manifold(walls[w], polys[i], edge, ref)
                    _apply_contact(P, st, -1, i, nx, ny, cx, cy, depth, P[I_E_TUBE])
                    valid[i] = False
                    _forget(gl, ign_next, i)
                    hit = True
        if not hit:
            break


@njit(cache=True)
def _stamp_probe() -> int:
    return STAMP


drop_stale(globals(), _stamp_probe)
