"""Proteus rules kernel: pure Numba functions over a batch of games in plain numpy arrays.

Every rule of ``shared/rules/proteus.md`` lives here (rule numbers PR-n in comments).
State of a batch of ``B`` games (see :class:`KernelState`), all arrays with a leading
batch axis:

==============  ============  ==========================================================
array           shape/dtype   meaning
==============  ============  ==========================================================
``tile_at``     (B, 9) int8   tile id (3*colour+shape) on each square, -1 = empty square
``piece_at``    (B, 9) int8   piece id (3*player+shape) on each square, -1 = none
``active``      (B, 3) int8   shape of the face-up tile of each colour, -1 = none (PR-2)
``player``      (B,) int8     seat to move (0 black, 1 white)
``turn``        (B,) int32    completed turns (PR-17: every turn counts, passes too)
``max_turns``   (B,) int32    PR-17 turn limit of each game
``hist``        (B, H) uint64 packed positions since the last placement (PR-17)
``hist_len``    (B,) int32    used entries of ``hist``
``status``      (B,) int8     0 ongoing, 1 black won, 2 white won, 3 draw by repetition,
                              4 draw by the turn limit
``rng``         (B,) uint64   splitmix64 key of each game (random legal actions)
==============  ============  ==========================================================

The pool, both hands and the phase are functions of the board (whatever is not on the
board is in the pool / in hand; the movement phase starts once everything is placed), so
they are not stored. Bitboards (9-bit square masks per player, per tile colour, per tile
shape) are derived from the mailbox arrays in one pass where a rule needs them.

Repetition (PR-17) is exact: ``hist`` stores whole positions packed into 64 bits (not
hashes). A placement can never be undone (the count of placed things only grows), so a
position can only recur among positions since the last placement; the history is cleared
on every placement and the window starts again with the position after it. The initial
empty board is the first entry of the history. Packing:

* placement phase: bits 4*sq..4*sq+3 = tile on ``sq`` + 1 (0 = empty), bits 36+4*piece..
  = square of ``piece`` (15 = in hand), bit 60 = player to move, bit 63 = 0. Inside one
  window the face-up state cannot change, so it is implied.
* movement phase: bits 4*sq.. = tile on ``sq`` for sq 0..7 (the 9th is the one left),
  bits 32+4*piece.. = square of ``piece``, bits 56+2*colour.. = active shape + 1,
  bit 62 = player to move, bit 63 = 1.

Random legal actions are drawn per game from its own key with exact (rejection-based)
uniform sampling, without materialising the full mask: the kernel counts the legal
actions of each kind and decodes the r-th one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from envs.proteus.constants import (
    A_MOVE,
    A_PASS,
    A_PIECE,
    A_SWAP,
    BROWN,
    DEFAULT_MAX_TURNS,
    GOLD,
    NUM_ACTIONS,
    PAIR_A,
    PAIR_B,
    PAIR_ID,
    TURQUOISE,
)

# ----------------------------------------------------------------------------- tables


def _build_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    popc = np.array([bin(m).count("1") for m in range(512)], dtype=np.int64)
    low = np.array([(m & -m).bit_length() - 1 if m else 9 for m in range(512)], dtype=np.int64)
    brown = np.zeros((3, 9), dtype=np.int64)  # PR-12 targets of KING, ROOK, BISHOP
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
    lines = [
        0b000000111,
        0b000111000,
        0b111000000,
        0b001001001,
        0b010010010,
        0b100100100,
        0b100010001,
        0b001010100,
    ]
    is_line = np.zeros(512, dtype=np.bool_)
    for m in lines:
        is_line[m] = True  # PR-15 THREE-IN-LINE: rows, columns, diagonals
    return popc, low, brown, is_line


POPC, LOWBIT, BROWN_T, IS_LINE = _build_tables()
_PAIR_A = PAIR_A
_PAIR_B = PAIR_B
_PAIR_ID = PAIR_ID

_U1 = np.uint64(1)
_M32 = np.uint64(0xFFFFFFFF)


# ----------------------------------------------------------------------------- state


@dataclass
class KernelState:
    """A batch of Proteus games (see the module docstring for the arrays)."""

    tile_at: np.ndarray
    piece_at: np.ndarray
    active: np.ndarray
    player: np.ndarray
    turn: np.ndarray
    max_turns: np.ndarray
    hist: np.ndarray
    hist_len: np.ndarray
    status: np.ndarray
    rng: np.ndarray

    @property
    def batch_size(self) -> int:
        return int(self.tile_at.shape[0])

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The arrays in kernel argument order."""
        return (
            self.tile_at,
            self.piece_at,
            self.active,
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


def _mix64_np(z: np.ndarray) -> np.ndarray:
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def seed_keys(seed: int, batch_size: int, offset: int = 0) -> np.ndarray:
    """RNG key of game i from (seed, i) only: independent of batch size and position."""
    base = _mix64_np(np.array([int(seed) & 0xFFFFFFFFFFFFFFFF], dtype=np.uint64))
    idx = np.arange(offset, offset + int(batch_size), dtype=np.uint64)
    return _mix64_np(base ^ _mix64_np(idx + np.uint64(0x632BE59BD9B4E019)))


def new_state(
    batch_size: int, seed: int = 0, max_turns: int = DEFAULT_MAX_TURNS, history: int | None = None
) -> KernelState:
    """Allocate ``batch_size`` new games (empty board, BLACK to move, PR-4/PR-8)."""
    if int(max_turns) < 1:
        raise ValueError(f"max_turns must be a positive integer, got {max_turns!r}")
    h = int(max_turns) + 1 if history is None else int(history)
    b = int(batch_size)
    st = KernelState(
        tile_at=np.full((b, 9), -1, dtype=np.int8),
        piece_at=np.full((b, 9), -1, dtype=np.int8),
        active=np.full((b, 3), -1, dtype=np.int8),
        player=np.zeros(b, dtype=np.int8),
        turn=np.zeros(b, dtype=np.int32),
        max_turns=np.full(b, int(max_turns), dtype=np.int32),
        hist=np.zeros((b, h), dtype=np.uint64),
        hist_len=np.zeros(b, dtype=np.int32),
        status=np.zeros(b, dtype=np.int8),
        rng=seed_keys(seed, b),
    )
    reset_all(st)
    return st


# ----------------------------------------------------------------------------- helpers


@njit(cache=True)
def _mix64(z: np.uint64) -> np.uint64:
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _next_u64(rng, b):
    z = rng[b] + np.uint64(0x9E3779B97F4A7C15)
    rng[b] = z
    return _mix64(z)


@njit(cache=True)
def _rand_below(rng, b, n):
    """Exactly uniform integer in [0, n) (Lemire's method with rejection), 0 < n < 2**32."""
    nn = np.uint64(n)
    m = (_next_u64(rng, b) >> np.uint64(32)) * nn
    low = m & _M32
    if low < nn:
        t = (np.uint64(0x100000000) - nn) % nn
        while low < t:
            m = (_next_u64(rng, b) >> np.uint64(32)) * nn
            low = m & _M32
    return np.int64(m >> np.uint64(32))


@njit(cache=True)
def _nth(mask, n):
    """Square index of the n-th (0-based) set bit of a 9-bit mask."""
    for _ in range(n):
        mask &= mask - 1
    return LOWBIT[mask]


@njit(cache=True)
def _scan(tile_at, piece_at, b):
    """One pass over the squares: the bitboards the rules need.

    Returns placed squares, black / white occupied squares, tile ids under pieces, tile
    ids on the board, pieces in hand (6-bit, bit 3*player+shape), colour masks (9 bits per
    colour packed), shape masks (packed likewise), piece squares (4 bits per piece, 15 =
    in hand).
    """
    placed = 0
    occ0 = 0
    occ1 = 0
    covered = 0
    onboard = 0
    ponboard = 0
    colm = 0
    shm = 0
    psq = 0xFFFFFF
    for sq in range(9):
        t = np.int64(tile_at[b, sq])
        if t >= 0:
            bit = 1 << sq
            placed |= bit
            onboard |= 1 << t
            c = t // 3
            colm |= bit << (9 * c)
            shm |= bit << (9 * (t - 3 * c))
            p = np.int64(piece_at[b, sq])
            if p >= 0:
                covered |= 1 << t
                ponboard |= 1 << p
                if p < 3:
                    occ0 |= bit
                else:
                    occ1 |= bit
                psq = (psq & ~(15 << (4 * p))) | (sq << (4 * p))
    return placed, occ0, occ1, covered, onboard, 63 & ~ponboard, colm, shm, psq


@njit(cache=True)
def _feasible(need, avail, hand):
    """PR-10: can every colour in ``need`` still be activated?

    Needs an assignment of the colours to distinct pieces in hand (either player's) whose
    tile (colour, piece shape) is available (in the pool or placed without a piece).
    Pieces of one shape are interchangeable, so this is Hall's condition on colours vs
    shapes with capacity = pieces of that shape in hand (at most 3 colours: 7 subsets).
    """
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
def _need_mask(active, b):
    """Colours without a face-up tile (bit per colour)."""
    need = 0
    for c in range(3):
        if active[b, c] < 0:
            need |= 1 << c
    return need


@njit(cache=True)
def _piece_squares(tile_at, active, b, p, s, vacant, need, avail, hand):
    """Squares where player ``p`` may put its piece of shape ``s`` (PR-8, PR-9, PR-10)."""
    pbit = 1 << (3 * p + s)
    if not (hand & pbit):
        return 0
    hand2 = hand & ~pbit
    out = 0
    v = vacant
    while v:
        sq = LOWBIT[v]
        v &= v - 1
        t = np.int64(tile_at[b, sq])
        c = t // 3
        need2 = need
        if t - 3 * c == s:  # a match (PR-5)
            a = active[b, c]
            if a >= 0 and a != s:
                continue  # PR-9: another tile of that colour is face up
            need2 = need & ~(1 << c)  # PR-6: it activates (or already is active)
        if _feasible(need2, avail & ~(1 << t), hand2):  # PR-10 afterwards
            out |= 1 << sq
    return out


@njit(cache=True)
def _pair_count(m):
    k = POPC[m]
    return (k * (k - 1)) >> 1


@njit(cache=True)
def _swap_count(rule, occ0, occ1, colm, shm):
    """Number of exchanges the face-up TURQUOISE tile allows (PR-12)."""
    if rule == 0:  # POLARITY: a black piece's tile with a white piece's tile
        return POPC[occ0] * POPC[occ1]
    if rule == 1:  # COLOUR: two tiles of one colour
        return _pair_count(colm & 511) + _pair_count((colm >> 9) & 511) + _pair_count(colm >> 18)
    if rule == 2:  # SHAPE: two tiles of one shape
        return _pair_count(shm & 511) + _pair_count((shm >> 9) & 511) + _pair_count(shm >> 18)
    return 0


@njit(cache=True)
def _swap_select(r, rule, occ0, occ1, colm, shm):
    """The r-th exchange (in :func:`_swap_count`'s order) as a pair id."""
    if rule == 0:
        n1 = POPC[occ1]
        i = _nth(occ0, r // n1)
        j = _nth(occ1, r % n1)
        return _PAIR_ID[i, j]
    mm = colm if rule == 1 else shm
    for g in range(3):
        m = (mm >> (9 * g)) & 511
        np_ = _pair_count(m)
        if r < np_:
            k = POPC[m]
            idx = 0
            for x in range(k):
                for y in range(x + 1, k):
                    if idx == r:
                        return _PAIR_ID[_nth(m, x), _nth(m, y)]
                    idx += 1
        r -= np_
    return -1


@njit(cache=True)
def _placement_phase(placed, hand):
    return placed != 511 or hand != 0


# ----------------------------------------------------------------------------- legality


@njit(cache=True)
def _fill_mask(tile_at, piece_at, active, player, status, b, out):
    """Legal actions of game ``b`` into the bool row ``out`` (all False once over)."""
    for a in range(NUM_ACTIONS):
        out[a] = False
    if status[b] != 0:
        return
    placed, occ0, occ1, covered, onboard, hand, colm, shm, psq = _scan(tile_at, piece_at, b)
    p = np.int64(player[b])
    n = 0
    if _placement_phase(placed, hand):
        pool = 511 & ~onboard
        empty = 511 & ~placed
        vacant = placed & ~(occ0 | occ1)
        avail = 511 & ~covered
        need = _need_mask(active, b)
        # PR-8 tile placement; PR-10 is unchanged by it (the tile stays available)
        if pool and _feasible(need, avail, hand):
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
            m = _piece_squares(tile_at, active, b, p, s, vacant, need, avail, hand)
            while m:
                sq = LOWBIT[m]
                m &= m - 1
                out[A_PIECE + 9 * s + sq] = True
                n += 1
    else:
        vacant = 511 & ~(occ0 | occ1)
        rule = active[b, BROWN]
        if rule >= 0:  # PR-12 moves
            for s in range(3):
                src = (psq >> (4 * (3 * p + s))) & 15
                m = BROWN_T[rule, src] & vacant
                while m:
                    dst = LOWBIT[m]
                    m &= m - 1
                    out[A_MOVE + 9 * src + dst] = True
                    n += 1
        rule = active[b, TURQUOISE]
        k = _swap_count(rule, occ0, occ1, colm, shm)  # PR-12 exchanges
        for r in range(k):
            out[A_SWAP + _swap_select(r, rule, occ0, occ1, colm, shm)] = True
        n += k
    if n == 0:
        out[A_PASS] = True  # PR-11, PR-14


@njit(cache=True)
def _random_action(tile_at, piece_at, active, player, rng, b):
    """A uniformly random legal action of game ``b`` drawn from its own key (no mask)."""
    placed, occ0, occ1, covered, onboard, hand, colm, shm, psq = _scan(tile_at, piece_at, b)
    p = np.int64(player[b])
    if _placement_phase(placed, hand):
        pool = 511 & ~onboard
        empty = 511 & ~placed
        vacant = placed & ~(occ0 | occ1)
        avail = 511 & ~covered
        need = _need_mask(active, b)
        n_empty = POPC[empty]
        n_tile = 0
        if pool and _feasible(need, avail, hand):
            n_tile = POPC[pool] * n_empty
        m0 = _piece_squares(tile_at, active, b, p, 0, vacant, need, avail, hand)
        m1 = _piece_squares(tile_at, active, b, p, 1, vacant, need, avail, hand)
        m2 = _piece_squares(tile_at, active, b, p, 2, vacant, need, avail, hand)
        c0 = POPC[m0]
        c1 = POPC[m1]
        total = n_tile + c0 + c1 + POPC[m2]
        if total == 0:
            return A_PASS
        r = _rand_below(rng, b, total)
        if r < n_tile:
            return 9 * _nth(pool, r // n_empty) + _nth(empty, r % n_empty)
        r -= n_tile
        if r < c0:
            return A_PIECE + _nth(m0, r)
        r -= c0
        if r < c1:
            return A_PIECE + 9 + _nth(m1, r)
        return A_PIECE + 18 + _nth(m2, r - c1)
    vacant = 511 & ~(occ0 | occ1)
    brule = active[b, BROWN]
    t0 = 0
    t1 = 0
    t2 = 0
    base = 12 * p
    s0 = (psq >> base) & 15
    s1 = (psq >> (base + 4)) & 15
    s2 = (psq >> (base + 8)) & 15
    if brule >= 0:
        t0 = BROWN_T[brule, s0] & vacant
        t1 = BROWN_T[brule, s1] & vacant
        t2 = BROWN_T[brule, s2] & vacant
    c0 = POPC[t0]
    c1 = POPC[t1]
    c2 = POPC[t2]
    trule = active[b, TURQUOISE]
    k = _swap_count(trule, occ0, occ1, colm, shm)
    total = c0 + c1 + c2 + k
    if total == 0:
        return A_PASS
    r = _rand_below(rng, b, total)
    if r < c0:
        return A_MOVE + 9 * s0 + _nth(t0, r)
    r -= c0
    if r < c1:
        return A_MOVE + 9 * s1 + _nth(t1, r)
    r -= c1
    if r < c2:
        return A_MOVE + 9 * s2 + _nth(t2, r)
    return A_SWAP + _swap_select(r - c2, trule, occ0, occ1, colm, shm)


# ----------------------------------------------------------------------------- transition


@njit(cache=True)
def _activate(active, b, t):
    """PR-6: tile ``t`` turns face up; the previously active tile of its colour turns down."""
    active[b, t // 3] = t % 3


@njit(cache=True)
def _goal_winner(tile_at, piece_at, active, b):
    """PR-15/PR-16: the only player meeting the face-up GOLD goal, else -1."""
    g = active[b, GOLD]
    if g < 0:
        return -1
    occ0 = 0
    occ1 = 0
    n0 = 0
    n1 = 0
    col0 = 0
    col1 = 0
    sh0 = 0
    sh1 = 0
    for sq in range(9):
        pc = piece_at[b, sq]
        if pc >= 0:
            t = np.int64(tile_at[b, sq])
            cbit = 1 << (t // 3)
            sbit = 1 << (t % 3)
            if pc < 3:
                occ0 |= 1 << sq
                n0 += 1
                col0 |= cbit
                sh0 |= sbit
            else:
                occ1 |= 1 << sq
                n1 += 1
                col1 |= cbit
                sh1 |= sbit
    if g == 0:  # THREE-IN-LINE
        m0 = n0 == 3 and IS_LINE[occ0]
        m1 = n1 == 3 and IS_LINE[occ1]
    elif g == 1:  # COLOUR: three tiles of one colour
        m0 = n0 == 3 and POPC[col0] == 1
        m1 = n1 == 3 and POPC[col1] == 1
    else:  # SHAPE: three tiles of one shape
        m0 = n0 == 3 and POPC[sh0] == 1
        m1 = n1 == 3 and POPC[sh1] == 1
    if m0 and not m1:
        return 0
    if m1 and not m0:
        return 1
    return -1  # nobody, or both: play goes on


@njit(cache=True)
def position_key(tile_at, piece_at, active, player, b):
    """The exact 64-bit packing of game ``b``'s position (module docstring)."""
    ntiles = 0
    npieces = 0
    for sq in range(9):
        if tile_at[b, sq] >= 0:
            ntiles += 1
        if piece_at[b, sq] >= 0:
            npieces += 1
    k = np.uint64(0)
    if ntiles == 9 and npieces == 6:
        for sq in range(8):
            k |= np.uint64(tile_at[b, sq]) << np.uint64(4 * sq)
        for sq in range(9):
            pc = piece_at[b, sq]
            if pc >= 0:
                k |= np.uint64(sq) << np.uint64(32 + 4 * pc)
        for c in range(3):
            k |= np.uint64(active[b, c] + 1) << np.uint64(56 + 2 * c)
        k |= np.uint64(player[b]) << np.uint64(62)
        k |= _U1 << np.uint64(63)
        return k
    pieces = np.uint64(0xFFFFFF)
    for sq in range(9):
        k |= np.uint64(tile_at[b, sq] + 1) << np.uint64(4 * sq)
        pc = piece_at[b, sq]
        if pc >= 0:
            pieces &= ~(np.uint64(15) << np.uint64(4 * pc))
            pieces |= np.uint64(sq) << np.uint64(4 * pc)
    k |= pieces << np.uint64(36)
    k |= np.uint64(player[b]) << np.uint64(60)
    return k


@njit(cache=True)
def _count_key(hist, b, n, key):
    cnt = 0
    for i in range(n):
        cnt += hist[b, i] == key
    return cnt


@njit(cache=True)
def _reset_game(tile_at, piece_at, active, player, turn, hist, hist_len, status, b):
    """PR-8: empty board, everything in the pool / in hand, BLACK to move (PR-4)."""
    for sq in range(9):
        tile_at[b, sq] = -1
        piece_at[b, sq] = -1
    for c in range(3):
        active[b, c] = -1
    player[b] = 0
    turn[b] = 0
    status[b] = 0
    hist[b, 0] = position_key(tile_at, piece_at, active, player, b)  # PR-17: empty board
    hist_len[b] = 1


@njit(cache=True)
def _apply_one(tile_at, piece_at, active, player, turn, max_turns, hist, hist_len, status, b, a):
    """Apply legal action ``a`` to game ``b`` and finish the turn (PR-13, PR-16, PR-17)."""
    p = np.int64(player[b])
    placement = False
    if a < A_PIECE:  # PR-8 tile face down on an empty square
        tile_at[b, a % 9] = a // 9
        placement = True
    elif a < A_MOVE:  # PR-8 own piece on a vacant tile
        s = (a - A_PIECE) // 9
        sq = (a - A_PIECE) % 9
        piece_at[b, sq] = 3 * p + s
        t = np.int64(tile_at[b, sq])
        if t % 3 == s and active[b, t // 3] != s:  # PR-6 match on an inactive tile
            _activate(active, b, t)
        placement = True
    elif a < A_SWAP:  # PR-12 move
        src = (a - A_MOVE) // 9
        dst = (a - A_MOVE) % 9
        pc = piece_at[b, src]
        piece_at[b, src] = -1
        piece_at[b, dst] = pc
        t = np.int64(tile_at[b, dst])
        if t % 3 == pc % 3 and active[b, t // 3] != t % 3:  # PR-13 -> PR-6
            _activate(active, b, t)
    elif a < A_PASS:  # PR-12 exchange: tiles swap, pieces stay, face-up state travels
        i = _PAIR_A[a - A_SWAP]
        j = _PAIR_B[a - A_SWAP]
        ti = np.int64(tile_at[b, j])
        tj = np.int64(tile_at[b, i])
        tile_at[b, i] = ti
        tile_at[b, j] = tj
        # PR-13 -> PR-6/PR-7: new matches that land on inactive tiles
        ci = -1
        cj = -1
        pi = piece_at[b, i]
        if pi >= 0 and ti % 3 == pi % 3 and active[b, ti // 3] != ti % 3:
            ci = ti
        pj = piece_at[b, j]
        if pj >= 0 and tj % 3 == pj % 3 and active[b, tj // 3] != tj % 3:
            cj = tj
        if ci >= 0 and cj >= 0 and ci // 3 == cj // 3:
            pass  # PR-7: two new matches of one colour cancel
        else:
            if ci >= 0:
                _activate(active, b, ci)
            if cj >= 0:
                _activate(active, b, cj)
    # else: PR-11 / PR-14 pass
    player[b] = 1 - p
    turn[b] += 1
    winner = _goal_winner(tile_at, piece_at, active, b)  # PR-16, both players
    key = position_key(tile_at, piece_at, active, player, b)
    if placement:
        hist_len[b] = 0  # earlier positions can never recur
    n = hist_len[b]
    if n < hist.shape[1]:
        hist[b, n] = key
        n += 1
        hist_len[b] = n
    if winner >= 0:
        status[b] = 1 + winner  # a win stands even if PR-17 also ends the game
    elif _count_key(hist, b, n, key) >= 3:
        status[b] = 3  # PR-17 third occurrence
    elif turn[b] >= max_turns[b]:
        status[b] = 4  # PR-17 turn limit (checked after repetition)


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


# ----------------------------------------------------------------------------- batch API
#
# Every batch operation has a serial and a prange (parallel=True) loop over the same
# per-game body; the Python wrappers below pick the parallel one for large batches only
# (waking threads costs far more than a small batch's work). Results never depend on the
# choice: each game only touches its own rows and its own RNG key.

PARALLEL_MIN_BATCH = 256


@njit(cache=True)
def _reset_game_all_ser(tile_at, piece_at, active, player, turn, hist, hist_len, status):
    for b in range(tile_at.shape[0]):
        _reset_game(tile_at, piece_at, active, player, turn, hist, hist_len, status, b)


@njit(cache=True, parallel=True)
def _reset_game_all_par(tile_at, piece_at, active, player, turn, hist, hist_len, status):
    for b in prange(tile_at.shape[0]):
        _reset_game(tile_at, piece_at, active, player, turn, hist, hist_len, status, b)


@njit(cache=True)
def _mask_ser(tile_at, piece_at, active, player, status, out):
    for b in range(tile_at.shape[0]):
        _fill_mask(tile_at, piece_at, active, player, status, b, out[b])


@njit(cache=True, parallel=True)
def _mask_par(tile_at, piece_at, active, player, status, out):
    for b in prange(tile_at.shape[0]):
        _fill_mask(tile_at, piece_at, active, player, status, b, out[b])


@njit(cache=True)
def _random_one(tile_at, piece_at, active, player, status, rng, out, b):
    if status[b] != 0:
        out[b] = -1
    else:
        out[b] = _random_action(tile_at, piece_at, active, player, rng, b)


@njit(cache=True)
def _random_ser(tile_at, piece_at, active, player, status, rng, out):
    for b in range(tile_at.shape[0]):
        _random_one(tile_at, piece_at, active, player, status, rng, out, b)


@njit(cache=True, parallel=True)
def _random_par(tile_at, piece_at, active, player, status, rng, out):
    for b in prange(tile_at.shape[0]):
        _random_one(tile_at, piece_at, active, player, status, rng, out, b)


@njit(cache=True)
def _step_one(
    tile_at, piece_at, active, player, turn, max_turns, hist, hist_len, status, b, a,
    auto_reset, rewards, done,
):  # fmt: skip
    rewards[b, 0] = 0.0
    rewards[b, 1] = 0.0
    if status[b] != 0:
        done[b] = True
        return
    _apply_one(tile_at, piece_at, active, player, turn, max_turns, hist, hist_len, status, b, a)
    if status[b] != 0:
        done[b] = True
        _rewards_of(status, b, rewards)
        if auto_reset:
            _reset_game(tile_at, piece_at, active, player, turn, hist, hist_len, status, b)
    else:
        done[b] = False


@njit(cache=True)
def _step_ser(
    tile_at, piece_at, active, player, turn, max_turns, hist, hist_len, status, actions,
    auto_reset, rewards, done,
):  # fmt: skip
    for b in range(tile_at.shape[0]):
        _step_one(
            tile_at, piece_at, active, player, turn, max_turns, hist, hist_len, status, b,
            np.int64(actions[b]), auto_reset, rewards, done,
        )  # fmt: skip


@njit(cache=True, parallel=True)
def _step_par(
    tile_at, piece_at, active, player, turn, max_turns, hist, hist_len, status, actions,
    auto_reset, rewards, done,
):  # fmt: skip
    for b in prange(tile_at.shape[0]):
        _step_one(
            tile_at, piece_at, active, player, turn, max_turns, hist, hist_len, status, b,
            np.int64(actions[b]), auto_reset, rewards, done,
        )  # fmt: skip


@njit(cache=True)
def _selfplay_one(
    tile_at, piece_at, active, player, turn, max_turns, hist, hist_len, status, rng, b, n_steps
):
    finished = 0
    for _ in range(n_steps):
        if status[b] != 0:
            _reset_game(tile_at, piece_at, active, player, turn, hist, hist_len, status, b)
        a = _random_action(tile_at, piece_at, active, player, rng, b)
        _apply_one(tile_at, piece_at, active, player, turn, max_turns, hist, hist_len, status, b, a)
        if status[b] != 0:
            finished += 1
    return finished


@njit(cache=True)
def _selfplay_ser(
    tile_at, piece_at, active, player, turn, max_turns, hist, hist_len, status, rng, n_steps
):
    finished = 0
    for b in range(tile_at.shape[0]):
        finished += _selfplay_one(
            tile_at, piece_at, active, player, turn, max_turns, hist, hist_len, status, rng, b,
            n_steps,
        )  # fmt: skip
    return finished


@njit(cache=True, parallel=True)
def _selfplay_par(
    tile_at, piece_at, active, player, turn, max_turns, hist, hist_len, status, rng, n_steps
):
    finished = 0
    for b in prange(tile_at.shape[0]):
        finished += _selfplay_one(
            tile_at, piece_at, active, player, turn, max_turns, hist, hist_len, status, rng, b,
            n_steps,
        )  # fmt: skip
    return finished


def _par(st: KernelState, parallel: bool | None) -> bool:
    return st.batch_size >= PARALLEL_MIN_BATCH if parallel is None else parallel


def reset_all(st: KernelState, parallel: bool | None = None) -> None:
    """Start every game of the batch anew (PR-8; the RNG keys and max_turns are kept)."""
    fn = _reset_game_all_par if _par(st, parallel) else _reset_game_all_ser
    fn(st.tile_at, st.piece_at, st.active, st.player, st.turn, st.hist, st.hist_len, st.status)


def legal_mask(st: KernelState, out: np.ndarray | None = None, parallel: bool | None = None):
    """(B, NUM_ACTIONS) bool legal actions of the player to move (all False once over)."""
    if out is None:
        out = np.zeros((st.batch_size, NUM_ACTIONS), dtype=np.bool_)
    fn = _mask_par if _par(st, parallel) else _mask_ser
    fn(st.tile_at, st.piece_at, st.active, st.player, st.status, out)
    return out


def random_actions(
    st: KernelState, out: np.ndarray | None = None, parallel: bool | None = None
) -> np.ndarray:
    """(B,) uniformly random legal actions from each game's own key (-1 where over)."""
    if out is None:
        out = np.zeros(st.batch_size, dtype=np.int64)
    fn = _random_par if _par(st, parallel) else _random_ser
    fn(st.tile_at, st.piece_at, st.active, st.player, st.status, st.rng, out)
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
    fn = _step_par if _par(st, parallel) else _step_ser
    fn(
        st.tile_at, st.piece_at, st.active, st.player, st.turn, st.max_turns, st.hist,
        st.hist_len, st.status, np.asarray(actions, dtype=np.int64), bool(auto_reset),
        rewards, done,
    )  # fmt: skip
    return rewards, done


def random_step(st: KernelState, n_steps: int = 1, parallel: bool | None = None) -> int:
    """Self-play: every game applies ``n_steps`` uniformly random legal actions (auto-reset).

    Returns the number of games that finished (for benchmarks and rollouts).
    """
    fn = _selfplay_par if _par(st, parallel) else _selfplay_ser
    return int(
        fn(
            st.tile_at,
            st.piece_at,
            st.active,
            st.player,
            st.turn,
            st.max_turns,
            st.hist,
            st.hist_len,
            st.status,
            st.rng,
            int(n_steps),
        )  # fmt: skip
    )


N_PLANES = 35


@njit(cache=True)
def _observe_one(
    tile_at, piece_at, active, player, turn, max_turns, hist, hist_len, status, seats, out, b
):
    """(B, 3, 3, N_PLANES) float32 planes from ``seats[b]``'s point of view into ``out``.

    Planes: 0-8 tile id k on the square; 9 tile face up; 10-12 observer's pieces by
    shape; 13-15 opponent's pieces by shape; 16-24 tile k in the pool (constant plane);
    25-27 observer's pieces in hand; 28-30 opponent's pieces in hand; 31 movement phase;
    32 observer is to move; 33 turn / max_turns; 34 (occurrences of the position - 1) / 2
    (PR-17 repetition count).
    """
    me = np.int64(seats[b])
    o = out[b]
    for r in range(3):
        for c in range(3):
            for k in range(N_PLANES):
                o[r, c, k] = 0.0
    onboard = 0
    ponboard = 0
    for sq in range(9):
        r = sq // 3
        c = sq % 3
        t = np.int64(tile_at[b, sq])
        if t >= 0:
            onboard |= 1 << t
            o[r, c, t] = 1.0
            if active[b, t // 3] == t % 3:
                o[r, c, 9] = 1.0
        pc = np.int64(piece_at[b, sq])
        if pc >= 0:
            ponboard |= 1 << pc
            owner = pc // 3
            o[r, c, (10 if owner == me else 13) + pc % 3] = 1.0
    consts = np.zeros(N_PLANES, dtype=np.float32)
    for t in range(9):
        if not (onboard >> t) & 1:
            consts[16 + t] = 1.0
    for pc in range(6):
        if not (ponboard >> pc) & 1:
            consts[(25 if pc // 3 == me else 28) + pc % 3] = 1.0
    if onboard == 511 and ponboard == 63:
        consts[31] = 1.0
    if status[b] == 0 and player[b] == me:
        consts[32] = 1.0
    consts[33] = turn[b] / max(max_turns[b], 1)
    n = hist_len[b]
    if n > 0:
        cnt = _count_key(hist, b, n, hist[b, n - 1])
        consts[34] = min(cnt - 1, 2) / 2.0
    for k in range(16, N_PLANES):
        v = consts[k]
        if v != 0.0:
            for r in range(3):
                for c in range(3):
                    o[r, c, k] = v


@njit(cache=True)
def _observe_ser(
    tile_at, piece_at, active, player, turn, max_turns, hist, hist_len, status, seats, out
):
    for b in range(tile_at.shape[0]):
        _observe_one(
            tile_at,
            piece_at,
            active,
            player,
            turn,
            max_turns,
            hist,
            hist_len,
            status,
            seats,
            out,
            b,
        )


@njit(cache=True, parallel=True)
def _observe_par(
    tile_at, piece_at, active, player, turn, max_turns, hist, hist_len, status, seats, out
):
    for b in prange(tile_at.shape[0]):
        _observe_one(
            tile_at,
            piece_at,
            active,
            player,
            turn,
            max_turns,
            hist,
            hist_len,
            status,
            seats,
            out,
            b,
        )


def observe(
    st: KernelState, seats: np.ndarray, out: np.ndarray | None = None, parallel: bool | None = None
) -> np.ndarray:
    """(B, 3, 3, N_PLANES) float32 planes from ``seats[b]``'s point of view."""
    if out is None:
        out = np.zeros((st.batch_size, 3, 3, N_PLANES), dtype=np.float32)
    fn = _observe_par if _par(st, parallel) else _observe_ser
    fn(
        st.tile_at, st.piece_at, st.active, st.player, st.turn, st.max_turns, st.hist,
        st.hist_len, st.status, np.asarray(seats, dtype=np.int64), out,
    )  # fmt: skip
    return out
