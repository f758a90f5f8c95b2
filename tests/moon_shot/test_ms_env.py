"""Moon Shot PettingZoo envs: ecosystem conformance, seeding, infos, bad input (MS-5, MS-17, MS-18)."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
from pettingzoo.test import (
    api_test,
    parallel_api_test,
    parallel_seed_test,
    render_test,
    seed_test,
)

from envs import moon_shot_v0
from envs.moon_shot import game, geometry, physics
from envs.moon_shot import render as ms_render
from envs.moon_shot.env import MoonShotConfig, observe, run_shots
from envs.moon_shot.scoring import score_shots

AIM = np.array([0.0, -0.35, 0.9, 0.3], dtype=np.float32)  # a gentle shot at the small


def play_aec(env, actions_fn, seed, max_steps=500):
    """Run one AEC game; returns the list of (agent, obs, reward, term, info) seen by last()."""
    env.reset(seed=seed)
    seen = []
    for step, agent in enumerate(env.agent_iter()):
        obs, rew, term, trunc, info = env.last()
        seen.append((agent, obs.copy(), rew, term, info))
        env.step(None if term or trunc else actions_fn(step))
        if step > max_steps:
            break
    return seen


# ----------------------------------------------------------------------------- conformance


@pytest.mark.parametrize("players", [2, 3, 8])
def test_pettingzoo_api_test_env(players):
    api_test(moon_shot_v0.env(num_players=players, max_rounds=4), num_cycles=40)


def test_pettingzoo_api_test_raw_env_with_variants():
    api_test(
        moon_shot_v0.raw_env(
            num_players=3, close_tube=True, full_landing=True, full_colony=True, target_score=3
        ),
        num_cycles=40,
    )


def test_pettingzoo_seed_test():
    seed_test(lambda: moon_shot_v0.env(num_players=3), num_cycles=15)


@pytest.mark.parametrize("players", [2, 5])
def test_pettingzoo_parallel_api_test(players):
    parallel_api_test(moon_shot_v0.parallel_env(num_players=players, max_rounds=5), num_cycles=40)


def test_pettingzoo_parallel_seed_test():
    parallel_seed_test(lambda: moon_shot_v0.parallel_env(num_players=3))


def test_pettingzoo_render_test(monkeypatch):
    monkeypatch.setattr(ms_render, "MAX_REPLAY_FRAMES", 2)  # keep the pygame replay short
    render_test(lambda render_mode=None: moon_shot_v0.env(num_players=2, render_mode=render_mode))


def test_parallel_render_modes(monkeypatch):
    monkeypatch.setattr(ms_render, "MAX_REPLAY_FRAMES", 2)
    for mode in ("ansi", "rgb_array", "human"):
        env = moon_shot_v0.parallel_env(num_players=3, render_mode=mode)
        env.reset(seed=1)
        before = env.render()
        env.step({a: AIM for a in env.agents})
        out = env.render()
        if mode == "rgb_array":
            assert before.shape == out.shape == (ms_render.HEIGHT, ms_render.WIDTH, 3)
            assert out.dtype == np.uint8 and not np.array_equal(before, out)
        elif mode == "ansi":
            assert "player_2" in out and "points" in out
        else:
            assert out is None
        env.close()


def test_rgb_frame_fixed_size_with_pieces_and_trajectories():
    env = moon_shot_v0.env(num_players=2, render_mode="rgb_array", noise=0.0)
    env.reset(seed=0)
    first = env.render()
    env.step(AIM)
    img = env.render()
    assert img.shape == first.shape == (ms_render.HEIGHT, ms_render.WIDTH, 3)
    assert img.dtype == np.uint8
    colours = {tuple(c) for c in img.reshape(-1, 3).tolist()}
    for k in range(3):  # every piece is drawn in its colour
        assert tuple(ms_render.PIECE_COLOURS[k].tolist()) in colours
    # the struck small flew far: its trajectory is drawn
    assert env.unwrapped.last_shot.poses[0, 0, 0] > 0.05
    assert tuple(ms_render.TRAIL_COLOURS[0].tolist()) in colours
    assert tuple(ms_render.WALL.tolist()) in colours


def test_import_does_not_pull_pygame_or_torch():
    code = (
        "import sys, envs, envs.moon_shot, envs.moon_shot_v0, gymnasium;"
        "e = envs.moon_shot_v0.env(); e.reset(seed=0);"
        "g = gymnasium.make('MoonShotSolo-v0');"
        "bad = [m for m in ('pygame', 'torch') if m in sys.modules];"
        "assert not bad, bad"
    )
    res = subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", "-c", code],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0, res.stderr


# ----------------------------------------------------------------------------- seeding


def test_same_seed_same_game_and_different_seed_differs():
    rng = np.random.default_rng(5)
    acts = rng.uniform(-1, 1, (200, 4)).astype(np.float32)
    a = play_aec(moon_shot_v0.env(num_players=3), lambda i: acts[i], seed=11)
    b = play_aec(moon_shot_v0.env(num_players=3), lambda i: acts[i], seed=11)
    c = play_aec(moon_shot_v0.env(num_players=3), lambda i: acts[i], seed=12)
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        assert x[0] == y[0] and np.array_equal(x[1], y[1]) and x[2] == y[2]
        if x[4]:
            assert np.array_equal(x[4]["last_shot"]["poses"], y[4]["last_shot"]["poses"])
    poses_a = [x[4]["last_shot"]["poses"] for x in a if x[4]]
    poses_c = [x[4]["last_shot"]["poses"] for x in c if x[4]]
    assert not np.array_equal(poses_a[0], poses_c[0])


def test_zero_noise_is_deterministic_whatever_the_seed():
    outs = []
    for seed in (1, 2):
        env = moon_shot_v0.raw_env(num_players=2, noise=0.0)
        env.reset(seed=seed)
        env.step(AIM)
        outs.append(env.infos["player_0"]["last_shot"]["poses"])
    assert np.array_equal(outs[0], outs[1])


def test_shot_seeds_match_physics_call():
    """The env's shot is exactly physics.simulate with the game's shot seed (MS-6)."""
    env = moon_shot_v0.raw_env(num_players=2)
    env.reset(seed=3)
    env.step(AIM)
    env.step(-AIM)
    seeds = game.shot_seeds(np.repeat(env.game_state.key, 2), np.arange(2))
    cfg = env.config
    res = physics.simulate(
        np.stack([AIM, -AIM]).astype(np.float64), seeds, cfg.physics_params(), cfg.distance
    )
    assert np.array_equal(env.infos["player_0"]["last_shot"]["poses"], res.poses[1])


# ----------------------------------------------------------------------------- infos / scoring


def test_infos_carry_last_shot_consistent_with_scoring():
    rng = np.random.default_rng(0)
    acts = rng.uniform(-1, 1, (400, 4))
    cfg = MoonShotConfig(num_players=2)
    shots = run_shots(acts, np.arange(400, dtype=np.uint64), cfg)
    # physics flags agree with the geometry of the resting poses (MS-10) ...
    over, full = geometry.in_tube(shots.poses, cfg.distance, cfg.params)
    over &= shots.toppled
    full &= shots.toppled
    assert np.array_equal(over, shots.in_tube & shots.toppled)
    assert np.array_equal(full, shots.fully_in_tube & shots.toppled)
    # ... so scoring from geometry gives the same shot values
    again = score_shots(over, full, shots.poses, shots.toppled)
    assert np.array_equal(again.points, shots.score.points)
    assert np.array_equal(again.kind, shots.score.kind)
    info = shots.info(int(np.argmax(shots.score.points)))
    assert set(info) == {"poses", "toppled", "in_tube", "fully_in_tube", "points", "kind"}


def test_aec_infos_scores_and_final_rewards():
    env = moon_shot_v0.env(num_players=3, max_rounds=3)
    seen = play_aec(env, lambda i: AIM, seed=4)
    last = {}
    total = dict.fromkeys(env.possible_agents, 0)
    for agent, _obs, rew, term, info in seen:
        if info and not term:
            last = info["last_shot"]
        if term:
            total[agent] = rew
    raw = env.unwrapped
    assert raw.game_state.done[0]
    assert sorted(total.values()) in ([-1, -1, 1], [-1, 0, 0], [0, 0, 0], [-1, -1, 0])
    assert list(total.values()) == raw.game_state.rewards[0].tolist()
    assert last["scores"] == {
        a: int(raw.game_state.scores[0, i]) for i, a in enumerate(raw.possible_agents)
    }


def test_aec_game_flow_follows_game_kernel():
    """Replaying the env's shot values through game.turn_step gives the same ending."""
    rng = np.random.default_rng(9)
    acts = rng.uniform(-1, 1, (300, 4)).astype(np.float32)
    env = moon_shot_v0.raw_env(num_players=2, max_rounds=10, target_score=4)
    env.reset(seed=8)
    ref = game.new_games(1, 2)
    i = 0
    while not env.game_state.done[0]:
        env.step(acts[i])
        i += 1
        sc = env.last_shot.score
        game.turn_step(ref, sc.points, sc.crack, sc.colony, sc.landed, 10, 4)
        obs = env.observe(env.agent_selection)
        assert obs[0] == env.game_state.scores[0, env.agent_name_mapping[env.agent_selection]]
    assert np.array_equal(ref.rewards, env.game_state.rewards)
    assert np.array_equal(ref.scores, env.game_state.scores)
    assert env.infos["player_0"]["outcome"] == game.OUTCOME_NAMES[int(ref.outcome[0])]


