"""Moon Shot physics kernel tests (MS-4..MS-10): friction, contacts, tunnelling, determinism,
pymunk cross-check. Launch-map tests: test_ms_physics_launch.py."""

from __future__ import annotations

import math

import numba
import numpy as np
import pytest
from numba import njit

from envs.moon_shot.geometry import footprint, footprints, in_tube, nb_sat, tube_walls
from envs.moon_shot.params import I_PIECE0, PIECE_STRIDE, PK_I, PhysicsParams
from envs.moon_shot.physics import (
    friction_table,
    simulate,
    simulate_recorded,
    simulate_states,
)

P0 = PhysicsParams()
FAR = 100.0  # tube far away: an empty table


def one_piece(k: int, x: float, y: float, phi: float, vx: float, vy: float, om: float):
    st = np.zeros((1, 3, 6))
    st[0, k] = [x, y, phi, vx, vy, om]
    act = np.zeros((1, 3), dtype=bool)
    act[0, k] = True
    return st, act


def inertia(params: PhysicsParams, k: int) -> float:
    return float(params.to_array()[I_PIECE0 + k * PIECE_STRIDE + PK_I])


# --------------------------------------------------------------------------- MS-8 friction


@pytest.mark.parametrize("k", [0, 1, 2])
@pytest.mark.parametrize("v", [0.12, 0.7, 2.0, 2.3])
def test_ms8_straight_slide_stops_at_v2_over_2mug(k: int, v: float) -> None:
    phi = 0.37 + k
    st, act = one_piece(k, 0.01, -0.02, phi, v * math.cos(phi), v * math.sin(phi), 0.0)
    res, _ = simulate_states(st, act, P0, tube_distance=FAR)
    d = math.hypot(res.poses[0, k, 0] - 0.01, res.poses[0, k, 1] + 0.02)
    expected = v * v / (2 * P0.mu * P0.g)
    assert abs(d - expected) < 1e-3
    # slides straight along its heading, no spin develops
    assert math.isclose(res.poses[0, k, 2], phi, abs_tol=1e-12)
    ang = math.atan2(res.poses[0, k, 1] + 0.02, res.poses[0, k, 0] - 0.01)
    assert abs(ang - phi) < 1e-9
    assert abs(res.sim_time[0] - v / (P0.mu * P0.g)) <= P0.dt + 1e-12
    assert np.all(res.final_states[0, k, 3:] == 0.0)


def _reference_slide(params: PhysicsParams, k: int, state: np.ndarray, dt: float = 5e-5):
    """Independent integration of the MS-8 uniform-pressure friction: direct quadrature of
    the contact face at every evaluation (different rule size from the kernel), RK2."""
    b, h = params.sizes()[k]
    s = math.hypot(h, b / 2)
    m = params.masses()[k]
    inertia_k = m * (1.5 * b * b + 2 * s * s) / 36
    a_ = np.array([-s / 3, -b / 2])
    b_ = np.array([2 * s / 3, 0.0])
    c_ = np.array([-s / 3, b / 2])
    nq = 37
    pts = []
    for i in range(nq):
        for j in range(nq - i):
            pts.append(((i + 1 / 3) / nq, (j + 1 / 3) / nq))
            if i + j <= nq - 2:
                pts.append(((i + 2 / 3) / nq, (j + 2 / 3) / nq))
    uv = np.array(pts)
    q = a_ + uv[:, :1] * (b_ - a_) + uv[:, 1:] * (c_ - a_)
    mug = params.mu * params.g

    def acc(ph, vx, vy, om):
        c, sn = math.cos(ph), math.sin(ph)
        qx = c * q[:, 0] - sn * q[:, 1]
        qy = sn * q[:, 0] + c * q[:, 1]
        ux = vx - om * qy
        uy = vy + om * qx
        n = np.hypot(ux, uy)
        n[n == 0] = np.inf
        ux = ux / n
        uy = uy / n
        return -mug * ux.mean(), -mug * uy.mean(), -mug * m * (qx * uy - qy * ux).mean() / inertia_k

    x, y, ph, vx, vy, om = (float(v) for v in state)
    t = 0.0
    trace = []
    while True:
        pn = math.sqrt(m * (vx * vx + vy * vy) + inertia_k * om * om)
        ax, ay, al = acc(ph, vx, vy, om)
        rate = -(m * (ax * vx + ay * vy) + inertia_k * al * om) / pn
        if pn <= rate * dt:
            ts = pn / rate
            x += vx * ts / 2
            y += vy * ts / 2
            ph += om * ts / 2
            t += ts
            break
        hx, hy, hw = vx + ax * dt / 2, vy + ay * dt / 2, om + al * dt / 2
        ax2, ay2, al2 = acc(ph + om * dt / 2, hx, hy, hw)
        x += hx * dt
        y += hy * dt
        ph += hw * dt
        vx += ax2 * dt
        vy += ay2 * dt
        om += al2 * dt
        t += dt
        trace.append((t, math.hypot(vx, vy), om))
    return np.array([x, y, ph]), t, trace


