"""The batch-game protocol: one Python facade per turn-based game over its Numba kernels.

Batch consumers (training VecEnvs, MCTS rollouts, the ladder, benchmarks) talk to a game
through this facade and never through the AEC adapter (the PettingZoo wrapper stack costs
about 4x on tiny games). State is a small dataclass of numpy arrays with a leading batch
axis; every method is a thin call into ``@njit`` kernels. Seeds: each game keeps its
own RNG key derived from ``(seed, i)``, so a game's course never depends on the batch
size, its position in the batch or the thread count.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

State = Any  # a game-specific dataclass of numpy arrays with a leading batch axis


@runtime_checkable
class BatchGame(Protocol):
    """What every turn-based game offers to batch consumers.

    Rewards follow the AEC env: a seat receives its final reward (+1 / -1 / 0) in the
    step that ends its game or eliminates it, and 0 otherwise.
    """

    name: str
    num_players: int
    num_actions: int
    obs_shape: tuple[int, ...]

    def init(self, batch_size: int, seed: int) -> State:
        """New games; game i is seeded from (seed, i)."""

    def copy(self, state: State) -> State:
        """Deep copy (for search)."""

    def take(self, state: State, index: np.ndarray) -> State:
        """Gather games ``index`` into a new batch (e.g. repeat one game N times)."""

    def current_player(self, state: State) -> np.ndarray:
        """(B,) int seat to act; -1 where the game is over."""

    def legal_mask(self, state: State) -> np.ndarray:
        """(B, num_actions) bool legal actions of the seat to act (all False when over)."""

    def step(
        self, state: State, actions: np.ndarray, auto_reset: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """Apply one action per game in place. Returns (rewards (B, P) float32, done (B,) bool).

        Actions must be legal (consumers use ``legal_mask``). With ``auto_reset`` a game
        that ended is re-initialised from its own RNG after its rewards are recorded.
        """

    def random_actions(self, state: State) -> np.ndarray:
        """(B,) uniformly random legal actions drawn from each game's own RNG key."""

    def terminated(self, state: State) -> np.ndarray:
        """(B,) bool: game over."""

    def observe(self, state: State, seats: np.ndarray) -> np.ndarray:
        """(B, *obs_shape) float32 planes from each given seat's point of view."""
