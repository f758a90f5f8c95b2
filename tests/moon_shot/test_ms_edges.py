"""Moon Shot env edges (issue #11 item 6): each reproduction of the issue is a test.

``env()`` warns when it clips (MS-5 range), the parallel env names the agent at fault, the
same action checks (shape, finite, real dtype) in every env, numpy integer seeds for the
vector env, clear errors on step before reset, and PettingZoo's ``state()``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from envs import moon_shot_v0
from envs.moon_shot.solo import MoonShotSoloEnv
from envs.moon_shot.vector import MoonShotSoloVectorEnv

AIM = np.array([0.0, 0.2, 0.1, 0.0], np.float32)


def test_env_warns_when_it_clips():
    env = moon_shot_v0.env(num_players=2)
    env.reset(seed=0)
    with pytest.warns(UserWarning, match=r"player_0: .*outside \[-1, 1\].*clipped"):
        env.step(np.array([2.0, 0.0, 0.0, 0.0], np.float32))
    assert env.unwrapped.game_state.turn[0] == 1  # the shot was played, clipped
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an in-range action: no warning
        env.step(AIM)


def test_parallel_bad_action_names_the_agent():
    env = moon_shot_v0.parallel_env(num_players=3, clip_actions=False)
    env.reset(seed=0)
    bad = {"player_0": AIM, "player_1": AIM, "player_2": np.array([np.nan, 0, 0, 0])}
    with pytest.raises(ValueError, match="player_2: .*finite"):
        env.step(bad)
    with pytest.raises(ValueError, match=r"player_1: .*\[-1, 1\]"):
        env.step({"player_0": AIM, "player_1": AIM * 10, "player_2": AIM})
    with pytest.raises(ValueError, match="player_0: .*shape"):
        env.step({"player_0": np.zeros(3), "player_1": AIM, "player_2": AIM})
    assert env.game_state.turn[0] == 0


def test_parallel_clip_warns():
    env = moon_shot_v0.parallel_env(num_players=2)
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="player_1: .*clipped"):
        env.step({"player_0": AIM, "player_1": AIM * 10})


def _aec(clip: bool):
    env = moon_shot_v0.env(num_players=2) if clip else moon_shot_v0.raw_env(num_players=2)
    env.reset(seed=0)
    return lambda a: env.step(a)


def _par():
    env = moon_shot_v0.parallel_env(num_players=2)
    env.reset(seed=0)
    return lambda a: env.step({"player_0": AIM, "player_1": a})


def _solo():
    env = MoonShotSoloEnv()
    env.reset(seed=0)
    return lambda a: env.step(a)


def _vector():
    env = MoonShotSoloVectorEnv(2)
    env.reset(seed=0)
    return lambda a: env.step(np.stack([np.asarray(AIM, a.dtype), a]))


MAKERS = {"raw": lambda: _aec(False), "env": lambda: _aec(True), "parallel": _par}
MAKERS.update(solo=_solo, vector=_vector)


@pytest.mark.parametrize("kind", sorted(MAKERS))
@pytest.mark.parametrize(
    ("action", "match"),
    [
        (np.array([0.5 + 1j, 0, 0, 0]), "real"),  # the solo env accepted it (issue #11)
        (np.array([0.5, 0, 0, 0], np.complex64), "real"),
        (np.array([np.nan, 0, 0, 0]), "finite"),
        (np.array([0, 0, np.inf, 0]), "finite"),
        (np.zeros(5), "shape"),
    ],
)
def test_same_action_checks_in_every_env(kind, action, match):
    step = MAKERS[kind]()
    with pytest.raises(ValueError, match=match):
        step(action)


def test_vector_reset_takes_numpy_integer_seeds():
    a, b = MoonShotSoloVectorEnv(3), MoonShotSoloVectorEnv(3)
    obs_a, _ = a.reset(seed=np.int64(3))
    obs_b, _ = b.reset(seed=3)
    np.testing.assert_array_equal(obs_a, obs_b)
    np.testing.assert_array_equal(a.state.key, b.state.key)
    a.reset(seed=[np.int32(1), None, np.uint8(2)])
    with pytest.raises(ValueError, match="seed"):
        a.reset(seed=True)


@pytest.mark.parametrize("make", [MoonShotSoloEnv, lambda: MoonShotSoloVectorEnv(2)])
def test_solo_and_vector_step_before_reset(make):
    env = make()
    action = np.zeros((2, 4)) if isinstance(env, MoonShotSoloVectorEnv) else np.zeros(4)
    with pytest.raises(RuntimeError, match=r"step\(\) before reset"):
        env.step(action)


def test_raw_and_parallel_step_before_reset():
    with pytest.raises(RuntimeError, match=r"step\(\) before reset"):
        moon_shot_v0.raw_env().step(AIM)
    with pytest.raises(RuntimeError, match=r"observe\(\) before reset"):
        moon_shot_v0.raw_env().observe("player_0")
    with pytest.raises(RuntimeError, match=r"step\(\) before reset"):
        moon_shot_v0.parallel_env().step({"player_0": AIM, "player_1": AIM})


def test_state_is_pettingzoos_global_state():
    env = moon_shot_v0.env(num_players=3)
    env.reset(seed=1)
    s = env.state()  # an attribute hid this method (issue #11)
    assert env.unwrapped.state_space.contains(s)
    np.testing.assert_array_equal(s, env.unwrapped.observe("player_0"))
    env.step(AIM)
    assert env.state()[2 * 3 + 2] == 1  # (seat to shoot 1 - seat 0) mod 3
    par = moon_shot_v0.parallel_env(num_players=2)
    par.reset(seed=1)
    assert par.state_space.contains(par.state())


def test_raw_step_after_the_game():
    env = moon_shot_v0.raw_env(num_players=2, max_rounds=1, noise=0.0)
    env.reset(seed=0)
    while env.agents:
        env.step(None if env.terminations[env.agent_selection] else AIM)
    with pytest.raises(RuntimeError, match="game is over"):
        env.step(AIM)
