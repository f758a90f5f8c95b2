"""The one agent interface: act on a batch of observations and masks.

Every agent answers ``act(obs, mask, context)`` for a whole batch of games at once, so the
ladder, training opponents and benchmarks drive many games per call. Agents that search
(MCTS, a physics planner) also need the game; they get it through ``context``: the batch
facade of the game (``envs.<game>.batch``), the batch state and the seat each game is
asked for. A search agent must not read hidden information: in a game with a hidden
setup it resamples what it has not seen (``game.determinize``) before searching.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class ActContext:
    """What a search agent may use besides observations: the game facade and its state."""

    game: Any  # a BatchGame (envs.core.batch) or a continuous-action facade
    state: Any  # the batch state the observations were taken from
    seats: np.ndarray  # (B,) seat each game asks to act


class Agent(ABC):
    """Base class of all agents.

    ``act`` returns one action per game: (B,) int64 for the board games (always legal under
    ``mask``), (B, action_dim) float32 in [-1, 1] for continuous-action games (``mask`` is None there).
    """

    name: str = "agent"
    needs_context: bool = False  # True for agents that search with the game facade
    #: False for agents whose ``act`` reads only the mask and ``len(obs)``: a caller may then
    #: pass a (B, 0) placeholder instead of computing observations (the self-play VecEnv's
    #: opponents)
    needs_observation: bool = True

    def reset(self, seed: int | None = None) -> None:  # noqa: B027 - optional hook
        """Start a new series of games (re-seeds the agent's own RNG)."""

    @abstractmethod
    def act(
        self, obs: np.ndarray, mask: np.ndarray | None, context: ActContext | None = None
    ) -> np.ndarray:
        """One action per game of the batch."""
