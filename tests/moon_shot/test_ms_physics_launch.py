"""Moon Shot launch map tests (MS-5, MS-6, MS-7): bands, riders, v_topple, noise, scatter."""

from __future__ import annotations

import math

import numpy as np
import pytest

from envs.moon_shot.geometry import footprints, nb_sat
from envs.moon_shot.params import PhysicsParams
from envs.moon_shot.physics import (
    N_NORMALS,
    launch_states,
    seed_normals,
    simulate,
    simulate_recorded,
    simulate_states,
)

P0 = PhysicsParams()
DEG = math.pi / 180
SMALL, MEDIUM, LARGE = 0, 1, 2


def slant(k: int, p: PhysicsParams = P0) -> float:
    b, h = p.sizes()[k]
    return math.sqrt(h * h + b * b / 4)


@pytest.mark.parametrize(
    ("z", "piece"),
    [
        (0.0, LARGE),
        (0.0050, LARGE),
        (np.nextafter(0.0098, 0.0), LARGE),
        (0.0098, MEDIUM),  # exactly on the boundary: the upper piece (MS-6)
        (0.0150, MEDIUM),
        (np.nextafter(0.0195, 0.0), MEDIUM),
        (0.0195, SMALL),  # exactly on the boundary: the upper piece
        (0.0300, SMALL),
        (0.0449, SMALL),
    ],
)
def test_ms7_struck_piece_by_band(z: float, piece: int) -> None:
    _, _, hit, real = launch_states(0.0, 1.0, z, 0.0)
    assert hit == piece
    assert real[2] == z


def test_ms7_struck_small_others_below_at_c_below() -> None:
    theta, v, o = 5 * DEG, 2.0, 0.5
    st, act, hit, _ = launch_states(theta, v, 0.03, o)
    assert hit == SMALL
    assert act.tolist() == [True, True, True]  # 2.0 * 0.1 = 0.2 >= v_topple
    sp = np.hypot(st[:, 3], st[:, 4])
    assert sp[SMALL] == pytest.approx(v * P0.c_hit)
    assert sp[MEDIUM] == pytest.approx(v * P0.c_below)
    assert sp[LARGE] == pytest.approx(v * P0.c_below)
    # headings along the launch direction (no scatter at zero normals), spins
    assert np.allclose(st[:, 2], theta)
    assert np.allclose(np.arctan2(st[:, 4], st[:, 3]), theta)
    assert st[SMALL, 5] == pytest.approx(o * P0.omega_max)
    assert st[MEDIUM, 5] == pytest.approx(P0.c_ride * o * P0.omega_max)
    assert st[LARGE, 5] == pytest.approx(P0.c_ride * o * P0.omega_max)


def test_ms7_struck_large_riders_above_at_c_ride() -> None:
    st, act, hit, _ = launch_states(-0.1, 1.0, 0.004, -1.0)
    assert hit == LARGE
    assert act.all()
    sp = np.hypot(st[:, 3], st[:, 4])
    assert sp.tolist() == pytest.approx([0.7, 0.7, 1.0])
    assert st[LARGE, 5] == pytest.approx(-P0.omega_max)
    assert st[SMALL, 5] == pytest.approx(-P0.c_ride * P0.omega_max)


def test_ms7_struck_medium_small_rides_large_below() -> None:
    st, act, hit, _ = launch_states(0.0, 1.6, 0.012, 0.0)
    assert hit == MEDIUM
    sp = np.hypot(st[:, 3], st[:, 4])
    assert sp.tolist() == pytest.approx([1.6 * 0.7, 1.6, 1.6 * 0.1])
    assert act.all()  # 0.16 >= 0.15


def test_ms7_v_topple_leaves_pieces_standing() -> None:
    # struck small at v = 1.0: pieces below get 0.1 m/s < 0.15 and stay standing
    st, act, hit, _ = launch_states(0.1, 1.0, 0.03, 0.3)
    assert hit == SMALL
    assert act.tolist() == [True, False, False]
    assert np.all(st[1:, 3:] == 0)
    assert np.all(st[1:, :2] == 0)
    # the slowest launch: v = 0.1, struck piece 0.1 < 0.15 too: nothing falls
    st, act, _, _ = launch_states(0.0, 0.1, 0.0, 0.0)
    assert not act.any()
    # in a full shot the standing pieces take no part and never score
    a = np.array([[0.0, -1.0 + 2 * (1.0 - 0.1) / 1.9, 1.0, 0.0]])  # v = 1.0, z top
    res = simulate(a, np.array([3], dtype=np.uint64), PhysicsParams(noise=0.0))
    assert res.toppled[0].tolist() == [True, False, False]
    assert res.poses[0, 1:, :2].tolist() == [[0, 0], [0, 0]]
    assert not res.in_tube[0, 1:].any()


def test_ms7_v_topple_threshold_is_strict() -> None:
    p = PhysicsParams(v_topple=0.5, c_below=0.25)
    _, act, _, _ = launch_states(0.0, 2.0, 0.03, 0.0, params=p)  # below: 0.5, not < 0.5
    assert act.tolist() == [True, True, True]
    _, act, _, _ = launch_states(0.0, 1.99, 0.03, 0.0, params=p)
    assert act.tolist() == [True, False, False]


def test_ms7_starting_positions_higher_pieces_land_farther() -> None:
    theta = 12 * DEG
    st, act, _, _ = launch_states(theta, 2.0, 0.0, 0.0)
    zb = [P0.z_base_small, P0.z_base_medium, P0.z_base_large]
    for k in range(3):
        r0 = zb[k] + slant(k) / 3
        assert st[k, 0] == pytest.approx(r0 * math.cos(theta), abs=1e-15)
        assert st[k, 1] == pytest.approx(r0 * math.sin(theta), abs=1e-15)
    assert st[SMALL, 0] > st[MEDIUM, 0] > st[LARGE, 0]


