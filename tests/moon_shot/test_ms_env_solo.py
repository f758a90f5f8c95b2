"""MoonShotSolo-v0 (MS-21): Gymnasium/SB3 checkers, rewards, the native VectorEnv."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from gymnasium.vector import AutoresetMode

import envs.moon_shot  # noqa: F401  (registers MoonShotSolo-v0)
from envs.moon_shot import render as ms_render
from envs.moon_shot.solo import MoonShotSoloEnv
from envs.moon_shot.vector import MoonShotSoloVectorEnv


def test_registered_and_gymnasium_check_env():
    env = gymnasium.make("MoonShotSolo-v0")
    assert isinstance(env.unwrapped, MoonShotSoloEnv)
    gym_check_env(env.unwrapped, skip_render_check=False)
    gym_check_env(MoonShotSoloEnv(close_tube=True, full_landing=True, max_shots=5, noise=0.5))


def test_sb3_check_env():
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    sb3_check_env(MoonShotSoloEnv(), warn=True)


def test_solo_render_modes(monkeypatch):
    monkeypatch.setattr(ms_render, "MAX_REPLAY_FRAMES", 2)
    for mode in ("ansi", "rgb_array", "human"):
        env = gymnasium.make("MoonShotSolo-v0", render_mode=mode)
        env.reset(seed=0)
        env.step(np.array([0.0, -0.35, 0.9, 0.3], np.float32))
        out = env.render()
        if mode == "rgb_array":
            assert out.shape == (ms_render.HEIGHT, ms_render.WIDTH, 3) and out.dtype == np.uint8
        elif mode == "ansi":
            assert "points after 1/20 shots" in out
        else:
            assert out is None
        env.close()


def run_episode(env, actions, seed):
    obs, _ = env.reset(seed=seed)
    out = [(obs, 0.0, False, {})]
    for a in actions:
        obs, r, term, trunc, info = env.step(a)
        assert not trunc
        out.append((obs, r, term, info))
        if term:
            break
    return out


def test_ms21_rewards_follow_shot_values():
    rng = np.random.default_rng(1)
    env = MoonShotSoloEnv(max_shots=20)
    kinds = set()
    for ep in range(30):
        acts = rng.uniform(-1, 1, (20, 4)).astype(np.float32)
        steps = run_episode(env, acts, seed=ep)
        points = 0
        for i, (obs, r, term, info) in enumerate(steps[1:], start=1):
            kinds.add(info["kind"])
            if info["kind"] == "crack":  # MS-21: -(points so far), episode over
                assert r == -points and term and info["outcome"] == "crack"
            else:
                assert r == info["points"]
                points += info["points"]
                assert obs[0] == points
            if info["kind"] == "colony":
                assert term
            assert obs[1] == i and obs[2] == 20 - i
            assert term == (info["kind"] in ("crack", "colony") or i == 20)
    assert "crack" in kinds and "nothing" in kinds


def test_ms21_max_shots_is_a_termination():
    env = MoonShotSoloEnv(max_shots=3, noise=0.0)
    weak = np.array([0.0, -1.0, -1.0, 0.0], np.float32)  # a soft shot at the large: nothing
    steps = run_episode(env, [weak] * 5, seed=0)
    assert len(steps) == 4
    assert [s[2] for s in steps[1:]] == [False, False, True]
    assert steps[-1][3]["outcome"] == "max shots"
    with pytest.raises(ValueError, match="reset"):
        env.step(weak)


def test_solo_same_seed_same_episode():
    acts = np.random.default_rng(2).uniform(-1, 1, (20, 4)).astype(np.float32)
    a = run_episode(MoonShotSoloEnv(), acts, seed=7)
    b = run_episode(MoonShotSoloEnv(), acts, seed=7)
    assert len(a) == len(b)
    for x, y in zip(a[1:], b[1:], strict=True):
        assert np.array_equal(x[0], y[0]) and x[1] == y[1]
        assert np.array_equal(x[3]["poses"], y[3]["poses"])


@pytest.mark.parametrize(
    "action, match",
    [
        (np.array([np.nan, 0, 0, 0]), "finite"),
        (np.array([0, 0, np.inf, 0]), "finite"),
        (np.array([0, 1.01, 0, 0]), r"\[-1, 1\]"),
        (np.zeros(5), "shape"),
    ],
)
def test_solo_bad_actions(action, match):
    env = MoonShotSoloEnv()
    env.reset(seed=0)
    with pytest.raises(ValueError, match=match):
        env.step(action)
    assert env.state.shots[0] == 0


def test_solo_bad_parameters():
    with pytest.raises(ValueError, match="max_shots"):
        MoonShotSoloEnv(max_shots=0)
    with pytest.raises(ValueError, match="tube_distance"):
        MoonShotSoloEnv(tube_distance=0.1)
    with pytest.raises(ValueError, match="num_envs"):
        MoonShotSoloVectorEnv(num_envs=0)


# ----------------------------------------------------------------------------- VectorEnv


def test_vector_env_matches_single_envs_next_step_autoreset():
    n, steps, seed = 5, 45, 100
    rng = np.random.default_rng(0)
    acts = rng.uniform(-1, 1, (steps, n, 4)).astype(np.float32)
    venv = MoonShotSoloVectorEnv(n, max_shots=6)
    assert venv.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    vobs, _ = venv.reset(seed=seed)
    singles = [MoonShotSoloEnv(max_shots=6) for _ in range(n)]
    sobs = [e.reset(seed=seed + i)[0] for i, e in enumerate(singles)]
    assert np.array_equal(vobs, np.stack(sobs))
    pending = np.zeros(n, dtype=bool)
    resets = 0
    for t in range(steps):
        vobs, vr, vterm, vtrunc, vinfo = venv.step(acts[t])
        assert vobs.shape == (n, 8) and vobs.dtype == np.float32
        for i, e in enumerate(singles):
            if pending[i]:  # NEXT_STEP: this step resets env i, its action is ignored
                o, r, term = e.reset()[0], 0.0, False
                resets += 1
            else:
                o, r, term, trunc, info = e.step(acts[t, i])
                assert vinfo["_poses"][i] and np.array_equal(vinfo["poses"][i], info["poses"])
                assert vinfo["points"][i] == info["points"] and vinfo["kind"][i] == info["kind"]
                assert bool(vinfo.get("_outcome", np.zeros(n, bool))[i]) == ("outcome" in info)
                if "outcome" in info:
                    assert vinfo["outcome"][i] == info["outcome"]
            assert np.array_equal(vobs[i], o) and vr[i] == r and vterm[i] == term
            pending[i] = term
        assert not vtrunc.any()
    assert resets > 0


def test_vector_env_same_step_autoreset():
    n, seed = 4, 3
    acts = np.random.default_rng(1).uniform(-1, 1, (30, n, 4)).astype(np.float32)
    venv = MoonShotSoloVectorEnv(n, max_shots=4, autoreset_mode="SameStep")
    assert venv.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    venv.reset(seed=seed)
    singles = [MoonShotSoloEnv(max_shots=4) for _ in range(n)]
    for i, e in enumerate(singles):
        e.reset(seed=seed + i)
    finals = 0
    for t in range(30):
        vobs, vr, vterm, _, vinfo = venv.step(acts[t])
        for i, e in enumerate(singles):
            o, r, term, _, info = e.step(acts[t, i])
            assert vr[i] == r and vterm[i] == term
            if term:
                finals += 1
                assert vinfo["_final_obs"][i] and np.array_equal(vinfo["final_obs"][i], o)
                final = vinfo["final_info"]
                assert final["_outcome"][i] and final["outcome"][i] == info["outcome"]
                assert np.array_equal(final["poses"][i], info["poses"])
                o, _ = e.reset()
            else:
                assert not vinfo.get("_final_obs", np.zeros(n, bool))[i]
            assert np.array_equal(vobs[i], o)
    assert finals > 0


def test_vector_env_one_physics_call_per_step(simulate_calls):
    calls = simulate_calls
    venv = MoonShotSoloVectorEnv(16, max_shots=2)
    venv.reset(seed=0)
    for _ in range(4):
        venv.step(np.zeros((16, 4), np.float32))
    # steps 1, 2: one call for all 16 shots; step 3 autoresets every sub-env (no shot)
    assert calls == [16, 16, 16]


def test_make_vec_entry_point_and_bad_actions():
    venv = gymnasium.make_vec(
        "MoonShotSolo-v0", num_envs=3, vectorization_mode="vector_entry_point"
    )
    assert isinstance(venv.unwrapped, MoonShotSoloVectorEnv)
    venv.reset(seed=1)
    with pytest.raises(ValueError, match="shape"):
        venv.step(np.zeros((2, 4), np.float32))
    with pytest.raises(ValueError, match="finite"):
        venv.step(np.full((3, 4), np.nan, np.float32))
    obs, r, term, trunc, info = venv.step(venv.action_space.sample())
    assert venv.observation_space.contains(obs) and r.shape == (3,)
    venv.close()


def test_vector_render_rgb():
    venv = MoonShotSoloVectorEnv(2, render_mode="rgb_array")
    venv.reset(seed=0)
    venv.step(np.zeros((2, 4), np.float32))
    frames = venv.render()
    assert len(frames) == 2 and all(
        f.shape == (ms_render.HEIGHT, ms_render.WIDTH, 3) for f in frames
    )
