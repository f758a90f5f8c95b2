"""``MoonShotSolo-v0`` as a native Gymnasium ``VectorEnv``: N solo episodes, one physics call.

``gymnasium.make_vec("MoonShotSolo-v0", num_envs=N, vectorization_mode="vector_entry_point")``
or ``MoonShotSoloVectorEnv(N, ...)``. Every ``step`` simulates the shots of all running
sub-envs in ONE batched physics call (no loop over sub-envs), then scores them with the
vectorised MS-21 rules.

Autoreset (Gymnasium 1.x, ``metadata["autoreset_mode"]``):

* ``NEXT_STEP`` (default): a sub-env that ended in step t is reset in step t + 1; its action
  there is ignored, it returns the first observation of the new episode, reward 0 and
  ``terminated = truncated = False``.
* ``SAME_STEP``: a sub-env that ends is reset at once; the returned observation is the new
  episode's first one and ``infos["final_obs"]`` / ``infos["final_info"]`` hold the last ones.

Seeding follows ``SyncVectorEnv``: ``reset(seed=s)`` seeds sub-env ``i`` with ``s + i`` (a
list seeds each one), so sub-env ``i`` plays exactly like ``MoonShotSoloEnv`` reset with
that seed and given the same actions (later episodes draw their keys from the sub-env's own
generator, as the single env does on ``reset()`` without a seed).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from envs.moon_shot.batch import ACTION_SIZE, MoonShotSoloBatch, Shots
from envs.moon_shot.config import SOLO_ORDER, positional_rules
from envs.moon_shot.scoring import KIND_NAMES
from envs.moon_shot.solo import SOLO_OUTCOME_NAMES, check_shots, new_key
from envs.moon_shot.state import SoloState, new_solo


class MoonShotSoloVectorEnv(VectorEnv):
    """N solo Moon Shot episodes (MS-21) stepped together; see the module docstring."""

    metadata: dict[str, Any] = {
        "render_modes": ["rgb_array"],
        "render_fps": 30,
        "autoreset_mode": AutoresetMode.NEXT_STEP,
    }

    def __init__(
        self,
        num_envs: int = 1,
        *args: Any,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
        **rules: Any,
    ) -> None:
        if int(num_envs) != num_envs or num_envs < 1:
            raise ValueError(f"num_envs must be an integer >= 1, got {num_envs}")
        mode = AutoresetMode(autoreset_mode)
        if mode == AutoresetMode.DISABLED:
            raise ValueError("autoreset_mode DISABLED is not supported: use NEXT_STEP or SAME_STEP")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be 'rgb_array' or None, got {render_mode!r}")
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        self.autoreset_mode = mode
        self.render_mode = render_mode
        self.num_envs = int(num_envs)
        rules = positional_rules("MoonShotSoloVectorEnv", args, SOLO_ORDER, rules)
        self.config = MoonShotSoloBatch(**rules)  # as MoonShotSoloEnv's (max_shots default 20)
        self.single_observation_space = self.config.observation_space()
        self.single_action_space = spaces.Box(-1.0, 1.0, (ACTION_SIZE,), dtype=np.float32)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._rngs = [np.random.default_rng() for _ in range(self.num_envs)]
        self.state = new_solo(self.num_envs)
        self._autoreset = np.zeros(self.num_envs, dtype=bool)
        self._started = False  # step() before reset() is an error, not games on key 0
        self._last_shots: Any = None
        self._last_index = np.zeros(self.num_envs, dtype=np.int64) - 1

    def _new_keys(self, idx: np.ndarray) -> np.ndarray:
        return (
            np.concatenate([new_key(self._rngs[i]) for i in idx])
            if len(idx)
            else np.zeros(0, np.uint64)
        )

    def _reset_envs(self, idx: np.ndarray) -> None:
        self.config.put(self.state, idx, self.config.new_games(self._new_keys(idx)))
        self._last_index[idx] = -1

    def reset(
        self,
        *,
        seed: int | list[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:
        if seed is not None:
            if isinstance(seed, (bool, np.bool_)):
                raise ValueError(f"seed must be an integer or a list of them, got {seed!r}")
            seeds = (
                [int(seed) + i for i in range(self.num_envs)]
                if isinstance(seed, (int, np.integer))  # numpy integers too (np.int64(3))
                else [None if s is None else int(s) for s in seed]
            )
            if len(seeds) != self.num_envs:
                raise ValueError(f"need {self.num_envs} seeds, got {len(seeds)}")
            for i, s in enumerate(seeds):
                if s is not None:
                    self._rngs[i], _ = seeding.np_random(s)
            self._np_random, self._np_random_seed = seeding.np_random(seeds[0])
        self.state = new_solo(self.num_envs)
        self._reset_envs(np.arange(self.num_envs))
        self._autoreset[:] = False
        self._started = True
        return self.config.observe(self.state), {}

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if not self._started:
            raise RuntimeError("step() before reset(): call reset() first")
        n = self.num_envs
        a = check_shots(actions, n)
        rewards = np.zeros(n, dtype=np.float64)
        terms = np.zeros(n, dtype=bool)
        truncs = np.zeros(n, dtype=bool)
        infos: dict[str, Any] = {}
        shoot = np.arange(n)
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            resetting = np.flatnonzero(self._autoreset)
            self._reset_envs(resetting)
            shoot = np.flatnonzero(~self._autoreset)
        if len(shoot):
            sub_state = self.config.take(self.state, shoot)
            r, shots = self.config.shoot(sub_state, a[shoot], record=self.render_mode is not None)
            self.config.put(self.state, shoot, sub_state)
            rewards[shoot] = r
            terms[shoot] = sub_state.done
            self._last_shots = shots
            self._last_index[:] = -1
            self._last_index[shoot] = np.arange(len(shoot))
            infos = self._shot_infos(shots, shoot, np.arange(len(shoot)), sub_state)
        obs = self.config.observe(self.state)
        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            ended = np.flatnonzero(terms)
            if len(ended):
                final_obs = np.full(n, None, dtype=object)
                for i in ended:
                    final_obs[i] = obs[i].copy()
                mask = np.zeros(n, dtype=bool)
                mask[ended] = True
                infos["final_obs"], infos["_final_obs"] = final_obs, mask
                infos["final_info"] = self._shot_infos(shots, ended, ended, sub_state)
                infos["_final_info"] = mask.copy()
                self._reset_envs(ended)
                obs = self.config.observe(self.state)
        self._autoreset = terms | truncs
        return obs, rewards, terms, truncs, infos

    def _shot_infos(
        self, shots: Shots, rows: np.ndarray, js: np.ndarray, state: SoloState
    ) -> dict[str, Any]:
        """Vector infos (Gymnasium layout: ``key`` array + ``_key`` mask) of shots ``js`` of
        ``shots`` for sub-envs ``rows``; the same keys as the single env's info dict."""
        n = self.num_envs
        mask = np.zeros(n, dtype=bool)
        mask[rows] = True
        infos: dict[str, Any] = {}

        def put(key: str, values: np.ndarray, dtype: Any, where: np.ndarray = rows) -> None:
            arr = np.zeros((n, *values.shape[1:]), dtype=dtype)
            arr[where] = values
            m = np.zeros(n, dtype=bool)
            m[where] = True
            infos[key], infos["_" + key] = arr, m

        put("poses", shots.poses[js], np.float64)
        put("toppled", shots.toppled[js], bool)
        put("in_tube", shots.in_tube[js], bool)
        put("fully_in_tube", shots.fully_in_tube[js], bool)
        put("points", shots.score.points[js], np.int64)
        put("kind", np.array([KIND_NAMES[k] for k in shots.score.kind[js]], dtype=object), object)
        done = state.done[js]
        if done.any():
            names = [SOLO_OUTCOME_NAMES[o] for o in state.outcome[js][done]]
            put("outcome", np.array(names, dtype=object), object, rows[done])
        return infos

    def render(self) -> tuple[np.ndarray, ...] | None:
        """One fixed-size frame per sub-env showing its last shot (``rgb_array``)."""
        from envs.moon_shot import render as ms_render

        if self.render_mode is None:
            return None
        cfg = self.config.game
        return tuple(
            ms_render.rgb_shot(cfg, self._last_shots if m >= 0 else None, max(m, 0))
            for m in self._last_index.tolist()
        )
