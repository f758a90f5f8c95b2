"""Virus Fight rules kernel: Numba ``@njit`` functions over a batch of games.

All rules of Virus Fight (``docs/virus_fight.md``, VF-1..VF-18) live here (rule numbers VF-n are cited
next to the code implementing them). A batch of games is held in plain numpy arrays with
a leading batch axis ``B``:

==========  =====================  ==========================================================
array       shape / dtype          meaning
==========  =====================  ==========================================================
``bb``      (B, 13) uint64         one bitboard per piece (kind, size) ``p = 3*kind + size-1``
                                   (kinds M, W, J, E = 0..3) and the occupancy at index 12
``cells``   (B, 64) int8           piece code at each cell, -1 when empty (mirror of ``bb``)
``marker``  (B, 4) int8            cell of each seat's instruction marker, -1 if none
``supply``  (B, 4, 12) int8        pieces of each (kind, size) in each seat's supply
``info``    (B, NINFO) int32       phase, seat to act, round, first player, alive bits, ...
``rng``     (B,) uint64            each game's own splitmix64 key (VF-12 tie-break, random
                                   actions, auto-reset keeps the key running)
``hist``    (B, H, 8) uint64       exact records of the positions that started each round
                                   (VF-17 repetition), ``H = max_rounds + 1``
==========  =====================  ==========================================================

Cells are numbered ``row * n + col`` with row 0 at the top (VF-4); the board side ``n``
is 5..8 so one uint64 holds a bitboard.

Action encoding (``N = n * n``, a fixed-size ``Discrete`` space per board size)::

    [0, 12N)              put piece p on cell c          p * N + c        (setup, WRITE)
    [12N, 12N + N^2)      MOVE from-cell f to cell t     12N + f * N + t
    [12N + N^2, 13N + N^2)  ERASE target cell c          12N + N^2 + c
    [13N + N^2, 14N + N^2)  marker to cell c             13N + N^2 + c   (setup end, JUMP,
                                                                          marker step)
    14N + N^2             pass

so ``num_actions = N^2 + 14N + 1`` (976 on 5x5, 4993 on 8x8).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange
from numba.cpython.unsafe.numbers import trailing_zeros

from envs.core.loops import serial_and_parallel

# --------------------------------------------------------------------------- constants
KIND_LETTERS = "MWJE"
MOVE, WRITE, JUMP, ERASE = 0, 1, 2, 3
NPIECE = 12  # (kind, size) combinations, VF-2
OCC = 12  # index of the occupancy bitboard in ``bb``
MAX_PROGRAM = 5  # VF-10

PH_SETUP, PH_EFFECT, PH_STEP, PH_OVER = 0, 1, 2, 3

# info columns
I_PHASE = 0  # PH_*
I_CUR = 1  # seat to act (-1 when over)
I_FIRST = 2  # first player of the current round (-1 during setup)
I_K = 3  # offset of the seat to act from the first player in the round's seat order
I_ROUND = 4  # play round number, 1-based (0 during setup)
I_ALIVE = 5  # bit s set while seat s is still in
I_NSET = 6  # setup: instructions placed by the seat to act
I_RLO = 7  # setup: first placed position along the home segment
I_RHI = 8  # setup: last placed position along the home segment
I_HLEN = 9  # number of records in ``hist``
I_REP = 10  # occurrences of the current round's start position (1 or 2)
I_RES = 11  # 11..14: final reward of each seat (valid once the seat is done)
NINFO = 15
HW = 8  # words per history record

U0 = np.uint64(0)
U1 = np.uint64(1)
U2 = np.uint64(2)
U4 = np.uint64(4)


def num_actions(n: int) -> int:
    """Size of the Discrete action space on an ``n`` x ``n`` board."""
    cells = n * n
    return cells * cells + 14 * cells + 1


@njit(cache=True)
def action_offsets(n: int) -> tuple[int, int, int, int, int]:
    """(put, move, erase, marker, pass) offsets of the action encoding (kernels use it too)."""
    cells = n * n
    return (
        0,
        12 * cells,
        12 * cells + cells * cells,
        13 * cells + cells * cells,
        (14 * cells + cells * cells),
    )


def segment_cells(n: int, num_players: int) -> np.ndarray:
    """(4, 8) int64 home-segment cells per seat in order along the segment, -1 padded (VF-9).

    2 players: seat 0 the bottom row, seat 1 the top row (whole rows). 3-4 players: seat 0
    bottom, 1 left, 2 top, 3 right edge, each without its two corner cells.
    """
    seg = -np.ones((4, 8), dtype=np.int64)
    if num_players == 2:
        for c in range(n):
            seg[0, c] = (n - 1) * n + c
            seg[1, c] = c
    else:
        for i in range(n - 2):
            seg[0, i] = (n - 1) * n + (i + 1)  # bottom
            seg[1, i] = (i + 1) * n  # left
            seg[2, i] = i + 1  # top
            seg[3, i] = (i + 1) * n + (n - 1)  # right
    return seg


def make_geometry(n: int, num_players: int, max_rounds: int) -> tuple[np.ndarray, np.ndarray]:
    """Static configuration arrays passed to every kernel: (cfg int64, seg int64).

    cfg = [n, N, P, max_rounds, segment length, max program size,
           full mask, not-file-a mask, not-last-file mask, segmask0..3] (masks as int64 bits).
    """
    if not 5 <= n <= 8:
        raise ValueError(f"board_size must be 5..8 (VF-4), got {n}")
    if num_players not in (2, 3, 4):
        raise ValueError(f"num_players must be 2, 3 or 4 (VF-1), got {num_players}")
    seg = segment_cells(n, num_players)
    seglen = n if num_players == 2 else n - 2
    full = 0
    nota = 0
    noth = 0
    for r in range(n):
        for c in range(n):
            b = 1 << (r * n + c)
            full |= b
            if c != 0:
                nota |= b
            if c != n - 1:
                noth |= b
    segmask = [0, 0, 0, 0]
    for s in range(num_players):
        for i in range(seglen):
            segmask[s] |= 1 << int(seg[s, i])
    vals = [n, n * n, num_players, max_rounds, seglen, min(MAX_PROGRAM, seglen)]
    vals += [full, nota, noth] + segmask
    cfg = np.array([np.uint64(v).view(np.int64) for v in vals], dtype=np.int64)
    return cfg, seg


# --------------------------------------------------------------------------- bit helpers
@njit(cache=True, error_model="numpy")
def _bit(c):
    return U1 << np.uint64(c)


@njit(cache=True, error_model="numpy")
def _popcount(x):
    x = x - ((x >> U1) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> U2) & np.uint64(0x3333333333333333))
    x = (x + (x >> U4)) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, error_model="numpy")
def _tz(x):
    return np.int64(trailing_zeros(x))


@njit(cache=True, error_model="numpy")
def _nth_bit(x, k):
    """Cell index of the k-th (0-based) set bit of x."""
    for _ in range(k):
        x &= x - U1
    return _tz(x)


@njit(cache=True, error_model="numpy")
def _nbrs(b, cfg):
    """Orthogonal neighbours of the cells in b, on the board (VF-5 adjacency)."""
    n = np.uint64(cfg[0])
    full = np.uint64(cfg[6])
    nota = np.uint64(cfg[7])
    noth = np.uint64(cfg[8])
    return ((b << n) | (b >> n) | ((b << U1) & nota) | ((b >> U1) & noth)) & full


@njit(cache=True, error_model="numpy")
def _flood(seed, occ, cfg):
    """Block(s) holding the seed cells: flood fill through occupied cells (VF-5)."""
    f = seed & occ
    while True:
        g = (f | _nbrs(f, cfg)) & occ
        if g == f:
            return f
        f = g


@njit(cache=True, error_model="numpy")
def _rand(rng, g, m):
    """Uniform int in [0, m) from game g's splitmix64 key."""
    rng[g] += np.uint64(0x9E3779B97F4A7C15)
    z = rng[g]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.int64(((z >> np.uint64(32)) * np.uint64(m)) >> np.uint64(32))