def test_observation_is_seat_relative():
    cfg = MoonShotConfig(num_players=3, max_rounds=30, target_score=9)
    st = game.new_games(1, 3)
    st.scores[0] = [4, 1, 2]
    st.last_landing[0] = [5, -1, 6]
    st.turn[0] = 7
    st.round[0] = 2
    st.seat[0] = 1
    o = observe(
        game.GameState(**{k: np.repeat(v, 3, 0) for k, v in st.__dict__.items()}), np.arange(3), cfg
    )
    assert o.shape == (3, 2 * 3 + 10)
    assert o[0, :3].tolist() == [4, 1, 2]
    assert o[1, :3].tolist() == [1, 2, 4]
    assert o[2, :3].tolist() == [2, 4, 1]
    np.testing.assert_allclose(o[0, 3:6], [1 / 2, 0.0, 1.0])  # recency: turn 5, never, turn 6
    np.testing.assert_allclose(o[1, 3:6], [0.0, 1.0, 1 / 2])
    assert o[0, 6:10].tolist() == [2, 28, 1, 0]  # rounds, rounds left, seats until own shot, seat
    assert o[1, 8:10].tolist() == [0, 1]
    assert o[2, 8:10].tolist() == [2, 2]
    np.testing.assert_allclose(o[0, 10:], [0.16, 0, 0, 0, 9, 1.0], rtol=1e-6)
    assert cfg.check_players() is None


