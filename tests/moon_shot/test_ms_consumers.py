"""Moon Shot's consumers on the batch facade: the ladder runner and the training opponents
share ``group_actions``; the envs take the facade's rules as keywords (MS-3, MS-5, MS-6,
MS-14..MS-20)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from envs.core.agent import Agent
from envs.core.match import IllegalActionError
from envs.moon_shot.batch import MoonShotBatch, MoonShotSoloBatch
from envs.moon_shot.env import MoonShotEnv, MoonShotParallelEnv
from envs.moon_shot.runner import MoonShotRunner, group_actions
from envs.moon_shot.solo import MoonShotSoloEnv
from envs.moon_shot.vector import MoonShotSoloVectorEnv

#: 8 three-player games of random shooters, as the runner played them before its agent
#: loop moved into ``group_actions`` (rewards, lengths, digests, every shot's action)
RUNNER_DIGEST = "71a00aadea8eb948c6c7eab19d9cdc6e79524667db1c1b64ac439dc531e5eabf"


class _Fixed(Agent):
    """Answers the same action for every game it is asked about."""

    def __init__(self, action: list[float], name: str = "fixed") -> None:
        self.action = np.asarray(action, np.float64)
        self.name = name
        self.calls: list[int] = []

    def act(self, obs, mask, context=None):  # type: ignore[no-untyped-def]
        self.calls.append(len(obs))
        return np.tile(self.action, (len(obs), 1))


def _random(seed: int) -> Agent:
    from agents.random_agent import RandomAgent

    return RandomAgent(seed=seed)


def test_group_actions_asks_each_group_once_in_order() -> None:
    g = MoonShotBatch(num_players=3)
    st = g.init(5, seed=0)
    seats = np.array([2, 0, 2, 1, 0])
    agents = [_Fixed([0.1, 0, 0, 0]), _Fixed([0.2, 0, 0, 0]), _Fixed([0.3, 0, 0, 0])]
    a = group_actions(g, st, seats, seats, agents.__getitem__)
    assert a[:, 0].tolist() == [0.3, 0.1, 0.3, 0.2, 0.1]
    assert [x.calls for x in agents] == [[2], [1], [2]]


def test_group_actions_strict_rejects_and_lenient_clips() -> None:
    """MS-5: the ladder rejects an action outside [-1, 1]^4; training opponents are clipped."""
    g = MoonShotBatch()
    st = g.init(2, seed=0)
    seats = np.zeros(2, np.int64)
    wild = _Fixed([1.5, 0, 0, -3], name="wild")
    with pytest.raises(IllegalActionError, match="'wild'.*outside"):
        group_actions(g, st, seats, seats, lambda _: wild)
    a = group_actions(g, st, seats, seats, lambda _: wild, strict=False)
    assert a.tolist() == [[1.0, 0, 0, -1.0]] * 2
    nan = _Fixed([np.nan, 0, 0, 0], name="nan")
    with pytest.raises(IllegalActionError):
        group_actions(g, st, seats, seats, lambda _: nan)


def test_runner_games_are_pinned() -> None:
    """MS-14..MS-17 through the runner: same games under the same seed as before."""
    r = MoonShotRunner(players=3, max_rounds=3)
    outs = r.play([_random(1), _random(2), _random(3)], 5, np.arange(8))
    h = hashlib.sha256()
    for o in outs:
        h.update(np.asarray(o.rewards, np.float64).tobytes())
        h.update(str((o.length, o.digest)).encode())
        for s in o.shots:
            h.update(np.asarray(s["action"], np.float64).tobytes())
    assert h.hexdigest() == RUNNER_DIGEST


def test_envs_take_the_rules_as_keywords() -> None:
    """The envs' constructors are the facade's rules, by keyword (positional rules of the
    pre-0.4 order still work with a DeprecationWarning; the facade takes none)."""
    e = MoonShotEnv(num_players=3, noise=0.5, max_rounds=4)
    assert e.config == MoonShotBatch(num_players=3, noise=0.5, max_rounds=4).config
    p = MoonShotParallelEnv(num_players=2, clip_actions=True, target_score=5)
    assert p.config.target_score == 5 and p.clip_actions
    s = MoonShotSoloEnv(max_shots=3, close_tube=True)
    v = MoonShotSoloVectorEnv(2, max_shots=3, close_tube=True)
    assert s.config.game == v.config.game == MoonShotSoloBatch(close_tube=True).game
    with pytest.raises(TypeError):
        MoonShotSoloBatch(0.5)  # type: ignore[arg-type, call-arg]
    with pytest.warns(DeprecationWarning):
        assert MoonShotSoloEnv(0.5).config.game == MoonShotSoloBatch(noise=0.5).game
    with pytest.raises(ValueError, match="num_players"), pytest.warns(DeprecationWarning):
        MoonShotEnv(0.5)  # the old order: num_players first
    with pytest.raises(TypeError, match="solo practice takes"):
        MoonShotSoloBatch(max_rounds=3)
    with pytest.raises(TypeError):
        MoonShotEnv(colour="red")


def test_versus_vecenv_rejects_a_nan_learner_action() -> None:
    """MS-5: the learner's shot is the facade's validated step; NaN is an error, not a
    silent physics result (out-of-range entries are clipped as before)."""
    pytest.importorskip("stable_baselines3")
    from training.moon_shot import MoonShotVersusVecEnv
    from training.opponents import OpponentPool

    pool = OpponentPool()
    pool.add_baseline("random", _random(1), 1.0)
    env = MoonShotVersusVecEnv(2, 3, pool, seed=0)
    env.reset()
    before = {k: v.copy() for k, v in env.state.__dict__.items()}
    a = np.zeros((3, 4))
    a[1, 2] = np.nan
    with pytest.raises(ValueError, match="learner.*game 1"):
        env.step(a)
    assert all(np.array_equal(v, before[k]) for k, v in env.state.__dict__.items())
    env.step(np.full((3, 4), 2.0))  # clipped to [-1, 1]
