"""Moon Shot physics kernel (MS-4..MS-9): launch map, table friction, contacts, until rest.

Batched and Numba-compiled: ``simulate`` runs N independent shots (``prange`` over shots,
each with its own loop, so a settled shot costs nothing more). Everything is float64 and
every random number comes from the shot's own seed (splitmix64 + Box-Muller), so a shot's
outcome depends only on (action, seed, params, tube_distance): the same whatever the batch
size, the position in the batch or the thread count.

Model summary (details, derivations and checks: docs/moon_shot_physics.md):

* MS-7 launch map exactly as written (``launch_states``), noise MS-6 then clip.
* MS-8 table friction: Coulomb, uniform pressure over the triangular contact face. The
  friction wrench depends only on the direction of the body-frame motion
  (v, rho*omega); it is tabulated once per piece shape by quadrature over the face. Within a
  step the kinetic-energy norm |p| = sqrt(m v^2 + I w^2) decreases linearly (exact for the
  wrench of the current direction) and the direction follows its own flow in log|p| time,
  so both sliding and spinning reach zero at the same instant; a piece that stops mid-step
  stops there and friction never reverses motion.
* MS-8 contacts: convex polygons (pentagon footprints, rectangular tube walls), impulses with
  restitution and Coulomb contact friction at a clipped contact point, position projection.
  Steps are refined by conservative advancement: near a possible contact no point of any
  piece travels more than ``max_substep_travel`` (0.1 mm) per substep, far less than the
  2 mm wall, so nothing tunnels.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from numba import njit, prange

from envs.moon_shot.geometry import (
    NO_REFCOUNT,
    nb_in_tube,
    nb_manifold,
    nb_sat,
    nb_tube_walls,
    nb_world_pentagon,
)
from envs.moon_shot.params import (
    DEFAULT_PARAMS,
    I_BOUNCE_THRESHOLD,
    I_C_BELOW,
    I_C_HIT,
    I_C_RIDE,
    I_DT,
    I_E_PIECE,
    I_E_TUBE,
    I_G,
    I_MAX_SECONDS,
    I_MU,
    I_MU_CONTACT,
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
    I_SLOP,
    I_SUBSTEP_TRAVEL,
    I_THETA_MAX_DEG,
    I_TUBE_INNER,
    I_TUBE_LENGTH,
    I_TUBE_WALL,
    I_V_MAX,
    I_V_MIN,
    I_V_TOPPLE,
    I_Z_BASE_MEDIUM,
    I_Z_BASE_SMALL,
    I_Z_MAX,
    I_Z_MIN,
    LAYOUT,
    PIECE_STRIDE,
    PK_B,
    PK_I,
    PK_M,
    PK_R,
    PK_RHO,
    PK_S,
    PK_SQRTI,
    PK_SQRTM,
    PK_ZBASE,
    PhysicsParams,
    drop_stale_caches,
)

# State layout of one piece: x, y, heading, vx, vy, omega.
SX, SY, SPHI, SVX, SVY, SOM = range(6)
N_NORMALS = 10  # Gaussian draws per shot (fixed count, always drawn, see _launch)

# Friction table resolution: beta (spin share) x alpha (body-frame sliding direction).
TAB_NB = 64
TAB_NA = 128
TAB_NQ = 48  # face subdivided into TAB_NQ^2 equal triangles (centroid rule)

DEG = math.pi / 180.0

# --------------------------------------------------------------------------- RNG


@njit(cache=True)
def splitmix64(state: np.uint64) -> tuple[np.uint64, np.uint64]:
    """One splitmix64 step: (new state, 64-bit output)."""
    state = np.uint64(state + np.uint64(0x9E3779B97F4A7C15))
    z = state
    z = np.uint64((z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9))
    z = np.uint64((z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB))
    z = np.uint64(z ^ (z >> np.uint64(31)))
    return state, z


@njit(cache=True)
def shot_normals(seed: np.uint64, out: np.ndarray) -> None:
    """Fill ``out`` with standard normals from the shot seed (Box-Muller, cosine branch)."""
    st = np.uint64(seed)
    for i in range(out.shape[0]):
        st, a = splitmix64(st)
        st, b = splitmix64(st)
        u1 = (float(a >> np.uint64(11)) + 1.0) * (1.0 / 9007199254740992.0)  # (0, 1]
        u2 = float(b >> np.uint64(11)) * (1.0 / 9007199254740992.0)  # [0, 1)
        out[i] = math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


# --------------------------------------------------------------------------- launch (MS-5..7)


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


# --------------------------------------------------------------------------- friction (MS-8)


@njit(cache=True)
def _build_friction_table(P: np.ndarray, nb: int, na: int, nq: int) -> np.ndarray:
    """Normalised friction wrench of each piece over directions of motion.

    Entry [k, i, j] for beta_i in [-pi/2, pi/2], alpha_j in [-pi, pi] is the motion
    u = (cos b cos a, cos b sin a, sin b) in body frame and energy-normalised coordinates
    (velocity, rho * omega); stored: (f_par, f_perp, t) with friction force
    F = mu m g (f_par e_a + f_perp e_a^perp) and torque tau = mu m g rho t, where e_a is the
    sliding direction. Uniform pressure over the contact triangle (MS-8), centroid rule on
    nq^2 equal sub-triangles.
    """
    tab = np.zeros((3, nb + 1, na + 1, 3))
    npts = nq * nq
    qx = np.empty(npts)
    qy = np.empty(npts)
    for k in range(3):
        base = I_PIECE0 + k * PIECE_STRIDE
        b = P[base + PK_B]
        s = P[base + PK_S]
        rho = P[base + PK_RHO]
        # contact face (0, -b/2), (s, 0), (0, b/2) relative to the centroid (s/3, 0)
        ax, ay = -s / 3.0, -b / 2.0
        bx, by = 2.0 * s / 3.0, 0.0
        cx, cy = -s / 3.0, b / 2.0
        n = 0
        for i in range(nq):
            for j in range(nq - i):
                u = (i + 1.0 / 3.0) / nq
                w = (j + 1.0 / 3.0) / nq
                qx[n] = ax + u * (bx - ax) + w * (cx - ax)
                qy[n] = ay + u * (by - ay) + w * (cy - ay)
                n += 1
                if i + j <= nq - 2:
                    u = (i + 2.0 / 3.0) / nq
                    w = (j + 2.0 / 3.0) / nq
                    qx[n] = ax + u * (bx - ax) + w * (cx - ax)
                    qy[n] = ay + u * (by - ay) + w * (cy - ay)
                    n += 1
        for ib in range(nb + 1):
            beta = -0.5 * math.pi + math.pi * ib / nb
            cb = math.cos(beta)
            sb = math.sin(beta)
            if ib == 0:
                cb = 0.0
                sb = -1.0
            elif ib == nb:
                cb = 0.0
                sb = 1.0
            for ia in range(na + 1):
                alpha = -math.pi + 2.0 * math.pi * ia / na
                ca = math.cos(alpha)
                sa = math.sin(alpha)
                ux = cb * ca
                uy = cb * sa
                wr = sb / rho
                fx = 0.0
                fy = 0.0
                tq = 0.0
                for q in range(n):
                    vx = ux - wr * qy[q]
                    vy = uy + wr * qx[q]
                    sp = math.sqrt(vx * vx + vy * vy)
                    if sp > 0.0:
                        vx /= sp
                        vy /= sp
                        fx -= vx
                        fy -= vy
                        tq -= qx[q] * vy - qy[q] * vx
                fx /= n
                fy /= n
                tq /= n * rho
                tab[k, ib, ia, 0] = fx * ca + fy * sa
                tab[k, ib, ia, 1] = -fx * sa + fy * ca
                tab[k, ib, ia, 2] = tq
    return tab


_TABLE_CACHE: dict[tuple[float, ...], np.ndarray] = {}


def friction_table(params: PhysicsParams = DEFAULT_PARAMS) -> np.ndarray:
    """Cached friction table for the piece shapes of ``params`` (see _build_friction_table)."""
    key = (
        params.b_small,
        params.h_small,
        params.b_medium,
        params.h_medium,
        params.b_large,
        params.h_large,
    )
    tab = _TABLE_CACHE.get(key)
    if tab is None:
        tab = _build_friction_table(params.to_array(), TAB_NB, TAB_NA, TAB_NQ)
        tab.setflags(write=False)
        _TABLE_CACHE[key] = tab
    return tab


@njit(cache=True, inline="always")
def _wrench(
    tab: np.ndarray, k: int, ux: float, uy: float, uw: float, phi: float
) -> tuple[float, float, float]:
    """World-frame normalised friction wrench (gx, gy, gt) of piece k with heading phi for
    the unit motion (ux, uy, uw) in energy-normalised world coordinates (v, rho*omega).

    The physical wrench is F = mu m g (gx, gy), tau = mu m g rho gt. Bilinear interpolation
    of the table in (beta, alpha) = (spin share, sliding direction relative to heading); the
    stored force is in the sliding direction's frame, so pure sliding (beta = 0) is exact.
    """
    nb = tab.shape[1] - 1
    na = tab.shape[2] - 1
    cxy = math.sqrt(ux * ux + uy * uy)
    if cxy > 0.0:
        ex = ux / cxy
        ey = uy / cxy
        alpha = math.atan2(uy, ux) - phi
        if alpha < -math.pi or alpha >= math.pi:  # else the floor below is 0: skip it
            alpha -= 2.0 * math.pi * math.floor((alpha + math.pi) / (2.0 * math.pi))
    else:  # pure spin: any sliding frame works, take the body axis
        ex = math.cos(phi)
        ey = math.sin(phi)
        alpha = 0.0
    beta = math.atan2(uw, cxy)
    fb = (beta + 0.5 * math.pi) * (nb / math.pi)
    fa = (alpha + math.pi) * (na / (2.0 * math.pi))
    ib = int(fb)
    ia = int(fa)
    if ib >= nb:
        ib = nb - 1
    elif ib < 0:
        ib = 0
    if ia >= na:
        ia = na - 1
    elif ia < 0:
        ia = 0
    tb = fb - ib
    ta = fa - ia
    w00 = (1.0 - tb) * (1.0 - ta)
    w01 = (1.0 - tb) * ta
    w10 = tb * (1.0 - ta)
    w11 = tb * ta
    # direct indexing (no row views: a view costs reference counting in the hot loop)
    ib1 = ib + 1
    ia1 = ia + 1
    fpar = (
        w00 * tab[k, ib, ia, 0]
        + w01 * tab[k, ib, ia1, 0]
        + w10 * tab[k, ib1, ia, 0]
        + w11 * tab[k, ib1, ia1, 0]
    )
    fper = (
        w00 * tab[k, ib, ia, 1]
        + w01 * tab[k, ib, ia1, 1]
        + w10 * tab[k, ib1, ia, 1]
        + w11 * tab[k, ib1, ia1, 1]
    )
    tq = (
        w00 * tab[k, ib, ia, 2]
        + w01 * tab[k, ib, ia1, 2]
        + w10 * tab[k, ib1, ia, 2]
        + w11 * tab[k, ib1, ia1, 2]
    )
    return fpar * ex - fper * ey, fpar * ey + fper * ex, tq


@njit(cache=True, inline="always")
def _friction_move(P: np.ndarray, tab: np.ndarray, st: np.ndarray, k: int, h: float) -> None:
    """Advance piece k (row k of the states st (3, 6)) by h under table friction only (MS-8).

    |p| = sqrt(m v^2 + I w^2) falls linearly at the rate of the current direction; the
    direction of p follows dp^/dtau = g_perp / r with tau = ln(|p0|/|p|) (bounded speed), so
    it converges to the self-similar direction and sliding and spinning vanish together. A
    piece whose |p| reaches 0 inside the step stops there (position integrated to that
    instant); friction never reverses the motion.
    """
    base = I_PIECE0 + k * PIECE_STRIDE
    sm = P[base + PK_SQRTM]
    si = P[base + PK_SQRTI]
    vx = st[k, SVX]
    vy = st[k, SVY]
    om = st[k, SOM]
    px = sm * vx
    py = sm * vy
    pw = si * om
    pn = math.sqrt(px * px + py * py + pw * pw)
    if pn == 0.0:
        return
    mug = P[I_MU] * P[I_G]
    if mug <= 0.0:
        st[k, SX] += vx * h
        st[k, SY] += vy * h
        st[k, SPHI] += om * h
        return
    ux = px / pn
    uy = py / pn
    uw = pw / pn
    phi = st[k, SPHI]
    gx, gy, gt = _wrench(tab, k, ux, uy, uw, phi)
    g_dot = gx * ux + gy * uy + gt * uw
    rr = -g_dot
    if rr < 1e-9:  # cannot happen for a physical table; guard against a stall
        rr = 1e-9
    rate = mug * sm * rr
    if pn <= rate * h:
        tstop = pn / rate
        st[k, SX] += 0.5 * vx * tstop
        st[k, SY] += 0.5 * vy * tstop
        st[k, SPHI] += 0.5 * om * tstop
        st[k, SVX] = 0.0
        st[k, SVY] = 0.0
        st[k, SOM] = 0.0
        return
    p1 = pn - rate * h
    x = rate * h / pn
    if x < 0.05:  # -log(1 - x) by its series, truncation error < x^8 / 8 < 5e-12
        dtau = x * (
            1.0 + x * (0.5 + x * (1.0 / 3.0 + x * (0.25 + x * (0.2 + x * (1.0 / 6.0 + x / 7.0)))))
        )
    else:
        dtau = -math.log1p(-x)
    qx = gx - g_dot * ux
    qy = gy - g_dot * uy
    qw = gt - g_dot * uw
    q2 = qx * qx + qy * qy + qw * qw
    if dtau * dtau * q2 < (0.05 * rr) * (0.05 * rr):
        ux += dtau * qx / rr
        uy += dtau * qy / rr
        uw += dtau * qw / rr
    else:
        nsub = min(64, int(math.ceil(dtau * math.sqrt(q2) / rr / 0.05)))
        hs = dtau / nsub
        for i in range(nsub):
            ux += hs * qx / rr
            uy += hs * qy / rr
            uw += hs * qw / rr
            un = math.sqrt(ux * ux + uy * uy + uw * uw)
            ux /= un
            uy /= un
            uw /= un
            if i + 1 < nsub:
                gx, gy, gt = _wrench(tab, k, ux, uy, uw, phi)
                g_dot = gx * ux + gy * uy + gt * uw
                rr = max(-g_dot, 1e-9)
                qx = gx - g_dot * ux
                qy = gy - g_dot * uy
                qw = gt - g_dot * uw
    un = p1 / math.sqrt(ux * ux + uy * uy + uw * uw)
    vx1 = un * ux / sm
    vy1 = un * uy / sm
    om1 = un * uw / si
    st[k, SX] += 0.5 * (vx + vx1) * h
    st[k, SY] += 0.5 * (vy + vy1) * h
    st[k, SPHI] += 0.5 * (om + om1) * h
    st[k, SVX] = vx1
    st[k, SVY] = vy1
    st[k, SOM] = om1


# --------------------------------------------------------------------------- contacts (MS-8)


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


@njit(cache=True, inline="always")
def _choose_h(
    P: np.ndarray,
    st: np.ndarray,
    active: np.ndarray,
    ignore: np.ndarray,
    walls: np.ndarray,
    polys: np.ndarray,
    valid: np.ndarray,
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
            gl[c] = gap
            if gap >= lim:
                continue
            near = True
            cand[c] = True
            hp = max(gap, delta) / sp
            if hp < h:
                h = hp
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
            gl[c] = gap
            if gap >= lim:
                continue
            near = True
            cand[c] = True
            hp = max(gap, delta) / sb
            if hp < h:
                h = hp
    return h, near


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


@njit(**NO_REFCOUNT)
def _record(st: np.ndarray, rec: np.ndarray, f: int) -> None:
    for k in range(3):
        rec[f, k, 0] = st[k, SX]
        rec[f, k, 1] = st[k, SY]
        rec[f, k, 2] = st[k, SPHI]


@njit(cache=True, inline="always")
def _all_far(
    P: np.ndarray,
    st: np.ndarray,
    active: np.ndarray,
    ignore: np.ndarray,
    bx0: float,
    bx1: float,
    by: float,
    dt: float,
) -> bool:
    """True when no piece can reach another piece (launch-overlap pairs excepted) or the
    tube's bounding box within dt (bounding circles grown by the speed bounds)."""
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
def _far_steps(
    P: np.ndarray,
    st: np.ndarray,
    active: np.ndarray,
    ignore: np.ndarray,
    bx0: float,
    bx1: float,
    by: float,
    dt: float,
) -> int:
    """How many further 1 ms steps ``_all_far`` is sure to hold under friction-only motion
    (0 when unknown), so the fast path need not re-test it every step.

    Friction only lowers the energy norm |p| = sqrt(m v^2 + I w^2), so over all later
    friction steps |v| <= |p|/sqrt(m) (the centre's speed) and every speed bound
    ``_speed_bound`` can return is below |p|/sqrt(m) + |p| R / sqrt(I) + margin. A piece's
    L-inf distance to the tube's box and a pair's centre distance shrink at most at those
    centre speeds; the step count keeps ``_all_far``'s own test (the grown circles) clear.
    Launch-overlap pairs are left out as in ``_all_far``; the caller resets the count when
    one of them starts to collide. Only skips a test whose answer is known: results are
    bit-identical to testing every step.
    """
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
    polys = np.empty((3, 5, 2))
    valid = np.zeros(3, dtype=np.bool_)
    cand = np.zeros(12, dtype=np.bool_)
    gl = np.full(12, -1e300)
    gs = np.zeros(12)
    ign_next = np.zeros(3)
    return _run_shot_core(
        P, tab, st, active, ignore, dist, rec, rec_every, walls, polys, valid, cand, gl, gs,
        ign_next,
    )  # fmt: skip


