"""Stepping one shot until rest (MS-8): fixed 1 ms steps refined near contacts.

Far from any obstacle a step is one friction move per moving piece (the fast path,
``_all_far`` / ``_far_steps``). Near a possible contact the step is refined by
conservative advancement (``_choose_h``): no point of any piece travels more than its gap
to an obstacle, or ``max_substep_travel`` (0.1 mm, far less than the 2 mm wall) per
substep, so nothing tunnels; after each substep the contacts are resolved
(:mod:`.contacts.resolve`). A shot ends when every piece rests or after
``max_shot_seconds``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from envs.moon_shot.geometry import (
    NO_REFCOUNT,
    nb_sat,
    nb_tube_walls,
)
from envs.moon_shot.params import (
    I_DT,
    I_G,
    I_MAX_SECONDS,
    I_MU,
    I_PIECE0,
    I_SUBSTEP_TRAVEL,
    I_TUBE_INNER,
    I_TUBE_LENGTH,
    I_TUBE_WALL,
    PIECE_STRIDE,
    PK_R,
    PK_RHO,
    PK_SQRTI,
    PK_SQRTM,
)
from envs.moon_shot.physics.contacts.core import _pair_index, _refresh_poly
from envs.moon_shot.physics.contacts.piece_piece import _update_ignore
from envs.moon_shot.physics.contacts.piece_wall import _aabb_rect_gap, _circle_rect_gap
from envs.moon_shot.physics.contacts.resolve import _resolve_contacts
from envs.moon_shot.physics.core import SOM, SPHI, STAMP, SVX, SVY, SX, SY, drop_stale
from envs.moon_shot.physics.friction import _friction_move


@njit(cache=True, inline="always")
def _speed_bound(P: np.ndarray, st: np.ndarray, k: int, dt: float) -> float:
    """Upper bound on the speed of any point of piece k over the next dt (0 at rest)."""
    vx = st[k, SVX]
    vy = st[k, SVY]
    om = st[k, SOM]
    if vx == 0.0 and vy == 0.0 and om == 0.0:
        return 0.0
    base = I_PIECE0 + k * PIECE_STRIDE
    r = P[base + PK_R]
    rho = P[base + PK_RHO]
    margin = P[I_MU] * P[I_G] * dt * (1.0 + r * r / (rho * rho))
    return math.sqrt(vx * vx + vy * vy) + abs(om) * r + margin


@njit(cache=True, inline="always")
def _pair_bound(P: np.ndarray, st: np.ndarray, i: int, j: int, dt: float) -> float:
    """Upper bound on the relative speed of any point of piece j w.r.t. any point of piece i
    over the next dt: |v_j - v_i| + |w_i| R_i + |w_j| R_j + friction margins (0 if both rest)."""
    out = 0.0
    moving = False
    for k in (i, j):
        om = st[k, SOM]
        if st[k, SVX] != 0.0 or st[k, SVY] != 0.0 or om != 0.0:
            moving = True
            base = I_PIECE0 + k * PIECE_STRIDE
            r = P[base + PK_R]
            rho = P[base + PK_RHO]
            out += abs(om) * r + P[I_MU] * P[I_G] * dt * (1.0 + r * r / (rho * rho))
    if not moving:
        return 0.0
    dvx = st[j, SVX] - st[i, SVX]
    dvy = st[j, SVY] - st[i, SVY]
    return out + math.sqrt(dvx * dvx + dvy * dvy)


@njit(cache=True, inline="always")
def _candidate(
    gl: np.ndarray,
    cand: np.ndarray,
    c: int,
    gap: float,
    lim: float,
    delta: float,
    speed: float,
    h: float,
) -> tuple[float, bool]:
    """Keep slot ``c``'s gap bound; when the obstacle is within reach of this step (gap
    below ``lim``) mark it a candidate contact and shrink the substep ``h`` so that no
    point travels more than the gap (or ``delta``) at ``speed``. Returns (h, candidate)."""
    gl[c] = gap
    if gap >= lim:
        return h, False
    cand[c] = True
    hp = max(gap, delta) / speed
    if hp < h:
        h = hp
    return h, True


@njit(cache=True, inline="always")
def _choose_h(
    P: np.ndarray,
    bodies: tuple,
    scene: tuple,
    hmax: float,
    dt: float,
    cand: np.ndarray,
    gl: np.ndarray,
    gs: np.ndarray,
) -> tuple[float, bool]:
    """Conservative advancement: the largest substep (<= hmax) in which no point of a piece
    can move more than its gap to any obstacle, or at least max_substep_travel.

    Slots: 3 piece pairs, then 3 walls per piece. ``gl[c]`` is a known lower bound on the
    slot's distance (-inf when unknown), ``gs[c]`` receives the slot's relative speed bound
    so the caller can age ``gl`` by gs*h; exact distances (SAT) are only computed when the
    cached bound no longer excludes contact. Marks in ``cand`` the contacts possible within
    hmax and says whether there is any (else contacts need no check).
    """
    st, active, ignore = bodies
    walls, polys, valid = scene
    delta = P[I_SUBSTEP_TRAVEL]
    h = hmax
    near = False
    for c in range(12):
        cand[c] = False
        gs[c] = 0.0
    for i in range(3):
        if not active[i]:
            for c in range(3):
                gl[3 + 3 * i + c] = -1e300
            continue
        ri = P[I_PIECE0 + i * PIECE_STRIDE + PK_R]
        for j in range(i + 1, 3):
            c = _pair_index(i, j)
            if not active[j] or ignore[c]:
                gl[c] = -1e300
                continue
            sp = _pair_bound(P, st, i, j, dt)
            if sp == 0.0:
                continue  # both at rest: the cached bound stays valid
            gs[c] = sp
            lim = sp * hmax
            if gl[c] >= lim:
                continue
            rj = P[I_PIECE0 + j * PIECE_STRIDE + PK_R]
            dx = st[j, SX] - st[i, SX]
            dy = st[j, SY] - st[i, SY]
            gap = math.sqrt(dx * dx + dy * dy) - ri - rj
            if gap < lim:
                _refresh_poly(P, st, polys, valid, i)
                _refresh_poly(P, st, polys, valid, j)
                sep, _, _ = nb_sat(polys[i], polys[j])
                gap = max(gap, sep)
            h, hit = _candidate(gl, cand, c, gap, lim, delta, sp, h)
            near = near or hit
        sb = _speed_bound(P, st, i, dt)
        if sb == 0.0:
            continue
        lim = sb * hmax
        for w in range(3):
            c = 3 + 3 * i + w
            gs[c] = sb
            if gl[c] >= lim:
                continue
            gap = _circle_rect_gap(st[i, SX], st[i, SY], ri, walls[w])
            if gap < lim:
                _refresh_poly(P, st, polys, valid, i)
                gap = max(gap, _aabb_rect_gap(polys[i], walls[w]))
                if gap < lim:
                    sep, _, _ = nb_sat(walls[w], polys[i])
                    gap = max(gap, sep)
            h, hit = _candidate(gl, cand, c, gap, lim, delta, sb, h)
            near = near or hit
    return h, near


@njit(**NO_REFCOUNT)
def _record(st: np.ndarray, rec: np.ndarray, f: int) -> None:
    for k in range(3):
        rec[f, k, 0] = st[k, SX]
        rec[f, k, 1] = st[k, SY]
        rec[f, k, 2] = st[k, SPHI]


@njit(cache=True, inline="always")
def _all_far(P: np.ndarray, bodies: tuple, box: tuple, dt: float) -> bool:
    """True when no piece can reach another piece (launch-overlap pairs excepted) or the
    tube's bounding box within dt (bounding circles grown by the speed bounds).
    ``bodies`` = (st, active, ignore); ``box`` = (x0, x1, half width) of the tube's box."""
    st, active, ignore = bodies
    bx0, bx1, by = box
    for k in range(3):
        if not active[k]:
            continue
        sk = _speed_bound(P, st, k, dt)
        if sk == 0.0:
            continue
        rk = P[I_PIECE0 + k * PIECE_STRIDE + PK_R] + sk * dt
        x = st[k, SX]
        y = st[k, SY]
        if x > bx0 - rk and x < bx1 + rk and y > -by - rk and y < by + rk:
            return False
    for i in range(3):
        if not active[i]:
            continue
        for j in range(i + 1, 3):
            if not active[j] or ignore[_pair_index(i, j)]:
                continue
            sp = _pair_bound(P, st, i, j, dt)
            if sp == 0.0:
                continue
            lim = (
                P[I_PIECE0 + i * PIECE_STRIDE + PK_R]
                + P[I_PIECE0 + j * PIECE_STRIDE + PK_R]
                + sp * dt
            )
            dx = st[j, SX] - st[i, SX]
            dy = st[j, SY] - st[i, SY]
            if dx * dx + dy * dy < lim * lim:
                return False
    return True


