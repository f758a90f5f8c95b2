"""The Proteus PettingZoo AEC env over a batch-of-one kernel state (reference: proteus_v0)."""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.fast_wrappers import make_fast_env
from envs.core.turn_based import TurnBasedEnv, make_env
from envs.proteus import kernel as K
from envs.proteus import notation
from envs.proteus.batch import OBS_SHAPE, state_from_text, text_of
from envs.proteus.constants import DEFAULT_MAX_TURNS, NUM_ACTIONS

# (done per seat, final reward per seat) for each kernel status code
_STATUS_TABLE = [
    (np.array([False, False]), np.zeros(2)),
    (np.array([True, True]), np.array([1.0, -1.0])),
    (np.array([True, True]), np.array([-1.0, 1.0])),
    (np.array([True, True]), np.zeros(2)),
    (np.array([True, True]), np.zeros(2)),
]


class ProteusEnv(TurnBasedEnv):
    """Proteus (Waitsman, Kadon 1983) for two agents, ``black`` and ``white`` (PR-4).

    See ``envs.proteus_v0`` for spaces, rewards, notation and position text.
    """

    metadata = {
        "name": "proteus_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(self, render_mode: str | None = None, max_turns: int = DEFAULT_MAX_TURNS):
        self.max_turns = notation.check_max_turns(max_turns)  # ValueError naming the problem
        self.possible_agents = ["black", "white"]
        self.num_actions = NUM_ACTIONS
        self.obs_shape = OBS_SHAPE
        super().__init__(render_mode=render_mode)
        self._mask_buf = np.zeros((1, NUM_ACTIONS), dtype=np.bool_)
        self._mask_i8 = self._mask_buf[0].view(np.int8)
        self._obs_buf = np.zeros((2, *OBS_SHAPE), dtype=np.float32)
        self._seat_buf = np.zeros(1, dtype=np.int64)
        self._set_state(K.new_state(1, seed=0, max_turns=self.max_turns))

    def _set_state(self, state: K.KernelState) -> None:
        """Adopt a kernel state; mask and both seats' planes are cached until the next move."""
        self._state = state
        self._arrays = state.arrays()
        K.env_refresh(state, self._mask_buf, self._obs_buf, self._seat_buf)

    # ------------------------------------------------------------------ hooks
    def _reset_state(self, rng: np.random.Generator, options: dict[str, Any] | None) -> None:
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"options must be a dict or None, got {type(options).__name__}")
        options = options or {}
        if options.get("position") is not None:
            self._set_state(state_from_text(options["position"]))  # raises before any change
        else:
            seed = int(rng.integers(0, 2**63 - 1))
            self._set_state(K.new_state(1, seed=seed, max_turns=self.max_turns))

    def _current_seat(self) -> int:
        return self._state.player.item(0)

    def _legal_mask(self) -> np.ndarray:
        return self._mask_i8.copy()

    def _is_legal(self, action: int) -> bool:
        return bool(self._mask_buf[0, action])  # the cached mask itself, no copy

    def _apply(self, action: int) -> None:
        K._env_step(self._arrays, action, self._mask_buf, self._obs_buf, self._seat_buf)

    def _seat_status(self) -> tuple[np.ndarray, np.ndarray]:
        return _STATUS_TABLE[self._state.status.item(0)]

    def _observe_seat(self, seat: int) -> np.ndarray:
        return self._obs_buf[seat].copy()

    def action_to_str(self, action: int) -> str:
        return notation.action_to_str(action)

    def str_to_action(self, text: str) -> int:
        return notation.str_to_action(text)

    def to_text(self) -> str:
        return text_of(self._state, 0)

    def _render_ansi(self) -> str:
        from envs.proteus.render import render_ansi

        return render_ansi(self._state, 0)

    def _render_rgb(self) -> np.ndarray:
        from envs.proteus.render import render_rgb

        return render_rgb(self._state, 0)

    # ------------------------------------------------------------------ extras
    @property
    def state_status(self) -> str:
        """Why the game ended (or ``ongoing``): win, draw by repetition or by turn limit."""
        from envs.proteus.constants import STATUS_NAMES

        return STATUS_NAMES[int(self._state.status[0])]

    def step_str(self, move: str) -> None:
        """Step with a move in notation (ValueError naming the problem if bad or illegal)."""
        self.step(self.str_to_action(move))


# ----------------------------------------------------------------------------- env()
# PettingZoo classic's wrapper stack with direct attribute reads (envs/core/fast_wrappers.py);
# ``reference_env`` is the plain stack, for comparison.

raw_env = ProteusEnv
env = make_fast_env(raw_env)
reference_env = make_env(raw_env)  # the plain wrapper stack, for comparison