@njit(**NO_REFCOUNT)
def _run_shot_core(
    P: np.ndarray,
    tab: np.ndarray,
    st: np.ndarray,
    active: np.ndarray,
    ignore: np.ndarray,
    dist: float,
    rec: np.ndarray,
    rec_every: int,
    walls: np.ndarray,
    polys: np.ndarray,
    valid: np.ndarray,
    cand: np.ndarray,
    gl: np.ndarray,
    gs: np.ndarray,
    ign_next: np.ndarray,
) -> tuple[int, float]:
    """The loop of ``run_shot`` over preallocated work arrays. Compiled without the Numba
    runtime's reference counting (it allocates nothing): the increments and decrements that
    every array argument and view otherwise costs were ~40 % of the kernel's time."""
    dt = P[I_DT]
    nsteps = int(round(P[I_MAX_SECONDS] / dt))
    nrec = rec.shape[0]
    if nrec > 0:
        _record(st, rec, 0)
    bx0 = dist
    bx1 = dist + P[I_TUBE_LENGTH]
    by = 0.5 * P[I_TUBE_INNER] + P[I_TUBE_WALL]
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
        if step < far_until or _all_far(P, st, active, ignore, bx0, bx1, by, dt):
            if step >= far_until:
                far_until = step + 1 + _far_steps(P, st, active, ignore, bx0, bx1, by, dt)
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
            h, near = _choose_h(
                P, st, active, ignore, walls, polys, valid, dt - t_in, dt, cand, gl, gs
            )
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
                _resolve_contacts(P, st, active, ignore, walls, polys, valid, cand, gl, ign_next)
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
def _score(
    P: np.ndarray,
    st: np.ndarray,
    active: np.ndarray,
    dist: float,
    inn: np.ndarray,
    full: np.ndarray,
) -> None:
    poly = np.empty((5, 2))
    for k in range(3):
        if active[k]:
            nb_world_pentagon(P, k, st[k, SX], st[k, SY], st[k, SPHI], poly)
            a, b = nb_in_tube(P, poly, dist)
            inn[k] = a
            full[k] = b
        else:
            inn[k] = False
            full[k] = False