@njit(cache=True, error_model="numpy")
def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, error_model="numpy")
def seed_keys(seed, batch):
    """Per-game RNG keys: game i's key depends only on (seed, i)."""
    out = np.empty(batch, dtype=np.uint64)
    s = _mix(np.uint64(seed) + np.uint64(0x9E3779B97F4A7C15))
    for i in range(batch):
        out[i] = _mix(s ^ _mix(np.uint64(i) * np.uint64(0xD1B54A32D192ED03) + U1))
    return out


# --------------------------------------------------------------------------- state helpers
@njit(cache=True, error_model="numpy")
def _markerbits(g, marker, info, P):
    m = U0
    for s in range(P):
        c = marker[g, s]
        if c >= 0:
            m |= _bit(c)
    return m


@njit(cache=True, error_model="numpy")
def _place(g, bb, cells, p, c):
    b = _bit(c)
    bb[g, p] |= b
    bb[g, OCC] |= b
    cells[g, c] = p


@njit(cache=True, error_model="numpy")
def _remove(g, bb, cells, c):
    p = cells[g, c]
    b = ~_bit(c)
    bb[g, p] &= b
    bb[g, OCC] &= b
    cells[g, c] = -1
    return p


@njit(cache=True, error_model="numpy")
def _reset_game(g, bb, cells, marker, supply, info, cfg):
    """A new game: empty board, full supplies (VF-2), setup phase with seat 0 to act."""
    for i in range(13):
        bb[g, i] = U0
    for c in range(64):
        cells[g, c] = -1
    for s in range(4):
        marker[g, s] = -1
        for p in range(NPIECE):
            supply[g, s, p] = 1 if s < cfg[2] else 0
    for i in range(NINFO):
        info[g, i] = 0
    info[g, I_PHASE] = PH_SETUP
    info[g, I_CUR] = 0
    info[g, I_FIRST] = -1
    info[g, I_ALIVE] = (1 << cfg[2]) - 1