@pytest.mark.slow
@pytest.mark.parametrize(
    ("k", "v", "om"), [(1, 0.8, 25.0), (0, 0.3, 40.0), (2, 1.5, -10.0), (0, 0.05, 30.0)]
)
def test_ms8_slide_and_spin_stop_together_and_match_reference(k: int, v: float, om: float) -> None:
    st, act = one_piece(k, 0.0, 0.0, 0.4, v * math.cos(1.0), v * math.sin(1.0), om)
    res, rec = simulate_states(st, act, P0, tube_distance=FAR, record_every_ms=1)
    frames = rec[0, :, k]
    step = np.diff(frames, axis=0)
    moving_xy = np.hypot(step[:, 0], step[:, 1]) > 0
    moving_phi = step[:, 2] != 0
    last_xy = np.nonzero(moving_xy)[0].max()
    last_phi = np.nonzero(moving_phi)[0].max()
    # MS-8: sliding and spinning stop in the same step ...
    assert last_xy == last_phi
    # ... and both were still going until then (no early stop of one of them)
    assert np.all(moving_xy[: last_xy + 1]) and np.all(moving_phi[: last_phi + 1])
    assert res.sim_time[0] == pytest.approx((last_xy + 1) * P0.dt)
    # independent high-resolution integration of the same model lands at the same pose
    ref, t_ref, trace = _reference_slide(P0, k, st[0, k])
    assert math.hypot(*(res.poses[0, k, :2] - ref[:2])) < 2e-4
    assert abs(res.poses[0, k, 2] - ref[2]) < 0.01
    assert abs(res.sim_time[0] - t_ref) <= 2 * P0.dt
    # the reference also stops both together: both speeds positive until the last steps
    tail = [tr for tr in trace if tr[0] < t_ref - 5e-3]
    assert all(sp > 0 and abs(w) > 0 for _, sp, w in tail)


def test_ms8_friction_table_is_dissipative_and_exact_for_pure_sliding() -> None:
    tab = friction_table(P0)
    nb = tab.shape[1] - 1
    mid = nb // 2  # beta = 0: pure sliding
    # uniform pressure, centroid = centre of mass: force -mu m g v^, no torque (MS-4/MS-8)
    np.testing.assert_allclose(tab[:, mid, :, 0], -1.0, atol=1e-12)
    np.testing.assert_allclose(tab[:, mid, :, 1], 0.0, atol=1e-12)
    np.testing.assert_allclose(tab[:, mid, :, 2], 0.0, atol=1e-12)
    # friction power is negative in every direction of motion
    beta = np.linspace(-np.pi / 2, np.pi / 2, nb + 1)[:, None]
    ca = np.cos(beta)
    power = tab[..., 0] * ca + tab[..., 2] * np.sin(beta)
    assert np.all(power < 0)
    # pure spin: torque magnitude equals mean distance from the centroid / rho (polar check)
    for k in range(3):
        b, h = P0.sizes()[k]
        s = math.hypot(h, b / 2)
        rho = math.sqrt(inertia(P0, k) / P0.masses()[k])
        rng = np.random.default_rng(k)
        u = rng.random((400_000, 2))
        flip = u.sum(axis=1) > 1
        u[flip] = 1 - u[flip]
        pts = (
            np.array([-s / 3, -b / 2])
            + u[:, :1] * np.array([s, b / 2])
            + u[:, 1:] * np.array([0.0, b])
        )
        mean_r = np.hypot(pts[:, 0], pts[:, 1]).mean()
        assert tab[k, nb, 0, 2] == pytest.approx(-mean_r / rho, rel=5e-3)