@njit(cache=True)
def _one_shot(
    P: np.ndarray,
    tab: np.ndarray,
    action: np.ndarray,
    seed: np.uint64,
    dist: float,
    pose: np.ndarray,
    toppled: np.ndarray,
    inn: np.ndarray,
    full: np.ndarray,
    realized: np.ndarray,
    rec: np.ndarray,
    rec_every: int,
) -> tuple[int, float, int]:
    """One full shot from its action and seed; returns (body-substeps, seconds, struck)."""
    nrm = np.empty(N_NORMALS)
    shot_normals(seed, nrm)
    st = np.empty((3, 6))
    active = np.empty(3, dtype=np.bool_)
    ignore = np.zeros(3, dtype=np.bool_)
    th, v, z, o = action_to_physical(P, action)
    hit = _launch(P, th, v, z, o, nrm, st, active, realized)
    polys = np.empty((3, 5, 2))
    _init_ignore(P, st, active, ignore, polys)
    ns, t = run_shot(P, tab, st, active, ignore, dist, rec, rec_every)
    for k in range(3):
        pose[k, 0] = st[k, SX]
        pose[k, 1] = st[k, SY]
        pose[k, 2] = st[k, SPHI]
        toppled[k] = active[k]
    _score(P, st, active, dist, inn, full)
    return ns, t, hit