def _init_loop(bb, cells, marker, supply, info, cfg):
    """Reset every game of the batch to the start of setup."""
    for g in prange(bb.shape[0]):
        _reset_game(g, bb, cells, marker, supply, info, cfg)


init_serial, init = serial_and_parallel(_init_loop, error_model="numpy")


@njit(cache=True, error_model="numpy")
def _kind_at(g, cells, c):
    return cells[g, c] // 3


# --------------------------------------------------------------------------- legal sets
@njit(cache=True, error_model="numpy")
def _move_sources(g, bb, marker, info, cfg):
    """(active block, movable pieces) of the seat to act (VF-14 MOVE, VF-8)."""
    s = info[g, I_CUR]
    occ = bb[g, OCC]
    block = _flood(_bit(marker[g, s]), occ, cfg)
    return block, block & ~_markerbits(g, marker, info, cfg[2])


@njit(cache=True, error_model="numpy")
def _write_targets(g, bb, marker, info, cfg):
    """Empty cells orthogonally adjacent to the active block (VF-14 WRITE)."""
    s = info[g, I_CUR]
    occ = bb[g, OCC]
    block = _flood(_bit(marker[g, s]), occ, cfg)
    return _nbrs(block, cfg) & ~occ


@njit(cache=True, error_model="numpy")
def _erase_targets(g, bb, marker, info, cfg):
    """Cells next to an ERASE instruction of the active block, empty or unprotected (VF-14)."""
    s = info[g, I_CUR]
    occ = bb[g, OCC]
    block = _flood(_bit(marker[g, s]), occ, cfg)
    erasers = block & (bb[g, 9] | bb[g, 10] | bb[g, 11])
    return _nbrs(erasers, cfg) & ~_markerbits(g, marker, info, cfg[2])


@njit(cache=True, error_model="numpy")
def _jump_targets(g, bb, marker, info, cfg):
    """Unmarked instructions of the active block or of any empty block (VF-14 JUMP, VF-7)."""
    s = info[g, I_CUR]
    occ = bb[g, OCC]
    mk = _markerbits(g, marker, info, cfg[2])
    block = _flood(_bit(marker[g, s]), occ, cfg)
    marked_blocks = _flood(mk, occ, cfg)
    return (block | (occ & ~marked_blocks)) & ~mk


@njit(cache=True, error_model="numpy")
def _step_targets(g, bb, marker, info, cfg):
    """Unmarked instructions orthogonally adjacent to the executed one (VF-15)."""
    s = info[g, I_CUR]
    return _nbrs(_bit(marker[g, s]), cfg) & bb[g, OCC] & ~_markerbits(g, marker, info, cfg[2])


@njit(cache=True, error_model="numpy")
def _setup_cells(g, info, seg, cfg):
    """Setup: segment cells where the next instruction may go (VF-10, VF-11)."""
    s = info[g, I_CUR]
    nset = info[g, I_NSET]
    seglen = cfg[4]
    m = U0
    if nset >= cfg[5]:
        return m
    if nset == 0:
        for i in range(seglen):
            m |= _bit(seg[s, i])
        return m
    lo = info[g, I_RLO]
    hi = info[g, I_RHI]
    if lo > 0:
        m |= _bit(seg[s, lo - 1])
    if hi < seglen - 1:
        m |= _bit(seg[s, hi + 1])
    return m


@njit(cache=True, error_model="numpy")
def _setup_marks(g, info, seg):
    s = info[g, I_CUR]
    m = U0
    if info[g, I_NSET] > 0:
        for i in range(info[g, I_RLO], info[g, I_RHI] + 1):
            m |= _bit(seg[s, i])
    return m