@njit(cache=True, inline="always")
def _far_bounds(
    P: np.ndarray, st: np.ndarray, active: np.ndarray, k: int, dt: float
) -> tuple[float, float]:
    """(bound on any speed bound, bound on the centre speed) of piece k over all later
    friction-only steps, from its energy norm (which friction only lowers); (0, 0) at rest."""
    if not active[k]:
        return 0.0, 0.0
    vx = st[k, SVX]
    vy = st[k, SVY]
    om = st[k, SOM]
    if vx == 0.0 and vy == 0.0 and om == 0.0:
        return 0.0, 0.0
    safety = 1.0 + 1e-9  # covers rounding in the friction step and here
    base = I_PIECE0 + k * PIECE_STRIDE
    sm = P[base + PK_SQRTM]
    si = P[base + PK_SQRTI]
    r = P[base + PK_R]
    rho = P[base + PK_RHO]
    pn = math.sqrt(sm * sm * (vx * vx + vy * vy) + si * si * om * om) * safety
    margin = P[I_MU] * P[I_G] * dt * (1.0 + r * r / (rho * rho))
    return (pn / sm + pn * r / si + margin) * safety, pn / sm * safety


@njit(cache=True, inline="always")
def _far_steps(P: np.ndarray, bodies: tuple, box: tuple, dt: float) -> int:
    """How many further 1 ms steps ``_all_far`` is sure to hold under friction-only motion
    (0 when unknown), so the fast path need not re-test it every step.

    Friction only lowers the energy norm |p| = sqrt(m v^2 + I w^2), so over all later
    friction steps |v| <= |p|/sqrt(m) (the centre's speed) and every speed bound
    ``_speed_bound`` can return is below |p|/sqrt(m) + |p| R / sqrt(I) + margin. A piece's
    L-inf distance to the tube's box and a pair's centre distance shrink at most at those
    centre speeds; the step count keeps ``_all_far``'s own test (the grown circles) clear.
    Launch-overlap pairs are left out as in ``_all_far``; the caller resets the count when
    one of them starts to collide. Only skips a test whose answer is known: results are
    bit-identical to testing every step. Arguments as ``_all_far``'s.
    """
    st, active, ignore = bodies
    bx0, bx1, by = box
    best = 1 << 30
    for k in range(3):
        cb, cc = _far_bounds(P, st, active, k, dt)
        if cc == 0.0:
            continue
        x = st[k, SX]
        y = st[k, SY]
        e = max(bx0 - x, x - bx1, -by - y, y - by) - P[I_PIECE0 + k * PIECE_STRIDE + PK_R] - cb * dt
        if e <= 0.0:
            return 0
        n = e / (cc * dt) * (1.0 - 1e-9) - 1.0
        best = min(best, int(n) if n > 0.0 else 0)
    for i in range(3):
        if not active[i]:
            continue
        cbi, cci = _far_bounds(P, st, active, i, dt)
        for j in range(i + 1, 3):
            if not active[j] or ignore[_pair_index(i, j)]:
                continue
            cbj, ccj = _far_bounds(P, st, active, j, dt)
            if cci + ccj == 0.0:
                continue  # both at rest: they stay so
            dx = st[j, SX] - st[i, SX]
            dy = st[j, SY] - st[i, SY]
            e = (
                math.sqrt(dx * dx + dy * dy) * (1.0 - 1e-12)
                - P[I_PIECE0 + i * PIECE_STRIDE + PK_R]
                - P[I_PIECE0 + j * PIECE_STRIDE + PK_R]
                - (cbi + cbj) * dt
            )
            if e <= 0.0:
                return 0
            n = e / ((cci + ccj) * dt) * (1.0 - 1e-9) - 1.0
            best = min(best, int(n) if n > 0.0 else 0)
    return best


