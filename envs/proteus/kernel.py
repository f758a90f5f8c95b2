"""Proteus rules kernel: pure Numba functions over a batch of games in plain numpy arrays.

Every rule of Proteus (``docs/proteus.md``, PR-1..PR-17) lives here (rule numbers PR-n in comments).
A batch of ``B`` games is a :class:`KernelState`: a few arrays with a leading batch axis,
each game packed into a handful of 64-bit words (4-bit "nibbles" and 9-bit bitboards):

==============  ============  ==========================================================
array           dtype         per game
==============  ============  ==========================================================
``tiles``       int64         nibble ``sq`` = tile id + 1 on square ``sq`` (0 = empty);
                              tile id = 3*colour + shape, square = 3*row + col
``tsq``         int64         nibble ``t`` = square of tile ``t`` (15 = in the pool)
``pieces``      int64         nibble ``pc`` = square of piece ``pc`` = 3*player + shape
                              (15 = in hand)
``pat``         int64         nibble ``sq`` = piece id + 1 on square ``sq`` (0 = none)
``bb``          int64         bitboards: bits 0-8 squares with a tile, 9-17 squares with
                              a BLACK piece, 18-26 with a WHITE piece, 27-35 tile ids
                              with a piece on them, 36-44 tile ids on the board, 45-50
                              piece ids in hand
``act``         int64         2 bits per colour: face-up tile's shape + 1 (0 = none)
``player``      int8          seat to move (0 black, 1 white)
``turn``        int32         completed turns (PR-17: every turn counts, passes too)
``max_turns``   int32         PR-17 turn limit of the game
``hist``        (H,) uint64   packed positions since the last placement (PR-17),
                              H = max_turns + 1
``hist_len``    int32         used entries of ``hist``
``status``      int8          0 ongoing, 1 black won, 2 white won, 3 draw by repetition,
                              4 draw by the turn limit
``rng``         uint64        splitmix64 key (random legal actions)
==============  ============  ==========================================================

The words are redundant views of one board (square -> tile, tile -> square, ...), kept in
step by every transition, so no rule needs a scan over the squares. The pool, the hands
and the phase are functions of the board (not placed = in the pool / in hand; the
movement phase starts once everything is placed).

Repetition (PR-17) is exact: ``hist`` stores whole positions packed into 64 bits (not
hashes). A placement can never be undone (the count of placed things only grows), so a
position can only recur among the positions since the last placement; the history is
cleared on every placement and starts again with the position after it. The empty board
is the first entry of a new game's history. Packing:

* placement phase: ``tiles`` (bits 0-35) | ``pieces`` << 36 | player << 60; bit 63 = 0.
  Inside one window the face-up state cannot change, so it is implied.
* movement phase: ``tiles`` of squares 0-7 (bits 0-31; the 9th tile is the one left) |
  ``pieces`` << 32 | ``act`` << 56 | player << 62 | 1 << 63.

Random legal actions are drawn per game from its own key with exact (rejection-based)
uniform sampling, fused with the legality computation: the kernel counts the legal
actions of each kind and decodes the r-th one, without materialising the mask. PR-10
feasibility is one lookup in a precomputed bit table.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from numba import njit, prange

from envs.core.loops import serial_and_parallel
from envs.proteus.constants import (
    A_MOVE,
    A_PASS,
    A_PIECE,
    A_SWAP,
    DEFAULT_MAX_TURNS,
    NUM_ACTIONS,
    PAIR_A,
    PAIR_B,
    PAIR_ID,
)

# ----------------------------------------------------------------------------- tables


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

EMPTY_TSQ = (1 << 36) - 1
EMPTY_PIECES = (1 << 24) - 1
HAND_ALL = 63 << 45
N_PLANES = 35


# ----------------------------------------------------------------------------- state


@dataclass
class KernelState:
    """A batch of Proteus games (see the module docstring for the arrays)."""

    tiles: np.ndarray
    tsq: np.ndarray
    pieces: np.ndarray
    pat: np.ndarray
    bb: np.ndarray
    act: np.ndarray
    player: np.ndarray
    turn: np.ndarray
    max_turns: np.ndarray
    hist: np.ndarray
    hist_len: np.ndarray
    status: np.ndarray
    rng: np.ndarray

    @property
    def batch_size(self) -> int:
        return int(self.tiles.shape[0])

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The arrays in kernel argument order."""
        return (
            self.tiles,
            self.tsq,
            self.pieces,
            self.pat,
            self.bb,
            self.act,
            self.player,
            self.turn,
            self.max_turns,
            self.hist,
            self.hist_len,
            self.status,
            self.rng,
        )

    def copy(self) -> KernelState:
        return KernelState(*(a.copy() for a in self.arrays()))

    def take(self, index: np.ndarray) -> KernelState:
        return KernelState(*(np.ascontiguousarray(a[index]) for a in self.arrays()))

    # read-only decoded views (for env, rendering, tests)
    @property
    def tile_at(self) -> np.ndarray:
        """(B, 9) int8 tile id per square, -1 = no tile."""
        out = (((self.tiles[:, None] >> (4 * np.arange(9))) & 15) - 1).astype(np.int8)
        out.setflags(write=False)
        return out

    @property
    def piece_at(self) -> np.ndarray:
        """(B, 9) int8 piece id (3*player + shape) per square, -1 = none."""
        out = (((self.pat[:, None] >> (4 * np.arange(9))) & 15) - 1).astype(np.int8)
        out.setflags(write=False)
        return out

    @property
    def active(self) -> np.ndarray:
        """(B, 3) int8 face-up shape per colour, -1 = none."""
        out = (((self.act[:, None] >> (2 * np.arange(3))) & 3) - 1).astype(np.int8)
        out.setflags(write=False)
        return out


