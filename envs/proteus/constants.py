"""Constants shared by the Proteus kernel, the reference and the env (nothing else is shared).

Squares are numbered ``sq = 3 * row + col`` with row 0 at the top (PR-1); in the rules'
notation file ``a``-``c`` is the column and rank ``1``-``3`` is ``3 - row`` (``a3`` = 0,
``c1`` = 8). Tiles are numbered ``tile = 3 * colour + shape``, pieces
``piece = 3 * player + shape``.

Action encoding (``NUM_ACTIONS`` = 226, one ``Discrete`` space):

====================  =========  =====================================================
actions               count      meaning
====================  =========  =====================================================
``0 + 9*tile + sq``   81         put pool tile ``tile`` face down on empty ``sq`` (PR-8)
``81 + 9*shape + sq`` 27         put own piece ``shape`` on the vacant tile at ``sq``
``108 + 9*src + dst`` 81         move own piece ``src`` -> ``dst`` (PR-12; src == dst
                                 is never legal)
``189 + pair``        36         exchange the tiles of squares ``PAIRS[pair]``
                                 (unordered, ``i < j`` in square order, lexicographic)
``225``               1          pass (PR-11, PR-14)
====================  =========  =====================================================
"""

from __future__ import annotations

import numpy as np

N_SQ = 9
BROWN, TURQUOISE, GOLD = 0, 1, 2
CIRCLE, SQUARE, TRIANGLE = 0, 1, 2
BLACK, WHITE = 0, 1

COLOUR_NAMES = ("brown", "turquoise", "gold")
SHAPE_NAMES = ("circle", "square", "triangle")
PLAYER_NAMES = ("black", "white")
COLOUR_LETTERS = "MTG"  # move, trade, goal (notation)
SHAPE_LETTERS = "ost"  # circle, square, triangle (notation)

# PR-3 inscriptions, indexed [colour][shape]
INSCRIPTIONS = (
    ("KING", "ROOK", "BISHOP"),
    ("POLARITY", "COLOUR", "SHAPE"),
    ("THREE-IN-LINE", "COLOUR", "SHAPE"),
)

A_TILE = 0
A_PIECE = 81
A_MOVE = 108
A_SWAP = 189
A_PASS = 225
NUM_ACTIONS = 226

PAIRS = tuple((i, j) for i in range(N_SQ) for j in range(i + 1, N_SQ))
PAIR_A = np.array([p[0] for p in PAIRS], dtype=np.int64)
PAIR_B = np.array([p[1] for p in PAIRS], dtype=np.int64)
PAIR_ID = np.full((N_SQ, N_SQ), -1, dtype=np.int64)
for _k, (_i, _j) in enumerate(PAIRS):
    PAIR_ID[_i, _j] = PAIR_ID[_j, _i] = _k

# Game status codes
ONGOING, BLACK_WINS, WHITE_WINS, DRAW_REPETITION, DRAW_TURN_LIMIT = 0, 1, 2, 3, 4
STATUS_NAMES = ("ongoing", "black wins", "white wins", "draw (repetition)", "draw (turn limit)")

DEFAULT_MAX_TURNS = 200
