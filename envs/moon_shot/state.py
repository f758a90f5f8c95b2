"""The Moon Shot batch state (:class:`GameState`, :class:`SoloState`) and the games' keys.

Why apart from the rules: the state class is the layer every Moon Shot module shares
(the rules, the batch facade, the envs, rendering, records), as ``state.py`` is in every
game's folder. State is plain numpy arrays with a leading batch axis ``N``; the static
configuration lives apart (``batch.MoonShotConfig``, ``params.PhysicsParams``).

Randomness: each game owns a uint64 key; the noise seed of a shot is
``shot_seeds(key, counter)`` with ``counter = turn * P + seat`` (the shared splitmix64
hash of ``envs.core.rng``), so a game's course never depends on its batch size or position.
Rules: docs/moon_shot.md.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
from numba import njit

from envs.core.rng import hash64

#: ``GameState.outcome`` codes: why the game ended.
ONGOING, COLONY_END, CRACK_END, MAX_ROUNDS_END, TARGET_END = 0, 1, 2, 3, 4
OUTCOME_NAMES = ("ongoing", "colony", "crack", "max rounds", "target score")


@njit(cache=True)
def _shot_seeds(keys: np.ndarray, counters: np.ndarray) -> np.ndarray:
    out = np.empty(keys.shape[0], dtype=np.uint64)
    for i in range(keys.shape[0]):
        out[i] = hash64(keys[i] ^ hash64(np.uint64(counters[i])))
    return out


def shot_seeds(keys: np.ndarray, counters: np.ndarray) -> np.ndarray:
    """(N,) uint64 noise seeds for shot number ``counters[i]`` of game ``i``."""
    keys = np.ascontiguousarray(keys, dtype=np.uint64).reshape(-1)
    counters = np.ascontiguousarray(counters, dtype=np.int64).reshape(-1)
    return _shot_seeds(keys, counters.astype(np.uint64))


@njit(cache=True)
def _derive_keys(seed: np.uint64, n: int) -> np.ndarray:
    out = np.empty(n, dtype=np.uint64)
    base = hash64(seed)
    for i in range(n):
        out[i] = hash64(base ^ hash64(np.uint64(i)))
    return out


def derive_keys(seed: int, n: int) -> np.ndarray:
    """(n,) uint64 per-game keys for games ``0..n-1`` seeded from ``seed``."""
    return _derive_keys(np.uint64(seed % (1 << 64)), n)


@dataclass
class GameState:
    """Dynamic state of N Moon Shot games with P players (static config lives in the env)."""

    scores: np.ndarray  # (N, P) int64 points per seat
    last_landing: np.ndarray  # (N, P) int64 turn index of the seat's last landing, -1 never
    turn: np.ndarray  # (N,) int64 shots taken (turn-based) / steps taken (realtime)
    round: np.ndarray  # (N,) int64 completed rounds
    seat: np.ndarray  # (N,) int64 seat to shoot next (turn-based; 0 in realtime)
    done: np.ndarray  # (N,) bool game over
    rewards: np.ndarray  # (N, P) float64 final rewards (MS-17), 0 while the game runs
    outcome: np.ndarray  # (N,) int8 ONGOING / COLONY_END / CRACK_END / ...
    key: np.ndarray  # (N,) uint64 per-game RNG key for shot noise

    @property
    def num_players(self) -> int:
        """P, the number of seats."""
        return int(self.scores.shape[1])

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The arrays the rules kernels update (every field but ``key``, in field order:
        ``envs.moon_shot.rules`` unpacks them so)."""
        return tuple(getattr(self, f.name) for f in fields(self) if f.name != "key")

    def winners(self) -> np.ndarray:
        """(N, P) bool: seats that won or drew (reward >= 0) in finished games."""
        return self.done[:, None] & (self.rewards >= 0.0)

    def copy(self) -> GameState:
        return GameState(**{k: v.copy() for k, v in self.__dict__.items()})


def new_games(n: int, num_players: int, keys: np.ndarray | None = None) -> GameState:
    """N fresh games (seat 0 to shoot, no points, nobody landed)."""
    if keys is None:
        keys = np.zeros(n, dtype=np.uint64)
    return GameState(
        scores=np.zeros((n, num_players), dtype=np.int64),
        last_landing=np.full((n, num_players), -1, dtype=np.int64),
        turn=np.zeros(n, dtype=np.int64),
        round=np.zeros(n, dtype=np.int64),
        seat=np.zeros(n, dtype=np.int64),
        done=np.zeros(n, dtype=bool),
        rewards=np.zeros((n, num_players), dtype=np.float64),
        outcome=np.zeros(n, dtype=np.int8),
        key=np.asarray(keys, dtype=np.uint64).copy(),
    )


@dataclass
class SoloState:
    """Dynamic state of N solo games (MS-21)."""

    points: np.ndarray  # (N,) int64 points so far
    shots: np.ndarray  # (N,) int64 shots taken
    done: np.ndarray  # (N,) bool
    outcome: np.ndarray  # (N,) int8 ONGOING / COLONY_END / CRACK_END / MAX_ROUNDS_END
    key: np.ndarray  # (N,) uint64 per-episode RNG key

    def copy(self) -> SoloState:
        return SoloState(**{k: v.copy() for k, v in self.__dict__.items()})


def new_solo(n: int, keys: np.ndarray | None = None) -> SoloState:
    """N fresh solo episodes."""
    if keys is None:
        keys = np.zeros(n, dtype=np.uint64)
    return SoloState(
        points=np.zeros(n, dtype=np.int64),
        shots=np.zeros(n, dtype=np.int64),
        done=np.zeros(n, dtype=bool),
        outcome=np.zeros(n, dtype=np.int8),
        key=np.asarray(keys, dtype=np.uint64).copy(),
    )