# ----------------------------------------------------------------------------- realtime (MS-18)


def test_realtime_one_physics_call_per_step(simulate_calls):
    calls = simulate_calls
    env = moon_shot_v0.parallel_env(num_players=4)
    env.reset(seed=2)
    env.step({a: AIM for a in env.agents})
    assert calls == [4]
    # every player has their own tree: same action, different noise, all shots scored
    shots = env.last_shot
    assert len({tuple(p.ravel()) for p in shots.poses}) == 4
    assert env.game_state.scores[0].tolist() == shots.score.points.tolist()


def test_realtime_game_follows_realtime_kernel():
    rng = np.random.default_rng(3)
    env = moon_shot_v0.parallel_env(num_players=3, max_rounds=6)
    env.reset(seed=5)
    ref = game.new_games(1, 3)
    while env.agents:
        acts = {a: rng.uniform(-1, 1, 4).astype(np.float32) for a in env.agents}
        _, rew, term, trunc, infos = env.step(acts)
        sc = env.last_shot.score
        game.realtime_step(
            ref, sc.points[None], sc.crack[None], sc.colony[None], sc.landed[None], 6
        )
        assert not any(trunc.values())
    assert np.array_equal(ref.rewards, env.game_state.rewards)
    assert [rew[a] for a in env.possible_agents] == ref.rewards[0].tolist()
    assert all(term.values())


