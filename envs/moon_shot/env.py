"""Moon Shot PettingZoo environments: the turn-based AEC env and the realtime Parallel env.

The reference page (spaces, rewards, variants, version history) is the docstring of
:mod:`envs.moon_shot_v0`; this module holds the implementation:

* :class:`MoonShotConfig` — static configuration (players, variants, noise, physics params);
* :func:`run_shots` — one batched physics call plus scoring for any number of shots;
* :func:`observe` — the seat-relative observation vector of a batch of games;
* :class:`MoonShotEnv` (``raw_env``) and :class:`MoonShotParallelEnv` — thin adapters over
  a batch-of-one :class:`~envs.moon_shot.game.GameState`.

Rendering lives in :mod:`envs.moon_shot.render`; pygame is only imported for ``human``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.wrappers.base import BaseWrapper

from envs.moon_shot import game
from envs.moon_shot.params import PhysicsParams
from envs.moon_shot.scoring import KIND_NAMES, ShotScore, score_shots

ACTION_SIZE = 4
OBS_EXTRA = 10  # entries after the 2P seat-relative block (see observation_layout)


# ----------------------------------------------------------------------------- config
@dataclass(frozen=True)
class MoonShotConfig:
    """Static configuration of a Moon Shot game (MS-3, MS-6, MS-16, MS-19, MS-20)."""

    num_players: int = 2
    noise: float = 1.0
    close_tube: bool = False
    full_landing: bool = False
    full_colony: bool = False
    target_score: int | None = None
    max_rounds: int = 30
    tube_distance: float | None = None  # None: the variant's minimum (MS-3)
    params: PhysicsParams = dataclasses.field(default_factory=PhysicsParams)

    def __post_init__(self) -> None:
        if not isinstance(self.params, PhysicsParams):
            raise ValueError(f"params must be a PhysicsParams, got {type(self.params).__name__}")
        if not np.isfinite(self.noise) or self.noise < 0:
            raise ValueError(f"noise must be a finite number >= 0, got {self.noise}")
        if int(self.max_rounds) != self.max_rounds or self.max_rounds < 1:
            raise ValueError(f"max_rounds must be an integer >= 1, got {self.max_rounds}")
        if self.target_score is not None and (
            int(self.target_score) != self.target_score or self.target_score < 1
        ):
            raise ValueError(
                f"target_score must be an integer >= 1 or None, got {self.target_score}"
            )
        if self.tube_distance is not None:
            if not np.isfinite(self.tube_distance) or self.tube_distance < self.min_tube_distance:
                raise ValueError(
                    f"tube_distance must be >= {self.min_tube_distance:g} m "
                    f"({'half' if self.close_tube else 'one'} tube length, MS-3), "
                    f"got {self.tube_distance}"
                )

    @property
    def min_tube_distance(self) -> float:
        """MS-3 / MS-20: one tube length, half of it with *close tube*."""
        length = self.params.tube_length
        return 0.5 * length if self.close_tube else length

    @property
    def distance(self) -> float:
        """The tube distance in play (defaults to the variant's minimum)."""
        return self.min_tube_distance if self.tube_distance is None else float(self.tube_distance)

    def physics_params(self) -> PhysicsParams:
        """The physics parameters with this game's noise scale and tube distance."""
        return dataclasses.replace(
            self.params, noise=float(self.noise), tube_distance=self.distance
        )

    def check_players(self, low: int = 2, high: int = 8) -> None:
        """ValueError unless ``num_players`` is an integer in ``low..high``."""
        if int(self.num_players) != self.num_players or not low <= self.num_players <= high:
            raise ValueError(
                f"num_players must be an integer in {low}..{high}, got {self.num_players}"
            )


# ----------------------------------------------------------------------------- shots
@dataclass
class Shots:
    """Physics result and score of a batch of shots (M shots)."""

    poses: np.ndarray  # (M, 3, 3)
    toppled: np.ndarray  # (M, 3)
    in_tube: np.ndarray  # (M, 3)
    fully_in_tube: np.ndarray  # (M, 3)
    score: ShotScore
    frames: np.ndarray | None  # (M, T, 3, 3) when recorded

    def info(self, m: int) -> dict[str, Any]:
        """Plain-data summary of shot ``m`` for ``infos`` (MS-10..MS-13)."""
        return {
            "poses": self.poses[m].copy(),
            "toppled": self.toppled[m].copy(),
            "in_tube": self.in_tube[m].copy(),
            "fully_in_tube": self.fully_in_tube[m].copy(),
            "points": int(self.score.points[m]),
            "kind": KIND_NAMES[int(self.score.kind[m])],
        }


def check_actions(actions: Any, count: int, clip: bool = False) -> np.ndarray:
    """Validate a (count, 4) batch of MS-5 actions; ValueError naming the problem.

    NaN or infinite entries are always rejected. Out-of-range values are rejected unless
    ``clip`` (then they are clipped to [-1, 1]).
    """
    try:
        a = np.asarray(actions, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"action must be numeric, got {actions!r}") from exc
    if a.shape != (count, ACTION_SIZE):
        want = (ACTION_SIZE,) if count == 1 else (count, ACTION_SIZE)
        got = a.shape[1:] if count == 1 and a.ndim == 2 and a.shape[0] == 1 else a.shape
        raise ValueError(f"action must have shape {want}, got {got}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"action must be finite (no NaN or infinity), got {a.tolist()}")
    if clip:
        return np.clip(a, -1.0, 1.0)
    if np.any(np.abs(a) > 1.0):
        raise ValueError(f"action entries must lie in [-1, 1] (MS-5), got {a.tolist()}")
    return a


def run_shots(
    actions: np.ndarray, seeds: np.ndarray, config: MoonShotConfig, record: bool = False
) -> Shots:
    """Simulate and score M shots in ONE batched physics call (MS-5..MS-13, MS-20).

    ``record`` asks the physics for trajectories (for rendering the last shot).
    """
    from envs.moon_shot import physics  # compiled kernels; imported on first shot

    params = config.physics_params()
    a = np.ascontiguousarray(actions, dtype=np.float64).reshape(-1, ACTION_SIZE)
    s = np.ascontiguousarray(seeds, dtype=np.uint64).reshape(-1)
    frames = None
    # (the physics runs small batches on the calling thread itself: no pool wake-up)
    if record:
        result, frames = physics.simulate_recorded(a, s, params, tube_distance=config.distance)
    else:
        result = physics.simulate(a, s, params, tube_distance=config.distance)
    score = score_shots(
        result.in_tube,
        result.fully_in_tube,
        result.poses,
        result.toppled,
        full_landing=config.full_landing,
        full_colony=config.full_colony,
    )
    return Shots(
        poses=np.asarray(result.poses),
        toppled=np.asarray(result.toppled),
        in_tube=np.asarray(result.in_tube),
        fully_in_tube=np.asarray(result.fully_in_tube),
        score=score,
        frames=None if frames is None else np.asarray(frames),
    )


# ----------------------------------------------------------------------------- observation
def observation_layout(num_players: int) -> list[tuple[str, str]]:
    """(index range, meaning) rows of the observation vector, for docs and tests."""
    P = num_players
    return [
        (f"0..{P - 1}", "points per seat, own seat first, then the following seats in order"),
        (
            f"{P}..{2 * P - 1}",
            "last-landing recency per seat (same order): 1/(1 + turns since it), 0 = never",
        ),
        (f"{2 * P}", "completed rounds"),
        (f"{2 * P + 1}", "rounds left (max_rounds - completed rounds)"),
        (f"{2 * P + 2}", "seats until the observer shoots: (seat to shoot - own seat) mod P"),
        (f"{2 * P + 3}", "own seat index (0 shoots first in a round)"),
        (f"{2 * P + 4}", "tube distance in metres (MS-3)"),
        (f"{2 * P + 5}", "close tube variant (0/1)"),
        (f"{2 * P + 6}", "full landing variant (0/1)"),
        (f"{2 * P + 7}", "full colony variant (0/1)"),
        (f"{2 * P + 8}", "target score (0 = none)"),
        (f"{2 * P + 9}", "noise scale (MS-6)"),
    ]


def observation_space(config: MoonShotConfig) -> spaces.Box:
    """The AEC/Parallel observation Box for ``config`` (layout: :func:`observation_layout`)."""
    P = config.num_players
    high_pts = 2.0 * config.max_rounds
    low = np.zeros(2 * P + OBS_EXTRA, dtype=np.float32)
    high = np.concatenate(
        [
            np.full(P, high_pts),
            np.ones(P),
            [config.max_rounds, config.max_rounds, P - 1, P - 1, max(config.distance, 1.0)],
            [1, 1, 1, max(config.target_score or 0, 1), max(config.noise, 1.0)],
        ]
    ).astype(np.float32)
    return spaces.Box(low=low, high=high, dtype=np.float32)


def observe(state: game.GameState, seats: np.ndarray, config: MoonShotConfig) -> np.ndarray:
    """(N, 2P+10) float32 observations of each game from seat ``seats[i]``'s point of view."""
    N, P = state.scores.shape
    seats = np.asarray(seats, dtype=np.int64).reshape(N)
    order = (seats[:, None] + np.arange(P)[None, :]) % P  # own seat first
    rows = np.arange(N)[:, None]
    scores = state.scores[rows, order].astype(np.float64)
    last = state.last_landing[rows, order]
    since = state.turn[:, None] - 1 - last
    recency = np.where(last >= 0, 1.0 / (1.0 + since), 0.0)
    rnd = state.round.astype(np.float64)
    extra = np.stack(
        [
            rnd,
            config.max_rounds - rnd,
            ((state.seat - seats) % P).astype(np.float64),
            seats.astype(np.float64),
            np.full(N, config.distance),
            np.full(N, float(config.close_tube)),
            np.full(N, float(config.full_landing)),
            np.full(N, float(config.full_colony)),
            np.full(N, float(config.target_score or 0)),
            np.full(N, float(config.noise)),
        ],
        axis=1,
    )
    high = observation_space(config).high
    obs = np.concatenate([scores, recency, extra], axis=1).astype(np.float32)
    return np.minimum(obs, high[None, :])


def _seed_key(rng: np.random.Generator) -> np.ndarray:
    return rng.integers(0, np.iinfo(np.uint64).max, size=1, dtype=np.uint64, endpoint=True)


class _SharedSetup:
    """What the turn (AEC) and the realtime (Parallel) envs share: config, names, spaces."""

    metadata: dict[str, Any]

    def _setup(self, render_mode: str | None, params: PhysicsParams | None, **rules: Any) -> None:
        self.config = MoonShotConfig(**rules, params=PhysicsParams() if params is None else params)
        self.config.check_players()
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
        self.action_spaces = dict.fromkeys(self.possible_agents, act_space)
        self.agents: list[str] = []
        self.state = game.new_games(1, P)
        self.last_shot: Shots | None = None
        self._rng = np.random.default_rng()
        self._window: Any = None
        self._shots_fired = 0  # replay key for human rendering

    def observation_space(self, agent: str) -> spaces.Box:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Box:
        return self.action_spaces[agent]


# ----------------------------------------------------------------------------- AEC env
class MoonShotEnv(_SharedSetup, AECEnv):
    """Turn-based Moon Shot (MS-1..MS-17, MS-19, MS-20) as a PettingZoo AEC env.

    See :mod:`envs.moon_shot_v0` for the reference page.
    """

    metadata: dict[str, Any] = {
        "name": "moon_shot_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "is_parallelizable": False,
        "render_fps": 30,
    }

    def __init__(
        self,
        num_players: int = 2,
        noise: float = 1.0,
        close_tube: bool = False,
        full_landing: bool = False,
        full_colony: bool = False,
        target_score: int | None = None,
        max_rounds: int = 30,
        tube_distance: float | None = None,
        params: PhysicsParams | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self._setup(
            render_mode,
            params,
            num_players=num_players,
            noise=noise,
            close_tube=close_tube,
            full_landing=full_landing,
            full_colony=full_colony,
            target_score=target_score,
            max_rounds=max_rounds,
            tube_distance=tube_distance,
        )
        self.last_shooter = -1

    # -- PettingZoo API ------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.state = game.new_games(1, self.config.num_players, _seed_key(self._rng))
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
        seat = self.agent_name_mapping[agent]
        return observe(self.state, np.array([seat]), self.config)[0]

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must shoot: action None is only for finished agents")
        a = check_actions(
            np.asarray(action, dtype=np.float64).reshape(1, -1) if np.ndim(action) == 1 else action,
            1,
        )
        seat = int(self.state.seat[0])
        seeds = game.shot_seeds(self.state.key, self.state.turn)
        shots = run_shots(a, seeds, self.config, record=self.render_mode is not None)
        sc = shots.score
        game.turn_step(
            self.state,
            sc.points,
            sc.crack,
            sc.colony,
            sc.landed,
            max_rounds=self.config.max_rounds,
            target_score=self.config.target_score,
        )
        self.last_shot, self.last_shooter = shots, seat
        self._shots_fired += 1
        self._cumulative_rewards[agent] = 0.0
        shot_info = {"shooter": agent, **shots.info(0), "scores": self._score_dict()}
        for a_ in self.agents:
            self.infos[a_] = {"last_shot": shot_info}
        if self.state.done[0]:
            for a_ in self.agents:
                self.rewards[a_] = float(self.state.rewards[0, self.agent_name_mapping[a_]])
                self.terminations[a_] = True
                self.infos[a_]["outcome"] = game.OUTCOME_NAMES[int(self.state.outcome[0])]
        else:
            for a_ in self.agents:
                self.rewards[a_] = 0.0
        self.agent_selection = self.possible_agents[int(self.state.seat[0])]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _score_dict(self) -> dict[str, int]:
        return {a: int(self.state.scores[0, i]) for i, a in enumerate(self.possible_agents)}

    # -- rendering -----------------------------------------------------------------------
    def render(self) -> Any:
        from envs.moon_shot import render as ms_render

        if self.render_mode is None:
            return None
        if self.render_mode == "ansi":
            return ms_render.ansi_turn(self)
        if self.render_mode == "rgb_array":
            return ms_render.rgb_turn(self)
        if self._window is None:
            self._window = ms_render.ShotReplay("Moon Shot", self.metadata["render_fps"])
        key = self._shots_fired
        replay = self._window.seen(key)
        self._window.play(
            [ms_render.rgb_turn(self)] if replay else ms_render.replay_frames_turn(self), key
        )
        return None

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None


class _ActionCheckWrapper(BaseWrapper):
    """Rejects NaN/inf and malformed actions with ValueError before clipping (env())."""

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if action is not None and not (self.terminations[agent] or self.truncations[agent]):
            action = check_actions(
                np.asarray(action, dtype=np.float64).reshape(1, -1)
                if np.ndim(action) == 1
                else action,
                1,
                clip=True,
            )[0].astype(np.float32)
        super().step(action)


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
    physics call and are all scored.
    """

    metadata: dict[str, Any] = {
        "name": "moon_shot_realtime_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "is_parallelizable": True,
        "render_fps": 30,
    }

    def __init__(
        self,
        num_players: int = 2,
        noise: float = 1.0,
        close_tube: bool = False,
        full_landing: bool = False,
        full_colony: bool = False,
        target_score: int | None = None,
        max_rounds: int = 30,
        tube_distance: float | None = None,
        params: PhysicsParams | None = None,
        clip_actions: bool = False,
        render_mode: str | None = None,
    ) -> None:
        self._setup(
            render_mode,
            params,
            num_players=num_players,
            noise=noise,
            close_tube=close_tube,
            full_landing=full_landing,
            full_colony=full_colony,
            target_score=target_score,
            max_rounds=max_rounds,
            tube_distance=tube_distance,
        )
        self.clip_actions = bool(clip_actions)

    def _observations(self) -> dict[str, np.ndarray]:
        P = self.config.num_players
        st = self.state
        many = game.GameState(**{k: np.repeat(v, P, axis=0) for k, v in st.__dict__.items()})
        many.seat = np.arange(P, dtype=np.int64)  # everybody shoots now (MS-18)
        obs = observe(many, np.arange(P), self.config)
        return {a: obs[self.agent_name_mapping[a]] for a in self.agents}

    def reset(
        self, seed: int | None = None, options: dict | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, dict]]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.state = game.new_games(1, self.config.num_players, _seed_key(self._rng))
        self.agents = self.possible_agents[:]
        self.last_shot = None
        return self._observations(), {a: {} for a in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        if not self.agents:
            raise ValueError("step() called on a finished game: call reset() first")
        missing = [a for a in self.agents if a not in actions]
        extra = [a for a in actions if a not in self.agents]
        if missing or extra:
            raise ValueError(
                f"actions needed for exactly {self.agents}; missing {missing}, unknown {extra}"
            )
        P = self.config.num_players
        a = check_actions(
            np.stack([np.asarray(actions[ag], dtype=np.float64).reshape(-1) for ag in self.agents])
            if all(np.ndim(actions[ag]) == 1 for ag in self.agents)
            else [actions[ag] for ag in self.agents],
            P,
            clip=self.clip_actions,
        )
        counters = self.state.turn[0] * P + np.arange(P)
        seeds = game.shot_seeds(np.repeat(self.state.key, P), counters)
        shots = run_shots(a, seeds, self.config, record=self.render_mode is not None)
        sc = shots.score
        game.realtime_step(
            self.state,
            sc.points[None, :],
            sc.crack[None, :],
            sc.colony[None, :],
            sc.landed[None, :],
            max_rounds=self.config.max_rounds,
            target_score=self.config.target_score,
        )
        self.last_shot = shots
        self._shots_fired += 1
        done = bool(self.state.done[0])
        obs = self._observations()
        scores = {ag: int(self.state.scores[0, i]) for i, ag in enumerate(self.possible_agents)}
        infos: dict[str, dict[str, Any]] = {}
        rewards: dict[str, float] = {}
        for ag in self.agents:
            i = self.agent_name_mapping[ag]
            infos[ag] = {"last_shot": shots.info(i), "scores": scores}
            if done:
                infos[ag]["outcome"] = game.OUTCOME_NAMES[int(self.state.outcome[0])]
            rewards[ag] = float(self.state.rewards[0, i]) if done else 0.0
        terms = dict.fromkeys(self.agents, done)
        truncs = dict.fromkeys(self.agents, False)
        if done:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return obs, rewards, terms, truncs, infos

    def render(self) -> Any:
        from envs.moon_shot import render as ms_render

        if self.render_mode is None:
            return None
        if self.render_mode == "ansi":
            return ms_render.ansi_realtime(self)
        if self.render_mode == "rgb_array":
            return ms_render.rgb_realtime(self)
        if self._window is None:
            self._window = ms_render.ShotReplay("Moon Shot (realtime)", self.metadata["render_fps"])
        key = self._shots_fired
        replay = self._window.seen(key)
        self._window.play(
            [ms_render.rgb_realtime(self)] if replay else ms_render.replay_frames_realtime(self),
            key,
        )
        return None

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None
