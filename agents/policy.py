"""A trained policy as an agent: loads an ``arena train`` checkpoint (SB3 zip), acts in batch.

Turn-based games: the masked distribution of a MaskablePPO policy; the mask is applied at
inference too (a dropped mask is how tic-tac-toe agents trained in PettingZoo's tutorial
came to play illegal moves), so ``act`` never returns an illegal action: illegal actions
get probability 0 before the argmax or the draw. Continuous actions: the Gaussian policy
of PPO (mean when deterministic) or SAC's squashed actor, clipped to [-1, 1].

A policy trained on an observation variant (``arena train --obs``, e.g. lookahead flags;
a game's registry entry lists its variants) is recognised on load by its input shape; it
then asks for the ``ActContext`` and computes those observations itself from the game
state, so ladders, evaluation and play hand it the usual facade.

Stochastic play draws from the agent's own ``numpy`` generator (``reset(seed)``), not
torch's global RNG, so a seeded ladder pairing is reproducible.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.base import ActContext, Agent


def _algorithm_for(path: Path) -> Any:
    """The SB3 algorithm class that saved ``path`` (from the zip's stored policy class)."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3 import PPO, SAC
    from stable_baselines3.common.save_util import load_from_zip_file
    from stable_baselines3.sac.policies import SACPolicy

    data, _, _ = load_from_zip_file(path, device="cpu", load_data=True)
    policy_class = (data or {}).get("policy_class")
    if isinstance(policy_class, type):
        if issubclass(policy_class, MaskableActorCriticPolicy):
            return MaskablePPO
        if issubclass(policy_class, SACPolicy):
            return SAC
    return PPO


def resolve_checkpoint(path: str | Path) -> Path:
    """A model zip from a zip path or a run directory (``DIR/model.zip``)."""
    p = Path(path)
    if p.is_dir():
        p = p / "model.zip"
    if not p.exists() and p.with_suffix(".zip").exists():
        p = p.with_suffix(".zip")
    if not p.is_file():
        raise FileNotFoundError(f"no trained model at {path} (expected a .zip or a run directory)")
    return p


class PolicyAgent(Agent):
    """Acts with a trained SB3 policy on a batch; masked, optionally deterministic."""

    def __init__(
        self,
        policy: Any,
        deterministic: bool = True,
        seed: int | None = 0,
        name: str = "policy",
        model: Any = None,
    ) -> None:
        from envs.core.threads import safe_threads

        safe_threads("PolicyAgent")  # torch beside the Numba kernels: one torch thread
        self.model = model  # the SB3 algorithm when loaded from a zip (None for snapshots)
        self.policy = policy
        self.policy.set_training_mode(False)
        self.deterministic = deterministic
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.obs_shape = tuple(self.policy.observation_space.shape)
        self.discrete = hasattr(self.policy.action_space, "n")
        # a facade whose ``observe`` makes this policy's input from an ActContext's state
        # (when the caller's observations are another shape); None: use the obs given
        self.observer: Any = None
        self.needs_context = False

    def observe_with(self, facade: Any) -> None:
        """Make observations with ``facade.observe`` from each call's ``ActContext``."""
        if tuple(facade.obs_shape) != self.obs_shape:
            raise ValueError(
                f"{type(facade).__name__} observes {tuple(facade.obs_shape)}, "
                f"the policy reads {self.obs_shape}"
            )
        self.observer = facade
        self.needs_context = True

    @classmethod
    def load(
        cls,
        path: str | Path,
        game: str | None = None,
        seed: int | None = 0,
        deterministic: bool = True,
    ) -> PolicyAgent:
        """Load ``path`` (zip or run directory) saved by ``arena train``.

        ``game`` is only used to check the run's game when the directory's state.json
        says which one it was trained on.
        """
        zip_path = resolve_checkpoint(path)
        state_file = zip_path.parent / "state.json"
        if game is not None and state_file.exists():
            import json

            trained = json.loads(state_file.read_text()).get("config", {}).get("game")
            if trained and trained != game:
                raise ValueError(f"{zip_path} was trained on {trained}, not {game}")
        algo = _algorithm_for(zip_path)
        custom = {"learning_rate": 0.0, "lr_schedule": lambda _: 0.0, "clip_range": lambda _: 0.2}
        model = algo.load(zip_path, device="cpu", custom_objects=custom)
        agent = cls(model.policy, deterministic, seed=seed, name=f"policy:{zip_path}", model=model)
        observer = _variant_observer(game, agent.obs_shape)
        if observer is not None:  # trained on an observation variant (--obs)
            agent.observe_with(observer)
        return agent

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(
        self, obs: np.ndarray, mask: np.ndarray | None, context: ActContext | None = None
    ) -> np.ndarray:
        import torch as th

        obs = np.asarray(obs, np.float32)
        if obs.shape[1:] != self.obs_shape and self.observer is not None:
            if context is None:
                raise ValueError(
                    f"this policy reads {type(self.observer).__name__} observations: "
                    "pass an ActContext (game state and seats) to act()"
                )
            obs = np.asarray(self.observer.observe(context.state, context.seats), np.float32)
        if obs.shape[1:] != self.obs_shape:
            raise ValueError(
                f"observation shape {obs.shape[1:]} does not match the policy's {self.obs_shape} "
                "(trained on another game or configuration?)"
            )
        obs_t = th.as_tensor(obs)
        if not self.discrete:
            return self._act_continuous(obs, obs_t)
        if mask is None:
            raise ValueError("a board-game policy needs the legal-action mask")
        mask = np.asarray(mask, bool)
        if mask.shape != (len(obs), self.policy.action_space.n):
            raise ValueError(
                f"mask shape {mask.shape} != (batch, {self.policy.action_space.n} actions)"
            )
        if not mask.any(axis=1).all():
            bad = np.flatnonzero(~mask.any(axis=1))[:5].tolist()
            raise ValueError(f"no legal action in game(s) {bad}")
        with th.no_grad():
            dist = self.policy.get_distribution(obs_t, action_masks=mask)
            probs = dist.distribution.probs.cpu().numpy().astype(np.float64)
        probs[~mask] = 0.0  # the mask again, whatever the policy did
        if self.deterministic:
            scores = np.where(mask, probs, -1.0)
            return scores.argmax(axis=1).astype(np.int64)
        probs /= probs.sum(axis=1, keepdims=True)
        u = self.rng.random(len(obs))[:, None]
        actions = (probs.cumsum(axis=1) < u).sum(axis=1)
        actions = np.minimum(actions, probs.shape[1] - 1)
        # a draw landing on a zero-probability column (float rounding): take the best legal
        wrong = ~mask[np.arange(len(obs)), actions]
        if wrong.any():
            actions[wrong] = np.where(mask[wrong], probs[wrong], -1.0).argmax(axis=1)
        return actions.astype(np.int64)

    def _act_continuous(self, obs: np.ndarray, obs_t: Any) -> np.ndarray:
        import torch as th

        with th.no_grad():
            if hasattr(self.policy, "actor"):  # SAC: squashed Gaussian actor
                actions, _ = self.policy.predict(obs, deterministic=self.deterministic)
                return np.clip(np.asarray(actions, np.float32), -1.0, 1.0)
            dist = self.policy.get_distribution(obs_t)
            mean = dist.distribution.mean.cpu().numpy()
            if self.deterministic:
                actions = mean
            else:
                std = dist.distribution.stddev.cpu().numpy()
                actions = mean + std * self.rng.standard_normal(mean.shape)
        return np.clip(actions, -1.0, 1.0).astype(np.float32)


def _variant_observer(game: str | None, obs_shape: tuple[int, ...]) -> Any:
    """The observation-variant facade (a registry entry's ``observations``) whose
    observations have ``obs_shape``, for ``game`` or, when None, any registered game."""
    from envs import registry

    specs = list(registry.specs()) if game is None else [registry.get(game)]
    for spec in specs:
        for ref in spec.observations.values():
            cls = registry.load(ref)
            if tuple(getattr(cls, "obs_shape", ())) == tuple(obs_shape):
                return cls()
    return None