def test_realtime_seeded():
    def run(seed):
        env = moon_shot_v0.parallel_env(num_players=2)
        env.reset(seed=seed)
        env.step({a: AIM for a in env.agents})
        return env.last_shot.poses

    assert np.array_equal(run(1), run(1)) and not np.array_equal(run(1), run(2))


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("players", [0, 1, 9, 2.5])
def test_num_players_out_of_range(players):
    with pytest.raises(ValueError, match="num_players"):
        moon_shot_v0.raw_env(num_players=players)
    with pytest.raises(ValueError, match="num_players"):
        moon_shot_v0.parallel_env(num_players=players)


def test_bad_parameters():
    with pytest.raises(ValueError, match="tube_distance"):
        moon_shot_v0.raw_env(tube_distance=0.1)
    moon_shot_v0.raw_env(tube_distance=0.1, close_tube=True)  # close tube: min 0.08 m
    with pytest.raises(ValueError, match="tube_distance"):
        moon_shot_v0.raw_env(tube_distance=0.07, close_tube=True)
    with pytest.raises(ValueError, match="max_rounds"):
        moon_shot_v0.raw_env(max_rounds=0)
    with pytest.raises(ValueError, match="target_score"):
        moon_shot_v0.raw_env(target_score=0)
    with pytest.raises(ValueError, match="noise"):
        moon_shot_v0.raw_env(noise=-1.0)
    with pytest.raises(ValueError, match="render_mode"):
        moon_shot_v0.raw_env(render_mode="video")


def _snapshot(env):
    st = env.unwrapped.game_state
    return {k: v.copy() for k, v in st.__dict__.items()}, env.unwrapped.agent_selection


@pytest.mark.parametrize("make", [moon_shot_v0.raw_env, moon_shot_v0.env])
@pytest.mark.parametrize(
    "action, match",
    [
        (np.array([np.nan, 0, 0, 0]), "finite"),
        (np.array([0, np.inf, 0, 0]), "finite"),
        (np.array([0, 0, -np.inf, 0], dtype=np.float32), "finite"),
        (np.zeros(3), "shape"),
        (np.zeros((2, 4)), "shape"),
        (np.float32(0.5), "shape"),
        ("aim", "numeric|shape"),
        (None, "None"),
    ],
)
def test_bad_actions_rejected_state_untouched(make, action, match):
    env = make(num_players=2)
    env.reset(seed=0)
    env.step(AIM)
    before, sel = _snapshot(env)
    with pytest.raises(ValueError, match=match):
        env.step(action)
    after, sel2 = _snapshot(env)
    assert sel == sel2 and all(np.array_equal(before[k], after[k]) for k in before)


def test_out_of_range_rejected_by_raw_env_clipped_by_env():
    raw = moon_shot_v0.raw_env(num_players=2)
    raw.reset(seed=0)
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        raw.step(np.array([0.0, 1.5, 0.0, 0.0]))
    assert raw.game_state.turn[0] == 0
    wrapped = moon_shot_v0.env(num_players=2)
    wrapped.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapped.step(np.array([0.0, 1.5, 0.0, -3.0]))
    raw.step(np.array([0.0, 1.0, 0.0, -1.0]))
    assert np.array_equal(
        wrapped.unwrapped.infos["player_0"]["last_shot"]["poses"],
        raw.infos["player_0"]["last_shot"]["poses"],
    )


