"""Moon Shot training: PPO (or SAC) on solo shots, or against opponents in the turn game.

Solo (``--players 1``, the default): :class:`MoonShotSoloVecEnv` adapts ``envs.moon_shot.vector.MoonShotSoloVectorEnv`` (every
step simulates all sub-envs' shots in one physics call) to SB3's ``VecEnv`` contract: the
Gymnasium env runs with ``SAME_STEP`` autoreset, whose ``final_obs`` becomes
``infos[i]["terminal_observation"]``; ``TimeLimit.truncated`` is ``truncated and not
terminated`` (solo episodes end by termination, MS-21). ``seed(s)`` seeds sub-env ``i``
with ``s + i`` at the next ``reset()``, as SB3's ``DummyVecEnv`` does.

Against opponents (``--players 2..8``): :class:`MoonShotVersusVecEnv` holds N turn-based
games (MS-14..MS-17) in one ``GameState``; the learner shoots for its seat in every game
(seat rotating per game), and opponents from the pool (snapshots of the learner, random,
the calibrated ``aim`` agent) shoot inside ``step_wait`` until the learner's next turn.
Each round of shots is ONE batched physics call (``run_shots``), noise from each game's
key exactly as the AEC env (``shot_seeds(key, turn)``). The learner's reward is its final
MS-17 reward (+1 / -1 / 0) when the game ends, whoever's shot ended it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnvStepReturn

from training.vec_env import BatchVecEnv


class MoonShotSoloVecEnv(BatchVecEnv):
    """SB3 view of ``num_envs`` solo Moon Shot episodes (MS-21) stepped in one batch."""

    def __init__(self, num_envs: int, seed: int = 0, **solo_kwargs: Any) -> None:
        from gymnasium.vector import AutoresetMode

        from envs.core.threads import safe_threads

        safe_threads(type(self).__name__)  # torch beside the Numba physics: one torch thread

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

    def rng_state(self) -> dict[str, Any]:
        return {"sub_envs": [r.bit_generator.state for r in self.vec._rngs]}

    def set_rng_state(self, data: dict[str, Any]) -> None:
        self._rng_restore = list(data["sub_envs"])
        self._next_seed = None


class MoonShotVersusVecEnv(BatchVecEnv):
    """N turn-based Moon Shot games: learner in one seat, pool opponents in the others."""

    def __init__(self, players: int, num_envs: int, pool: Any, seed: int = 0) -> None:
        from envs.core.threads import safe_threads
        from envs.moon_shot.batch import MoonShotBatch as MoonShotFacade

        safe_threads(type(self).__name__)  # torch beside the Numba physics: one torch thread
        from envs.moon_shot.env import MoonShotConfig, observation_space

        cfg = MoonShotConfig(num_players=players)
        cfg.check_players()
        self.facade = MoonShotFacade(cfg)
        self.config = cfg
        self.num_players = int(players)
        self.pool = pool
        self.render_mode = None
        self._default_seed = int(seed)
        self.rng = np.random.default_rng(seed)
        super().__init__(
            num_envs, observation_space(cfg), gym.spaces.Box(-1.0, 1.0, (4,), np.float32)
        )
        self.state: Any = None
        self.learner_seat = np.arange(num_envs, dtype=np.int64) % self.num_players
        self.opponent = np.full((num_envs, self.num_players), -1, np.int64)
        self._actions: np.ndarray | None = None
        self.learner_decisions = 0
        self.opponent_decisions = 0
        self.env_seconds = 0.0

    def _play_opponents(self, ended: np.ndarray) -> None:
        """Pool opponents shoot (the facade's turn loop: one physics call a round) until
        the learner is to shoot again or the game is over."""
        from envs.moon_shot.runner import group_actions

        for _ in range(10_000):
            active = ~ended & ~self.state.done & (self.state.seat != self.learner_seat)
            if not active.any():
                break
            idx = np.flatnonzero(active)
            seats = self.state.seat[idx].astype(np.int64)
            sub = self.facade.take(self.state, idx)
            who = self.opponent[idx, seats]
            actions = group_actions(self.facade, sub, seats, who, self.pool.agent, strict=False)
            self.facade.shoot(sub, actions)
            self.facade.put(self.state, idx, sub)
            self.opponent_decisions += len(idx)
        ended |= self.state.done

    def _new_games(self, idx: np.ndarray, rotate: bool) -> None:
        pending = np.asarray(idx, np.int64)
        for _ in range(1000):
            if len(pending) == 0:
                return
            keys = self.rng.integers(0, 2**63, size=len(pending)).astype(np.uint64)
            self.facade.put(self.state, pending, self.facade.new_games(keys))
            if rotate:
                self.learner_seat[pending] = (self.learner_seat[pending] + 1) % self.num_players
            draws = self.pool.sample(len(pending) * self.num_players, self.rng)
            draws = draws.reshape(len(pending), self.num_players)
            draws[np.arange(len(pending)), self.learner_seat[pending]] = -1
            self.opponent[pending] = draws
            ended = np.ones(self.num_envs, bool)
            ended[pending] = False
            self._play_opponents(ended)
            # an opponent's crack or colony before the learner's first shot: not an episode
            pending = pending[self.state.done[pending]]
            rotate = False
        raise RuntimeError("Moon Shot games keep ending before the learner's first shot")

    def _obs(self) -> np.ndarray:
        return np.asarray(self.facade.observe(self.state, self.learner_seat), np.float32)

    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        if seed is not None:
            self._default_seed = int(seed)
            self.rng = np.random.default_rng(self._default_seed)
            for pid, entry in enumerate(self.pool.entries):
                entry.agent.reset(
                    seed=int(np.random.SeedSequence([seed, pid]).generate_state(1)[0])
                )
        self.state = self.facade.new_games(np.zeros(self.num_envs, np.uint64))
        self.learner_seat = np.arange(self.num_envs, dtype=np.int64) % self.num_players
        self._new_games(np.arange(self.num_envs), rotate=False)
        self._reset_seeds()
        self._reset_options()
        return self._obs()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, np.float64).reshape(self.num_envs, 4)

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() called without step_async()")
        t0 = time.perf_counter()
        actions, self._actions = self._actions, None
        everyone = np.arange(self.num_envs)
        try:  # the facade's step: every game's learner shoots (NaN or infinity: ValueError)
            self.facade.step(self.state, np.clip(actions, -1.0, 1.0))
        except ValueError as exc:
            raise ValueError(f"the learner's actions: {exc}") from None
        self.learner_decisions += self.num_envs
        ended = self.state.done.copy()
        self._play_opponents(ended)
        reward = np.where(ended, self.state.rewards[everyone, self.learner_seat], 0.0)
        infos: list[dict[str, Any]] = [{"TimeLimit.truncated": False} for _ in everyone]
        finished = np.flatnonzero(ended)
        if len(finished):
            terminal = self._obs()
            for i in finished:
                infos[i]["terminal_observation"] = terminal[i]
                infos[i]["outcome"] = float(reward[i])
                infos[i]["opponents"] = [self.pool.name(int(p)) for p in self.opponent[i] if p >= 0]
            self._new_games(finished, rotate=True)
        obs = self._obs()
        self.env_seconds += time.perf_counter() - t0
        return obs, reward.astype(np.float32), ended, infos

    def close(self) -> None:
        self.state = None

    def rng_state(self) -> dict[str, Any]:
        return {"bit_generator": self.rng.bit_generator.state, "seed": self._default_seed}

    def set_rng_state(self, data: dict[str, Any]) -> None:
        self._default_seed = int(data["seed"])
        self.rng.bit_generator.state = data["bit_generator"]


def setup(cfg: Any) -> Any:
    """The training setup of Moon Shot: PPO or SAC, solo or against pool opponents."""
    from stable_baselines3 import PPO, SAC

    from training.setup import TrainerSetup, build_pool

    pool = None
    venv: Any
    if cfg.players == 1:
        venv = MoonShotSoloVecEnv(cfg.n_envs, seed=cfg.seed)
    else:
        pool = build_pool(cfg, "moon_shot")
        venv = MoonShotVersusVecEnv(cfg.players, cfg.n_envs, pool, seed=cfg.seed)
    algo = PPO if cfg.algo == "ppo" else SAC

    def build(env: Any) -> Any:
        arch = cfg.net_arch()
        common: dict[str, Any] = {
            "learning_rate": cfg.learning_rate,
            "gamma": cfg.gamma,
            "tensorboard_log": str(Path(cfg.out) / "tb"),
            "seed": cfg.seed,
            "device": "cpu",
            "verbose": 0,
        }
        if algo is PPO:
            return PPO(
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
        return SAC(
            "MlpPolicy",
            env,
            batch_size=cfg.batch_size,
            learning_starts=min(1000, cfg.steps // 4),
            policy_kwargs={"net_arch": arch},
            **common,
        )

    def after_load(model: Any, out: Path) -> None:
        import json

        from training.run import unit_files

        # the replay buffer of the committed checkpoint unit (state.json names it)
        replay = unit_files(out, json.loads((out / "state.json").read_text()))["replay"]
        if isinstance(model, SAC) and replay is not None and replay.exists():
            model.load_replay_buffer(replay)

    what = "solo shots" if pool is None else f"{cfg.players} players vs {pool.describe()}"
    return TrainerSetup(
        algo=algo,
        venv=venv,
        pool=pool,
        build=build,
        describe=f"{what}, {cfg.algo.upper()}, {cfg.n_envs} games/batch",
        after_load=after_load,
    )


def train(cfg: Any, resume: bool = False, progress: bool = True, quiet: bool = False) -> Any:
    """Deprecated: ``training.run.train`` runs every game (Moon Shot through :func:`setup`)."""
    from training.run import train as run_train

    return run_train(cfg, resume=resume, progress=progress, quiet=quiet)


def solo_returns(
    agent: Any, episodes: int = 1000, seed: int = 12345, n_envs: int = 100
) -> np.ndarray:
    """Solo returns (MS-21) of ``agent`` over ``episodes`` episodes (batched physics)."""
    env = MoonShotSoloVecEnv(n_envs, seed=seed)
    obs: Any = env.reset()
    ret = np.zeros(n_envs)
    out: list[float] = []
    while len(out) < episodes:
        obs, rew, done, _ = env.step(agent.act(obs, None))
        ret += rew
        for i in np.flatnonzero(done):
            out.append(float(ret[i]))
            ret[i] = 0.0
    return np.asarray(out[:episodes])


def evaluate(agent: Any, args: Any) -> int | None:
    """``training.evaluate`` for Moon Shot: a solo policy's mean return against random
    shots; a policy trained in the turn game (obs 2P + 10) plays there (returns None)."""
    if agent.obs_shape != (8,):
        args.players = (agent.obs_shape[0] - 10) // 2
        return None
    from agents.random_agent import RandomAgent

    t0 = time.perf_counter()
    mine = solo_returns(agent, args.games, args.seed)
    rand = solo_returns(RandomAgent(seed=args.seed), args.games, args.seed)
    print(
        f"moon_shot solo, {args.games} episodes each: policy mean return {mine.mean():.2f} "
        f"(± {mine.std(ddof=1) / np.sqrt(len(mine)):.2f}), random {rand.mean():.2f} "
        f"(± {rand.std(ddof=1) / np.sqrt(len(rand)):.2f}); ratio "
        f"{mine.mean() / rand.mean():.1f}x  ({time.perf_counter() - t0:.0f} s)"
    )
    return 0