def test_ms8_friction_never_reverses_motion() -> None:
    rng = np.random.default_rng(5)
    n = 40
    st = np.zeros((n, 3, 6))
    act = np.zeros((n, 3), dtype=bool)
    for i in range(n):
        k = i % 3
        sp = rng.uniform(0.05, 2.0)
        ang = rng.uniform(-np.pi, np.pi)
        st[i, k] = [0, 0, rng.uniform(-3, 3), sp * math.cos(ang), sp * math.sin(ang), 0.0]
        act[i, k] = True
    res, rec = simulate_states(st, act, P0, tube_distance=FAR, record_every_ms=1)
    for i in range(n):
        k = i % 3
        d = np.diff(rec[i, :, k, :2], axis=0)
        v0 = st[i, k, 3:5]
        # pure sliding: every displacement is along the initial velocity, never backwards
        assert np.all(d @ v0 >= 0.0)


# --------------------------------------------------------------------------- MS-8 contacts


def test_ms8_head_on_collision_momentum_and_restitution() -> None:
    p = PhysicsParams(mu=0.0, max_shot_seconds=0.3)
    st = np.zeros((1, 3, 6))
    st[0, 0] = [0.0, 0.0, 0.0, 1.3, 0.0, 0.0]  # small, apex forward
    st[0, 1] = [0.08, 0.0, 0.0, -0.4, 0.0, 0.0]  # medium, base towards the small's apex
    act = np.array([[True, True, False]])
    res, _ = simulate_states(st, act, p, tube_distance=FAR)
    f = res.final_states[0]
    m = p.masses()
    before = m[0] * 1.3 + m[1] * -0.4
    after = m[0] * f[0, 3] + m[1] * f[1, 3]
    assert abs(after - before) <= 1e-9 * abs(before)
    # Newton's law along the line of centres
    assert (f[1, 3] - f[0, 3]) == pytest.approx(-p.restitution_piece * (-0.4 - 1.3), rel=1e-9)
    assert np.all(f[:2, 4] == 0) and np.all(f[:2, 5] == 0)


def test_ms8_oblique_collision_conserves_momentum_and_angular_momentum() -> None:
    p = PhysicsParams(mu=0.0, max_shot_seconds=0.2)
    st = np.zeros((1, 3, 6))
    st[0, 2] = [0.0, 0.0, 0.3, 0.8, 0.3, 4.0]
    st[0, 0] = [0.06, 0.012, 2.0, -0.1, 0.0, -3.0]
    act = np.array([[True, False, True]])
    res, _ = simulate_states(st, act, p, tube_distance=FAR)
    m = p.masses()

    def lin_ang(s):
        mom = sum(m[k] * s[k, 3:5] for k in (0, 2))
        ang = sum(
            m[k] * (s[k, 0] * s[k, 4] - s[k, 1] * s[k, 3]) + inertia(p, k) * s[k, 5] for k in (0, 2)
        )
        return mom, ang

    (m0, a0), (m1, a1) = lin_ang(st[0]), lin_ang(res.final_states[0])
    assert not np.allclose(res.final_states[0, 0, 3:], st[0, 0, 3:])  # they did collide
    np.testing.assert_allclose(m1, m0, rtol=1e-9, atol=1e-15)
    # impulses conserve angular momentum exactly; the position projection that removes the
    # (< 0.1 mm) overlap shifts the moment arms, bounded by depth * m * |v_rel|
    assert a1 == pytest.approx(a0, abs=2 * p.max_substep_travel * m[2] * 1.0)

    # kinetic energy does not grow (restitution < 1, friction dissipates)
    def ke(s):
        return sum(
            0.5 * m[k] * s[k, 3:5] @ s[k, 3:5] + 0.5 * inertia(p, k) * s[k, 5] ** 2 for k in (0, 2)
        )

    assert ke(res.final_states[0]) <= ke(st[0])


def test_ms8_tube_wall_bounce_restitution() -> None:
    # MS-3/MS-8: a piece sliding frictionlessly into the closed end returns at e_tube * v
    p = PhysicsParams(mu=0.0, max_shot_seconds=0.4)
    d = 0.16
    st, act = one_piece(1, d + 0.05, 0.0, math.pi, 1.0, 0.0, 0.0)  # base leads into the end wall
    res, _ = simulate_states(st, act, p, tube_distance=d)
    f = res.final_states[0, 1]
    assert f[3] == pytest.approx(-p.restitution_tube * 1.0, rel=1e-9)
    assert abs(f[4]) < 1e-12 and abs(f[5]) < 1e-9


@njit(cache=False)
def _worst_wall_sep(polys: np.ndarray, walls: np.ndarray, which: np.ndarray) -> float:
    worst = 1.0
    for i in range(polys.shape[0]):
        for t in range(polys.shape[1]):
            for w in range(3):
                s, _, _ = nb_sat(walls[w], polys[i, t, which[i]])
                worst = min(worst, s)
    return worst