def test_parallel_bad_actions():
    env = moon_shot_v0.parallel_env(num_players=2, clip_actions=False)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        env.step({"player_0": AIM, "player_1": AIM * 2})
    with pytest.raises(ValueError, match="finite"):
        env.step({"player_0": AIM, "player_1": np.array([np.nan, 0, 0, 0])})
    with pytest.raises(ValueError, match="missing"):
        env.step({"player_0": AIM})
    assert env.game_state.turn[0] == 0
    clipped = moon_shot_v0.parallel_env(num_players=2)
    clipped.reset(seed=0)
    with pytest.raises(ValueError, match="finite"):
        clipped.step({"player_0": AIM, "player_1": np.array([np.inf, 0, 0, 0])})
    clipped.step({"player_0": AIM, "player_1": AIM * 2})
    assert clipped.game_state.turn[0] == 1


@pytest.mark.parametrize(
    "variant",
    [
        {"full_landing": True},
        {"full_colony": True},
        {"close_tube": True},
        {"tube_distance": 0.2},
        {"close_tube": True, "full_landing": True, "full_colony": True},
    ],
)
def test_variants_reach_physics_and_scoring(variant):
    """MS-3/MS-20 parameters: the tube distance goes to the physics, the flags to scoring."""
    cfg = MoonShotConfig(**variant)
    want = variant.get("tube_distance", 0.08 if variant.get("close_tube") else 0.16)
    assert cfg.distance == pytest.approx(want)
    acts = np.random.default_rng(1).uniform(-1, 1, (300, 4))
    shots = run_shots(acts, np.arange(300, dtype=np.uint64), cfg)
    over, full = geometry.in_tube(shots.poses, want, cfg.params)
    assert np.array_equal(over & shots.toppled, shots.in_tube & shots.toppled)
    again = score_shots(
        over,
        full,
        shots.poses,
        shots.toppled,
        full_landing=bool(variant.get("full_landing")),
        full_colony=bool(variant.get("full_colony")),
    )
    assert np.array_equal(again.kind, shots.score.kind)
    env = moon_shot_v0.raw_env(**variant)
    env.reset(seed=0)
    obs = env.observe("player_0")
    assert obs[2 * 2 + 4] == pytest.approx(want)
    assert obs[2 * 2 + 5 : 2 * 2 + 8].tolist() == [
        float(bool(variant.get(k))) for k in ("close_tube", "full_landing", "full_colony")
    ]


def test_run_shots_same_result_alone_or_in_a_batch():
    """Small batches run serially, big ones on the thread pool: same shots either way."""
    assert physics.SERIAL_BELOW <= 64  # the batch below uses the thread pool
    cfg = MoonShotConfig()
    acts = np.random.default_rng(4).uniform(-1, 1, (64, 4))
    seeds = np.arange(100, 164, dtype=np.uint64)
    batch = run_shots(acts, seeds, cfg)
    for m in (0, 7, 63):
        one = run_shots(acts[m : m + 1], seeds[m : m + 1], cfg)
        assert np.array_equal(one.poses[0], batch.poses[m])
        assert one.score.kind[0] == batch.score.kind[m]


def test_human_mode_replays_each_shot_once(monkeypatch):
    from envs.core.render import HumanWindow

    shown = []
    monkeypatch.setattr(ms_render, "MAX_REPLAY_FRAMES", 3)
    monkeypatch.setattr(HumanWindow, "show", lambda self, frame: shown.append(frame.shape))
    env = moon_shot_v0.raw_env(num_players=2, render_mode="human", noise=0.0)
    env.reset(seed=0)
    env.step(AIM)  # human mode renders in step: the shot is replayed
    first = len(shown)
    assert first >= 3 and all(s == (ms_render.HEIGHT, ms_render.WIDTH, 3) for s in shown)
    env.render()  # same shot again: only its final frame
    assert len(shown) == first + 1
    env.reset(seed=0)
    env.step(AIM)  # a new game's first shot is replayed again
    assert len(shown) == 2 * first + 1
    env.close()
