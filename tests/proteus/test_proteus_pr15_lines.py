"""PR-15 THREE-IN-LINE: every row, column and both diagonals win; no other triple does.

The rules tests show a column win; here each of the eight lines is completed by a ROOK
move (PR-12) of BLACK's circle, the diagonals and anti-diagonals included, and all 84
triples of squares are checked against the line table through the kernel's goal test
(PR-16: the only player meeting the goal wins).
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from envs.proteus import kernel as K
from envs.proteus_v0 import raw_env

SQUARES = ["a3", "b3", "c3", "a2", "b2", "c2", "a1", "b1", "c1"]  # square index 3*row + col
LINES = {
    "rank 3": (0, 1, 2), "rank 2": (3, 4, 5), "rank 1": (6, 7, 8),
    "file a": (0, 3, 6), "file b": (1, 4, 7), "file c": (2, 5, 8),
    "diagonal a3-c1": (0, 4, 8), "anti-diagonal c3-a1": (2, 4, 6),
}  # fmt: skip
LINE_SETS = {frozenset(sq) for sq in LINES.values()}
# tiles by square: brown on rank 3, turquoise on rank 2, gold on rank 1; file a circles,
# b squares, c triangles. Face up: Ms (ROOK), Ts (COLOUR exchange), Go (THREE-IN-LINE).
TILES = ["Mo", "Ms+", "Mt", "To", "Ts+", "Tt", "Go+", "Gs", "Gt"]


def _text(pieces: dict[int, str], mover: str = "b") -> str:
    cells = [TILES[sq] + (f":{pieces[sq]}" if sq in pieces else "") for sq in range(9)]
    ranks = [",".join(cells[3 * r : 3 * r + 3]) for r in range(3)]
    return "/".join(ranks) + f" {mover} 30/200"


def _same_row_or_col(a: int, b: int) -> bool:
    return a // 3 == b // 3 or a % 3 == b % 3


def _line_case(line: tuple[int, int, int]) -> tuple[str, str]:
    """A position where BLACK's circle completes ``line`` by a ROOK move, and that move.

    Black's square and triangle stand on two squares of the line, the circle off it in the
    row or column of the third (vacant) square; white's three pieces elsewhere, in no line.
    Only circles land on the target (column a holds the circle tiles, Go already up), so
    the move never changes the face-up goal (PR-6).
    """
    for target in line:
        rest = [sq for sq in line if sq != target]
        for src in range(9):
            if src in line or not _same_row_or_col(src, target):
                continue
            if frozenset([*rest, src]) in LINE_SETS:
                continue
            free = [sq for sq in range(9) if sq not in line and sq != src]
            for white in combinations(free, 3):
                if frozenset(white) in LINE_SETS:
                    continue
                pieces = {rest[0]: "bs", rest[1]: "bt", src: "bo"}
                pieces.update(zip(white, ["wo", "ws", "wt"], strict=True))
                return _text(pieces), f"{SQUARES[src]}-{SQUARES[target]}"
    raise AssertionError(f"no case for {line}")


@pytest.mark.parametrize("name", list(LINES))
def test_pr15_every_line_wins(name: str) -> None:
    text, move = _line_case(LINES[name])
    e = raw_env()
    e.reset(options={"position": text})
    assert move in e.legal_moves()
    e.step(e.str_to_action(move))
    assert e.state_status == "black wins", (name, text, move)
    assert e.rewards == {"black": 1.0, "white": -1.0}


DIAGONAL = "Mo,Ms+:bo,Mt:wo/To:ws,Ts+:bs,Tt:wt/Go+,Gs,Gt:bt b 30/200"
ANTI_DIAGONAL = "Mo:bo,Ms+:wo,Mt/To:ws,Ts+:bs,Tt:wt/Go+:bt,Gs,Gt b 30/200"


@pytest.mark.parametrize(
    ("text", "move", "status"),
    [
        (DIAGONAL, "b3-a3", "black wins"),  # a3 b2 c1
        (DIAGONAL, "b3-b1", "ongoing"),  # b1 b2 c1: bent
        (ANTI_DIAGONAL, "a3-c3", "black wins"),  # c3 b2 a1
        (ANTI_DIAGONAL, "a1-b1", "ongoing"),  # a3 b2 b1: bent
    ],
)
def test_pr15_diagonals_written_out(text: str, move: str, status: str) -> None:
    """The two diagonal cases as readable positions, each with a bent near miss."""
    e = raw_env()
    e.reset(options={"position": text})
    e.step(e.str_to_action(move))
    assert e.state_status == status


@pytest.mark.parametrize("player", [0, 1])
def test_pr15_exactly_the_eight_lines_among_all_triples(player: int) -> None:
    """All 84 triples: the THREE-IN-LINE goal is met exactly on rows, columns, diagonals."""
    tile_at = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8])
    for triple in combinations(range(9), 3):
        piece_at = -np.ones(9, dtype=np.int64)
        for shape, sq in enumerate(triple):
            piece_at[sq] = 3 * player + shape
        st = K.from_board(tile_at, piece_at, np.array([1, 1, 0]), player=1 - player)
        winner = K._goal_winner(st.tiles[0], st.pieces[0], st.bb[0], st.act[0])
        expect = player if frozenset(triple) in LINE_SETS else -1
        assert winner == expect, (triple, winner)
