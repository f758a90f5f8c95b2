"""The shared AEC template of the turn-based board games (``envs.registry`` lists them).

One ``step`` for every game, like Pgx's template ``Env.step``: it checks the action
(range, legality) before anything changes, applies it through the game's kernel, reads
which seats are now done and with what reward, and keeps PettingZoo's bookkeeping
(rewards, cumulative rewards, terminations, dead-agent steps, agent removal). A game
supplies only its hooks: state reset, seat to act, legal mask, apply, seat status,
observation planes, notation and drawing.

Conventions (PettingZoo classic): observations are ``{"observation", "action_mask"}``; the
mask is all zeros for an agent that is not to act; rewards are given once, in the step that
ends a seat's game (eliminated or game over); game endings are terminations, never
truncations (outside limits such as wrappers truncate). ``raw_env`` raises ``ValueError``
naming the problem on an out-of-range or illegal action and leaves the state untouched;
``env()`` (see :func:`make_env`) follows PettingZoo's illegal-move wrapper convention.

Call order: ``step``, ``observe`` and ``last`` before the first ``reset`` raise
``RuntimeError`` saying so, as does ``step`` once every agent is done (the game is over and
its agents have left); a dead agent's step takes only ``None`` (PettingZoo). The env
pickles (a pygame window does not travel: it reopens on the next ``render``), views between
its buffers included.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from envs.core.render import HumanWindow

_F32 = np.dtype(np.float32)  # builtin dtypes are singletons: ``is`` compares without a call
_I8 = np.dtype(np.int8)


class TurnBasedEnv(AECEnv):
    """Template AEC env over a batch-of-one kernel state held by the subclass.

    Subclasses set ``metadata``, ``possible_agents``, ``num_actions`` and ``obs_shape``
    (optionally ``obs_low`` / ``obs_high``) before calling ``super().__init__``.
    """

    metadata: dict[str, Any] = {
        "name": "turn_based",
        "render_modes": [],
        "is_parallelizable": False,
    }
    possible_agents: list[str]
    agent_selection: str
    num_actions: int
    obs_shape: tuple[int, ...]
    obs_low: float = 0.0
    obs_high: float = 1.0

    def __init__(self, render_mode: str | None = None) -> None:
        super().__init__()
        modes = self.metadata.get("render_modes", [])
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"render_mode must be one of {modes} or None, got {render_mode!r}")
        self.render_mode = render_mode
        self.agents: list[str] = []
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(
                        self.obs_low, self.obs_high, self.obs_shape, dtype=np.float32
                    ),
                    "action_mask": spaces.Box(0, 1, (self.num_actions,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._np_random: np.random.Generator | None = None
        self._window: HumanWindow | None = None
        self._seat_done = np.zeros(len(self.possible_agents), dtype=bool)
        self._seat_index = {a: i for i, a in enumerate(self.possible_agents)}
        self._has_reset = False

    # ------------------------------------------------------------------ game hooks
    @abstractmethod
    def _reset_state(self, rng: np.random.Generator, options: dict[str, Any] | None) -> None:
        """Start a new game (or load ``options["position"]``).

        Parse and validate first: on a malformed position raise ValueError naming the
        problem before changing anything, so the current game stays as it was.
        """

    @abstractmethod
    def _current_seat(self) -> int:
        """Seat index (into ``possible_agents``) that acts now; only asked while the game runs."""

    @abstractmethod
    def _legal_mask(self) -> np.ndarray:
        """int8 mask of shape (num_actions,) for the seat to act."""

    def _is_legal(self, action: int) -> bool:
        """Whether the in-range ``action`` is legal for the seat to act (one mask entry).

        A game whose ``_legal_mask`` builds or copies an array may read its own buffer here.
        """
        return bool(self._legal_mask()[action])

    @abstractmethod
    def _apply(self, action: int) -> None:
        """Advance the kernel state by one legal action."""

    @abstractmethod
    def _seat_status(self) -> tuple[np.ndarray, np.ndarray]:
        """(done per seat, final reward per seat); done = eliminated or game over.

        A hook may return the same (cached) arrays while the status is unchanged, never
        writing them in place: ``_update_status`` then skips its per-seat pass.
        """

    @abstractmethod
    def _observe_seat(self, seat: int) -> np.ndarray:
        """float32 observation planes of shape ``obs_shape`` from ``seat``'s point of view."""

    @abstractmethod
    def action_to_str(self, action: int) -> str:
        """The rules file's notation of ``action`` in the current position."""

    @abstractmethod
    def str_to_action(self, text: str) -> int:
        """Parse the rules file's notation; ValueError naming the problem if malformed."""

    @abstractmethod
    def to_text(self) -> str:
        """One-line position text, loadable with ``reset(options={"position": text})``."""

    @abstractmethod
    def _render_ansi(self) -> str:
        """A text picture of the position."""

    @abstractmethod
    def _render_rgb(self) -> np.ndarray:
        """An (H, W, 3) uint8 picture of the position."""

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a game; ``seed`` seeds every source of randomness of the game."""
        rng = self._np_random
        if seed is not None or rng is None:
            rng = np.random.default_rng(_check_seed(seed))
        before = rng.bit_generator.state
        try:
            self._reset_state(rng, options)  # raises before changing anything if malformed
        except Exception:
            rng.bit_generator.state = before  # a rejected position uses no randomness
            raise
        self._np_random = rng
        self._has_reset = True
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._seat_done = np.zeros(len(self.possible_agents), dtype=bool)
        self._status_seen: np.ndarray | None = None  # see _update_status
        self._skip_agent_selection: str | None = None
        self._update_status()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if not self._has_reset:
            self._require_reset("observe")
        try:
            seat = self._seat_index[agent]
        except (KeyError, TypeError):
            seat = self._seat_of(agent)  # ValueError naming the agents
        observation = self._observe_seat(seat)
        if observation.dtype is not _F32:  # the hooks' own dtype passes without a call
            observation = observation.astype(np.float32)
        if agent == self.agent_selection and not self._seat_done[seat]:
            mask = self._legal_mask()
            if mask.dtype is not _I8:
                mask = mask.astype(np.int8)
        else:
            mask = np.zeros(self.num_actions, dtype=np.int8)
        return {"observation": observation, "action_mask": mask}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            self._require_reset("last")
        if not self.agents:
            raise RuntimeError(
                "last() after the game is over: every agent is done; call reset() for a new game"
            )
        return super().last(observe)

    def legal_actions(self) -> list[int]:
        """Legal actions of the agent to act (empty once it is done)."""
        if not self._has_reset or not self.agents:
            return []
        if self._seat_done[self.possible_agents.index(self.agent_selection)]:
            return []
        return [int(a) for a in np.flatnonzero(self._legal_mask())]

    def legal_moves(self) -> list[str]:
        """Legal actions of the agent to act, in the rules file's notation."""
        return [self.action_to_str(a) for a in self.legal_actions()]

    def check_action(self, action: Any) -> int:
        """Return ``action`` as an int if it is legal now, else raise ValueError saying why."""
        self._require_reset("check_action")
        return self._checked(action)

    def _checked(self, action: Any) -> int:
        """``check_action`` after reset; an in-range legal ``int`` costs one mask read."""
        if type(action) is int and 0 <= action < self.num_actions and self._is_legal(action):
            return action
        agent = self.agent_selection
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
                action = int(action)
            else:
                raise ValueError(
                    f"action must be an integer in [0, {self.num_actions}), got {action!r}"
                )
        action = int(action)
        if not 0 <= action < self.num_actions:
            raise ValueError(f"action {action} is out of range [0, {self.num_actions})")
        if not self._is_legal(action):
            raise ValueError(
                f"illegal action {action} ({self.action_to_str(action)}) for {agent}; "
                f"legal: {', '.join(self.legal_moves()) or 'none'}"
            )
        return action

    def step(self, action: Any) -> None:
        if not self._has_reset:
            self._require_reset("step")
        if not self.agents:
            raise RuntimeError(
                "step() after the game is over: every agent is done and has left; "
                "call reset() to start a new game"
            )
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = self._checked(action)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self._apply(action)
        if self._update_status():  # else every reward of this step is 0: nothing to add
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _deads_step_first(self) -> str:
        """PettingZoo's ``_deads_step_first`` (the first done agent in ``agents`` order acts
        next, the selection kept to come back to), without building the list of all."""
        terminations, truncations = self.terminations, self.truncations
        for agent in self.agents:
            if terminations[agent] or truncations[agent]:
                self._skip_agent_selection = self.agent_selection
                self.agent_selection = agent
                break
        return self.agent_selection

    def _require_reset(self, what: str) -> None:
        if not self._has_reset:
            raise RuntimeError(f"{what}() before reset(): call reset() first to start a game")

    def _seat_of(self, agent: str) -> int:
        try:
            return self.possible_agents.index(agent)
        except ValueError:
            raise ValueError(
                f"unknown agent {agent!r}; the agents are {', '.join(self.possible_agents)}"
            ) from None

    def _update_status(self) -> bool:
        """Read seat status from the kernel: new terminations, their rewards, who acts next.

        False when the hook returned the arrays it returned last time (and the game goes
        on): no seat is newly done, so no reward was set.
        """
        done, final = self._seat_status()
        if done is self._status_seen:  # the hook's cached arrays, already read: nothing new
            self.agent_selection = self.possible_agents[self._current_seat()]
            self._deads_step_first()
            return False
        # seats done earlier stay marked in _seat_done, so the same arrays next time add
        # nothing; once every seat is done the selection rule below differs: no shortcut
        self._status_seen = done if not done.all() else None
        for seat, agent in enumerate(self.possible_agents):
            if done[seat] and not self._seat_done[seat]:
                self._seat_done[seat] = True
                if agent in self.terminations:
                    self.terminations[agent] = True
                    self.rewards[agent] = float(final[seat])
        if not done.all():
            self.agent_selection = self.possible_agents[self._current_seat()]
        elif not hasattr(self, "agent_selection") or self.agent_selection not in self.agents:
            self.agent_selection = self.agents[0]
        self._deads_step_first()
        return True

    # ------------------------------------------------------------------ rendering
    def render(self) -> Any:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; nothing to render.")
            return None
        if self.render_mode == "ansi":
            return self._render_ansi()
        frame = self._render_rgb()
        if self.render_mode == "rgb_array":
            return frame
        if self._window is None:
            self._window = HumanWindow(self.metadata["name"], self.metadata.get("render_fps", 2))
        self._window.show(frame)
        return None

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None

    # ------------------------------------------------------------------ pickling
    def __getstate__(self) -> dict[str, Any]:
        """The env's attributes, with views into other attribute arrays kept as views.

        Pickle copies a numpy view apart from the array it looks into, so a cached
        buffer (e.g. an int8 view of a bool mask the kernel writes) would stop seeing the
        kernel's writes after unpickling; such views are stored as (owner, layout) and
        rebuilt. A pygame window is not pickled.
        """
        state = self.__dict__.copy()
        state["_window"] = None
        owners = {
            id(v): k
            for k, v in state.items()
            if isinstance(v, np.ndarray) and v.base is None and v.flags.c_contiguous
        }
        views: dict[str, tuple[str, np.dtype, tuple[int, ...], tuple[int, ...], int]] = {}
        for k, v in list(state.items()):
            if isinstance(v, np.ndarray) and v.base is not None and id(v.base) in owners:
                owner = state[owners[id(v.base)]]
                offset = v.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
                views[k] = (owners[id(v.base)], v.dtype, v.shape, v.strides, offset)
                del state[k]
        state["_pickled_views"] = views
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        views = state.pop("_pickled_views", {})
        self.__dict__.update(state)
        for k, (owner, dtype, shape, strides, offset) in views.items():
            base = self.__dict__[owner]
            setattr(
                self,
                k,
                np.ndarray(shape, dtype=dtype, buffer=base, offset=offset, strides=strides),
            )


def _check_seed(seed: Any) -> int | None:
    """``seed`` as an int (numpy integers included); ValueError for anything else."""
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
    return int(seed)


def make_env(raw_cls: Callable[..., TurnBasedEnv]) -> Callable[..., AECEnv]:
    """Build the ``env()`` constructor of a game: PettingZoo classic's wrapper stack.

    An illegal action ends the game with -1 for the offender
    (``TerminateIllegalWrapper``); out-of-space actions assert; call order is enforced.
    """

    def env(**kwargs: Any) -> AECEnv:
        wrapped: AECEnv = raw_cls(**kwargs)
        wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
        wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
        return wrappers.OrderEnforcingWrapper(wrapped)

    env.__doc__ = f"{raw_cls.__name__} wrapped as PettingZoo classic envs are (illegal move = -1)."
    return env
