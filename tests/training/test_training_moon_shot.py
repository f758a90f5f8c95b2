"""Moon Shot's SB3 VecEnvs: solo shots (MS-21) and the turn game against pool opponents."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("envs.moon_shot.vector")

from agents.random_agent import RandomAgent  # noqa: E402
from training.moon_shot import MoonShotSoloVecEnv, MoonShotVersusVecEnv  # noqa: E402
from training.opponents import OpponentPool  # noqa: E402


def test_solo_vecenv_contract_and_seed() -> None:
    def run(seed: int) -> tuple[list[np.ndarray], int]:
        env = MoonShotSoloVecEnv(4, seed=0)
        env.seed(seed)
        obs = env.reset()
        assert obs.shape == (4, 8)
        rng = np.random.default_rng(0)
        rewards, ends = [], 0
        for _ in range(25):  # max_shots is 20: every sub-env ends at least once
            obs, rew, done, infos = env.step(rng.uniform(-1, 1, (4, 4)))
            rewards.append(rew)
            for i in np.flatnonzero(done):
                ends += 1
                assert infos[i]["terminal_observation"].shape == (8,)
                assert infos[i]["TimeLimit.truncated"] is False
                assert obs[i][1] == 0.0  # auto-reset: no shot taken in the new episode
        return rewards, ends

    a, ends = run(5)
    b, _ = run(5)
    assert ends >= 4
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_versus_vecenv_learner_reward_only_at_its_games_end() -> None:
    pool = OpponentPool()
    pool.add_baseline("random", RandomAgent(seed=1), 1.0)
    env = MoonShotVersusVecEnv(2, 6, pool, seed=0)
    obs = env.reset()
    assert obs.shape == (6, 14)
    assert (env.state.seat == env.learner_seat).all()
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(60):
        obs, rew, done, infos = env.step(rng.uniform(-1, 1, (6, 4)))
        assert (rew[~done] == 0).all()
        assert set(np.unique(rew[done])) <= {-1.0, 0.0, 1.0}
        assert (env.state.seat == env.learner_seat).all() and not env.state.done.any()
        for i in np.flatnonzero(done):
            finished += 1
            assert infos[i]["terminal_observation"].shape == (14,)
            assert infos[i]["outcome"] == rew[i]
    assert finished > 0
