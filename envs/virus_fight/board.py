"""Virus Fight board primitives: bitboard helpers, the RNG draw, placing and removing pieces.

Why a module of its own: the legality (``legal.py``), the turn order and effects
(``rules.py``) and the observation (``observe.py``) kernels all build on these; the
board is ``docs/virus_fight.md`` VF-4 (cells ``row * n + col``) and VF-5 (adjacency).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from envs.core.cache import guard_cache
from envs.core.rng import hash64, mix64, splitmix64
from envs.virus_fight.constants import (
    HW,
    I_ALIVE,
    I_CUR,
    I_FIRST,
    I_HLEN,
    I_PHASE,
    NBB,
    NINFO,
    NPIECE,
    OCC,
    PH_SETUP,
    U0,
    U1,
    U2,
    U4,
    jit,
)
from envs.virus_fight.params import C_FULL, C_N, C_NOTA, C_NOTH, C_PLAYERS


@jit
def _bit(c):
    return U1 << np.uint64(c)


@jit
def _popcount(x):
    x = x - ((x >> U1) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> U2) & np.uint64(0x3333333333333333))
    x = (x + (x >> U4)) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@jit
def _tz(x):
    return np.int64(trailing_zeros(x))


@jit
def _nth_bit(x, k):
    """Cell index of the k-th (0-based) set bit of x."""
    for _ in range(k):
        x &= x - U1
    return _tz(x)


@jit
def _nbrs(b, cfg):
    """Orthogonal neighbours of the cells in b, on the board (VF-5 adjacency)."""
    n = np.uint64(cfg[C_N])
    full = np.uint64(cfg[C_FULL])
    nota = np.uint64(cfg[C_NOTA])
    noth = np.uint64(cfg[C_NOTH])
    return ((b << n) | (b >> n) | ((b << U1) & nota) | ((b >> U1) & noth)) & full


@jit
def _flood(seed, occ, cfg):
    """Block(s) holding the seed cells: flood fill through occupied cells (VF-5)."""
    f = seed & occ
    while True:
        g = (f | _nbrs(f, cfg)) & occ
        if g == f:
            return f
        f = g


@jit
def _rand(rng, g, m):
    """Uniform int in [0, m) from game g's splitmix64 key (advanced in place)."""
    key, z = splitmix64(rng[g])
    rng[g] = key
    return np.int64(((z >> np.uint64(32)) * np.uint64(m)) >> np.uint64(32))


@njit(cache=True, error_model="numpy")
def seed_keys(seed, batch):
    """Per-game RNG keys: game i's key depends only on (seed, i)."""
    out = np.empty(batch, dtype=np.uint64)
    s = hash64(np.uint64(seed))
    for i in range(batch):
        out[i] = mix64(s ^ mix64(np.uint64(i) * np.uint64(0xD1B54A32D192ED03) + U1))
    return out


# --------------------------------------------------------------------------- state helpers
@jit
def _markerbits(g, marker, info, P):
    m = U0
    for s in range(P):
        c = marker[g, s]
        if c >= 0:
            m |= _bit(c)
    return m


@jit
def _place(g, bb, cells, p, c):
    b = _bit(c)
    bb[g, p] |= b
    bb[g, OCC] |= b
    cells[g, c] = p


@jit
def _remove(g, bb, cells, c):
    p = cells[g, c]
    b = ~_bit(c)
    bb[g, p] &= b
    bb[g, OCC] &= b
    cells[g, c] = -1
    return p


@jit
def _reset_game(g, bb, cells, marker, supply, info, cfg):
    """A new game: empty board, full supplies (VF-2), setup phase with seat 0 to act."""
    for i in range(NBB):  # the derived ACTIVE word is 0 in setup
        bb[g, i] = U0
    for c in range(64):
        cells[g, c] = -1
    for s in range(4):
        marker[g, s] = -1
        for p in range(NPIECE):
            supply[g, s, p] = 1 if s < cfg[C_PLAYERS] else 0
    for i in range(NINFO):
        info[g, i] = 0
    info[g, I_PHASE] = PH_SETUP
    info[g, I_CUR] = 0
    info[g, I_FIRST] = -1
    info[g, I_ALIVE] = (1 << cfg[C_PLAYERS]) - 1


@jit
def _new_game(g, bb, cells, marker, supply, info, hist, cfg):
    """:func:`_reset_game` for a game that ends in play, its VF-17 records cleared first.

    Why: history slots at and after ``I_HLEN`` are kept zero, so an undone step only has
    to zero the slots it wrote (``undo.py``); a reset that left the old records behind
    would make them the content an undo cannot know.
    """
    for h in range(min(info[g, I_HLEN], hist.shape[1])):
        for w in range(HW):
            hist[g, h, w] = U0
    _reset_game(g, bb, cells, marker, supply, info, cfg)


@jit
def _kind_at(g, cells, c):
    return cells[g, c] // 3


guard_cache(globals())  # recompile if a sibling kernel file changed (envs/core/cache.py)
