"""Contact resolution after a substep (MS-8): detect overlaps, apply the response model.

For every candidate contact of the substep (marked by the stepping's conservative
advancement), in a fixed order (piece i: its pairs (i, j > i), then its walls), the
detector of that interaction (``piece_piece._resolve_pair``, ``piece_wall._resolve_wall``)
finds the overlap and hands its manifold to the response model (:mod:`.impulse`); a few
passes settle chains of contacts. The pieces involved forget their cached gap bounds.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.moon_shot.geometry import NO_REFCOUNT
from envs.moon_shot.params import I_PIECE0, PIECE_STRIDE, PK_R
from envs.moon_shot.physics.contacts.core import _pair_index
from envs.moon_shot.physics.contacts.piece_piece import _resolve_pair
from envs.moon_shot.physics.contacts.piece_wall import _resolve_wall
from envs.moon_shot.physics.core import STAMP, drop_stale


@njit(**NO_REFCOUNT)
def _resolve_contacts(
    P: np.ndarray,
    bodies: tuple,
    scene: tuple,
    cand: np.ndarray,
    gl: np.ndarray,
    ign_next: np.ndarray,
) -> None:
    """Detect overlaps of the candidate contacts after a substep and resolve them with
    impulses (a few passes); forget the cached gaps and launch-overlap check schedules of
    every piece involved. ``bodies`` = (st, active, ignore), ``scene`` = (walls, polys,
    valid): the stepping's bundles (:mod:`..stepping`)."""
    st, active, ignore = bodies
    walls, polys, valid = scene
    for _it in range(4):
        hit = False
        for i in range(3):
            if not active[i]:
                continue
            ri = P[I_PIECE0 + i * PIECE_STRIDE + PK_R]
            for j in range(i + 1, 3):
                if not cand[_pair_index(i, j)] or ignore[_pair_index(i, j)]:
                    continue
                if _resolve_pair(P, st, polys, valid, i, j, ri, gl, ign_next):
                    hit = True
            for w in range(3):
                if not cand[3 + 3 * i + w]:
                    continue
                if _resolve_wall(P, st, polys, valid, i, ri, walls[w], gl, ign_next):
                    hit = True
        if not hit:
            break


@njit(cache=True)
def _stamp_probe() -> int:
    return STAMP


drop_stale(globals(), _stamp_probe)