def test_ms7_launch_overlap_pieces_ignore_each_other_until_separated() -> None:
    p = PhysicsParams(noise=0.0)
    st, act, _, _ = launch_states(0.0, 1.2, 0.03, 0.0, params=p)
    polys = footprints(st[None, :, :3], p)[0]
    assert nb_sat(polys[0], polys[1])[0] < 0  # nested pieces overlap at launch
    # while overlapping, each moves exactly as if alone
    p_short = PhysicsParams(noise=0.0, max_shot_seconds=0.01)
    res, _ = simulate_states(st[None], act[None], p_short, tube_distance=100.0)
    for k in range(3):
        alone = np.zeros((1, 3, 6))
        alone[0, k] = st[k]
        mask = np.zeros((1, 3), dtype=bool)
        mask[0, k] = True
        r1, _ = simulate_states(alone, mask, p_short, tube_distance=100.0)
        assert np.array_equal(r1.final_states[0, k], res.final_states[0, k])


def test_ms6_noise_zero_is_deterministic_and_equals_formula() -> None:
    p = PhysicsParams(noise=0.0)
    rng = np.random.default_rng(4)
    a = rng.uniform(-1, 1, (6, 4))
    r1 = simulate(a, np.arange(6, dtype=np.uint64), p)
    r2 = simulate(a, np.arange(100, 106, dtype=np.uint64), p)
    assert np.array_equal(r1.poses, r2.poses)
    for i in range(6):
        theta = a[i, 0] * 20 * DEG
        v = 0.1 + (a[i, 1] + 1) / 2 * 1.9
        z = (a[i, 2] + 1) / 2 * 0.0449
        o = a[i, 3]
        assert r1.launch[i].tolist() == pytest.approx([theta, v, z, o], rel=1e-12, abs=1e-15)
        st, act, hit, _ = launch_states(theta, v, z, o, params=p)
        assert hit == r1.struck[i]
        ref, _ = simulate_states(st[None], act[None], p)
        assert np.allclose(ref.poses, r1.poses[i : i + 1], atol=1e-12)
        assert np.array_equal(ref.toppled, r1.toppled[i : i + 1])


def test_ms6_noise_model_and_clipping() -> None:
    p = P0
    a = np.array([[0.3, 0.2, -0.4, 0.5]])
    seed = 1234567
    res = simulate(a, np.array([seed], dtype=np.uint64), p)
    n = seed_normals(seed)
    assert n.shape == (N_NORMALS,)
    theta = 0.3 * 20 * DEG + 1.0 * DEG * n[0]
    v = (0.1 + 1.2 / 2 * 1.9) * (1 + 0.03 * n[1])
    z = 0.6 / 2 * 0.0449 + 0.002 * n[2]
    o = 0.5 + 0.05 * n[3]
    assert res.launch[0].tolist() == pytest.approx([theta, v, z, o], rel=1e-12)
    st, act, hit, _ = launch_states(
        0.3 * 20 * DEG, 0.1 + 1.2 / 2 * 1.9, 0.6 / 2 * 0.0449, 0.5, normals=n, params=p
    )
    # struck-piece scatter delta ~ N(0, 2 deg), riders N(0, 8 deg), spin noise N(0, 5)
    assert hit == MEDIUM
    assert st[MEDIUM, 2] == pytest.approx(theta + 2 * DEG * n[4 + 2 * MEDIUM])
    assert st[SMALL, 2] == pytest.approx(theta + 8 * DEG * n[4 + 2 * SMALL])
    assert st[LARGE, 2] == pytest.approx(theta)  # below: along theta, no scatter
    assert st[SMALL, 5] == pytest.approx(0.7 * o * 40 + 5 * n[5 + 2 * SMALL])
    assert st[MEDIUM, 5] == pytest.approx(o * 40)
    # huge noise: theta, z, o are clipped to their MS-5 ranges after noise
    big = PhysicsParams(noise=1000.0)
    rng = np.random.default_rng(9)
    res = simulate(rng.uniform(-1, 1, (64, 4)), np.arange(64, dtype=np.uint64), big)
    th, _, zz, oo = res.launch.T
    assert np.all(np.abs(th) <= 20 * DEG) and np.any(np.abs(th) == 20 * DEG)
    assert np.all((zz >= 0) & (zz <= 0.0449)) and np.any(zz == 0.0449)
    assert np.all(np.abs(oo) <= 1.0) and np.any(np.abs(oo) == 1.0)


def test_ms6_noise_statistics() -> None:
    # the per-shot normals are standard normal and independent across seeds
    n = np.array([seed_normals(s) for s in range(4000)])
    assert abs(n.mean()) < 0.02
    assert abs(n.std() - 1) < 0.02
    c = np.corrcoef(n.T)
    assert np.max(np.abs(c - np.eye(N_NORMALS))) < 0.06


def test_ms7_shot_reaches_tube_and_recording_starts_at_launch() -> None:
    # a well-aimed noiseless shot: small struck straight at the tube lands in it
    p = PhysicsParams(noise=0.0)
    v = 1.3
    a = np.array([[0.0, 2 * (v - 0.1) / 1.9 - 1, 1.0, 0.0]])
    res, rec = simulate_recorded(a, np.zeros(1, dtype=np.uint64), p)
    st, _, _, _ = launch_states(0.0, v, 0.0449, 0.0, params=p)
    assert np.allclose(rec[0, 0], st[:, :3])
    assert res.in_tube[0, SMALL] and res.fully_in_tube[0, SMALL]
    assert res.toppled[0].tolist() == [True, False, False]