@njit(cache=True, error_model="numpy")
def _nth_legal(g, bb, cells, marker, supply, info, seg, cfg, pick):
    """(number of legal actions, the pick-th of them in canonical order or -1).

    Canonical order: puts (piece, cell), moves (from, to), erase targets, marker cells,
    pass. With pick < 0 only counts.
    """
    N = cfg[1]
    _, o_move, o_erase, o_mark, o_pass = action_offsets(cfg[0])
    ph = info[g, I_PHASE]
    s = info[g, I_CUR]
    if ph == PH_OVER:
        return 0, -1
    if ph == PH_SETUP:
        dest = _setup_cells(g, info, seg, cfg)
        nd = _popcount(dest)
        cnt = 0
        if nd > 0:
            for p in range(NPIECE):
                if supply[g, s, p] > 0:
                    if 0 <= pick < cnt + nd:
                        return 0, p * N + _nth_bit(dest, pick - cnt)
                    cnt += nd
        mk = _setup_marks(g, info, seg)
        nm = _popcount(mk)
        if 0 <= pick < cnt + nm:
            return 0, o_mark + _nth_bit(mk, pick - cnt)
        return cnt + nm, -1
    if ph == PH_STEP:
        t = _step_targets(g, bb, marker, info, cfg)
        nt = _popcount(t)
        if 0 <= pick < nt:
            return 0, o_mark + _nth_bit(t, pick)
        return nt, -1
    kind = cells[g, marker[g, s]] // 3
    if kind == JUMP:
        t = _jump_targets(g, bb, marker, info, cfg)
        nt = _popcount(t)
        if 0 <= pick < nt:
            return 0, o_mark + _nth_bit(t, pick)
        return nt, -1
    if kind == ERASE:
        t = _erase_targets(g, bb, marker, info, cfg)
        nt = _popcount(t)
        if nt == 0:
            if pick == 0:
                return 0, o_pass
            return 1, -1
        if 0 <= pick < nt:
            return 0, o_erase + _nth_bit(t, pick)
        return nt, -1
    if kind == WRITE:
        dest = _write_targets(g, bb, marker, info, cfg)
        nd = _popcount(dest)
        cnt = 0
        if nd > 0:
            for p in range(NPIECE):
                if supply[g, s, p] > 0:
                    if 0 <= pick < cnt + nd:
                        return 0, p * N + _nth_bit(dest, pick - cnt)
                    cnt += nd
        if pick == cnt:
            return 0, o_pass
        return cnt + 1, -1
    # MOVE
    occ = bb[g, OCC]
    block, movable = _move_sources(g, bb, marker, info, cfg)
    cnt = 0
    x = movable
    while x:
        f = _tz(x)
        x &= x - U1
        dest = _nbrs(block & ~_bit(f), cfg) & ~occ
        nd = _popcount(dest)
        if 0 <= pick < cnt + nd:
            return 0, o_move + f * N + _nth_bit(dest, pick - cnt)
        cnt += nd
    if pick == cnt:
        return 0, o_pass
    return cnt + 1, -1


@njit(cache=True, error_model="numpy")
def _nth_available(g, supply, s, k):
    """The k-th (0-based) piece code with a non-empty supply slot of seat s."""
    for p in range(NPIECE):
        if supply[g, s, p] > 0:
            if k == 0:
                return p
            k -= 1
    return -1


