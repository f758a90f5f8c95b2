"""Moon Shot PettingZoo environments: the turn-based AEC env and the realtime Parallel env.

The reference page (spaces, rewards, variants, version history) is the docstring of
:mod:`envs.moon_shot_v0`; the rules are docs/moon_shot.md. Both envs are thin adapters
over a batch of one game of :class:`~envs.moon_shot.batch.MoonShotBatch`, which holds the
configuration, the shot execution, the turn loop, scoring and the observation; the names
this module used to define (``MoonShotConfig``, ``run_shots``, ``observe``, ...) are
re-exported from there.

Rendering lives in :mod:`envs.moon_shot.render` (given config, state and shots); pygame is
only imported for ``human``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.wrappers.base import BaseWrapper

from envs.moon_shot.batch import (
    ACTION_SIZE,
    OBS_EXTRA,
    MoonShotBatch,
    MoonShotConfig,
    Shots,
    check_actions,
    observation_layout,
    observation_space,
    observe,
    run_shots,
)
from envs.moon_shot.config import TURN_ORDER, positional_rules
from envs.moon_shot.params import PhysicsParams
from envs.moon_shot.solo import check_shots
from envs.moon_shot.state import OUTCOME_NAMES

__all__ = [
    "ACTION_SIZE",
    "OBS_EXTRA",
    "MoonShotConfig",
    "MoonShotEnv",
    "MoonShotParallelEnv",
    "Shots",
    "check_actions",
    "make_env",
    "observation_layout",
    "observation_space",
    "observe",
    "run_shots",
]


def _seed_key(rng: np.random.Generator) -> np.ndarray:
    return rng.integers(0, np.iinfo(np.uint64).max, size=1, dtype=np.uint64, endpoint=True)


class _SharedSetup:
    """What the turn (AEC) and the realtime (Parallel) envs share: config, names, spaces."""

    metadata: dict[str, Any]

    def _setup(self, render_mode: str | None, rules: dict[str, Any]) -> None:
        """``rules``: the fields of :class:`MoonShotConfig` (the reference page lists them)."""
        if rules.get("params") is None:
            rules["params"] = PhysicsParams()
        self.config = MoonShotConfig(**rules)
        self.config.check_players()
        self.game = MoonShotBatch(self.config)
        modes = self.metadata["render_modes"]
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"render_mode must be one of {modes} or None, got {render_mode!r}")
        self.render_mode = render_mode
        P = self.config.num_players
        self.possible_agents = [f"player_{i}" for i in range(P)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = observation_space(self.config)
        act_space = spaces.Box(-1.0, 1.0, (ACTION_SIZE,), dtype=np.float32)
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.state_space = obs_space  # state(): the game seen from seat 0 (absolute order)
        self.action_spaces = dict.fromkeys(self.possible_agents, act_space)
        self.agents: list[str] = []
        self.game_state = self.game.new_games(np.zeros(1, np.uint64))
        self.last_shot: Shots | None = None
        self._rng = np.random.default_rng()
        self._window: Any = None
        self._shots_fired = 0  # replay key for human rendering
        self._started = False  # step() / observe() before reset() are errors

    def observation_space(self, agent: str) -> spaces.Box:
        return self.observation_spaces[agent]

    def state(self) -> np.ndarray:
        """PettingZoo's global state: the observation of seat 0 (scores and recency in seat
        order, rounds, seat to shoot, variant), in ``state_space``. The batch state itself
        (keys, scores, history) is the attribute ``game_state``."""
        if not self._started:
            raise RuntimeError("state() before reset(): call reset() first")
        return self.game.observe(self.game_state, np.array([0]))[0]

    def action_space(self, agent: str) -> spaces.Box:
        return self.action_spaces[agent]

    def _draw(
        self,
        title: str,
        text: Callable[[], str],
        picture: Callable[[MoonShotConfig, Shots | None], np.ndarray],
        frames: Callable[[MoonShotConfig, Shots | None], list[np.ndarray]],
    ) -> Any:
        """The render dispatch of both envs: ``text()`` for ansi, ``picture`` of the last
        shot for rgb_array; for human, a pygame window replays a new shot's ``frames``
        (a shot already seen is shown still)."""
        if self.render_mode is None:
            return None
        if self.render_mode == "ansi":
            return text()
        cfg, shots = self.config, self.last_shot
        if self.render_mode == "rgb_array":
            return picture(cfg, shots)
        from envs.moon_shot.render import ShotReplay

        if self._window is None:
            self._window = ShotReplay(title, self.metadata["render_fps"])
        key = self._shots_fired
        seen = self._window.seen(key)
        self._window.play([picture(cfg, shots)] if seen else frames(cfg, shots), key)
        return None

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None


# ----------------------------------------------------------------------------- AEC env
class MoonShotEnv(_SharedSetup, AECEnv):
    """Turn-based Moon Shot (MS-1..MS-17, MS-19, MS-20) as a PettingZoo AEC env.

    See :mod:`envs.moon_shot_v0` for the reference page. Keyword arguments: the fields of
    :class:`MoonShotConfig` (``num_players``, ``noise``, ``close_tube``, ``full_landing``,
    ``full_colony``, ``target_score``, ``max_rounds``, ``tube_distance``, ``params``) and
    ``render_mode``.
    """

    metadata: dict[str, Any] = {
        "name": "moon_shot_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "is_parallelizable": False,
        "render_fps": 30,
    }

    def __init__(self, *args: Any, render_mode: str | None = None, **rules: Any) -> None:
        super().__init__()
        self._setup(render_mode, positional_rules("MoonShotEnv", args, TURN_ORDER, rules))
        self.last_shooter = -1

    # -- PettingZoo API ------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.game_state = self.game.new_games(_seed_key(self._rng))
        self._started = True
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.last_shot = None
        self.last_shooter = -1
        self.agent_selection = self.possible_agents[0]

    def observe(self, agent: str) -> np.ndarray:
        if not self._started:
            raise RuntimeError("observe() before reset(): call reset() first")
        seat = self.agent_name_mapping[agent]
        return self.game.observe(self.game_state, np.array([seat]))[0]

    def step(self, action: Any) -> None:
        if not self._started:
            raise RuntimeError("step() before reset(): call reset() first")
        if not self.agents:
            raise RuntimeError("step() after the game is over: call reset() for a new game")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must shoot: action None is only for finished agents")
        a = check_shots(action, 1, agent=agent)
        seat = int(self.game_state.seat[0])
        shots = self.game.shoot(self.game_state, a, record=self.render_mode is not None)
        self.last_shot, self.last_shooter = shots, seat
        self._shots_fired += 1
        self._cumulative_rewards[agent] = 0.0
        shot_info = {"shooter": agent, **shots.info(0), "scores": self._score_dict()}
        for a_ in self.agents:
            self.infos[a_] = {"last_shot": shot_info}
        if self.game_state.done[0]:
            for a_ in self.agents:
                self.rewards[a_] = float(self.game_state.rewards[0, self.agent_name_mapping[a_]])
                self.terminations[a_] = True
                self.infos[a_]["outcome"] = OUTCOME_NAMES[int(self.game_state.outcome[0])]
        else:
            for a_ in self.agents:
                self.rewards[a_] = 0.0
        self.agent_selection = self.possible_agents[int(self.game_state.seat[0])]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _score_dict(self) -> dict[str, int]:
        return {a: int(self.game_state.scores[0, i]) for i, a in enumerate(self.possible_agents)}

    # -- rendering -----------------------------------------------------------------------
    def render(self) -> Any:
        from envs.moon_shot import render as ms_render

        return self._draw(
            "Moon Shot",
            lambda: ms_render.ansi_turn(
                self.config, self.game_state, self.last_shot, self.last_shooter
            ),
            ms_render.rgb_turn,
            ms_render.replay_frames_turn,
        )


class _ActionCheckWrapper(BaseWrapper):
    """Rejects NaN/inf, complex and malformed actions with ValueError, then clips
    out-of-range ones to [-1, 1] with a warning (env(), the docs' promise)."""

    def step(self, action: Any) -> None:
        agent = self.agent_selection if self.agents else None
        if (
            agent is not None
            and action is not None
            and not (self.terminations[agent] or self.truncations[agent])
        ):
            clipped = check_shots(action, 1, clip=True, agent=agent)
            _warn_clipped(agent, np.asarray(action, np.float64).reshape(1, -1), clipped)
            action = clipped[0].astype(np.float32)
        super().step(action)


def _warn_clipped(agent: str, given: np.ndarray, clipped: np.ndarray) -> None:
    """Warn (UserWarning) when clipping to [-1, 1] changed an action (MS-5)."""
    if not np.array_equal(given, clipped):
        warnings.warn(
            f"{agent}: action {given.reshape(-1).tolist()} lies outside [-1, 1] (MS-5): "
            f"clipped to {clipped.reshape(-1).tolist()}",
            UserWarning,
            stacklevel=3,
        )


def make_env(**kwargs: Any) -> AECEnv:
    """``env()``: raw env + clip-out-of-bounds (after the finite check) + order enforcing."""
    e: AECEnv = MoonShotEnv(**kwargs)
    e = wrappers.ClipOutOfBoundsWrapper(e)
    e = _ActionCheckWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


# ----------------------------------------------------------------------------- Parallel env
class MoonShotParallelEnv(_SharedSetup, ParallelEnv):
    """Realtime Moon Shot (MS-18) as a PettingZoo Parallel env: everybody shoots at once.

    Each player has their own tree and tube; all shots of a step go through one batched
    physics call and are all scored. Keyword arguments: as :class:`MoonShotEnv`, plus
    ``clip_actions`` (clip out-of-range actions to [-1, 1] with a warning).
    """

    metadata: dict[str, Any] = {
        "name": "moon_shot_realtime_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "is_parallelizable": True,
        "render_fps": 30,
    }

    def __init__(
        self, *args: Any, clip_actions: bool = False, render_mode: str | None = None, **rules: Any
    ) -> None:
        self._setup(render_mode, positional_rules("MoonShotParallelEnv", args, TURN_ORDER, rules))
        self.clip_actions = bool(clip_actions)

    def _observations(self) -> dict[str, np.ndarray]:
        obs = self.game.observe_realtime(self.game_state)[0]  # everybody shoots now (MS-18)
        return {a: obs[self.agent_name_mapping[a]] for a in self.agents}

    def reset(
        self, seed: int | None = None, options: dict | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, dict]]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.game_state = self.game.new_games(_seed_key(self._rng))
        self._started = True
        self.agents = self.possible_agents[:]
        self.last_shot = None
        return self._observations(), {a: {} for a in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        if not self._started:
            raise RuntimeError("step() before reset(): call reset() first")
        if not self.agents:
            raise ValueError("step() called on a finished game: call reset() first")
        missing = [a for a in self.agents if a not in actions]
        extra = [a for a in actions if a not in self.agents]
        if missing or extra:
            raise ValueError(
                f"actions needed for exactly {self.agents}; missing {missing}, unknown {extra}"
            )
        # each agent's action checked on its own, so the message names the agent at fault
        rows = [check_shots(actions[ag], 1, clip=self.clip_actions, agent=ag) for ag in self.agents]
        if self.clip_actions:
            for ag, row in zip(self.agents, rows, strict=True):
                _warn_clipped(ag, np.asarray(actions[ag], np.float64).reshape(1, -1), row)
        a = np.concatenate(rows)
        shots = self.game.shoot_realtime(
            self.game_state, a[None], record=self.render_mode is not None
        )
        self.last_shot = shots
        self._shots_fired += 1
        done = bool(self.game_state.done[0])
        obs = self._observations()
        scores = {
            ag: int(self.game_state.scores[0, i]) for i, ag in enumerate(self.possible_agents)
        }
        infos: dict[str, dict[str, Any]] = {}
        rewards: dict[str, float] = {}
        for ag in self.agents:
            i = self.agent_name_mapping[ag]
            infos[ag] = {"last_shot": shots.info(i), "scores": scores}
            if done:
                infos[ag]["outcome"] = OUTCOME_NAMES[int(self.game_state.outcome[0])]
            rewards[ag] = float(self.game_state.rewards[0, i]) if done else 0.0
        terms = dict.fromkeys(self.agents, done)
        truncs = dict.fromkeys(self.agents, False)
        if done:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return obs, rewards, terms, truncs, infos

    def render(self) -> Any:
        from envs.moon_shot import render as ms_render

        return self._draw(
            "Moon Shot (realtime)",
            lambda: ms_render.ansi_realtime(self.config, self.game_state, self.last_shot),
            ms_render.rgb_realtime,
            ms_render.replay_frames_realtime,
        )