@njit(cache=False)
def _worst_pair_sep(polys: np.ndarray, start: int) -> float:
    worst = 1.0
    for i in range(polys.shape[0]):
        for t in range(start, polys.shape[1]):
            for a in range(3):
                for b in range(a + 1, 3):
                    s, _, _ = nb_sat(polys[i, t, a], polys[i, t, b])
                    worst = min(worst, s)
    return worst


@pytest.mark.slow
def test_ms8_no_tunnelling_through_tube_walls_at_top_speed() -> None:
    p = PhysicsParams(max_shot_seconds=1.0)
    d = p.tube_distance
    walls = tube_walls(d, p)
    rng = np.random.default_rng(11)
    n = 360
    k = rng.integers(0, 3, n)
    # aim at points on the side walls (both faces), the mouth rims and the end wall
    tx = rng.uniform(d - 0.01, d + 0.17, n)
    ty = rng.choice([-0.021, 0.021], n) + rng.uniform(-0.012, 0.012, n)
    ty[::4] = rng.uniform(-0.03, 0.03, n)[::4]
    tx[::4] = d + 0.159
    ang = np.linspace(0, 2 * np.pi, n, endpoint=False)
    spins = np.linspace(-60, 60, n)
    st = np.zeros((n, 3, 6))
    act = np.zeros((n, 3), dtype=bool)
    vmax = p.v_max * p.c_hit * (1 + 3 * p.sigma_v_rel)  # top launch speed incl. 3-sigma noise
    for i in range(n):
        if i % 3 == 1:  # start inside the tube, going anywhere
            sx, sy = d + 0.04 + 0.08 * (i % 7) / 6, 0.004 * ((i % 5) - 2) / 2
        else:  # start outside, aimed at a point of a wall
            sx, sy = tx[i] - 0.05 * math.cos(ang[i]), ty[i] - 0.05 * math.sin(ang[i])
        st[i, k[i]] = [
            sx,
            sy,
            ang[i] * 3.1 if i % 3 != 1 else ang[i],
            vmax * math.cos(ang[i]),
            vmax * math.sin(ang[i]),
            spins[i],
        ]
        act[i, k[i]] = True
    polys0 = footprints(st[:, :, :3], p)
    ok = np.array(
        [
            all(nb_sat(walls[w], np.ascontiguousarray(polys0[i, k[i]]))[0] > 1e-3 for w in range(3))
            for i in range(n)
        ]
    )
    assert ok.sum() > 150
    st, act, k = st[ok], act[ok], k[ok]
    res, rec = simulate_states(st, act, p, tube_distance=d, record_every_ms=1)
    polys = np.ascontiguousarray(footprints(rec, p))
    # every 1 ms frame: no footprint overlaps a wall (only the contact slop of 1 um)
    assert _worst_wall_sep(polys, walls, k.astype(np.int64)) > -1e-6
    # a piece never passes through a side or end wall: starting inside the tube it can only
    # leave through the mouth (x < mouth), starting behind the end wall it never gets in
    idx = np.arange(len(k))
    x0, x1 = d, d + p.tube_length - p.tube_wall
    sx, sy = st[idx, k, 0], st[idx, k, 1]
    start_in = (sx > x0) & (sx < x1) & (np.abs(sy) < 0.02)
    start_behind = sx > d + p.tube_length
    traj = rec[idx, :, k]  # (n, T, 3)
    inside = (traj[..., 0] > x0) & (traj[..., 0] < x1) & (np.abs(traj[..., 1]) < 0.02)
    beside = (traj[..., 0] > x0 + 0.03) & (np.abs(traj[..., 1]) > 0.022)
    for i in idx:
        if start_in[i]:
            # leaving the interior sideways or through the end would show as a frame beside
            # or behind the tube before any frame in front of the mouth
            first_out = np.argmax(~inside[i]) if not inside[i].all() else None
            if first_out is not None:
                assert traj[i, first_out, 0] < x0 + 0.03, i
        if start_behind[i]:
            assert not inside[i].any(), i
    assert start_in.sum() > 20 and start_behind.sum() > 5 and beside.any()