@njit(cache=True, nogil=True)
def _simulate_batch_serial(
    P: np.ndarray,
    tab: np.ndarray,
    actions: np.ndarray,
    seeds: np.ndarray,
    dists: np.ndarray,
    poses: np.ndarray,
    toppled: np.ndarray,
    inn: np.ndarray,
    full: np.ndarray,
    substeps: np.ndarray,
    sim_time: np.ndarray,
    realized: np.ndarray,
    struck: np.ndarray,
    rec: np.ndarray,
    rec_every: int,
) -> None:
    for i in range(actions.shape[0]):
        ns, t, hit = _one_shot(
            P, tab, actions[i], seeds[i], dists[i], poses[i], toppled[i], inn[i], full[i],
            realized[i], rec[i], rec_every,
        )  # fmt: skip
        substeps[i] = ns
        sim_time[i] = t
        struck[i] = hit


@njit(cache=True)
def _one_state(
    P: np.ndarray,
    tab: np.ndarray,
    state: np.ndarray,
    active_in: np.ndarray,
    dist: float,
    final: np.ndarray,
    inn: np.ndarray,
    full: np.ndarray,
    rec: np.ndarray,
    rec_every: int,
) -> tuple[int, float]:
    st = state.copy()
    active = active_in.copy()
    ignore = np.zeros(3, dtype=np.bool_)
    polys = np.empty((3, 5, 2))
    _init_ignore(P, st, active, ignore, polys)
    ns, t = run_shot(P, tab, st, active, ignore, dist, rec, rec_every)
    final[:, :] = st
    _score(P, st, active, dist, inn, full)
    return ns, t


