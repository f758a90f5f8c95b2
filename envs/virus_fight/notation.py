"""Virus Fight move notation (rules file, "Turn structure and notation") <-> action ids.

Squares: files ``a``.. left to right (col 0..), ranks ``1``.. bottom to top (rank 1 is
row n-1). Instructions: kind letter ``M W J E`` + size digit: ``W2``.

==================  ===================  ==========================================
notation            meaning              action id (``N = n*n``, cell = row*n+col)
==================  ===================  ==========================================
``W2@c1``           put from supply      ``p*N + cell``, ``p = 3*kind + size - 1``
``c1-d2``           MOVE an instruction  ``12N + from*N + to``
``xc2``             ERASE a target       ``12N + N^2 + cell``
``*c2``             marker to a square   ``13N + N^2 + cell``
``pass``            decline / no choice  ``14N + N^2``
==================  ===================  ==========================================
"""

from __future__ import annotations

import re

import numpy as np

from envs.virus_fight.kernel import KIND_LETTERS, action_offsets, num_actions

_SQ = r"([a-h])([1-8])"
_PUT = re.compile(rf"^([MWJE])([123])@{_SQ}$")
_MOVE = re.compile(rf"^{_SQ}-{_SQ}$")
_ERASE = re.compile(rf"^x{_SQ}$")
_MARK = re.compile(rf"^\*{_SQ}$")


def _check_size(n: object) -> None:
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or not 5 <= n <= 8:
        raise ValueError(f"board size must be an int in 5..8 (VF-4), got {n!r}")


def square_to_str(cell: int, n: int) -> str:
    """Cell index (row*n + col, row 0 on top) -> ``c1`` style name."""
    r, c = divmod(cell, n)
    return f"{chr(ord('a') + c)}{n - r}"


def str_to_square(text: str, n: int) -> int:
    """``c1`` style name -> cell index; ValueError when off an n x n board."""
    m = re.fullmatch(_SQ, text) if isinstance(text, str) else None
    if not m:
        raise ValueError(f"bad square {text!r}: expected a file a-h and a rank 1-8")
    col = ord(m.group(1)) - ord("a")
    rank = int(m.group(2))
    if col >= n or rank > n:
        raise ValueError(f"square {text!r} is off the {n}x{n} board")
    return (n - rank) * n + col


def piece_to_str(p: int) -> str:
    """Piece code 0..11 -> ``W2``."""
    return f"{KIND_LETTERS[p // 3]}{p % 3 + 1}"


def str_to_piece(text: str) -> int:
    """``W2`` -> piece code (ValueError when malformed)."""
    if (
        not isinstance(text, str)
        or len(text) != 2
        or text[0] not in KIND_LETTERS
        or text[1] not in "123"
    ):
        raise ValueError(f"bad instruction {text!r}: expected M/W/J/E and a size 1-3")
    return 3 * KIND_LETTERS.index(text[0]) + int(text[1]) - 1


def action_to_str(action: int, n: int) -> str:
    """Action id -> notation string (ValueError when not an integer id or out of range)."""
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        action = action.item()
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise ValueError(f"an action id is an integer, got {action!r}")
    action = int(action)
    _check_size(n)
    cells = n * n
    if not 0 <= action < num_actions(n):
        raise ValueError(f"action {action} out of range 0..{num_actions(n) - 1}")
    _, o_move, o_erase, o_mark, o_pass = action_offsets(n)
    if action < o_move:
        p, c = divmod(action, cells)
        return f"{piece_to_str(p)}@{square_to_str(c, n)}"
    if action < o_erase:
        f, t = divmod(action - o_move, cells)
        return f"{square_to_str(f, n)}-{square_to_str(t, n)}"
    if action < o_mark:
        return "x" + square_to_str(action - o_erase, n)
    if action < o_pass:
        return "*" + square_to_str(action - o_mark, n)
    return "pass"


def str_to_action(text: str, n: int) -> int:
    """Notation string -> action id; ValueError naming the problem when malformed."""
    if not isinstance(text, str):
        raise ValueError(f"move must be a string, got {type(text).__name__}")
    _check_size(n)
    t = text.strip()
    cells = n * n
    _, o_move, o_erase, o_mark, o_pass = action_offsets(n)
    if t == "pass":
        return o_pass
    m = _PUT.match(t)
    if m:
        p = str_to_piece(m.group(1) + m.group(2))
        return p * cells + str_to_square(m.group(3) + m.group(4), n)
    m = _MOVE.match(t)
    if m:
        f = str_to_square(m.group(1) + m.group(2), n)
        to = str_to_square(m.group(3) + m.group(4), n)
        return o_move + f * cells + to
    m = _ERASE.match(t)
    if m:
        return o_erase + str_to_square(m.group(1) + m.group(2), n)
    m = _MARK.match(t)
    if m:
        return o_mark + str_to_square(m.group(1) + m.group(2), n)
    raise ValueError(
        f"cannot read move {text!r}: expected W2@c1 (put), c1-d2 (move), xc2 (erase), "
        "*c2 (marker) or pass"
    )
