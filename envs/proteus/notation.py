"""Proteus notation (the rules file's, exactly) and the one-line position text.

Moves: ``Mo@b2`` (put the KING tile on b2), ``s@b2`` (put your square piece on b2),
``b2-c3`` (move), ``a1<>c3`` (exchange; the smaller square first in the order a1, b1, c1,
a2, ..., c3), ``pass``. Squares: files ``a``-``c`` = columns 0-2, ranks ``1``-``3`` =
rows 2-0 (``a3`` is the top-left square).

Position text (one line, fields separated by single spaces)::

    <rank 3>/<rank 2>/<rank 1> <mover> <turn>/<max_turns> h=<key>,<key>,... [result=<r>]

* each rank lists squares a, b, c separated by commas; a square is ``.`` (no tile) or a
  tile ``[MTG][ost]``, then ``+`` if it is face up, then an optional piece: ``b`` or ``w``
  (its owner) and its shape letter. Example: ``Mo+bo`` = face-up KING tile with BLACK's
  circle on it. Whatever is not on the board is in the pool / in hand (PR-8).
* ``<mover>`` is ``b`` or ``w``; ``<turn>`` counts completed turns (PR-17).
* ``h=`` is the PR-17 repetition history since the last placement, oldest first, as
  16-digit hexadecimal packed positions (``envs.proteus.kernel`` documents the packing);
  its last entry is the current position. Optional: without it the history is just the
  current position.
* ``result=`` (``black``, ``white``, ``repetition``, ``turns``) only for a finished game.

Any string either parses or raises ``ValueError`` naming the problem. Besides its syntax a
text is checked for consistency: each field at most once; ``max_turns`` in
1..``MAX_TURNS_LIMIT`` (the kernel's int32 counters); at most ``turn + 1`` history entries;
``result=`` only as the board supports it (``black``/``white``: that player alone meets the
face-up goal, PR-16; ``repetition``: the position has occurred three times, no winner;
``turns``: ``turn == max_turns``, no winner, no third occurrence, PR-17); a running game has
no winner, no third occurrence and no position seen three times before the last; PR-2 (one
face-up tile per colour) and PR-10 (in the placement phase every colour without a face-up
tile can still be activated; in the movement phase every colour has one).

Examples: the start ``.,.,./.,.,./.,.,. b 0/200 h=0ffffff000000000``; a movement-phase
position with no history::

    Mo+:bo,Ts,Gt/Ms:ws,Tt+:bt,Go+:wo/Mt:wt,To:bs,Gs b 40/200
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

import numpy as np

from envs.core.params import bounded_int
from envs.proteus.constants import (
    A_MOVE,
    A_PASS,
    A_PIECE,
    A_SWAP,
    A_TILE,
    COLOUR_LETTERS,
    DEFAULT_MAX_TURNS,
    NUM_ACTIONS,
    PAIR_A,
    PAIR_B,
    PAIR_ID,
    SHAPE_LETTERS,
)

FILES = "abc"
#: the largest ``max_turns`` (the kernel counts turns in int32)
MAX_TURNS_LIMIT = 2**31 - 1
#: PR-15 THREE-IN-LINE: rows, columns, diagonals as square sets
LINES = tuple(
    frozenset(line)
    for line in (
        (0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6),
    )
)  # fmt: skip


def check_max_turns(max_turns: object) -> int:
    """``max_turns`` as an int in 1..MAX_TURNS_LIMIT (PR-17); ValueError naming it otherwise."""
    return bounded_int(max_turns, "max_turns", MAX_TURNS_LIMIT, "PR-17")


def square_name(sq: int) -> str:
    """``a3`` for square 0 (top-left), ``c1`` for square 8."""
    return f"{FILES[sq % 3]}{3 - sq // 3}"


def notation_order(sq: int) -> int:
    """Rank in the order a1, b1, c1, a2, ..., c3 (exchanges list the smaller first)."""
    return (2 - sq // 3) * 3 + sq % 3


def parse_square(text: str) -> int:
    if len(text) != 2 or text[0] not in FILES or text[1] not in "123":
        raise ValueError(f"bad square {text!r}: expected a file a-c and a rank 1-3, e.g. b2")
    return (3 - int(text[1])) * 3 + FILES.index(text[0])


def tile_name(tile: int) -> str:
    return COLOUR_LETTERS[tile // 3] + SHAPE_LETTERS[tile % 3]


def action_to_str(action: int) -> str:
    """The rules file's notation of an action id (see ``constants`` for the encoding)."""
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        action = action.item()
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise ValueError(f"an action id is an integer in [0, {NUM_ACTIONS}), got {action!r}")
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"action {action!r} is out of range [0, {NUM_ACTIONS})")
    if a < A_PIECE:
        return f"{tile_name((a - A_TILE) // 9)}@{square_name((a - A_TILE) % 9)}"
    if a < A_MOVE:
        return f"{SHAPE_LETTERS[(a - A_PIECE) // 9]}@{square_name((a - A_PIECE) % 9)}"
    if a < A_SWAP:
        src, dst = divmod(a - A_MOVE, 9)
        return f"{square_name(src)}-{square_name(dst)}"
    if a < A_PASS:
        i, j = int(PAIR_A[a - A_SWAP]), int(PAIR_B[a - A_SWAP])
        if notation_order(j) < notation_order(i):
            i, j = j, i
        return f"{square_name(i)}<>{square_name(j)}"
    return "pass"