def _mix64_np(z: np.ndarray) -> np.ndarray:
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def seed_keys(seed: int, batch_size: int, offset: int = 0) -> np.ndarray:
    """RNG key of game i from (seed, i) only: independent of batch size and position."""
    base = _mix64_np(np.array([int(seed) & 0xFFFFFFFFFFFFFFFF], dtype=np.uint64))
    idx = np.arange(offset, offset + int(batch_size), dtype=np.uint64)
    return _mix64_np(base ^ _mix64_np(idx + np.uint64(0x632BE59BD9B4E019)))


def _alloc(b: int, max_turns: int, history: int | None, seed: int) -> KernelState:
    if isinstance(max_turns, bool) or int(max_turns) < 1:
        raise ValueError(f"max_turns must be a positive integer, got {max_turns!r}")
    h = int(max_turns) + 1 if history is None else int(history)
    z = np.zeros(b, dtype=np.int64)
    return KernelState(
        tiles=z.copy(),
        tsq=z.copy(),
        pieces=z.copy(),
        pat=z.copy(),
        bb=z.copy(),
        act=z.copy(),
        player=np.zeros(b, dtype=np.int8),
        turn=np.zeros(b, dtype=np.int32),
        max_turns=np.full(b, int(max_turns), dtype=np.int32),
        hist=np.zeros((b, h), dtype=np.uint64),
        hist_len=np.zeros(b, dtype=np.int32),
        status=np.zeros(b, dtype=np.int8),
        rng=seed_keys(seed, b),
    )


def new_state(
    batch_size: int, seed: int = 0, max_turns: int = DEFAULT_MAX_TURNS, history: int | None = None
) -> KernelState:
    """Allocate ``batch_size`` new games (empty board, BLACK to move, PR-4/PR-8)."""
    st = _alloc(int(batch_size), max_turns, history, seed)
    reset_all(st)
    return st


