"""Table friction (MS-8): Coulomb friction under uniform pressure over the contact face.

The friction wrench depends only on the direction of the body-frame motion
(v, rho*omega); it is tabulated once per piece shape by quadrature over the face
(``friction_table``). Within a step the kinetic-energy norm |p| = sqrt(m v^2 + I w^2)
decreases linearly (exact for the wrench of the current direction) and the direction
follows its own flow in log|p| time, so sliding and spinning reach zero at the same
instant; a piece that stops mid-step stops there and friction never reverses motion
(``_friction_move``). Derivation: docs/moon_shot_physics.md.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from envs.moon_shot.params import (
    DEFAULT_PARAMS,
    I_G,
    I_MU,
    I_PIECE0,
    PIECE_STRIDE,
    PK_B,
    PK_RHO,
    PK_S,
    PK_SQRTI,
    PK_SQRTM,
    PhysicsParams,
)
from envs.moon_shot.physics.core import SOM, SPHI, STAMP, SVX, SVY, SX, SY, drop_stale

# Friction table resolution: beta (spin share) x alpha (body-frame sliding direction).
TAB_NB = 64
TAB_NA = 128
TAB_NQ = 48  # face subdivided into TAB_NQ^2 equal triangles (centroid rule)


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


@njit(cache=True)
def _stamp_probe() -> int:
    return STAMP


drop_stale(globals(), _stamp_probe)