@pytest.mark.slow
def test_ms8_pieces_never_cross_each_other() -> None:
    # three pieces launched at each other from apart (no launch overlap): footprints stay apart
    p = PhysicsParams(max_shot_seconds=1.0)
    rng = np.random.default_rng(7)
    n = 120
    st = np.zeros((n, 3, 6))
    centres = np.array([[0.0, 0.05], [0.05, -0.03], [-0.05, -0.03]])
    for i in range(n):
        for k in range(3):
            c = centres[(k + i) % 3] + rng.uniform(-0.005, 0.005, 2)
            to = -c / np.linalg.norm(c) + rng.normal(0, 0.2, 2)
            to *= rng.uniform(0.5, 2.3) / np.linalg.norm(to)
            st[i, k] = [c[0], c[1], rng.uniform(-3, 3), to[0], to[1], rng.uniform(-40, 40)]
    res, rec = simulate_states(st, None, p, tube_distance=0.12, record_every_ms=1)
    polys = np.ascontiguousarray(footprints(rec, p))
    assert _worst_pair_sep(polys, 0) > -1e-6


# --------------------------------------------------------------------------- determinism


def test_ms8_bit_identical_whatever_threads_batch_and_position() -> None:
    rng = np.random.default_rng(2)
    n = 48
    a = rng.uniform(-1, 1, (n, 4))
    a[:, 0] *= 0.2
    seeds = rng.integers(0, 2**63, n, dtype=np.uint64)
    dist = rng.uniform(0.16, 0.3, n)
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        r1 = simulate(a, seeds, P0, dist)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        r2 = simulate(a, seeds, P0, dist)
    finally:
        numba.set_num_threads(old)
    perm = rng.permutation(n)
    r3 = simulate(a[perm], seeds[perm], P0, dist[perm])
    singles = [simulate(a[i : i + 1], seeds[i : i + 1], P0, dist[i]) for i in range(0, n, 7)]
    big_a = np.concatenate([rng.uniform(-1, 1, (100, 4)), a])
    big_s = np.concatenate([rng.integers(0, 2**63, 100, dtype=np.uint64), seeds])
    big_d = np.concatenate([np.full(100, 0.2), dist])
    r4 = simulate(big_a, big_s, P0, big_d)
    for field in ("poses", "toppled", "in_tube", "fully_in_tube", "substeps", "sim_time", "launch"):
        x1 = getattr(r1, field)
        assert np.array_equal(x1, getattr(r2, field)), field
        assert np.array_equal(x1[perm], getattr(r3, field)), field
        assert np.array_equal(x1, getattr(r4, field)[100:]), field
        for j, i in enumerate(range(0, n, 7)):
            assert np.array_equal(x1[i : i + 1], getattr(singles[j], field)), field
    # and the seed matters
    r5 = simulate(a, seeds + np.uint64(1), P0, dist)
    assert not np.array_equal(r1.poses, r5.poses)


def test_ms8_recorded_matches_plain_and_repeats_rest_pose() -> None:
    rng = np.random.default_rng(8)
    a = rng.uniform(-1, 1, (12, 4))
    seeds = np.arange(12, dtype=np.uint64)
    r1 = simulate(a, seeds, P0)
    r2, rec = simulate_recorded(a, seeds, P0, record_every_ms=10)
    assert rec.shape == (12, int(P0.max_shot_seconds / 0.01) + 1, 3, 3)
    assert np.array_equal(r1.poses, r2.poses) and np.array_equal(r1.substeps, r2.substeps)
    for i in range(12):
        last = int(math.ceil(r1.sim_time[i] / 0.01))
        assert np.array_equal(rec[i, last:], np.broadcast_to(r1.poses[i], rec[i, last:].shape))


# --------------------------------------------------------------------------- MS-10 scoring geometry


def test_ms10_in_tube_positive_area_and_full() -> None:
    fp = footprint([0.1, 0, 0], 0, P0)
    apex_x = fp[:, 0].max()
    base_x = fp[:, 0].min()
    poses = np.zeros((5, 3, 3))
    poses[:, 1:, 0] = -1.0  # medium and large far away
    poses[:, 0] = [0.1, 0, 0]
    dist = np.array(
        [
            apex_x,  # apex exactly on the mouth line: zero area, not in the tube
            apex_x - 1e-4,  # apex 0.1 mm in: overlaps with positive area
            base_x - 1e-4,  # wholly inside
            base_x - 1e-4,  # ... but shifted onto the |y| = 20 mm side (below)
            0.05,
        ]
    )
    poses[3, 0, 1] = 0.02 - 0.0071  # half-width 7.15 mm: pokes 0.05 mm past y = 20 mm
    poses[4, 0] = [0.1, 0.0, math.pi / 2]
    over, full = in_tube(poses, dist, P0)
    assert over[:, 0].tolist() == [False, True, True, True, True]
    assert full[:, 0].tolist() == [False, False, True, False, True]
    assert not over[:, 1:].any()