def from_board(
    tile_at: np.ndarray,
    piece_at: np.ndarray,
    active: np.ndarray,
    player: int,
    turn: int = 0,
    max_turns: int = DEFAULT_MAX_TURNS,
    status: int = 0,
    history: list[int] | None = None,
) -> KernelState:
    """A batch of one game from mailbox arrays (tile id / piece id per square, -1 = none).

    ``history`` is the PR-17 window of packed positions ending with this one; None means
    just this position. Validation is the caller's (``notation.parse_position``).
    """
    st = _alloc(1, max_turns, None, 0)
    tiles = tsq = pieces = pat = bb = act = 0
    tsq, pieces, bb = EMPTY_TSQ, EMPTY_PIECES, HAND_ALL
    for sq in range(9):
        t = int(tile_at[sq])
        if t < 0:
            continue
        tiles |= (t + 1) << (4 * sq)
        tsq = (tsq & ~(15 << (4 * t))) | (sq << (4 * t))
        bb |= (1 << sq) | (1 << (36 + t))
        pc = int(piece_at[sq])
        if pc >= 0:
            pat |= (pc + 1) << (4 * sq)
            pieces = (pieces & ~(15 << (4 * pc))) | (sq << (4 * pc))
            bb |= (1 << (9 + 9 * (pc // 3) + sq)) | (1 << (27 + t))
            bb &= ~(1 << (45 + pc))
    for c in range(3):
        if int(active[c]) >= 0:
            act |= (int(active[c]) + 1) << (2 * c)
    st.tiles[0], st.tsq[0], st.pieces[0], st.pat[0], st.bb[0], st.act[0] = (
        tiles, tsq, pieces, pat, bb, act,
    )  # fmt: skip
    st.player[0], st.turn[0], st.status[0] = player, turn, status
    key = key_of(st, 0)
    hist = [key] if history is None else list(history)
    if hist[-1] != key:
        raise ValueError(
            f"the last history entry {hist[-1]:016x} is not the current position "
            f"({key:016x}); the history must end with the position itself"
        )
    st.hist[0, : len(hist)] = np.array(hist, dtype=np.uint64)
    st.hist_len[0] = len(hist)
    return st


def key_of(st: KernelState, b: int) -> int:
    """The packed PR-17 position of game ``b``."""
    return int(_key(st.tiles, st.pieces, st.bb, st.act, st.player, b))


# ----------------------------------------------------------------------------- helpers


@njit(cache=True)
def _mix64(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _rand_key(key, n):
    """(r, new key): r exactly uniform in [0, n) (Lemire's method with rejection), 0 < n < 2**32."""
    nn = np.uint64(n)
    key = key + np.uint64(0x9E3779B97F4A7C15)
    m = (_mix64(key) >> np.uint64(32)) * nn
    low = m & np.uint64(0xFFFFFFFF)
    if low < nn:
        t = (np.uint64(0x100000000) - nn) % nn
        while low < t:
            key = key + np.uint64(0x9E3779B97F4A7C15)
            m = (_mix64(key) >> np.uint64(32)) * nn
            low = m & np.uint64(0xFFFFFFFF)
    return np.int64(m >> np.uint64(32)), key


@njit(cache=True)
def _nth(mask, n):
    """Square index of the n-th (0-based) set bit of a 9-bit mask."""
    for _ in range(n):
        mask &= mask - 1
    return LOWBIT[mask]


@njit(cache=True)
def _feasible(need, avail, hand):
    """PR-10 table lookup (see ``FEAS``)."""
    idx = need | (avail << 3) | (hand << 12)
    return (FEAS[idx >> 6] >> np.uint64(idx & 63)) & np.uint64(1)


@njit(cache=True)
def _need(a):
    """Colours without a face-up tile (bit per colour) from the ``act`` word."""
    need = 0
    if a & 3 == 0:
        need |= 1
    if (a >> 2) & 3 == 0:
        need |= 2
    if (a >> 4) & 3 == 0:
        need |= 4
    return need


@njit(cache=True)
def _piece_squares(tsq, a, p, s, bb):
    """Squares where player ``p`` may put its piece of shape ``s`` (PR-8, PR-9, PR-10)."""
    pc = 3 * p + s
    hand = (bb >> 45) & 63
    if not (hand >> pc) & 1:
        return 0
    hand2 = hand & ~(1 << pc)
    covered = (bb >> 27) & 511
    avail = 511 & ~covered
    need = _need(a)
    v = (bb >> 36) & ~covered & 511  # vacant tiles (on the board, no piece): PR-8
    out = 0
    while v:
        t = LOWBIT[v]
        v &= v - 1
        c = t // 3
        need2 = need
        if t - 3 * c == s:  # a match (PR-5)
            up = (a >> (2 * c)) & 3
            if up != 0 and up != s + 1:
                continue  # PR-9: another tile of that colour is face up
            need2 = need & ~(1 << c)  # PR-6: it activates (or already is active)
        if _feasible(need2, avail & ~(1 << t), hand2):  # PR-10 afterwards
            out |= 1 << ((tsq >> (4 * t)) & 15)
    return out


@njit(cache=True)
def _swap_pair(r, rule, p, tsq, pieces):
    """The r-th (0..8) exchange the TURQUOISE rule allows in the movement phase (PR-12).

    With everything placed each rule allows exactly 9: POLARITY pairs each own piece's
    tile with each opponent piece's tile; COLOUR the 3 pairs of each colour; SHAPE the 3
    pairs of each shape.
    """
    if rule == 0:
        i = (pieces >> (4 * (3 * p + r // 3))) & 15
        j = (pieces >> (4 * (3 * (1 - p) + r % 3))) & 15
    else:
        g = r // 3
        x = _PAIR3[r % 3, 0]
        y = _PAIR3[r % 3, 1]
        if rule == 1:  # COLOUR: tiles (g, x), (g, y)
            ta = 3 * g + x
            tb = 3 * g + y
        else:  # SHAPE: tiles (x, g), (y, g)
            ta = 3 * x + g
            tb = 3 * y + g
        i = (tsq >> (4 * ta)) & 15
        j = (tsq >> (4 * tb)) & 15
    return _PAIR_ID[i, j]


# ----------------------------------------------------------------------------- legality


@njit(cache=True)
def _fill_mask(tiles, tsq, pieces, bb, act, player, status, b, out):
    """Legal actions of game ``b`` into the bool row ``out`` (all False once over)."""
    for k in range(NUM_ACTIONS):
        out[k] = False
    if status[b] != 0:
        return
    w = bb[b]
    a = act[b]
    ts = tsq[b]
    p = np.int64(player[b])
    placed = w & 511
    hand = (w >> 45) & 63
    n = 0
    if placed != 511 or hand != 0:  # placement phase
        pool = 511 & ~(w >> 36)
        empty = 511 & ~placed
        avail = 511 & ~(w >> 27)
        # PR-8 tile placement; PR-10 is unchanged by it (the tile stays available)
        if pool and _feasible(_need(a), avail, hand):
            tp = pool
            while tp:
                t = LOWBIT[tp]
                tp &= tp - 1
                e = empty
                while e:
                    sq = LOWBIT[e]
                    e &= e - 1
                    out[9 * t + sq] = True
                    n += 1
        for s in range(3):  # PR-8 piece placement with PR-9, PR-10
            m = _piece_squares(ts, a, p, s, w)
            while m:
                sq = LOWBIT[m]
                m &= m - 1
                out[A_PIECE + 9 * s + sq] = True
                n += 1
    else:  # movement phase
        vacant = 511 & ~((w >> 9) | (w >> 18))
        rule = (a & 3) - 1
        pcs = pieces[b]
        if rule >= 0:  # PR-12 moves
            for s in range(3):
                src = (pcs >> (4 * (3 * p + s))) & 15
                m = BROWN_T[rule, src] & vacant
                while m:
                    dst = LOWBIT[m]
                    m &= m - 1
                    out[A_MOVE + 9 * src + dst] = True
                    n += 1
        rule = ((a >> 2) & 3) - 1
        if rule >= 0:  # PR-12 exchanges
            for r in range(9):
                out[A_SWAP + _swap_pair(r, rule, p, ts, pcs)] = True
            n += 9
    if n == 0:
        out[A_PASS] = True  # PR-11, PR-14


@njit(cache=True)
def _sample(ts, pcs, w, a, p, key):
    """(action, new key): a uniformly random legal action, without building the mask."""
    placed = w & 511
    hand = (w >> 45) & 63
    if placed != 511 or hand != 0:  # placement phase
        pool = 511 & ~(w >> 36)
        empty = 511 & ~placed
        n_empty = POPC[empty]
        n_tile = 0
        if pool and _feasible(_need(a), 511 & ~(w >> 27), hand):
            n_tile = POPC[pool] * n_empty
        m0 = _piece_squares(ts, a, p, 0, w)
        m1 = _piece_squares(ts, a, p, 1, w)
        m2 = _piece_squares(ts, a, p, 2, w)
        c0 = POPC[m0]
        c1 = POPC[m1]
        total = n_tile + c0 + c1 + POPC[m2]
        if total == 0:
            return A_PASS, key
        r, key = _rand_key(key, total)
        if r < n_tile:
            return 9 * _nth(pool, r // n_empty) + _nth(empty, r % n_empty), key
        r -= n_tile
        if r < c0:
            return A_PIECE + _nth(m0, r), key
        r -= c0
        if r < c1:
            return A_PIECE + 9 + _nth(m1, r), key
        return A_PIECE + 18 + _nth(m2, r - c1), key
    vacant = 511 & ~((w >> 9) | (w >> 18))
    brule = (a & 3) - 1
    base = 12 * p
    s0 = (pcs >> base) & 15
    s1 = (pcs >> (base + 4)) & 15
    s2 = (pcs >> (base + 8)) & 15
    t0 = 0
    t1 = 0
    t2 = 0
    if brule >= 0:
        t0 = BROWN_T[brule, s0] & vacant
        t1 = BROWN_T[brule, s1] & vacant
        t2 = BROWN_T[brule, s2] & vacant
    c0 = POPC[t0]
    c1 = POPC[t1]
    c2 = POPC[t2]
    trule = ((a >> 2) & 3) - 1
    k = 9 if trule >= 0 else 0
    total = c0 + c1 + c2 + k
    if total == 0:
        return A_PASS, key
    r, key = _rand_key(key, total)
    if r < c0:
        return A_MOVE + 9 * s0 + _nth(t0, r), key
    r -= c0
    if r < c1:
        return A_MOVE + 9 * s1 + _nth(t1, r), key
    r -= c1
    if r < c2:
        return A_MOVE + 9 * s2 + _nth(t2, r), key
    return A_SWAP + _swap_pair(r - c2, trule, p, ts, pcs), key


@njit(cache=True)
def _random_action(tsq, pieces, bb, act, player, rng, b):
    """A uniformly random legal action of game ``b`` drawn from its own key (no mask)."""
    action, key = _sample(tsq[b], pieces[b], bb[b], act[b], np.int64(player[b]), rng[b])
    rng[b] = key
    return action


# ----------------------------------------------------------------------------- transition


@njit(cache=True)
def _activated(a, t):
    """PR-6: tile ``t`` face up, the previously active tile of its colour face down."""
    c = t // 3
    return (a & ~(3 << (2 * c))) | ((t - 3 * c + 1) << (2 * c))


@njit(cache=True)
def _is_new_active(a, t, pc):
    """A piece ``pc`` on tile ``t`` is a match (PR-5) on a face-down tile (PR-6)."""
    c = t // 3
    s = t - 3 * c
    return pc % 3 == s and ((a >> (2 * c)) & 3) != s + 1


@njit(cache=True)
def _goal_winner(tiles, pieces, bb, a):
    """PR-15/PR-16: the only player meeting the face-up GOLD goal, else -1."""
    g = ((a >> 4) & 3) - 1
    if g < 0:
        return -1
    meets0 = False
    meets1 = False
    for p in range(2):
        x = (pieces >> (12 * p)) & 0xFFF
        s0 = x & 15
        s1 = (x >> 4) & 15
        s2 = x >> 8
        if s0 == 15 or s1 == 15 or s2 == 15:
            continue  # the goal needs all three pieces on the board (PR-15)
        if g == 0:  # THREE-IN-LINE
            m = IS_LINE[(bb >> (9 + 9 * p)) & 511]
        else:
            t0 = ((tiles >> (4 * s0)) & 15) - 1
            t1 = ((tiles >> (4 * s1)) & 15) - 1
            t2 = ((tiles >> (4 * s2)) & 15) - 1
            if g == 1:  # COLOUR: three tiles of one colour
                m = t0 // 3 == t1 // 3 and t1 // 3 == t2 // 3
            else:  # SHAPE: three tiles of one shape
                m = t0 % 3 == t1 % 3 and t1 % 3 == t2 % 3
        if p == 0:
            meets0 = m
        else:
            meets1 = m
    if meets0 and not meets1:
        return 0
    if meets1 and not meets0:
        return 1
    return -1  # nobody, or both: play goes on


@njit(cache=True)
def _key(tiles, pieces, bb, act, player, b):
    """The exact 64-bit packing of game ``b``'s position (module docstring)."""
    w = bb[b]
    if (w & 511) == 511 and ((w >> 45) & 63) == 0:
        k = np.uint64(tiles[b] & 0xFFFFFFFF) | (np.uint64(pieces[b]) << np.uint64(32))
        k |= np.uint64(act[b]) << np.uint64(56)
        k |= np.uint64(player[b]) << np.uint64(62)
        return k | (np.uint64(1) << np.uint64(63))
    k = np.uint64(tiles[b]) | (np.uint64(pieces[b]) << np.uint64(36))
    return k | (np.uint64(player[b]) << np.uint64(60))


@njit(cache=True)
def _count_key(hist, b, n, key):
    cnt = 0
    for i in range(n):
        cnt += hist[b, i] == key
    return cnt


@njit(cache=True)
def _reset_game(S, b):
    """PR-8: empty board, everything in the pool / in hand, BLACK to move (PR-4)."""
    tiles, tsq, pieces, pat, bb, act, player, turn, max_turns, hist, hist_len, status, rng = S
    tiles[b] = 0
    tsq[b] = EMPTY_TSQ
    pieces[b] = EMPTY_PIECES
    pat[b] = 0
    bb[b] = HAND_ALL
    act[b] = 0
    player[b] = 0
    turn[b] = 0
    status[b] = 0
    hist[b, 0] = _key_w(0, EMPTY_PIECES, HAND_ALL, 0, 0)  # PR-17: the empty board
    hist_len[b] = 1


@njit(cache=True)
def _transition(action, p, tw, ts, pcs, pw, w, a):
    """Apply legal ``action`` of player ``p`` to one game's words (PR-6..PR-8, PR-12, PR-13).

    Returns the new (tiles, tsq, pieces, pat, bb, act) words and whether it was a placement.
    """
    placement = False
    if action < A_PIECE:  # PR-8 tile face down on an empty square
        t = action // 9
        sq = action - 9 * t
        tw |= (t + 1) << (4 * sq)
        ts = (ts & ~(15 << (4 * t))) | (sq << (4 * t))
        w |= (1 << sq) | (1 << (36 + t))
        placement = True
    elif action < A_MOVE:  # PR-8 own piece on a vacant tile
        s = (action - A_PIECE) // 9
        sq = action - A_PIECE - 9 * s
        pc = 3 * p + s
        pcs = (pcs & ~(15 << (4 * pc))) | (sq << (4 * pc))
        pw |= (pc + 1) << (4 * sq)
        t = ((tw >> (4 * sq)) & 15) - 1
        w = (w | (1 << (9 + 9 * p + sq)) | (1 << (27 + t))) & ~(1 << (45 + pc))
        if _is_new_active(a, t, pc):  # PR-6
            a = _activated(a, t)
        placement = True
    elif action < A_SWAP:  # PR-12 move to a vacant tile
        src = (action - A_MOVE) // 9
        dst = action - A_MOVE - 9 * src
        pc = ((pw >> (4 * src)) & 15) - 1
        pw = (pw & ~(15 << (4 * src))) | ((pc + 1) << (4 * dst))
        pcs = (pcs & ~(15 << (4 * pc))) | (dst << (4 * pc))
        t_src = ((tw >> (4 * src)) & 15) - 1
        td = ((tw >> (4 * dst)) & 15) - 1
        w = (w & ~((1 << (9 + 9 * p + src)) | (1 << (27 + t_src)))) | (1 << (9 + 9 * p + dst))
        w |= 1 << (27 + td)
        if _is_new_active(a, td, pc):  # PR-13 -> PR-6
            a = _activated(a, td)
    elif action < A_PASS:  # PR-12 exchange: tiles swap, pieces stay, face-up state travels
        i = _PAIR_A[action - A_SWAP]
        j = _PAIR_B[action - A_SWAP]
        ti = ((tw >> (4 * i)) & 15) - 1
        tj = ((tw >> (4 * j)) & 15) - 1
        tw = (tw & ~((15 << (4 * i)) | (15 << (4 * j)))) | ((tj + 1) << (4 * i))
        tw |= (ti + 1) << (4 * j)
        x = ts & ~((15 << (4 * ti)) | (15 << (4 * tj)))
        ts = x | (j << (4 * ti)) | (i << (4 * tj))
        pi = ((pw >> (4 * i)) & 15) - 1
        pj = ((pw >> (4 * j)) & 15) - 1
        w &= ~((1 << (27 + ti)) | (1 << (27 + tj)))
        if pi >= 0:
            w |= 1 << (27 + tj)
        if pj >= 0:
            w |= 1 << (27 + ti)
        # PR-13 -> PR-6/PR-7: new matches that land on face-down tiles
        ci = pi >= 0 and _is_new_active(a, tj, pi)
        cj = pj >= 0 and _is_new_active(a, ti, pj)
        if ci and cj and ti // 3 == tj // 3:
            pass  # PR-7: two new matches of one colour cancel
        else:
            if ci:
                a = _activated(a, tj)
            if cj:
                a = _activated(a, ti)
    # else: PR-11 / PR-14 pass
    return tw, ts, pcs, pw, w, a, placement


@njit(cache=True)
def _key_w(tw, pcs, w, a, p):
    """The exact 64-bit packing of a position (module docstring)."""
    if (w & 511) == 511 and ((w >> 45) & 63) == 0:
        k = np.uint64(tw & 0xFFFFFFFF) | (np.uint64(pcs) << np.uint64(32))
        k |= np.uint64(a) << np.uint64(56)
        k |= np.uint64(p) << np.uint64(62)
        return k | (np.uint64(1) << np.uint64(63))
    k = np.uint64(tw) | (np.uint64(pcs) << np.uint64(36))
    return k | (np.uint64(p) << np.uint64(60))


@njit(cache=True)
def _turn_status(winner, placement, occurrences, t_now, max_t):
    """PR-16/PR-17 status after a turn: 0 ongoing, 1 + winner, 3 repetition, 4 turn limit.

    ``occurrences``: how often the new position has now occurred (this turn's included).
    """
    if winner >= 0:
        return 1 + winner  # a win stands even if PR-17 also ends the game
    if not placement and occurrences >= 3:
        return 3  # PR-17 third occurrence
    if t_now >= max_t:
        return 4  # PR-17 turn limit (checked after repetition)
    return 0


@njit(cache=True)
def _end_turn(hist, b, n, key, placement, winner, t_now, max_t):
    """Record the new position in the PR-17 history: (new history length, status)."""
    if placement:
        n = 0  # after a placement earlier positions cannot recur
    if n < hist.shape[1]:
        hist[b, n] = key
        n += 1
    occurrences = 0 if placement else _count_key(hist, b, n, key)
    return n, _turn_status(winner, placement, occurrences, t_now, max_t)


@njit(cache=True)
def _apply_one(S, b, action):
    """Apply legal ``action`` to game ``b`` and finish the turn (PR-13, PR-16, PR-17)."""
    tiles, tsq, pieces, pat, bb, act, player, turn, max_turns, hist, hist_len, status, rng = S
    p = np.int64(player[b])
    tw, ts, pcs, pw, w, a, placement = _transition(
        action, p, tiles[b], tsq[b], pieces[b], pat[b], bb[b], act[b]
    )
    tiles[b] = tw
    tsq[b] = ts
    pieces[b] = pcs
    pat[b] = pw
    bb[b] = w
    act[b] = a
    player[b] = 1 - p
    t_now = turn[b] + 1
    turn[b] = t_now
    winner = _goal_winner(tw, pcs, w, a)  # PR-16, both players
    key = _key_w(tw, pcs, w, a, 1 - p)
    n, st = _end_turn(hist, b, hist_len[b], key, placement, winner, t_now, max_turns[b])
    hist_len[b] = n
    status[b] = st


@njit(cache=True)
def _rewards_of(status, b, rewards):
    s = status[b]
    if s == 1:
        rewards[b, 0] = 1.0
        rewards[b, 1] = -1.0
    elif s == 2:
        rewards[b, 0] = -1.0
        rewards[b, 1] = 1.0
    else:
        rewards[b, 0] = 0.0
        rewards[b, 1] = 0.0


# ----------------------------------------------------------------------------- observation


@njit(cache=True)
def _observe_one(S, seats, out, b):
    """Planes of game ``b`` from ``seats[b]``'s point of view (see :func:`observe`)."""
    tiles, tsq, pieces, pat, bb, act, player, turn, max_turns, hist, hist_len, status, rng = S
    me = np.int64(seats[b])
    o = out[b]
    tw = tiles[b]
    pw = pat[b]
    w = bb[b]
    a = act[b]
    # constant planes first
    onboard = (w >> 36) & 511
    hand = (w >> 45) & 63
    for k in range(16, N_PLANES):
        v = 0.0
        if k < 25:
            v = 1.0 - ((onboard >> (k - 16)) & 1)
        elif k < 31:
            own = k < 28
            s = (k - 25) % 3
            pc = 3 * (me if own else 1 - me) + s
            v = float((hand >> pc) & 1)
        elif k == 31:
            v = 1.0 if ((w & 511) == 511 and hand == 0) else 0.0
        elif k == 32:
            v = 1.0 if (status[b] == 0 and player[b] == me) else 0.0
        elif k == 33:
            v = turn[b] / max(max_turns[b], 1)
        else:
            n = hist_len[b]
            if n > 0:
                v = min(_count_key(hist, b, n, hist[b, n - 1]) - 1, 2) / 2.0
        for sq in range(9):
            o[sq // 3, sq % 3, k] = v
    for sq in range(9):
        r = sq // 3
        c = sq % 3
        for k in range(16):
            o[r, c, k] = 0.0
        t = ((tw >> (4 * sq)) & 15) - 1
        if t >= 0:
            o[r, c, t] = 1.0
            if ((a >> (2 * (t // 3))) & 3) == t % 3 + 1:
                o[r, c, 9] = 1.0
        pc = ((pw >> (4 * sq)) & 15) - 1
        if pc >= 0:
            o[r, c, (10 if pc // 3 == me else 13) + pc % 3] = 1.0


# ----------------------------------------------------------------------------- batch API
#
# Every batch operation is one prange loop over a per-game body, compiled serial and
# parallel (envs/core/loops.py); :func:`_run` picks one by batch size (waking threads costs more than a
# small batch's work, and far more when the cores are busy). Results never depend on the
# choice: each game only touches its own rows and its own RNG key.

PARALLEL_MIN_BATCH = 4096
SINGLE_THREAD_MIN_BATCH = 64


def _reset_loop(S):
    for b in prange(S[0].shape[0]):
        _reset_game(S, b)


_reset_ser, _reset_par = serial_and_parallel(_reset_loop)


def _mask_loop(S, out):
    tiles, tsq, pieces, pat, bb, act, player, turn, max_turns, hist, hist_len, status, rng = S
    for b in prange(tiles.shape[0]):
        _fill_mask(tiles, tsq, pieces, bb, act, player, status, b, out[b])


_mask_ser, _mask_par = serial_and_parallel(_mask_loop)


@njit(cache=True)
def _random_one(tsq, pieces, bb, act, player, status, rng, out, b):
    if status[b] != 0:
        out[b] = -1
    else:
        out[b] = _random_action(tsq, pieces, bb, act, player, rng, b)


def _random_loop(S, out):
    tiles, tsq, pieces, pat, bb, act, player, turn, max_turns, hist, hist_len, status, rng = S
    for b in prange(tiles.shape[0]):
        _random_one(tsq, pieces, bb, act, player, status, rng, out, b)


_random_ser, _random_par = serial_and_parallel(_random_loop)


@njit(cache=True)
def _step_one(S, b, action, auto_reset, rewards, done):
    tiles, tsq, pieces, pat, bb, act, player, turn, max_turns, hist, hist_len, status, rng = S
    rewards[b, 0] = 0.0
    rewards[b, 1] = 0.0
    if status[b] != 0:
        done[b] = True
        return
    _apply_one(S, b, action)
    if status[b] != 0:
        done[b] = True
        _rewards_of(status, b, rewards)
        if auto_reset:
            _reset_game(S, b)
    else:
        done[b] = False


def _step_loop(S, actions, auto_reset, rewards, done):
    for b in prange(S[0].shape[0]):
        _step_one(S, b, np.int64(actions[b]), auto_reset, rewards, done)


_step_ser, _step_par = serial_and_parallel(_step_loop)


@njit(cache=True)
def _selfplay_one(S, b, n_steps):
    """n_steps random legal actions of game ``b`` (auto-reset), its words kept in registers."""
    tiles, tsq, pieces, pat, bb, act, player, turn, max_turns, hist, hist_len, status, rng = S
    tw = tiles[b]
    ts = tsq[b]
    pcs = pieces[b]
    pw = pat[b]
    w = bb[b]
    a = act[b]
    p = np.int64(player[b])
    t = np.int64(turn[b])
    mt = np.int64(max_turns[b])
    n = np.int64(hist_len[b])
    st = np.int64(status[b])
    key = rng[b]
    finished = 0
    for _ in range(n_steps):
        if st != 0:  # auto-reset: PR-8 empty board, BLACK to move
            tw = 0
            ts = EMPTY_TSQ
            pcs = EMPTY_PIECES
            pw = 0
            w = HAND_ALL
            a = 0
            p = 0
            t = 0
            st = 0
            hist[b, 0] = _key_w(tw, pcs, w, a, p)
            n = 1
        action, key = _sample(ts, pcs, w, a, p, key)
        tw, ts, pcs, pw, w, a, placement = _transition(action, p, tw, ts, pcs, pw, w, a)
        p = 1 - p
        t += 1
        winner = _goal_winner(tw, pcs, w, a)
        n, st = _end_turn(hist, b, n, _key_w(tw, pcs, w, a, p), placement, winner, t, mt)
        if st != 0:
            finished += 1
    tiles[b] = tw
    tsq[b] = ts
    pieces[b] = pcs
    pat[b] = pw
    bb[b] = w
    act[b] = a
    player[b] = p
    turn[b] = t
    hist_len[b] = n
    status[b] = st
    rng[b] = key
    return finished


def _selfplay_loop(S, n_steps):
    finished = 0
    for b in prange(S[0].shape[0]):
        finished += _selfplay_one(S, b, n_steps)
    return finished


_selfplay_ser, _selfplay_par = serial_and_parallel(_selfplay_loop)


def _observe_loop(S, seats, out):
    for b in prange(S[0].shape[0]):
        _observe_one(S, seats, out, b)


_observe_ser, _observe_par = serial_and_parallel(_observe_loop)


def _run(par_fn, ser_fn, st: KernelState, parallel: bool | None, *args):
    """Call the prange or the serial loop of an operation.

    ``parallel=None`` (default): batches >= ``PARALLEL_MIN_BATCH`` use the prange loop with
    all of Numba's threads; batches >= ``SINGLE_THREAD_MIN_BATCH`` the prange loop on one
    thread (it is the faster code even then: Numba compiles its body as one function, the
    serial loop calls the per-game body; and one thread never waits for a busy core);
    smaller ones the serial loop. ``True`` / ``False`` force prange (all threads) / serial.
    """
    if parallel is None:
        b = st.batch_size
        if b >= PARALLEL_MIN_BATCH:
            return par_fn(st.arrays(), *args)
        if b >= SINGLE_THREAD_MIN_BATCH:
            old = numba.get_num_threads()
            numba.set_num_threads(1)
            try:
                return par_fn(st.arrays(), *args)
            finally:
                numba.set_num_threads(old)
        return ser_fn(st.arrays(), *args)
    return (par_fn if parallel else ser_fn)(st.arrays(), *args)


def reset_all(st: KernelState, parallel: bool | None = None) -> None:
    """Start every game of the batch anew (PR-8; the RNG keys and max_turns are kept)."""
    _run(_reset_par, _reset_ser, st, parallel)


def legal_mask(
    st: KernelState, out: np.ndarray | None = None, parallel: bool | None = None
) -> np.ndarray:
    """(B, NUM_ACTIONS) bool legal actions of the player to move (all False once over)."""
    if out is None:
        out = np.zeros((st.batch_size, NUM_ACTIONS), dtype=np.bool_)
    _run(_mask_par, _mask_ser, st, parallel, out)
    return out


def random_actions(
    st: KernelState, out: np.ndarray | None = None, parallel: bool | None = None
) -> np.ndarray:
    """(B,) uniformly random legal actions from each game's own key (-1 where over)."""
    if out is None:
        out = np.zeros(st.batch_size, dtype=np.int64)
    _run(_random_par, _random_ser, st, parallel, out)
    return out


def step(
    st: KernelState,
    actions: np.ndarray,
    auto_reset: bool = False,
    rewards: np.ndarray | None = None,
    done: np.ndarray | None = None,
    parallel: bool | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Apply one legal action per running game; returns (rewards (B, 2), done (B,)).

    ``done[b]`` is True when game b is over after the step (it ended now, or it was
    already over: a finished game ignores its action). With ``auto_reset`` a game that
    ended in this step is re-initialised after its rewards are recorded.
    """
    b = st.batch_size
    if rewards is None:
        rewards = np.zeros((b, 2), dtype=np.float32)
    if done is None:
        done = np.zeros(b, dtype=np.bool_)
    acts = np.asarray(actions, dtype=np.int64)
    _run(_step_par, _step_ser, st, parallel, acts, bool(auto_reset), rewards, done)
    return rewards, done


def random_step(st: KernelState, n_steps: int = 1, parallel: bool | None = None) -> int:
    """Self-play: every game applies ``n_steps`` uniformly random legal actions (auto-reset).

    Returns the number of games that finished (for benchmarks and rollouts).
    """
    return int(_run(_selfplay_par, _selfplay_ser, st, parallel, int(n_steps)))


def observe(
    st: KernelState, seats: np.ndarray, out: np.ndarray | None = None, parallel: bool | None = None
) -> np.ndarray:
    """(B, 3, 3, N_PLANES) float32 planes from ``seats[b]``'s point of view.

    Planes: 0-8 tile id k on the square; 9 the tile is face up; 10-12 observer's pieces
    by shape; 13-15 opponent's pieces by shape; 16-24 tile k in the pool (constant
    plane); 25-27 observer's pieces in hand; 28-30 opponent's pieces in hand; 31 movement
    phase; 32 observer is to move; 33 turn / max_turns; 34 (occurrences of the position
    - 1) / 2 (PR-17 repetition count).
    """
    if out is None:
        out = np.zeros((st.batch_size, 3, 3, N_PLANES), dtype=np.float32)
    _run(_observe_par, _observe_ser, st, parallel, np.asarray(seats, dtype=np.int64), out)
    return out


# ----------------------------------------------------------------------------- env fast path


@njit(cache=True)
def _env_refresh(S, mask, obs, seats):
    """Mask of game 0 and its planes for both seats, in one dispatch (the AEC env's path)."""
    tiles, tsq, pieces, pat, bb, act, player, turn, max_turns, hist, hist_len, status, rng = S
    _fill_mask(tiles, tsq, pieces, bb, act, player, status, 0, mask[0])
    for seat in range(2):
        seats[0] = seat
        _observe_one(S, seats, obs[seat : seat + 1], 0)


@njit(cache=True)
def _env_step(S, action, mask, obs, seats):
    _apply_one(S, 0, action)
    _env_refresh(S, mask, obs, seats)


def env_refresh(st: KernelState, mask: np.ndarray, obs: np.ndarray, seats: np.ndarray) -> None:
    """Batch-of-one helper for the AEC env: mask (1, 226) bool and obs (2, 3, 3, 35)."""
    _env_refresh(st.arrays(), mask, obs, seats)