@njit(cache=True, parallel=True)
def _simulate_states_batch(
    P: np.ndarray,
    tab: np.ndarray,
    states: np.ndarray,
    active_in: np.ndarray,
    dists: np.ndarray,
    final: np.ndarray,
    inn: np.ndarray,
    full: np.ndarray,
    substeps: np.ndarray,
    sim_time: np.ndarray,
    rec: np.ndarray,
    rec_every: int,
) -> None:
    for i in prange(states.shape[0]):
        ns, t = _one_state(
            P, tab, states[i], active_in[i], dists[i], final[i], inn[i], full[i], rec[i],
            rec_every,
        )  # fmt: skip
        substeps[i] = ns
        sim_time[i] = t


SERIAL_BELOW = 32  # batches smaller than this run on the calling thread (no pool wake-up)

# Shots are spread over Python threads running the nogil serial kernel on contiguous
# chunks. A prange loop over shots stopped scaling once the shot loop was compiled without
# Numba's reference counting (its work stayed on one thread); chunked nogil threads give
# the full speed-up and the same bits, since shots are independent.
_POOL: ThreadPoolExecutor | None = None
_POOL_SIZE = 0


def _run_chunked(args: tuple[np.ndarray, ...], n: int, rec_every: int) -> None:
    """Run ``_simulate_batch_serial`` over ``numba.get_num_threads()`` contiguous chunks."""
    global _POOL, _POOL_SIZE
    kernel: Any = _simulate_batch_serial
    threads = max(1, min(numba.get_num_threads(), n // SERIAL_BELOW))
    if threads == 1:
        kernel(*args, rec_every)
        return
    if _POOL is None or _POOL_SIZE < threads:
        _POOL = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="moon_shot")
        _POOL_SIZE = threads
    bounds = np.linspace(0, n, threads + 1).astype(np.int64)
    chunks = [(int(lo), int(hi)) for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]
    P, tab = args[0], args[1]
    futures = []
    for lo, hi in chunks:
        chunk_args: tuple[Any, ...] = (P, tab, *(a[lo:hi] for a in args[2:]), rec_every)
        futures.append(_POOL.submit(kernel, *chunk_args))
    for f in futures:
        f.result()


# --------------------------------------------------------------------------- Python API


@dataclass
class ShotResult:
    """Outcome of N shots (piece index 0 small, 1 medium, 2 large)."""

    poses: np.ndarray  # (N, 3, 3) resting [x, y, heading]; a standing piece: [0, 0, theta]
    toppled: np.ndarray  # (N, 3) bool; False = stayed standing (MS-7 v_topple)
    in_tube: np.ndarray  # (N, 3) bool, footprint overlaps the interior (MS-10)
    fully_in_tube: np.ndarray  # (N, 3) bool, whole footprint inside the interior (MS-20)
    substeps: np.ndarray  # (N,) int64 body-substeps simulated
    sim_time: np.ndarray  # (N,) float64 simulated seconds until rest (or the cap)
    launch: np.ndarray  # (N, 4) realised [theta rad, v m/s, z m, o] after noise and clip
    struck: np.ndarray  # (N,) int64 struck piece (MS-7)
    final_states: np.ndarray | None = None  # (N, 3, 6) for simulate_states


def _check_dist(
    tube_distance: np.ndarray | float | None, n: int, params: PhysicsParams
) -> np.ndarray:
    if tube_distance is None:
        return np.full(n, params.tube_distance, dtype=np.float64)
    d = np.asarray(tube_distance, dtype=np.float64)
    if d.ndim == 0:
        d = np.full(n, float(d))
    if d.shape != (n,):
        raise ValueError(f"tube_distance must be a scalar or shape ({n},), got {d.shape}")
    if not np.all(np.isfinite(d)) or np.any(d < 0.0):
        raise ValueError("tube_distance must be finite and >= 0")
    return np.ascontiguousarray(d)


def _check_actions(actions: np.ndarray, seeds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(actions, dtype=np.float64)
    if a.ndim != 2 or a.shape[1] != 4:
        raise ValueError(f"actions must have shape (N, 4), got {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError("actions must be finite")
    if np.any(a < -1.0) or np.any(a > 1.0):
        raise ValueError("actions must lie in [-1, 1] (MS-5)")
    s = np.asarray(seeds)
    if s.shape != (a.shape[0],):
        raise ValueError(f"seeds must have shape ({a.shape[0]},), got {s.shape}")
    if s.dtype.kind not in "ui":
        raise ValueError(f"seeds must be integers, got dtype {s.dtype}")
    return np.ascontiguousarray(a), np.ascontiguousarray(s.astype(np.uint64))


def _run_batch(
    actions: np.ndarray,
    seeds: np.ndarray,
    params: PhysicsParams,
    tube_distance: np.ndarray | float | None,
    frames: int,
    rec_every: int,
) -> tuple[ShotResult, np.ndarray]:
    a, s = _check_actions(actions, seeds)
    n = a.shape[0]
    dists = _check_dist(tube_distance, n, params)
    P = params.to_array()
    tab = friction_table(params)
    poses = np.zeros((n, 3, 3))
    toppled = np.zeros((n, 3), dtype=np.bool_)
    inn = np.zeros((n, 3), dtype=np.bool_)
    full = np.zeros((n, 3), dtype=np.bool_)
    substeps = np.zeros(n, dtype=np.int64)
    sim_time = np.zeros(n)
    realized = np.zeros((n, 4))
    struck = np.zeros(n, dtype=np.int64)
    rec = np.zeros((n, frames, 3, 3))
    _run_chunked(
        (P, tab, a, s, dists, poses, toppled, inn, full, substeps, sim_time, realized, struck, rec),
        n,
        rec_every,
    )
    res = ShotResult(poses, toppled, inn, full, substeps, sim_time, realized, struck)
    return res, rec


def simulate(
    actions: np.ndarray,
    seeds: np.ndarray,
    params: PhysicsParams = DEFAULT_PARAMS,
    tube_distance: np.ndarray | float | None = None,
) -> ShotResult:
    """Simulate N shots (MS-5..MS-8): actions (N, 4) in [-1, 1], one uint64 seed per shot."""
    res, _ = _run_batch(actions, seeds, params, tube_distance, 0, 1)
    return res


def n_frames(params: PhysicsParams, record_every_ms: int) -> int:
    """Number of recorded frames (launch frame included) for a shot of max_shot_seconds."""
    steps = int(round(params.max_shot_seconds / params.dt))
    every = max(1, int(round(record_every_ms * 1e-3 / params.dt)))
    return steps // every + 1


def simulate_recorded(
    actions: np.ndarray,
    seeds: np.ndarray,
    params: PhysicsParams = DEFAULT_PARAMS,
    tube_distance: np.ndarray | float | None = None,
    record_every_ms: int = 10,
) -> tuple[ShotResult, np.ndarray]:
    """As ``simulate`` plus poses (N, T, 3, 3) every ``record_every_ms`` (frame 0 = launch;
    frames after rest repeat the resting pose)."""
    if int(record_every_ms) < 1:
        raise ValueError("record_every_ms must be >= 1")
    every = max(1, int(round(int(record_every_ms) * 1e-3 / params.dt)))
    return _run_batch(
        actions, seeds, params, tube_distance, n_frames(params, record_every_ms), every
    )


def simulate_states(
    states: np.ndarray,
    active: np.ndarray | None = None,
    params: PhysicsParams = DEFAULT_PARAMS,
    tube_distance: np.ndarray | float | None = None,
    record_every_ms: int = 0,
) -> tuple[ShotResult, np.ndarray]:
    """Simulate arbitrary initial piece states (N, 3, 6) = [x, y, heading, vx, vy, omega]
    without the launch map (for tests and scenes). Inactive pieces take no part. Pieces that
    overlap at the start ignore each other until they separate, as at launch (MS-7).
    Returns (result with ``final_states``, recorded poses or an empty (N, 0, 3, 3))."""
    st = np.ascontiguousarray(np.asarray(states, dtype=np.float64))
    if st.ndim != 3 or st.shape[1:] != (3, 6):
        raise ValueError(f"states must have shape (N, 3, 6), got {st.shape}")
    if not np.all(np.isfinite(st)):
        raise ValueError("states must be finite")
    n = st.shape[0]
    act = np.ones((n, 3), dtype=np.bool_) if active is None else np.asarray(active, np.bool_)
    if act.shape != (n, 3):
        raise ValueError(f"active must have shape ({n}, 3), got {act.shape}")
    act = np.ascontiguousarray(act)
    dists = _check_dist(tube_distance, n, params)
    if record_every_ms > 0:
        frames = n_frames(params, record_every_ms)
        every = max(1, int(round(int(record_every_ms) * 1e-3 / params.dt)))
    else:
        frames, every = 0, 1
    P = params.to_array()
    tab = friction_table(params)
    final = np.zeros((n, 3, 6))
    inn = np.zeros((n, 3), dtype=np.bool_)
    full = np.zeros((n, 3), dtype=np.bool_)
    substeps = np.zeros(n, dtype=np.int64)
    sim_time = np.zeros(n)
    rec = np.zeros((n, frames, 3, 3))
    _simulate_states_batch(P, tab, st, act, dists, final, inn, full, substeps, sim_time, rec, every)
    res = ShotResult(
        poses=final[:, :, :3].copy(),
        toppled=act.copy(),
        in_tube=inn,
        fully_in_tube=full,
        substeps=substeps,
        sim_time=sim_time,
        launch=np.full((n, 4), np.nan),
        struck=np.full(n, -1, dtype=np.int64),
        final_states=final,
    )
    return res, rec


def launch_states(
    theta: float,
    v: float,
    z: float,
    o: float,
    normals: np.ndarray | None = None,
    params: PhysicsParams = DEFAULT_PARAMS,
) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
    """MS-6/MS-7 launch from physical values (theta rad, v m/s, z m, o) and the shot's
    standard normals (default: zeros, i.e. no noise). Returns (states (3, 6), active (3,),
    struck piece, realised [theta, v, z, o])."""
    nrm = np.zeros(N_NORMALS) if normals is None else np.asarray(normals, np.float64)
    if nrm.shape != (N_NORMALS,):
        raise ValueError(f"normals must have shape ({N_NORMALS},)")
    st = np.zeros((3, 6))
    act = np.zeros(3, dtype=np.bool_)
    real = np.zeros(4)
    hit = _launch(params.to_array(), float(theta), float(v), float(z), float(o), nrm, st, act, real)
    return st, act, int(hit), real


def seed_normals(seed: int) -> np.ndarray:
    """The N_NORMALS standard normals a shot with ``seed`` uses (see _launch for the order)."""
    out = np.zeros(N_NORMALS)
    shot_normals(np.uint64(seed), out)
    return out


@njit(cache=True)
def _layout_probe() -> tuple[int, int, int, int, int, int, int]:
    return LAYOUT


drop_stale_caches(globals(), _layout_probe)