def str_to_action(text: str) -> int:
    """Parse the notation (surrounding spaces ignored); ValueError naming the problem."""
    if not isinstance(text, str):
        raise ValueError(f"a move must be a string in Proteus notation, got {text!r}")
    s = text.strip()
    if s == "pass":
        return A_PASS
    if "<>" in s:
        left, _, right = s.partition("<>")
        i, j = parse_square(left), parse_square(right)
        if i == j:
            raise ValueError(f"bad exchange {text!r}: the two squares must differ")
        return A_SWAP + int(PAIR_ID[i, j])
    if "-" in s:
        left, _, right = s.partition("-")
        i, j = parse_square(left), parse_square(right)
        return A_MOVE + 9 * i + j  # (i == j is an action id that is never legal)
    if "@" in s:
        what, _, where = s.partition("@")
        sq = parse_square(where)
        if len(what) == 2 and what[0] in COLOUR_LETTERS and what[1] in SHAPE_LETTERS:
            return (
                A_TILE + 9 * (3 * COLOUR_LETTERS.index(what[0]) + SHAPE_LETTERS.index(what[1])) + sq
            )
        if len(what) == 1 and what in SHAPE_LETTERS:
            return A_PIECE + 9 * SHAPE_LETTERS.index(what) + sq
        raise ValueError(
            f"bad placement {text!r}: before '@' put a tile (M/T/G + o/s/t, e.g. Mo) "
            "or a piece shape (o, s or t)"
        )
    raise ValueError(
        f"bad move {text!r}: expected e.g. Mo@b2 (tile), s@b2 (piece), b2-c3 (move), "
        "a1<>c3 (exchange) or pass"
    )


# ----------------------------------------------------------------------------- position text

RESULTS = {"black": 1, "white": 2, "repetition": 3, "turns": 4}
_SQUARE_RE = re.compile(r"^(?:\.|(?P<tile>[MTG][ost])(?P<up>\+)?(?::(?P<piece>[bw][ost]))?)$")


@dataclass
class Position:
    """A parsed position text (arrays in kernel layout, see ``envs.proteus.kernel``)."""

    tile_at: np.ndarray  # (9,) int8
    piece_at: np.ndarray  # (9,) int8
    active: np.ndarray  # (3,) int8
    player: int
    turn: int
    max_turns: int
    history: list[int] | None  # packed keys, oldest first; None = only the current one
    status: int


