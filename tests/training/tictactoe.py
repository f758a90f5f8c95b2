"""A tiny tic-tac-toe ``BatchGame`` (test-only) for the training layer's tests.

Vectorised numpy, no Numba: it follows the protocol of ``envs/core/batch.py`` exactly
(per-game splitmix64 RNG keys, rewards +1/-1/0 in the step that ends a game, auto-reset)
so the self-play VecEnv can be tested before and apart from the real games.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

LINES = np.array(
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]]
)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def _splitmix(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(new_key, random uint64) for each key: splitmix64."""
    with np.errstate(over="ignore"):
        key = key + _GOLDEN
        z = key.copy()
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        z = z ^ (z >> np.uint64(31))
    return key, z


@dataclass
class TTTState:
    board: np.ndarray  # (B, 9) int8: 0 empty, 1 seat 0 (X), 2 seat 1 (O)
    to_move: np.ndarray  # (B,) int8
    over: np.ndarray  # (B,) bool
    key: np.ndarray  # (B,) uint64 per-game RNG key
    seed_key: np.ndarray  # (B,) uint64 key a game restarts from (auto-reset)


class TicTacToe:
    """Tic-tac-toe as a ``BatchGame``: 9 actions (cells), obs planes (own, other)."""

    name = "tictactoe"
    num_players = 2
    num_actions = 9
    obs_shape = (2, 3, 3)

    def init(self, batch_size: int, seed: int) -> TTTState:
        base = np.uint64(seed & 0xFFFFFFFFFFFFFFFF)
        with np.errstate(over="ignore"):
            keys = base * np.uint64(1_000_003) + np.arange(batch_size, dtype=np.uint64)
        keys, _ = _splitmix(keys)
        return TTTState(
            board=np.zeros((batch_size, 9), np.int8),
            to_move=np.zeros(batch_size, np.int8),
            over=np.zeros(batch_size, bool),
            key=keys.copy(),
            seed_key=keys.copy(),
        )

    def from_boards(self, boards: list[str]) -> TTTState:
        """Positions from 9-char strings ('x', 'o', '.'); X moves when counts are equal."""
        state = self.init(len(boards), 0)
        for i, text in enumerate(boards):
            cells = np.array([".xo".index(c) for c in text], np.int8)
            state.board[i] = cells
            state.to_move[i] = int((cells == 1).sum() > (cells == 2).sum())
        return state

    def copy(self, state: TTTState) -> TTTState:
        return TTTState(*(np.array(getattr(state, f)) for f in state.__dataclass_fields__))

    def take(self, state: TTTState, index: np.ndarray) -> TTTState:
        return TTTState(*(getattr(state, f)[index].copy() for f in state.__dataclass_fields__))

    def current_player(self, state: TTTState) -> np.ndarray:
        return np.where(state.over, -1, state.to_move).astype(np.int64)

    def legal_mask(self, state: TTTState) -> np.ndarray:
        return (state.board == 0) & ~state.over[:, None]

    def _winner(self, board: np.ndarray) -> np.ndarray:
        """(B,) 0 none, 1 X, 2 O."""
        lines = board[:, LINES]  # (B, 8, 3)
        x = (lines == 1).all(axis=2).any(axis=1)
        o = (lines == 2).all(axis=2).any(axis=1)
        return np.where(x, 1, np.where(o, 2, 0))

    def step(
        self, state: TTTState, actions: np.ndarray, auto_reset: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        actions = np.asarray(actions, np.int64)
        b = np.arange(len(actions))
        legal = self.legal_mask(state)
        if not legal[b, actions].all():
            bad = int(np.flatnonzero(~legal[b, actions])[0])
            raise ValueError(f"illegal action {actions[bad]} in game {bad}")
        state.board[b, actions] = state.to_move + 1
        win = self._winner(state.board)
        full = (state.board != 0).all(axis=1)
        done = (win > 0) | full
        rewards = np.zeros((len(actions), 2), np.float32)
        rewards[win == 1] = (1.0, -1.0)
        rewards[win == 2] = (-1.0, 1.0)
        state.over |= done
        state.to_move = np.where(done, state.to_move, 1 - state.to_move).astype(np.int8)
        if auto_reset and done.any():
            idx = np.flatnonzero(done)
            state.seed_key[idx], _ = _splitmix(state.seed_key[idx])
            state.key[idx] = state.seed_key[idx]
            state.board[idx] = 0
            state.to_move[idx] = 0
            state.over[idx] = False
        return rewards, done

    def random_actions(self, state: TTTState) -> np.ndarray:
        legal = self.legal_mask(state)
        state.key, r = _splitmix(state.key)
        n = legal.sum(axis=1)
        pick = (r % np.maximum(n, 1).astype(np.uint64)).astype(np.int64)
        order = np.cumsum(legal, axis=1) - 1
        hit = legal & (order == pick[:, None])
        return np.where(n > 0, hit.argmax(axis=1), 0).astype(np.int64)

    def terminated(self, state: TTTState) -> np.ndarray:
        return state.over.copy()

    def observe(self, state: TTTState, seats: np.ndarray) -> np.ndarray:
        seats = np.asarray(seats, np.int64)
        own = state.board == (seats[:, None] + 1)
        other = (state.board != 0) & ~own
        return np.stack([own, other], axis=1).reshape(-1, 2, 3, 3).astype(np.float32)
