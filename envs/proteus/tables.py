"""Proteus lookup tables, built once at import (see ``docs/proteus.md``).

Why a module of its own: the legality (``legal.py``), transition (``rules.py``) and
observation (``observe.py``) kernels all read these tables, and none of them should
import another only to reach a table.

* ``POPC`` / ``LOWBIT``: population count and lowest set bit of a 9-bit square mask.
* ``BROWN_T[rule, sq]``: PR-12 move targets of the KING, ROOK and BISHOP rules.
* ``IS_LINE``: PR-15 THREE-IN-LINE masks (rows, columns, diagonals).
* ``FEAS``: PR-10 feasibility bits (Hall's condition), one lookup per question.
* ``NTH``, ``DEP9``, ``DENSE_TILE`` / ``DENSE_PIECE``, ``ACT_CODE``: lookups that replace
  per-game branches in the batch loops (the n-th legal square, the packed mask's tile
  block, the dense observation's square bytes, the action check's decoding).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.core.cache import guard_cache
from envs.proteus.constants import (
    A_MOVE,
    A_PASS,
    A_PIECE,
    A_SWAP,
    NUM_ACTIONS,
    PAIR_A,
    PAIR_B,
    PAIR_ID,
)

EMPTY_TSQ = (1 << 36) - 1
EMPTY_PIECES = (1 << 24) - 1
HAND_ALL = 63 << 45
N_PLANES = 35


@njit(cache=True)
def _hall(need, avail, hand):
    """PR-10 feasibility by Hall's condition (colours vs shapes, capacity = pieces in hand)."""
    sub = need
    while sub:
        union = 0
        k = 0
        for c in range(3):
            if (sub >> c) & 1:
                union |= (avail >> (3 * c)) & 7
                k += 1
        cap = 0
        for s in range(3):
            if (union >> s) & 1:
                cap += ((hand >> s) & 1) + ((hand >> (3 + s)) & 1)
        if cap < k:
            return False
        sub = (sub - 1) & need
    return True


@njit(cache=True)
def _build_feas():
    feas = np.zeros(1 << 12, dtype=np.uint64)
    for idx in range(1 << 18):
        if _hall(idx & 7, (idx >> 3) & 511, idx >> 12):
            feas[idx >> 6] |= np.uint64(1) << np.uint64(idx & 63)
    return feas


def _build_tables() -> dict[str, np.ndarray]:
    popc = np.array([bin(m).count("1") for m in range(512)], dtype=np.int64)
    low = np.array([(m & -m).bit_length() - 1 if m else 9 for m in range(512)], dtype=np.int64)
    brown = np.zeros((3, 16), dtype=np.int64)  # PR-12 targets of KING, ROOK, BISHOP
    for sq in range(9):
        r, c = divmod(sq, 3)
        for t in range(9):
            rr, cc = divmod(t, 3)
            if t == sq:
                continue
            if max(abs(rr - r), abs(cc - c)) == 1:
                brown[0, sq] |= 1 << t  # KING: the up to 8 neighbours
            if rr == r or cc == c:
                brown[1, sq] |= 1 << t  # ROOK: any square of its row or column
            if rr != r and cc != c:
                brown[2, sq] |= 1 << t  # BISHOP: neither its row nor its column
    is_line = np.zeros(512, dtype=np.bool_)
    for m in (0o007, 0o070, 0o700, 0o111, 0o222, 0o444, 0o421, 0o124):
        is_line[m] = True  # PR-15 THREE-IN-LINE: rows, columns, diagonals
    # PR-10: bit (need | avail << 3 | hand << 12) of FEAS: the colours in ``need`` (3 bits)
    # can be matched to distinct pieces in ``hand`` (6 bits, either player's) whose tile
    # (colour, piece shape) is in ``avail`` (9 bits: pool or placed without a piece).
    feas = _build_feas()
    return {"popc": popc, "low": low, "brown": brown, "is_line": is_line, "feas": feas}


_T = _build_tables()
POPC = _T["popc"]
LOWBIT = _T["low"]
BROWN_T = _T["brown"]
IS_LINE = _T["is_line"]
FEAS = _T["feas"]
_PAIR_A = PAIR_A
_PAIR_B = PAIR_B
_PAIR_ID = PAIR_ID
_PAIR3 = np.array([[0, 1], [0, 2], [1, 2]], dtype=np.int64)
#: ACT_CODE[action] = kind | first << 4 | second << 8: the caller's action decoded by one
#: load (``legal._action_core``, a vector loop: no division, no branch). Kind 0: tile
#: ``first`` on square ``second``; 1: own piece of shape ``first`` on square ``second``;
#: 2: move from square ``first`` to ``second``; 3: exchange of squares ``first``,
#: ``second``; 4: the pass.
ACT_CODE = np.zeros(NUM_ACTIONS, dtype=np.int64)
for _kind, (_lo, _hi) in enumerate(((0, A_PIECE), (A_PIECE, A_MOVE), (A_MOVE, A_SWAP))):
    for _x in range(_lo, _hi):
        _first, _second = divmod(_x - _lo, 9)
        ACT_CODE[_x] = _kind | _first << 4 | _second << 8
ACT_CODE[A_SWAP:A_PASS] = 3 | PAIR_A << 4 | PAIR_B << 8
ACT_CODE[A_PASS] = 4
#: NTH[m, n] = square of the n-th (0-based) set bit of the 9-bit mask m (9 past the last):
#: the n-th legal action of a group in one load instead of a loop of n steps
NTH = np.full((512, 16), 9, dtype=np.int8)
for _m in range(512):
    for _n, _sq in enumerate(_sq for _sq in range(9) if (_m >> _sq) & 1):
        NTH[_m, _n] = _sq
#: DEP9[m] = bit t of the 7-bit mask m moved to bit 9 t (a set of pool tiles times a 9-bit
#: set of squares is then the tile block of the packed legal mask, ``legal._fill_bits``)
DEP9 = np.array(
    [sum(1 << (9 * t) for t in range(7) if (m >> t) & 1) for m in range(128)], dtype=np.uint64
)
#: DENSE_TILE[act, nibble] = the dense observation's square byte for a tile nibble (tile id
#: + 1, 0 = none): the nibble, | 16 when that tile is face up under the ``act`` word;
#: DENSE_PIECE[me, nibble] = the byte's piece bits for a piece nibble (piece id + 1, 0 =
#: none) seen by seat ``me`` (``observe._write_dense``: one load each, no branch).
DENSE_TILE = np.zeros((64, 16), dtype=np.uint8)
for _a in range(64):
    for _c in range(16):
        _t = _c - 1
        _up = 0 <= _t < 9 and ((_a >> (2 * (_t // 3))) & 3) == _t % 3 + 1
        DENSE_TILE[_a, _c] = _c | (16 if _up else 0)
DENSE_PIECE = np.zeros((2, 16), dtype=np.uint8)
for _me in range(2):
    for _c in range(1, 7):
        _pc = _c - 1
        DENSE_PIECE[_me, _c] = (1 + _pc % 3 + (0 if _pc // 3 == _me else 3)) << 5

guard_cache(globals())  # recompile if a sibling kernel file changed (envs/core/cache.py)