def format_position(
    tile_at: np.ndarray,
    piece_at: np.ndarray,
    active: np.ndarray,
    player: int,
    turn: int,
    max_turns: int,
    history: list[int],
    status: int,
) -> str:
    ranks = []
    for row in range(3):
        cells = []
        for col in range(3):
            sq = 3 * row + col
            t = int(tile_at[sq])
            if t < 0:
                cells.append(".")
                continue
            cell = tile_name(t)
            if int(active[t // 3]) == t % 3:
                cell += "+"
            pc = int(piece_at[sq])
            if pc >= 0:
                cell += ":" + "bw"[pc // 3] + SHAPE_LETTERS[pc % 3]
            cells.append(cell)
        ranks.append(",".join(cells))
    text = f"{'/'.join(ranks)} {'bw'[player]} {turn}/{max_turns}"
    text += " h=" + ",".join(f"{int(k):016x}" for k in history)
    if status:
        text += " result=" + {v: k for k, v in RESULTS.items()}[status]
    return text


def parse_position(text: str) -> Position:
    """Parse and validate a position text; ValueError naming the problem."""
    if not isinstance(text, str):
        raise ValueError(f"position must be a string, got {type(text).__name__}")
    fields = text.split()
    if len(fields) < 3:
        raise ValueError(
            f"position {text!r} needs at least 3 fields: board, mover (b/w), turn/max_turns"
        )
    board, mover, counter, *rest = fields
    ranks = board.split("/")
    if len(ranks) != 3:
        raise ValueError(f"board {board!r} must have 3 ranks separated by '/'")
    tile_at = np.full(9, -1, dtype=np.int8)
    piece_at = np.full(9, -1, dtype=np.int8)
    active = np.full(3, -1, dtype=np.int8)
    seen_tiles: set[int] = set()
    seen_pieces: set[int] = set()
    for row, rank in enumerate(ranks):
        cells = rank.split(",")
        if len(cells) != 3:
            raise ValueError(f"rank {3 - row} {rank!r} must have 3 squares separated by ','")
        for col, cell in enumerate(cells):
            m = _SQUARE_RE.match(cell)
            where = square_name(3 * row + col)
            if m is None:
                raise ValueError(
                    f"bad square {cell!r} at {where}: expected '.', or a tile like Mo, "
                    "then '+' if face up, then an optional piece like :bs"
                )
            if m.group("tile") is None:
                continue
            name = m.group("tile")
            t = 3 * COLOUR_LETTERS.index(name[0]) + SHAPE_LETTERS.index(name[1])
            if t in seen_tiles:
                raise ValueError(f"tile {name} appears twice (at {where})")
            seen_tiles.add(t)
            tile_at[3 * row + col] = t
            if m.group("up"):
                if active[t // 3] >= 0:
                    raise ValueError(
                        f"two face-up tiles of one colour ({name} at {where}); PR-2 allows one"
                    )
                active[t // 3] = t % 3
            if m.group("piece"):
                pname = m.group("piece")
                pc = 3 * "bw".index(pname[0]) + SHAPE_LETTERS.index(pname[1])
                if pc in seen_pieces:
                    raise ValueError(f"piece {pname} appears twice (at {where})")
                seen_pieces.add(pc)
                piece_at[3 * row + col] = pc
    if len(seen_tiles) == 9 and len(seen_pieces) == 6 and (active < 0).any():
        raise ValueError(
            "movement-phase position without a face-up tile of every colour (PR-10 forbids it)"
        )
    if mover not in ("b", "w"):
        raise ValueError(f"mover {mover!r} must be 'b' (black) or 'w' (white)")
    cm = re.fullmatch(r"([0-9]{1,12})/([0-9]{1,12})", counter)
    if cm is None:
        raise ValueError(f"turn counter {counter!r} must be <turn>/<max_turns>, e.g. 12/200")
    turn, max_turns = int(cm.group(1)), int(cm.group(2))
    if not 1 <= max_turns <= MAX_TURNS_LIMIT:
        raise ValueError(f"max_turns must be in 1..{MAX_TURNS_LIMIT} (PR-17), got {max_turns}")
    history: list[int] | None = None
    status = 0
    seen_result = False
    for field in rest:
        if field.startswith("h="):
            if history is not None:
                raise ValueError("the history field h= appears twice")
            items = field[2:].split(",") if field[2:] else []
            history = []
            for item in items:
                if not re.fullmatch(r"[0-9a-fA-F]{1,16}", item):
                    raise ValueError(f"history entry {item!r} is not a 64-bit hexadecimal key")
                history.append(int(item, 16))
            if not history:
                raise ValueError(
                    "the history h= is empty; omit it or end with the current position"
                )
            if len(history) > turn + 1:
                raise ValueError(
                    f"history has {len(history)} entries, more than turn + 1 = {turn + 1} "
                    "(one per turn since the last placement, plus the start)"
                )
        elif field.startswith("result="):
            if seen_result:
                raise ValueError("the field result= appears twice")
            seen_result = True
            r = field[len("result=") :]
            if r not in RESULTS:
                raise ValueError(f"result {r!r} must be one of {', '.join(RESULTS)}")
            status = RESULTS[r]
        else:
            raise ValueError(f"unknown field {field!r} (expected h=... or result=...)")
    if turn > max_turns or (turn == max_turns and status == 0):
        raise ValueError(
            f"turn {turn} has reached max_turns {max_turns} but no result= is given (PR-17)"
        )
    if len(seen_tiles) < 9 or len(seen_pieces) < 6:
        _check_pr10(tile_at, piece_at, active)
    _check_result(tile_at, piece_at, active, turn, max_turns, history, status)
    return Position(tile_at, piece_at, active, "bw".index(mover), turn, max_turns, history, status)


def goal_winner(tile_at: np.ndarray, piece_at: np.ndarray, active: np.ndarray) -> int:
    """PR-15/PR-16: the only player (0 black, 1 white) meeting the face-up goal, else -1."""
    goal = int(active[2])
    if goal < 0:
        return -1
    meets = []
    for player in range(2):
        squares = [sq for sq in range(9) if piece_at[sq] >= 0 and piece_at[sq] // 3 == player]
        if len(squares) < 3:  # PR-15: a goal needs all three pieces on the board
            meets.append(False)
        elif goal == 0:  # THREE-IN-LINE
            meets.append(frozenset(squares) in LINES)
        else:  # COLOUR (goal 1) or SHAPE (goal 2) of the three tiles under the pieces
            kinds = {int(tile_at[sq]) // 3 if goal == 1 else int(tile_at[sq]) % 3 for sq in squares}
            meets.append(len(kinds) == 1)
    if meets[0] != meets[1]:
        return 0 if meets[0] else 1
    return -1  # nobody, or both: play goes on (PR-16)


def _check_pr10(tile_at: np.ndarray, piece_at: np.ndarray, active: np.ndarray) -> None:
    """Placement phase: every colour without a face-up tile can still be activated (PR-10)."""
    need = [c for c in range(3) if active[c] < 0]
    if not need:
        return
    hand = [pc for pc in range(6) if pc not in set(int(p) for p in piece_at)]
    covered = {int(tile_at[sq]) for sq in range(9) if piece_at[sq] >= 0}
    avail = set(range(9)) - covered  # in the pool or placed without a piece
    for chosen in itertools.permutations(hand, len(need)):
        if all(3 * c + pc % 3 in avail for c, pc in zip(need, chosen, strict=True)):
            return
    names = ", ".join(("brown", "turquoise", "gold")[c] for c in need)
    raise ValueError(
        f"placement-phase position where {names} can no longer all be activated: no "
        "pieces in hand match their free tiles (PR-10 forbids it)"
    )


def _check_result(
    tile_at: np.ndarray,
    piece_at: np.ndarray,
    active: np.ndarray,
    turn: int,
    max_turns: int,
    history: list[int] | None,
    status: int,
) -> None:
    """``result=`` as the board supports it, and no running game that should have ended."""
    winner = goal_winner(tile_at, piece_at, active)
    keys = history or []
    occurrences = keys.count(keys[-1]) if keys else 1
    for i in range(len(keys) - 1):
        if keys[: i + 1].count(keys[i]) >= 3:
            raise ValueError(
                f"history entry {i} ({keys[i]:016x}) is a third occurrence: the game ended "
                "there by repetition (PR-17)"
            )
    names = {v: k for k, v in RESULTS.items()}
    if status == 0:
        if winner >= 0:
            raise ValueError(
                f"the game is running but {'black' if winner == 0 else 'white'} alone meets the "
                "face-up goal: it has won (PR-16); give result=, or fix the board"
            )
        if occurrences >= 3:
            raise ValueError(
                "the game is running but its position has occurred three times: it is a draw "
                "by repetition (PR-17); give result=repetition"
            )
        return
    why = ""
    if status in (1, 2) and winner != status - 1:
        who = names[status]
        why = f"{who} does not meet the face-up goal alone (PR-15, PR-16)"
    elif status in (3, 4) and winner >= 0:
        why = f"{'black' if winner == 0 else 'white'} meets the face-up goal alone: it won (PR-16)"
    elif status == 3 and occurrences < 3:
        why = f"the position has occurred {occurrences} time(s), not three (PR-17; see h=)"
    elif status == 4 and occurrences >= 3:
        why = "the position occurred a third time: that is result=repetition (PR-17)"
    elif status == 4 and turn != max_turns:
        why = f"turn {turn} has not reached max_turns {max_turns} (PR-17)"
    if why:
        raise ValueError(f"result={names[status]} does not fit the board: {why}")


DEFAULT_START = f".,.,./.,.,./.,.,. b 0/{DEFAULT_MAX_TURNS}"
