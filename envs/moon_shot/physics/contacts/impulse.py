"""Contact response model (MS-8): impulse with restitution and Coulomb contact friction.

The model of the protocol in :mod:`.core`: Newton restitution on the normal velocity
(``restitution_piece`` / ``restitution_tube``, none below ``bounce_threshold``) and
Coulomb friction (``contact_friction``) with the normal/tangential coupling of the 2x2
contact mass matrix; then a mass-weighted position projection that leaves ``contact_slop``
of separation. Derivation: docs/moon_shot_physics.md.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.moon_shot.geometry import (
    NO_REFCOUNT,
)
from envs.moon_shot.params import (
    I_BOUNCE_THRESHOLD,
    I_MU_CONTACT,
    I_SLOP,
)
from envs.moon_shot.physics.contacts.core import _contact_body
from envs.moon_shot.physics.core import SOM, STAMP, SVX, SVY, SX, SY, drop_stale


@njit(**NO_REFCOUNT)
def _apply_contact(
    P: np.ndarray,
    st: np.ndarray,
    ia: int,
    ib: int,
    nx: float,
    ny: float,
    cx: float,
    cy: float,
    depth: float,
    e: float,
) -> None:
    """Impulse with restitution e and Coulomb contact friction between bodies ia and ib
    (index -1 = static wall), normal (nx, ny) from a to b; then push them apart."""
    ima, iia, rax, ray, vax, vay = _contact_body(P, st, ia, cx, cy)
    imb, iib, rbx, rby, vbx, vby = _contact_body(P, st, ib, cx, cy)
    rvx = vbx - vax
    rvy = vby - vay
    vn = rvx * nx + rvy * ny
    if vn < 0.0:
        if -vn <= P[I_BOUNCE_THRESHOLD]:
            e = 0.0
        # Newton restitution on the final normal velocity + Coulomb friction, with the
        # normal/tangential coupling of the 2x2 contact mass matrix (as an iterative solver
        # such as pymunk's converges to): try sticking, else slide at the cone's edge.
        tx = -ny
        ty = nx
        vt = rvx * tx + rvy * ty
        ran = rax * ny - ray * nx
        rbn = rbx * ny - rby * nx
        rat = rax * ty - ray * tx
        rbt = rbx * ty - rby * tx
        knn = ima + imb + iia * ran * ran + iib * rbn * rbn
        ktt = ima + imb + iia * rat * rat + iib * rbt * rbt
        knt = iia * ran * rat + iib * rbn * rbt
        bn = -(1.0 + e) * vn
        bt = -vt
        det = knn * ktt - knt * knt
        muc = P[I_MU_CONTACT]
        jn = (ktt * bn - knt * bt) / det
        jt = (knn * bt - knt * bn) / det
        if not (jn > 0.0 and abs(jt) <= muc * jn):
            sg = 1.0 if vt > 0.0 else (-1.0 if vt < 0.0 else 0.0)
            den = knn - sg * muc * knt
            if den < 0.1 * knn:  # degenerate (Painleve-like) case: drop friction
                den = knn
                sg = 0.0
            jn = bn / den
            jt = -sg * muc * jn
        jx = jn * nx + jt * tx
        jy = jn * ny + jt * ty
        if ia >= 0:
            st[ia, SVX] -= jx * ima
            st[ia, SVY] -= jy * ima
            st[ia, SOM] -= iia * (rax * jy - ray * jx)
        if ib >= 0:
            st[ib, SVX] += jx * imb
            st[ib, SVY] += jy * imb
            st[ib, SOM] += iib * (rbx * jy - rby * jx)
    # position projection (mass-weighted), leaving a tiny separation
    tot = ima + imb
    corr = depth + P[I_SLOP]
    if ia >= 0:
        st[ia, SX] -= nx * corr * ima / tot
        st[ia, SY] -= ny * corr * ima / tot
    if ib >= 0:
        st[ib, SX] += nx * corr * imb / tot
        st[ib, SY] += ny * corr * imb / tot


@njit(cache=True)
def _stamp_probe() -> int:
    return STAMP


drop_stale(globals(), _stamp_probe)
