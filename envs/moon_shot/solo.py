"""``MoonShotSolo-v0``: one player practising shots (MS-21), a Gymnasium single-agent env.

| Import | ``gymnasium.make("MoonShotSolo-v0")`` after ``import envs.moon_shot`` |
|---|---|
| Actions | ``Box(-1, 1, (4,), float32)``: aim, speed, strike height, spin offset (MS-5) |
| Observations | ``Box((8,), float32)``, see the table below |
| Reward | the shot's points (MS-13: 2 controlled, 1 crash landing, 0 otherwise); a crack gives ``-(points so far)`` (MS-21) |
| Termination | colony, crack, or ``max_shots`` shots taken (MS-21; the shots left are observed, so this is a termination) |
| Truncation | never (outside time limits may add one) |
| Render modes | ``ansi``, ``rgb_array`` (fixed ``256x480x3`` frame, the last shot's trajectories), ``human`` (pygame replay) |

Observation:

| index | meaning |
|---|---|
| 0 | points so far |
| 1 | shots taken |
| 2 | shots left (``max_shots`` - shots taken) |
| 3 | tube distance in metres (MS-3) |
| 4 | close tube variant (0/1) |
| 5 | full landing variant (0/1) |
| 6 | full colony variant (0/1) |
| 7 | noise scale (MS-6) |

Arguments: ``noise`` (1.0; 0 makes shots deterministic), ``close_tube``, ``full_landing``,
``full_colony`` (MS-20), ``tube_distance`` (None: the variant's minimum), ``max_shots`` (20),
``params`` (a :class:`~envs.moon_shot.params.PhysicsParams`), ``render_mode``.

Seeding: ``reset(seed=s)`` seeds the episode keys; the noise of shot ``t`` depends only on
the episode key and ``t``, so :class:`~envs.moon_shot.vector.MoonShotSoloVectorEnv` with
``reset(seed=s)`` plays sub-env ``i`` exactly like this env reset with ``seed=s + i``.

Version history: v0 — first release.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from envs.moon_shot.batch import ACTION_SIZE, MoonShotSoloBatch, Shots
from envs.moon_shot.batch import SOLO_OBS_SIZE as SOLO_OBS_SIZE  # re-exported (old home)
from envs.moon_shot.batch import check_shots as check_shots  # re-exported (old home)
from envs.moon_shot.config import SOLO_ORDER, positional_rules
from envs.moon_shot.state import SoloState, new_solo

#: Solo endings by ``SoloState.outcome`` code (the round limit is ``max_shots`` here).
SOLO_OUTCOME_NAMES = ("ongoing", "colony", "crack", "max shots", "target score")

#: The static configuration of solo practice is its batch facade (the old name stays).
SoloConfig = MoonShotSoloBatch


def solo_info(shots: Shots, m: int, state: SoloState) -> dict[str, Any]:
    """The single env's info dict for shot ``m`` (plus the ending when over)."""
    info = shots.info(m)
    if state.done[m]:
        info["outcome"] = SOLO_OUTCOME_NAMES[int(state.outcome[m])]
    return info


def new_key(rng: np.random.Generator) -> np.ndarray:
    """A fresh per-episode uint64 key drawn from an env's own generator."""
    return rng.integers(0, np.iinfo(np.uint64).max, size=1, dtype=np.uint64, endpoint=True)


class MoonShotSoloEnv(gym.Env):
    """Solo Moon Shot (MS-21); see the module docstring for the reference table."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 30}

    def __init__(self, *args: Any, render_mode: str | None = None, **rules: Any) -> None:
        # rules: see above (max_shots default 20); positional rules are deprecated
        rules = positional_rules("MoonShotSoloEnv", args, SOLO_ORDER, rules)
        self.config = MoonShotSoloBatch(**rules)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, "
                f"got {render_mode!r}"
            )
        self.render_mode = render_mode
        self.observation_space = self.config.observation_space()
        self.action_space = spaces.Box(-1.0, 1.0, (ACTION_SIZE,), dtype=np.float32)
        self.state = new_solo(1)
        self._started = False  # step() before reset() is an error, not a game on key 0
        self.last_shot: Shots | None = None
        self._window: Any = None
        self._shots_fired = 0  # replay key for human rendering

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self.state = new_solo(1, new_key(self.np_random))
        self._started = True
        self.last_shot = None
        return self.config.observe(self.state)[0], {}

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if not self._started:
            raise RuntimeError("step() before reset(): call reset() first")
        if self.state.done[0]:
            raise ValueError("step() called after the episode ended: call reset() first")
        a = check_shots(action, 1)
        reward, shots = self.config.shoot(self.state, a, record=self.render_mode is not None)
        self.last_shot = shots
        self._shots_fired += 1
        if self.render_mode == "human":
            self.render()
        return (
            self.config.observe(self.state)[0],
            float(reward[0]),
            bool(self.state.done[0]),
            False,
            solo_info(shots, 0, self.state),
        )

    def render(self) -> Any:
        from envs.moon_shot import render as ms_render

        cfg = self.config.game
        shots = self.last_shot
        if self.render_mode is None:
            return None
        if self.render_mode == "ansi":
            st = self.state
            text = (
                f"Moon Shot solo: {int(st.points[0])} points after {int(st.shots[0])}/"
                f"{self.config.max_shots} shots, tube at {cfg.distance * 1000:.0f} mm"
            )
            if shots is not None:
                text += "\nlast shot: " + ms_render.shot_line(shots, 0)
            if st.done[0]:
                text += f"\nepisode over ({SOLO_OUTCOME_NAMES[int(st.outcome[0])]})"
            return text
        if self.render_mode == "rgb_array":
            return ms_render.rgb_shot(cfg, shots, 0)
        if self._window is None:
            self._window = ms_render.ShotReplay("Moon Shot solo", self.metadata["render_fps"])
        key = self._shots_fired
        if self._window.seen(key):
            self._window.play([ms_render.rgb_shot(cfg, shots, 0)], key)
        else:
            self._window.play(ms_render.replay_shot(cfg, shots, 0), key)
        return None

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None
