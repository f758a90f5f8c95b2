"""Training setup of the turn-based games: MaskablePPO on a batched self-play VecEnv.

:func:`setup` is the ``trainer`` of every turn-based registry entry (and of a
``module:Class`` facade): sb3-contrib's MaskablePPO on a
:class:`training.vec_env.SelfPlayVecEnv` (many games per batched kernel call, opponents
from a pool of the learner's frozen snapshots and baseline agents, acting inside the env
step). An observation variant (``--obs``, a game's entry lists them) appends per-action
feature flags to the planes; ``agents.networks.ActionFeaturePolicy`` reads them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from training.config import PLANES, TrainConfig
from training.setup import TrainerSetup, build_pool


def feature_flags(variant: Any, plain: Any) -> int:
    """Per-action flags a variant facade appends to the plain facade's planes."""
    extra = int(np.prod(variant.obs_shape)) - int(np.prod(plain.obs_shape))
    if extra <= 0 or extra % int(variant.num_actions):
        raise ValueError(
            f"observation {variant.obs_shape} is not the planes {plain.obs_shape} plus "
            f"flags per action ({variant.num_actions} actions)"
        )
    return extra // int(variant.num_actions)


def setup(cfg: TrainConfig) -> TrainerSetup:
    """Facade, pool, VecEnv and MaskablePPO model factory for a turn-based game."""
    from sb3_contrib import MaskablePPO

    from training.games import make_batch_game
    from training.vec_env import SelfPlayVecEnv

    game = make_batch_game(cfg.game, cfg.players, obs=cfg.obs)
    pool = build_pool(cfg, cfg.game)
    venv = SelfPlayVecEnv(game, cfg.n_envs, pool, seed=cfg.seed)

    def build(env: Any) -> Any:
        arch = cfg.net_arch()
        policy: Any = "MlpPolicy"
        policy_kwargs: dict[str, Any] = {"net_arch": {"pi": arch, "vf": arch}}
        if cfg.obs != PLANES:  # observations end in per-action feature flags
            from agents.networks import ActionFeaturePolicy

            policy = ActionFeaturePolicy
            policy_kwargs["n_flags"] = feature_flags(game, make_batch_game(cfg.game, cfg.players))
        return MaskablePPO(
            policy,
            env,
            learning_rate=cfg.learning_rate,
            n_steps=cfg.n_steps,
            batch_size=min(cfg.batch_size, cfg.n_steps * cfg.n_envs),
            n_epochs=cfg.n_epochs,
            gamma=cfg.gamma,
            gae_lambda=0.95,
            ent_coef=cfg.ent_coef,
            clip_range=0.2,
            policy_kwargs=policy_kwargs,
            tensorboard_log=str(cfg.out) + "/tb",
            seed=cfg.seed,
            device="cpu",
            verbose=0,
        )

    describe = f"{cfg.players} players, {cfg.n_envs} games/batch, opponents: {pool.describe()}"
    return TrainerSetup(algo=MaskablePPO, venv=venv, pool=pool, build=build, describe=describe)