@njit(cache=True, error_model="numpy")
def _random_legal(g, bb, cells, marker, supply, info, rng, seg, cfg):
    """A uniformly random legal action of game g from its own key (-1 when over).

    Same distribution and same draw as ``_nth_legal(.., _rand(rng, g, count))`` (the
    canonical order), computed with one pass over the legal set where possible.
    """
    N = cfg[1]
    _, o_move, o_erase, o_mark, o_pass = action_offsets(cfg[0])
    ph = info[g, I_PHASE]
    s = info[g, I_CUR]
    if ph == PH_OVER:
        return -1
    if ph == PH_SETUP or ph == PH_EFFECT and cells[g, marker[g, s]] // 3 == WRITE:
        if ph == PH_SETUP:
            dest = _setup_cells(g, info, seg, cfg)
            mk = _setup_marks(g, info, seg)
            extra = _popcount(mk)
        else:
            dest = _write_targets(g, bb, marker, info, cfg)
            mk = U0
            extra = 1  # pass
        nd = _popcount(dest)
        npa = 0
        if nd > 0:
            for p in range(NPIECE):
                if supply[g, s, p] > 0:
                    npa += 1
        r = _rand(rng, g, npa * nd + extra)
        if r < npa * nd:
            return _nth_available(g, supply, s, r // nd) * N + _nth_bit(dest, r % nd)
        if ph == PH_SETUP:
            return o_mark + _nth_bit(mk, r - npa * nd)
        return o_pass
    if ph == PH_STEP:
        t = _step_targets(g, bb, marker, info, cfg)
        return o_mark + _nth_bit(t, _rand(rng, g, _popcount(t)))
    kind = cells[g, marker[g, s]] // 3
    if kind == JUMP:
        t = _jump_targets(g, bb, marker, info, cfg)
        return o_mark + _nth_bit(t, _rand(rng, g, _popcount(t)))
    if kind == ERASE:
        t = _erase_targets(g, bb, marker, info, cfg)
        nt = _popcount(t)
        if nt == 0:
            _rand(rng, g, 1)
            return o_pass
        return o_erase + _nth_bit(t, _rand(rng, g, nt))
    # MOVE: count, draw, then locate
    occ = bb[g, OCC]
    block, movable = _move_sources(g, bb, marker, info, cfg)
    cnt = 0
    x = movable
    while x:
        f = _tz(x)
        x &= x - U1
        cnt += _popcount(_nbrs(block & ~_bit(f), cfg) & ~occ)
    r = _rand(rng, g, cnt + 1)
    if r == cnt:
        return o_pass
    x = movable
    while x:
        f = _tz(x)
        x &= x - U1
        dest = _nbrs(block & ~_bit(f), cfg) & ~occ
        nd = _popcount(dest)
        if r < nd:
            return o_move + f * N + _nth_bit(dest, r)
        r -= nd
    return o_pass


@njit(cache=True, error_model="numpy")
def _fill_mask(g, bb, cells, marker, supply, info, seg, cfg, row):
    """Write the legal actions of game g into the bool row (cleared first)."""
    N = cfg[1]
    _, o_move, o_erase, o_mark, o_pass = action_offsets(cfg[0])
    row[:] = False
    ph = info[g, I_PHASE]
    s = info[g, I_CUR]
    if ph == PH_OVER:
        return
    if ph == PH_SETUP:
        dest = _setup_cells(g, info, seg, cfg)
        for p in range(NPIECE):
            if supply[g, s, p] > 0:
                x = dest
                while x:
                    row[p * N + _tz(x)] = True
                    x &= x - U1
        x = _setup_marks(g, info, seg)
        while x:
            row[o_mark + _tz(x)] = True
            x &= x - U1
        return
    if ph == PH_STEP:
        x = _step_targets(g, bb, marker, info, cfg)
        while x:
            row[o_mark + _tz(x)] = True
            x &= x - U1
        return
    kind = cells[g, marker[g, s]] // 3
    if kind == JUMP:
        x = _jump_targets(g, bb, marker, info, cfg)
        while x:
            row[o_mark + _tz(x)] = True
            x &= x - U1
    elif kind == ERASE:
        x = _erase_targets(g, bb, marker, info, cfg)
        if x == U0:
            row[o_pass] = True
        while x:
            row[o_erase + _tz(x)] = True
            x &= x - U1
    elif kind == WRITE:
        dest = _write_targets(g, bb, marker, info, cfg)
        for p in range(NPIECE):
            if supply[g, s, p] > 0:
                x = dest
                while x:
                    row[p * N + _tz(x)] = True
                    x &= x - U1
        row[o_pass] = True
    else:
        occ = bb[g, OCC]
        block, movable = _move_sources(g, bb, marker, info, cfg)
        y = movable
        while y:
            f = _tz(y)
            y &= y - U1
            x = _nbrs(block & ~_bit(f), cfg) & ~occ
            while x:
                row[o_move + f * N + _tz(x)] = True
                x &= x - U1
        row[o_pass] = True


# --------------------------------------------------------------------------- turn order
@njit(cache=True, error_model="numpy")
def _record(g, bb, cells, marker, supply, info, cfg, out):
    """Exact record of a round-start position (VF-17): board, markers, supplies of the
    players still in, first player."""
    for w in range(HW):
        out[w] = U0
    for c in range(cfg[1]):
        v = np.uint64(cells[g, c] + 1)
        out[c >> 4] |= v << np.uint64(4 * (c & 15))
    alive = info[g, I_ALIVE]
    for s in range(cfg[2]):
        if (alive >> s) & 1:
            out[4] |= np.uint64(marker[g, s] + 1) << np.uint64(7 * s)
            for p in range(NPIECE):
                bit = 48 * s + 4 * p
                out[5 + (bit >> 6)] |= np.uint64(supply[g, s, p]) << np.uint64(bit & 63)
    out[4] |= np.uint64(info[g, I_FIRST]) << np.uint64(28)


@njit(cache=True, error_model="numpy")
def _adjudicate(g, supply, info, cfg, rew):
    """VF-17: rank players still in by pieces then pips in supply."""
    P = cfg[2]
    alive = info[g, I_ALIVE]
    best = -1
    keys = np.zeros(4, dtype=np.int64)
    for s in range(P):
        if (alive >> s) & 1:
            pieces = 0
            pips = 0
            for p in range(NPIECE):
                pieces += supply[g, s, p]
                pips += supply[g, s, p] * (p % 3 + 1)
            keys[s] = pieces * 1000 + pips
            if keys[s] > best:
                best = keys[s]
    ntop = 0
    for s in range(P):
        if (alive >> s) & 1 and keys[s] == best:
            ntop += 1
    for s in range(P):
        if (alive >> s) & 1:
            if keys[s] == best:
                r = 1 if ntop == 1 else 0
            else:
                r = -1
            info[g, I_RES + s] = r
            rew[g, s] = r
    info[g, I_PHASE] = PH_OVER
    info[g, I_CUR] = -1


@njit(cache=True, error_model="numpy")
def _eliminate(g, s, marker, info, cfg, rew):
    """VF-15/VF-14 JUMP: seat s is out (-1); the last one standing wins (VF-16).

    Returns True when the game is over."""
    marker[g, s] = -1
    info[g, I_ALIVE] &= ~(1 << s)
    info[g, I_RES + s] = -1
    rew[g, s] = -1
    alive = info[g, I_ALIVE]
    left = 0
    last = -1
    for t in range(cfg[2]):
        if (alive >> t) & 1:
            left += 1
            last = t
    if left == 1:
        info[g, I_RES + last] = 1
        rew[g, last] = 1
        info[g, I_PHASE] = PH_OVER
        info[g, I_CUR] = -1
        return True
    return False


@njit(cache=True, error_model="numpy")
def _start_round(g, bb, cells, marker, supply, info, hist, cfg, rew):
    """Repetition check at the start of a round (VF-17). Returns True if the game ended.

    The record is written into the next history slot, then compared with the earlier ones.
    """
    hlen = info[g, I_HLEN]
    if hlen >= hist.shape[1]:  # cannot happen in play (one record per round started)
        hlen = hist.shape[1] - 1
    rec = hist[g, hlen]  # capacity max_rounds + 1 > number of round starts
    _record(g, bb, cells, marker, supply, info, cfg, rec)
    seen = 0
    for h in range(hlen):
        same = True
        for w in range(HW):
            if hist[g, h, w] != rec[w]:
                same = False
                break
        if same:
            seen += 1
    if seen >= 2:
        info[g, I_REP] = 3
        for w in range(HW):
            rec[w] = U0
        _adjudicate(g, supply, info, cfg, rew)
        return True
    info[g, I_HLEN] = min(hlen + 1, hist.shape[1])
    info[g, I_REP] = seen + 1
    return False


@njit(cache=True, error_model="numpy")
def _next_first(g, cells, marker, info, cfg):
    """VF-13: first player of the next round."""
    P = cfg[2]
    alive = info[g, I_ALIVE]
    prev = info[g, I_FIRST]
    best = 0
    for s in range(P):
        if (alive >> s) & 1:
            sz = cells[g, marker[g, s]] % 3 + 1
            if sz > best:
                best = sz
    if (alive >> prev) & 1 and cells[g, marker[g, prev]] % 3 + 1 == best:
        return prev
    for d in range(1, P + 1):
        s = (prev + d) % P
        if (alive >> s) & 1 and cells[g, marker[g, s]] % 3 + 1 == best:
            return s
    return prev  # unreachable: some seat is alive


@njit(cache=True, error_model="numpy")
def _first_of_game(g, bb, cells, marker, info, rng, seg, cfg):
    """VF-12: fewest instructions, then lowest pips, then largest marked one, then RNG."""
    P = cfg[2]
    key = np.zeros(4, dtype=np.int64)
    best = -1
    occ = bb[g, OCC]
    for s in range(P):
        cnt = 0
        pips = 0
        for i in range(cfg[4]):
            c = seg[s, i]
            if (occ >> np.uint64(c)) & U1:
                cnt += 1
                pips += cells[g, c] % 3 + 1
        msize = cells[g, marker[g, s]] % 3 + 1
        # smaller key is better: fewer pieces, fewer pips, larger marked size
        key[s] = cnt * 10000 + pips * 10 + (3 - msize)
        if best < 0 or key[s] < best:
            best = key[s]
    ntie = 0
    for s in range(P):
        if key[s] == best:
            ntie += 1
    pick = 0
    if ntie > 1:
        pick = _rand(rng, g, ntie)
    for s in range(P):
        if key[s] == best:
            if pick == 0:
                return s
            pick -= 1
    return 0


@njit(cache=True, error_model="numpy", inline="always")
def _advance(g, bb, cells, marker, supply, info, rng, hist, cfg, rew, new_round):
    """Pass the turn on: next seat of the round, round ends (VF-13, VF-17), and the
    eliminations that need no decision (VF-14 JUMP without target)."""
    P = cfg[2]
    while True:
        if new_round:
            new_round = False
            if _start_round(g, bb, cells, marker, supply, info, hist, cfg, rew):
                return
            k = 0
        else:
            k = info[g, I_K] + 1
        alive = info[g, I_ALIVE]
        first = info[g, I_FIRST]
        while k < P and not (alive >> ((first + k) % P)) & 1:
            k += 1
        if k == P:
            # round ends
            if info[g, I_ROUND] >= cfg[3]:
                _adjudicate(g, supply, info, cfg, rew)  # VF-17 round limit
                return
            info[g, I_ROUND] += 1
            info[g, I_FIRST] = _next_first(g, cells, marker, info, cfg)
            new_round = True
            continue
        s = (first + k) % P
        info[g, I_K] = k
        info[g, I_CUR] = s
        info[g, I_PHASE] = PH_EFFECT
        if cells[g, marker[g, s]] // 3 == JUMP:
            if _jump_targets(g, bb, marker, info, cfg) == U0:
                if _eliminate(g, s, marker, info, cfg, rew):
                    return
                continue
        return


@njit(cache=True, error_model="numpy", inline="always")
def _apply(g, a, bb, cells, marker, supply, info, rng, hist, seg, cfg, rew):
    """Apply legal action a to game g; rewards of seats done in this step go to rew."""
    N = cfg[1]
    _, o_move, o_erase, o_mark, o_pass = action_offsets(cfg[0])
    ph = info[g, I_PHASE]
    s = info[g, I_CUR]
    if ph == PH_SETUP:
        if a < o_move:  # put a piece of the program (VF-10, VF-11)
            p = a // N
            c = a % N
            _place(g, bb, cells, p, c)
            supply[g, s, p] -= 1
            pos = 0
            for i in range(cfg[4]):
                if seg[s, i] == c:
                    pos = i
            if info[g, I_NSET] == 0:
                info[g, I_RLO] = pos
                info[g, I_RHI] = pos
            elif pos < info[g, I_RLO]:
                info[g, I_RLO] = pos
            else:
                info[g, I_RHI] = pos
            info[g, I_NSET] += 1
            return
        marker[g, s] = a - o_mark  # program complete
        info[g, I_NSET] = 0
        info[g, I_RLO] = 0
        info[g, I_RHI] = 0
        if s + 1 < cfg[2]:
            info[g, I_CUR] = s + 1
            return
        # all programs revealed: play starts (VF-12)
        info[g, I_ROUND] = 1
        info[g, I_FIRST] = _first_of_game(g, bb, cells, marker, info, rng, seg, cfg)
        info[g, I_K] = 0
        _advance(g, bb, cells, marker, supply, info, rng, hist, cfg, rew, True)
        return
    if ph == PH_STEP:
        marker[g, s] = a - o_mark  # VF-15 marker step
        _advance(g, bb, cells, marker, supply, info, rng, hist, cfg, rew, False)
        return
    # effect (VF-14)
    if a >= o_mark and a < o_pass:  # JUMP: the single decision of the turn (VF-18)
        marker[g, s] = a - o_mark
        _advance(g, bb, cells, marker, supply, info, rng, hist, cfg, rew, False)
        return
    if a < o_move:  # WRITE
        p = a // N
        _place(g, bb, cells, p, a % N)
        supply[g, s, p] -= 1
    elif a < o_erase:  # MOVE
        f = (a - o_move) // N
        t = (a - o_move) % N
        p = _remove(g, bb, cells, f)
        _place(g, bb, cells, p, t)
    elif a < o_mark:  # ERASE: capture into the player's supply
        c = a - o_erase
        if cells[g, c] >= 0:
            p = _remove(g, bb, cells, c)
            supply[g, s, p] += 1
    # VF-15: the marker step, or elimination without a decision
    info[g, I_PHASE] = PH_STEP
    if _step_targets(g, bb, marker, info, cfg) == U0:
        if _eliminate(g, s, marker, info, cfg, rew):
            return
        _advance(g, bb, cells, marker, supply, info, rng, hist, cfg, rew, False)


# --------------------------------------------------------------------------- batch API
# Each batch loop is written once with prange and compiled twice, serial (``*_serial``:
# small batches, where a thread-pool launch costs more than the work) and parallel
# (envs/core/loops.py); the facade picks one by batch size.
def _legal_mask_loop(bb, cells, marker, supply, info, seg, cfg, out):
    """out[g] = legal actions of the seat to act in game g (all False when over)."""
    for g in prange(bb.shape[0]):
        _fill_mask(g, bb, cells, marker, supply, info, seg, cfg, out[g])


legal_mask_serial, legal_mask = serial_and_parallel(_legal_mask_loop, error_model="numpy")


@njit(cache=True, parallel=True, error_model="numpy")
def num_legal(bb, cells, marker, supply, info, seg, cfg, out):
    """out[g] = number of legal actions in game g."""
    for g in prange(bb.shape[0]):
        out[g] = _nth_legal(g, bb, cells, marker, supply, info, seg, cfg, -1)[0]


def _random_actions_loop(bb, cells, marker, supply, info, rng, seg, cfg, out):
    """out[g] = a uniformly random legal action drawn from game g's own key (-1 if over)."""
    for g in prange(bb.shape[0]):
        out[g] = _random_legal(g, bb, cells, marker, supply, info, rng, seg, cfg)


random_actions_serial, random_actions = serial_and_parallel(
    _random_actions_loop, error_model="numpy"
)


def _step_loop(
    bb, cells, marker, supply, info, rng, hist, seg, cfg, actions, auto_reset, rew, done
):
    """Apply one legal action per game in place; rew (B, P) and done (B,) are outputs.

    Games already over are left alone (done stays True, no reward). With auto_reset a game
    that ends is re-initialised after its rewards are recorded (its key keeps running).
    """
    P = cfg[2]
    for g in prange(bb.shape[0]):
        for s in range(P):
            rew[g, s] = 0.0
        if info[g, I_PHASE] == PH_OVER:
            done[g] = True
            continue
        _apply(g, actions[g], bb, cells, marker, supply, info, rng, hist, seg, cfg, rew)
        done[g] = info[g, I_PHASE] == PH_OVER
        if done[g] and auto_reset:
            _reset_game(g, bb, cells, marker, supply, info, cfg)


step_serial, step = serial_and_parallel(_step_loop, error_model="numpy")


def _selfplay_loop(bb, cells, marker, supply, info, rng, hist, seg, cfg, steps, rew, stats):
    """Random self-play with auto-reset, ``steps`` decisions per game, all in one kernel.

    stats[g] = [games finished, sum of seat-0 rewards] (for benchmarks and sanity)."""
    for g in prange(bb.shape[0]):
        for _ in range(steps):
            a = _random_legal(g, bb, cells, marker, supply, info, rng, seg, cfg)
            _apply(g, a, bb, cells, marker, supply, info, rng, hist, seg, cfg, rew)
            if info[g, I_PHASE] == PH_OVER:
                stats[g, 0] += 1
                stats[g, 1] += rew[g, 0]
                for s in range(cfg[2]):
                    rew[g, s] = 0.0
                _reset_game(g, bb, cells, marker, supply, info, cfg)


selfplay_serial, selfplay = serial_and_parallel(_selfplay_loop, error_model="numpy")


# --------------------------------------------------------------------------- observations
def obs_channels(num_players: int) -> int:
    """Planes: 12 pieces, P markers, 12P supplies, P alive, P first, 3 phase, round, rep."""
    return 17 + 15 * num_players


@njit(cache=True, error_model="numpy")
def _observe(g, seat, bb, cells, marker, supply, info, cfg, out):
    n = cfg[0]
    N = cfg[1]
    P = cfg[2]
    out[:] = 0.0
    ph = info[g, I_PHASE]
    setup = ph == PH_SETUP
    visible = np.uint64(cfg[6])
    if setup:  # VF-11: only the observer's own program is visible
        visible = np.uint64(cfg[9 + seat])
    for c in range(N):
        p = cells[g, c]
        if p >= 0 and (visible >> np.uint64(c)) & U1:
            out[p, c // n, c % n] = 1.0
    alive = info[g, I_ALIVE]
    base_sup = 12 + P
    base_alive = base_sup + 12 * P
    base_first = base_alive + P
    base_phase = base_first + P
    for j in range(P):
        s = (seat + j) % P  # own first, then the others in seat order
        if setup and j > 0:
            continue  # VF-11: nothing of another program, not even its supply
        c = marker[g, s]
        if c >= 0:
            out[12 + j, c // n, c % n] = 1.0
        if (alive >> s) & 1:
            out[base_alive + j] = 1.0
            for p in range(NPIECE):
                v = supply[g, s, p]
                if v:
                    out[base_sup + 12 * j + p] = v
        if not setup and info[g, I_FIRST] == s:
            out[base_first + j] = 1.0
    if setup and P > 1:
        for j in range(1, P):
            out[base_alive + j] = 1.0
    if ph < 3:
        out[base_phase + ph] = 1.0
    out[base_phase + 3] = info[g, I_ROUND] / cfg[3]
    out[base_phase + 4] = info[g, I_REP] / 3.0


def _observe_loop(bb, cells, marker, supply, info, cfg, seats, out):
    """out[g] = observation planes of game g from seat seats[g]'s point of view."""
    for g in prange(bb.shape[0]):
        _observe(g, seats[g], bb, cells, marker, supply, info, cfg, out[g])


observe_serial, observe = serial_and_parallel(_observe_loop, error_model="numpy")


# --------------------------------------------------------------------------- batch of one
# Serial twins of the batch kernels for the AEC adapter (no thread-pool start per call).
@njit(cache=True, error_model="numpy")
def legal_mask_one(bb, cells, marker, supply, info, seg, cfg, row):
    """Legal actions of game 0 into the bool row."""
    _fill_mask(0, bb, cells, marker, supply, info, seg, cfg, row)


@njit(cache=True, error_model="numpy")
def step_one(bb, cells, marker, supply, info, rng, hist, seg, cfg, action, rew):
    """Apply one legal action to game 0; rew (1, P) receives the rewards of this step."""
    for s in range(cfg[2]):
        rew[0, s] = 0.0
    if info[0, I_PHASE] != PH_OVER:
        _apply(0, action, bb, cells, marker, supply, info, rng, hist, seg, cfg, rew)


@njit(cache=True, error_model="numpy")
def observe_one(bb, cells, marker, supply, info, cfg, seat, out):
    """Observation planes of game 0 from ``seat``'s point of view into out."""
    _observe(0, seat, bb, cells, marker, supply, info, cfg, out)


@njit(cache=True, error_model="numpy")
def record_one(bb, cells, marker, supply, info, cfg, out):
    """Exact VF-17 record of game 0's position (as if a round started now)."""
    _record(0, bb, cells, marker, supply, info, cfg, out)