# --------------------------------------------------------------------------- pymunk cross-check


def _pymunk_scene(p: PhysicsParams, ks, states, dt=1e-5, t_end=0.06):
    pymunk = pytest.importorskip("pymunk")
    space = pymunk.Space()
    space.iterations = 50
    space.collision_slop = 1e-7
    bodies = []
    for j, k in enumerate(ks):
        body = pymunk.Body(float(p.masses()[k]), inertia(p, k))
        x, y, ph, vx, vy, om = states[j]
        body.position = (x, y)
        body.angle = ph
        body.velocity = (vx, vy)
        body.angular_velocity = om
        local = footprint([0, 0, 0], k, p)
        shape = pymunk.Poly(body, [tuple(v) for v in local], radius=0)
        # pymunk multiplies the two shapes' coefficients
        shape.elasticity = p.restitution_piece if j == 0 else 1.0
        shape.friction = p.contact_friction if j == 0 else 1.0
        space.add(body, shape)
        bodies.append(body)
    for _ in range(int(round(t_end / dt))):
        space.step(dt)
    return np.array([[b.velocity.x, b.velocity.y, b.angular_velocity] for b in bodies])


PYMUNK_SCENES = [
    ((0, 1), [[0, 0, 0, 1.0, 0, 0], [0.06, 0.0, 0, -0.2, 0, 0]]),  # head-on
    ((0, 1), [[0, 0, 0, 1.0, 0, 0], [0.05, 0.005, math.pi / 2, 0, 0, 0]]),  # apex into flank
    ((2, 0), [[0, 0, 0.3, 0.8, 0.3, 0], [0.06, 0.012, 2.0, 0, 0, 0]]),  # oblique, friction
    ((1, 2), [[0, 0, 1.0, 1.2, 0.1, 0], [0.07, 0.0, 2.5, 0, 0, 0]]),
]


@pytest.mark.parametrize(("ks", "states"), PYMUNK_SCENES)
def test_ms8_single_collision_matches_pymunk(ks, states) -> None:
    # table friction off (mu = 0): pymunk has none; contact e = 0.6 and friction 0.2 on both
    p = PhysicsParams(mu=0.0, max_shot_seconds=0.06)
    st = np.zeros((1, 3, 6))
    act = np.zeros((1, 3), dtype=bool)
    for j, k in enumerate(ks):
        st[0, k] = states[j]
        act[0, k] = True
    res, _ = simulate_states(st, act, p, tube_distance=FAR)
    mine = res.final_states[0][list(ks)][:, 3:]
    ref = _pymunk_scene(p, ks, np.array(states, dtype=float))
    assert not np.allclose(mine, np.array(states)[:, 3:])  # a collision happened
    # tolerance: 1 % of the impact speed for velocities, 0.5 rad/s for spins
    vscale = max(np.hypot(*np.array(states)[:, 3:5].T))
    np.testing.assert_allclose(mine[:, :2], ref[:, :2], atol=0.01 * vscale)
    np.testing.assert_allclose(mine[:, 2], ref[:, 2], atol=0.5)


# --------------------------------------------------------------------------- bad input


def test_ms5_bad_input_raises() -> None:
    ok = np.zeros((2, 4))
    seeds = np.zeros(2, dtype=np.uint64)
    with pytest.raises(ValueError, match="\\[-1, 1\\]"):
        simulate(np.full((2, 4), 1.5), seeds)
    with pytest.raises(ValueError, match="shape"):
        simulate(np.zeros((2, 3)), seeds)
    with pytest.raises(ValueError, match="finite"):
        simulate(np.full((2, 4), np.nan), seeds)
    with pytest.raises(ValueError, match="seeds"):
        simulate(ok, np.zeros(3, dtype=np.uint64))
    with pytest.raises(ValueError, match="seeds"):
        simulate(ok, np.zeros(2))
    with pytest.raises(ValueError, match="tube_distance"):
        simulate(ok, seeds, P0, -0.1)
    with pytest.raises(ValueError, match="tube_distance"):
        simulate(ok, seeds, P0, np.zeros(3))
    with pytest.raises(ValueError, match="states"):
        simulate_states(np.zeros((1, 2, 6)))
    with pytest.raises(ValueError, match="mu"):
        PhysicsParams(mu=-0.1)
    with pytest.raises(ValueError, match="dt"):
        PhysicsParams(dt=0.0)
