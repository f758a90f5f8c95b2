"""Moon Shot training: PPO (or SAC) on solo shots through the batched Gymnasium VectorEnv.

:class:`MoonShotSoloVecEnv` adapts ``envs.moon_shot.vector.MoonShotSoloVectorEnv`` (every
step simulates all sub-envs' shots in one physics call) to SB3's ``VecEnv`` contract: the
Gymnasium env runs with ``SAME_STEP`` autoreset, whose ``final_obs`` becomes
``infos[i]["terminal_observation"]``; ``TimeLimit.truncated`` is ``truncated and not
terminated`` (solo episodes end by termination, MS-21). ``seed(s)`` seeds sub-env ``i``
with ``s + i`` at the next ``reset()``, as SB3's ``DummyVecEnv`` does.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvStepReturn


class MoonShotSoloVecEnv(VecEnv):
    """SB3 view of ``num_envs`` solo Moon Shot episodes (MS-21) stepped in one batch."""

    def __init__(self, num_envs: int, seed: int = 0, **solo_kwargs: Any) -> None:
        from gymnasium.vector import AutoresetMode

        from envs.moon_shot.vector import MoonShotSoloVectorEnv

        self.vec = MoonShotSoloVectorEnv(
            num_envs, autoreset_mode=AutoresetMode.SAME_STEP, **solo_kwargs
        )
        self.render_mode = None
        self._next_seed: int | None = int(seed)
        super().__init__(num_envs, self.vec.single_observation_space, self.vec.single_action_space)
        self._actions: np.ndarray | None = None
        self.learner_decisions = 0
        self.env_seconds = 0.0
        self._rng_restore: list[Any] | None = None

    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else self._next_seed
        self._next_seed = None
        obs, _ = self.vec.reset(seed=seed)
        if self._rng_restore is not None:  # resumed run: continue the stored streams
            for rng, st in zip(self.vec._rngs, self._rng_restore, strict=True):
                rng.bit_generator.state = st
            self.vec.reset()
            obs = self.vec.config.observe(self.vec.state)
            self._rng_restore = None
        self._reset_seeds()
        self._reset_options()
        return np.asarray(obs, np.float32)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, np.float32).reshape(self.num_envs, -1)

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() called without step_async()")
        t0 = time.perf_counter()
        actions = np.clip(self._actions, -1.0, 1.0)
        self._actions = None
        obs, rew, term, trunc, info = self.vec.step(actions)
        dones = np.asarray(term, bool) | np.asarray(trunc, bool)
        infos: list[dict[str, Any]] = []
        has_final = info.get("_final_obs", np.zeros(self.num_envs, bool))
        for i in range(self.num_envs):
            item: dict[str, Any] = {"TimeLimit.truncated": bool(trunc[i] and not term[i])}
            if dones[i] and has_final[i]:
                item["terminal_observation"] = np.asarray(info["final_obs"][i], np.float32)
                final_info = info.get("final_info")
                if final_info is not None and "outcome" in final_info:
                    item["moon_shot_outcome"] = final_info["outcome"][i]
            infos.append(item)
        self.learner_decisions += self.num_envs
        self.env_seconds += time.perf_counter() - t0
        return np.asarray(obs, np.float32), np.asarray(rew, np.float32), dones, infos

    def close(self) -> None:
        self.vec.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self, attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in self._get_indices(indices)]

    def env_is_wrapped(
        self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None
    ) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]

    def rng_state(self) -> dict[str, Any]:
        return {"sub_envs": [r.bit_generator.state for r in self.vec._rngs]}

    def set_rng_state(self, data: dict[str, Any]) -> None:
        self._rng_restore = list(data["sub_envs"])
        self._next_seed = None


def train(cfg: Any, resume: bool = False, progress: bool = True, quiet: bool = False) -> Any:
    """Train Moon Shot solo with PPO or SAC (config from :mod:`training.train`)."""
    import json

    from stable_baselines3 import PPO, SAC
    from stable_baselines3.common.vec_env import VecMonitor

    from training.train import _learn, _Saver, _set_seeds

    if cfg.players != 1:
        raise ValueError(
            "Moon Shot trains solo shots (--players 1); the multi-player game is played "
            "by the solo policy (each turn is one shot: its rules only change the ending)"
        )
    _set_seeds(cfg.seed)
    out = Path(cfg.out)
    venv = MoonShotSoloVecEnv(cfg.n_envs, seed=cfg.seed)
    env = VecMonitor(venv)
    algo = PPO if cfg.algo == "ppo" else SAC
    if resume:
        state = json.loads((out / "state.json").read_text())
        model = algo.load(out / "model.zip", env=env, device="cpu", tensorboard_log=str(out / "tb"))
        saver = _Saver(cfg, model, venv, None)
        saver.checkpoints = list(state.get("checkpoints", []))
        saver.elapsed_before = float(state.get("elapsed_seconds", 0.0))
        saver.restore_rng()
        if isinstance(model, SAC) and (out / "replay.pkl").exists():
            model.load_replay_buffer(out / "replay.pkl")
    else:
        arch = cfg.net_arch()
        common: dict[str, Any] = {
            "learning_rate": cfg.learning_rate,
            "gamma": cfg.gamma,
            "tensorboard_log": str(out / "tb"),
            "seed": cfg.seed,
            "device": "cpu",
            "verbose": 0,
        }
        if algo is PPO:
            model = PPO(
                "MlpPolicy",
                env,
                n_steps=cfg.n_steps,
                batch_size=min(cfg.batch_size, cfg.n_steps * cfg.n_envs),
                n_epochs=cfg.n_epochs,
                ent_coef=cfg.ent_coef,
                gae_lambda=0.95,
                policy_kwargs={"net_arch": {"pi": arch, "vf": arch}},
                **common,
            )
        else:
            model = SAC(
                "MlpPolicy",
                env,
                batch_size=cfg.batch_size,
                learning_starts=min(1000, cfg.steps // 4),
                policy_kwargs={"net_arch": arch},
                **common,
            )
        saver = _Saver(cfg, model, venv, None)
    if not quiet:
        print(
            f"arena train moon_shot: solo shots, {cfg.algo.upper()}, {cfg.n_envs} episodes/batch; "
            f"run dir {out}"
        )
    return _learn(model, saver, cfg, progress)
