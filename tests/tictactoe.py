"""A tiny tic-tac-toe BatchGame (test-only) for the game-agnostic agent, ladder and training
code, so that layer can be tested before and apart from the real games.

It follows envs/core/batch.py exactly: a dataclass of numpy arrays with a leading batch
axis, per-game RNG keys derived from (seed, i), rewards +1/-1/0 in the step that ends a
game, optional auto-reset. Written in vectorised numpy (no Numba needed for a test game).
An optional ``num_players`` > 2 gives a "last man standing" variant used to test per-seat
value backup and multi-player ladders: the seat that completes a line wins, the others lose.
Observations: one plane per seat, the observer's stones first, then the others in seat
order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

LINES = np.array(
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]]
)
_M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def _splitmix(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One splitmix64 step over a uint64 array: (new state, output)."""
    with np.errstate(over="ignore"):
        s = (x + np.uint64(0x9E3779B97F4A7C15)) & _M64
        z = s
        z = ((z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)) & _M64
        z = ((z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)) & _M64
        z = z ^ (z >> np.uint64(31))
    return s, z


@dataclass
class TTTState:
    board: np.ndarray  # (B, 9) int8: -1 empty, else seat
    player: np.ndarray  # (B,) int8 seat to move
    over: np.ndarray  # (B,) bool
    key: np.ndarray  # (B,) uint64 per-game RNG key
    episode: np.ndarray  # (B,) int64 games started in this slot (for auto-reset keys)


class TicTacToe:
    """BatchGame protocol implementation (num_players 2 or 3: three seats simply take turns
    on the same 3x3 board)."""

    name = "tictactoe"
    num_actions = 9
    obs_shape = (2, 3, 3)

    def __init__(self, num_players: int = 2) -> None:
        if num_players not in (2, 3):
            raise ValueError(f"tictactoe supports 2 or 3 players, got {num_players}")
        self.num_players = num_players
        self.obs_shape = (num_players, 3, 3)

    def init(self, batch_size: int, seed: int) -> TTTState:
        idx = np.arange(batch_size, dtype=np.uint64)
        with np.errstate(over="ignore"):
            key0 = (np.uint64(seed & 0xFFFFFFFFFFFFFFFF) * np.uint64(0x100000001B3)) ^ (
                idx * np.uint64(0x9E3779B97F4A7C15)
            )
        _, key = _splitmix(key0)
        return TTTState(
            board=np.full((batch_size, 9), -1, np.int8),
            player=np.zeros(batch_size, np.int8),
            over=np.zeros(batch_size, bool),
            key=key,
            episode=np.zeros(batch_size, np.int64),
        )

    def from_boards(self, boards: list[str]) -> TTTState:
        """Two-player positions from 9-char strings ('x' seat 0, 'o' seat 1, '.' empty);
        X is to move when the counts are equal."""
        state = self.init(len(boards), 0)
        for i, text in enumerate(boards):
            cells = np.array([".xo".index(c) - 1 for c in text], np.int8)
            state.board[i] = cells
            state.player[i] = int((cells == 0).sum() > (cells == 1).sum())
        return state

    def copy(self, state: TTTState) -> TTTState:
        return TTTState(*(np.array(getattr(state, f)) for f in state.__dataclass_fields__))

    def take(self, state: TTTState, index: np.ndarray) -> TTTState:
        index = np.asarray(index, np.int64)
        return TTTState(*(getattr(state, f)[index].copy() for f in state.__dataclass_fields__))

    def current_player(self, state: TTTState) -> np.ndarray:
        return np.where(state.over, -1, state.player).astype(np.int64)

    def legal_mask(self, state: TTTState) -> np.ndarray:
        return (state.board < 0) & ~state.over[:, None]

    def step(
        self, state: TTTState, actions: np.ndarray, auto_reset: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        actions = np.asarray(actions, np.int64)
        b = state.board.shape[0]
        mask = self.legal_mask(state)
        rows = np.arange(b)
        if not mask[rows, actions].all():
            bad = int(np.flatnonzero(~mask[rows, actions])[0])
            raise ValueError(f"illegal action {int(actions[bad])} in game {bad}")
        seat = state.player.astype(np.int64)
        state.board[rows, actions] = seat
        lines = state.board[:, LINES]  # (B, 8, 3)
        won = ((lines == seat[:, None, None]).all(axis=2)).any(axis=1)
        full = (state.board >= 0).all(axis=1)
        done = won | full
        rewards = np.zeros((b, self.num_players), np.float32)
        rewards[won] = -1.0
        rewards[rows[won], seat[won]] = 1.0
        state.over |= done
        state.player = ((seat + 1) % self.num_players).astype(np.int8)
        if auto_reset and done.any():
            d = np.flatnonzero(done)
            state.board[d] = -1
            state.player[d] = 0
            state.over[d] = False
            state.episode[d] += 1
        return rewards, done

    def random_actions(self, state: TTTState) -> np.ndarray:
        state.key, out = _splitmix(state.key)
        mask = self.legal_mask(state)
        counts = mask.sum(axis=1)
        pick = (out % np.maximum(counts, 1).astype(np.uint64)).astype(np.int64)
        order = np.cumsum(mask, axis=1) - 1
        hit = mask & (order == pick[:, None])
        return np.where(counts > 0, hit.argmax(axis=1), 0).astype(np.int64)

    def terminated(self, state: TTTState) -> np.ndarray:
        return state.over.copy()

    def observe(self, state: TTTState, seats: np.ndarray) -> np.ndarray:
        seats = np.asarray(seats, np.int64)
        b = state.board.shape[0]
        planes = np.zeros((b, self.num_players, 9), np.float32)
        for k in range(self.num_players):
            rel = (seats + k) % self.num_players  # own stones first
            planes[:, k] = state.board == rel[:, None]
        return planes.reshape(b, *self.obs_shape)
