"""Two tiny games over the TurnBasedEnv template, to test the template on its own.

Tic-tac-toe (2 seats, win/draw) and "hot potato" Nim (3 seats, eliminations): a seat takes
1 or 2 from a pile; whoever takes the last one is eliminated and the pile refills; the last
seat standing wins.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.turn_based import TurnBasedEnv, make_env

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


class TicTacToe(TurnBasedEnv):
    metadata = {
        "name": "toy_tictactoe_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "render_fps": 30,
    }

    def __init__(self, render_mode: str | None = None) -> None:
        self.possible_agents = ["x", "o"]
        self.num_actions = 9
        self.obs_shape = (9, 2)
        super().__init__(render_mode)

    def _reset_state(self, rng: np.random.Generator, options: dict[str, Any] | None) -> None:
        text = (options or {}).get("position", ".........")
        if len(text) != 9 or set(text) - set(".xo"):
            raise ValueError(f"malformed position {text!r}: 9 characters of '.', 'x', 'o'")
        self.board = np.array([".xo".index(c) for c in text], dtype=np.int8)  # 0 empty, 1 x, 2 o
        self.turn = int((self.board > 0).sum())

    def _winner(self) -> int:
        for a, b, c in LINES:
            if self.board[a] and self.board[a] == self.board[b] == self.board[c]:
                return int(self.board[a]) - 1
        return -1

    def _current_seat(self) -> int:
        return self.turn % 2

    def _legal_mask(self) -> np.ndarray:
        return (self.board == 0).astype(np.int8)

    def _apply(self, action: int) -> None:
        self.board[action] = self.turn % 2 + 1
        self.turn += 1

    def _seat_status(self) -> tuple[np.ndarray, np.ndarray]:
        winner = self._winner()
        over = winner >= 0 or self.turn == 9
        final = np.zeros(2)
        if winner >= 0:
            final[:] = -1.0
            final[winner] = 1.0
        return np.array([over, over]), final

    def _observe_seat(self, seat: int) -> np.ndarray:
        own, other = seat + 1, 2 - seat
        return np.stack([self.board == own, self.board == other], axis=1).astype(np.float32)

    def action_to_str(self, action: int) -> str:
        return "abc"[action % 3] + str(3 - action // 3)

    def str_to_action(self, text: str) -> int:
        if len(text) != 2 or text[0] not in "abc" or text[1] not in "123":
            raise ValueError(f"malformed move {text!r}: expected a square such as 'b2'")
        return (3 - int(text[1])) * 3 + "abc".index(text[0])

    def to_text(self) -> str:
        return "".join(".xo"[v] for v in self.board)

    def _render_ansi(self) -> str:
        t = self.to_text()
        return "\n".join(t[i : i + 3] for i in (0, 3, 6))

    def _render_rgb(self) -> np.ndarray:
        img = np.zeros((30, 30, 3), dtype=np.uint8)
        for i, v in enumerate(self.board):
            img[(i // 3) * 10 : (i // 3) * 10 + 9, (i % 3) * 10 : (i % 3) * 10 + 9] = 80 * v
        return img


class HotPotato(TurnBasedEnv):
    metadata = {"name": "toy_hot_potato_v0", "render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, render_mode: str | None = None, pile: int = 5) -> None:
        self.possible_agents = ["p0", "p1", "p2"]
        self.num_actions = 2
        self.obs_shape = (4,)
        self.obs_high = 10.0
        self.pile_size = pile
        super().__init__(render_mode)

    def _reset_state(self, rng: np.random.Generator, options: dict[str, Any] | None) -> None:
        self.pile = self.pile_size
        self.alive = np.ones(3, dtype=bool)
        self.seat = int(rng.integers(3))  # seeded random first player

    def _current_seat(self) -> int:
        return self.seat

    def _legal_mask(self) -> np.ndarray:
        return np.array([1, 1 if self.pile >= 2 else 0], dtype=np.int8)

    def _apply(self, action: int) -> None:
        self.pile -= action + 1
        if self.pile == 0:
            self.alive[self.seat] = False
            self.pile = self.pile_size
        if self.alive.sum() > 1:
            self.seat = (self.seat + 1) % 3
            while not self.alive[self.seat]:
                self.seat = (self.seat + 1) % 3

    def _seat_status(self) -> tuple[np.ndarray, np.ndarray]:
        over = self.alive.sum() == 1
        done = ~self.alive | over
        final = np.where(self.alive, 1.0, -1.0)
        return done, final

    def _observe_seat(self, seat: int) -> np.ndarray:
        return np.array([self.pile, *np.roll(self.alive, -seat)], dtype=np.float32)

    def action_to_str(self, action: int) -> str:
        return f"take{action + 1}"

    def str_to_action(self, text: str) -> int:
        if text not in ("take1", "take2"):
            raise ValueError(f"malformed move {text!r}")
        return int(text[-1]) - 1

    def to_text(self) -> str:
        return f"{self.pile} {self.seat} {''.join('1' if a else '0' for a in self.alive)}"

    def _render_ansi(self) -> str:
        return self.to_text()

    def _render_rgb(self) -> np.ndarray:
        return np.zeros((4, 4, 3), dtype=np.uint8)


tictactoe_env = make_env(TicTacToe)
hot_potato_env = make_env(HotPotato)