@njit(cache=True)
def run_shot(
    P: np.ndarray,
    tab: np.ndarray,
    st: np.ndarray,
    active: np.ndarray,
    ignore: np.ndarray,
    dist: float,
    rec: np.ndarray,
    rec_every: int,
) -> tuple[int, float]:
    """Simulate one shot from piece states st (3, 6) until rest or max_shot_seconds.

    ``active[k]`` False: piece k takes no part. ``ignore[pair]`` True: the pair (0,1),
    (0,2), (1,2) does not collide until their footprints separate (MS-7). Fills ``rec``
    (T, 3, 3) every ``rec_every`` steps when T > 0. Returns (body-substeps, sim seconds).
    """
    walls = np.empty((3, 4, 2))
    nb_tube_walls(P, dist, walls)
    scene = (walls, np.empty((3, 5, 2)), np.zeros(3, dtype=np.bool_))  # walls, polys, valid
    # candidate contacts, gap lower bounds and speed bounds per slot; overlap schedule
    work = (np.zeros(12, dtype=np.bool_), np.full(12, -1e300), np.zeros(12), np.zeros(3))
    return _run_shot_core(P, tab, (st, active, ignore), scene, work, dist, rec, rec_every)


@njit(**NO_REFCOUNT)
def _run_shot_core(
    P: np.ndarray,
    tab: np.ndarray,
    bodies: tuple,
    scene: tuple,
    work: tuple,
    dist: float,
    rec: np.ndarray,
    rec_every: int,
) -> tuple[int, float]:
    """The loop of ``run_shot`` over preallocated work arrays. Compiled without the Numba
    runtime's reference counting (it allocates nothing): the increments and decrements that
    every array argument and view otherwise costs were ~40 % of the kernel's time.

    ``bodies`` = (st, active, ignore), ``scene`` = (walls, polys, valid) and ``work`` =
    (cand, gl, gs, ign_next): the bundles the step's helpers share."""
    st, active, ignore = bodies
    _, polys, valid = scene  # the walls only reach the helpers, through ``scene``
    cand, gl, gs, ign_next = work
    dt = P[I_DT]
    nsteps = int(round(P[I_MAX_SECONDS] / dt))
    nrec = rec.shape[0]
    if nrec > 0:
        _record(st, rec, 0)
    box = (dist, dist + P[I_TUBE_LENGTH], 0.5 * P[I_TUBE_INNER] + P[I_TUBE_WALL])
    substeps = 0
    step = 0
    far_until = 0  # _all_far is known to hold for every step < far_until
    while step < nsteps:
        moving = False
        for k in range(3):
            if active[k] and (st[k, SVX] != 0.0 or st[k, SVY] != 0.0 or st[k, SOM] != 0.0):
                moving = True
        if not moving:
            break
        if step < far_until or _all_far(P, bodies, box, dt):
            if step >= far_until:
                far_until = step + 1 + _far_steps(P, bodies, box, dt)
            # fast path: no contact is possible within this step, one friction step each
            for k in range(3):
                if active[k] and (st[k, SVX] != 0.0 or st[k, SVY] != 0.0 or st[k, SOM] != 0.0):
                    _friction_move(P, tab, st, k, dt)
                    substeps += 1
            if ignore[0] or ignore[1] or ignore[2]:
                valid[:] = False
                _update_ignore(P, st, active, ignore, polys, valid, (step + 1) * dt, ign_next)
                if not (ignore[0] and ignore[1] and ignore[2]):
                    far_until = 0  # a pair may have started to collide: re-check every step
            for c in range(12):
                gl[c] = -1e300
            step += 1
            if nrec > 0 and step % rec_every == 0:
                f = step // rec_every
                if f < nrec:
                    _record(st, rec, f)
            continue
        t_in = 0.0
        while t_in < dt:
            valid[:] = False
            h, near = _choose_h(P, bodies, scene, dt - t_in, dt, cand, gl, gs)
            if dt - t_in - h < 1e-12 * dt:
                h = dt - t_in
            anymove = False
            for k in range(3):
                if active[k] and (st[k, SVX] != 0.0 or st[k, SVY] != 0.0 or st[k, SOM] != 0.0):
                    _friction_move(P, tab, st, k, h)
                    substeps += 1
                    anymove = True
            for c in range(12):
                gl[c] -= gs[c] * h
            valid[:] = False
            if ignore[0] or ignore[1] or ignore[2]:
                tnow = step * dt + t_in + h
                _update_ignore(P, st, active, ignore, polys, valid, tnow, ign_next)
            if near:
                _resolve_contacts(P, bodies, scene, cand, gl, ign_next)
            t_in += h
            if not anymove:
                break
        step += 1
        if nrec > 0 and step % rec_every == 0:
            f = step // rec_every
            if f < nrec:
                _record(st, rec, f)
    if nrec > 0:
        f0 = step // rec_every + 1
        for f in range(f0, nrec):
            _record(st, rec, f)
    return substeps, step * dt


@njit(cache=True)
def _stamp_probe() -> int:
    return STAMP


drop_stale(globals(), _stamp_probe)
