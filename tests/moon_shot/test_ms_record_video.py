"""Moon Shot ``rgb_array`` frames work with Gymnasium's ``RecordVideo`` (moviepy encodes them).

RecordVideo needs every frame of an episode to have the same shape and dtype; the AEC and
realtime envs' frames are checked for that too.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import envs.moon_shot  # noqa: F401  (registers MoonShotSolo-v0)
from envs import moon_shot_v0


def test_solo_record_video_writes_mp4(tmp_path) -> None:
    pytest.importorskip("moviepy", reason="RecordVideo encodes with moviepy (test extra)")
    folder = tmp_path / "videos"
    env = gym.make("MoonShotSolo-v0", render_mode="rgb_array", max_shots=3)
    env = gym.wrappers.RecordVideo(
        env,
        video_folder=str(folder),
        name_prefix="moon_shot",
        episode_trigger=lambda episode: True,
        disable_logger=True,
    )
    rng = np.random.default_rng(0)
    episodes = 2
    for ep in range(episodes):
        env.reset(seed=ep)
        done = False
        while not done:
            _, _, term, trunc, _ = env.step(rng.uniform(-1, 1, 4).astype(np.float32))
            done = term or trunc
    env.close()
    videos = sorted(folder.glob("*.mp4"))
    assert len(videos) == episodes, [p.name for p in folder.iterdir()]
    for video in videos:
        assert video.stat().st_size > 0


def _check_frames(frames: list[np.ndarray], shape: tuple[int, ...]) -> None:
    assert len(frames) > 1
    for f in frames:
        assert isinstance(f, np.ndarray) and f.dtype == np.uint8
        assert f.shape == shape
    # the frames show the shots: not all identical (trajectories, pieces move)
    assert any(not np.array_equal(frames[0], f) for f in frames[1:])


@pytest.mark.parametrize("players", [2, 5])
def test_aec_rgb_frames_constant_shape_across_steps(players: int) -> None:
    env = moon_shot_v0.env(num_players=players, render_mode="rgb_array", max_rounds=2)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    frames = [env.render()]  # before the first shot: the tree alone
    for _agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        action = None if term or trunc else rng.uniform(-1, 1, 4).astype(np.float32)
        env.step(action)
        frames.append(env.render())
    env.close()
    _check_frames(frames, (256, 480, 3))


def test_realtime_rgb_frames_constant_shape_across_steps() -> None:
    env = moon_shot_v0.parallel_env(num_players=3, render_mode="rgb_array", max_rounds=3)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    frames = [env.render()]
    while env.agents:
        env.step({a: rng.uniform(-1, 1, 4).astype(np.float32) for a in env.agents})
        frames.append(env.render())
    env.close()
    _check_frames(frames, frames[0].shape)
    assert frames[0].ndim == 3 and frames[0].shape[2] == 3
