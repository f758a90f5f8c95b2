"""Proteus legality: the one enumeration of the mover's legal actions (PR-8..PR-14).

Why one enumeration: the legal mask, the uniformly random legal action, the n-th legal
action and the validation of a caller's action all derive from :func:`_legal_set`, so a
rule changes in one place. The legal set of one game is a tuple of eight int64 words
(kept in registers, never materialised as a mask):

=========  =====================================  ======================================
word       placement phase (``mv == 0``)          movement phase (``mv == 1``)
=========  =====================================  ======================================
``mv``     0                                      1
``g0``     pool tiles that may go down (PR-8,     targets of the own shape-0 piece
           PR-10; 0 when none may)                (PR-12 move rule of the face-up BROWN)
``g1-g3``  squares for the own piece of shape     ``g1``, ``g2``: targets of shapes 1, 2;
           0, 1, 2 (PR-8, PR-9, PR-10)            ``g3``: TURQUOISE rule + 1 (0: none)
``s0``     empty squares (tile destinations)      square of the own shape-0 piece
``s1-s2``  0                                      squares of the own shape-1, -2 pieces
=========  =====================================  ======================================

Canonical order (the n-th legal action): tiles (tile-major, then square), pieces by
shape then square; moves by piece shape then target square, then the nine exchanges in
:func:`_swap_pair` order. With no legal action the only one is the pass (PR-11, PR-14).

The legal set and its decoders are inlined by Numba (``inline="always"``): as plain
calls they cost the fused self-play about 20 % (measured, CPU time per step).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.core.cache import guard_cache
from envs.core.rng import splitmix64
from envs.proteus.constants import A_MOVE, A_PASS, A_PIECE, A_SWAP, NUM_ACTIONS, PAIR_A, PAIR_B
from envs.proteus.tables import _PAIR3, _PAIR_ID, BROWN_T, FEAS, LOWBIT, POPC, SPREAD


@njit(cache=True, inline="always")
def _rand_key(key, n):
    """(r, new key): r exactly uniform in [0, n) (Lemire's method with rejection), 0 < n < 2**32."""
    nn = np.uint64(n)
    key, z = splitmix64(key)
    m = (z >> np.uint64(32)) * nn
    low = m & np.uint64(0xFFFFFFFF)
    if low < nn:
        t = (np.uint64(0x100000000) - nn) % nn
        while low < t:
            key, z = splitmix64(key)
            m = (z >> np.uint64(32)) * nn
            low = m & np.uint64(0xFFFFFFFF)
    return np.int64(m >> np.uint64(32)), key


@njit(cache=True, inline="always")
def _nth(mask, n):
    """Square index of the n-th (0-based) set bit of a 9-bit mask."""
    for _ in range(n):
        mask &= mask - 1
    return LOWBIT[mask]


@njit(cache=True)
def _feasible(need, avail, hand):
    """PR-10 table lookup (see ``tables.FEAS``)."""
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


@njit(cache=True, inline="always")
def _piece_tile_ok(t, s, a, need, avail, hand2):
    """Whether the mover's piece of shape ``s`` may go on vacant tile ``t`` (PR-9, PR-10):
    the one test per tile of :func:`_piece_squares` and :func:`_piece_legal`."""
    c = t // 3
    need2 = need
    if t - 3 * c == s:  # a match (PR-5)
        up = (a >> (2 * c)) & 3
        if up != 0 and up != s + 1:
            return False  # PR-9: another tile of that colour is face up
        need2 = need & ~(1 << c)  # PR-6: it activates (or already is active)
    return _feasible(need2, avail & ~(1 << t), hand2) == 1  # PR-10 afterwards


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
        if _piece_tile_ok(t, s, a, need, avail, hand2):
            out |= 1 << ((tsq >> (4 * t)) & 15)
    return out


@njit(cache=True, inline="always")
def _piece_legal(tw, a, p, s, bb, sq):
    """Whether player ``p`` may put its piece of shape ``s`` on square ``sq``: the bit
    ``sq`` of :func:`_piece_squares`, testing only the tile on that square (``tw``'s
    nibble ``sq`` holds its id + 1; a caller's action is checked in a third of the scan's
    time)."""
    pc = 3 * p + s
    hand = (bb >> 45) & 63
    if not (hand >> pc) & 1:
        return False
    t = ((tw >> (4 * sq)) & 15) - 1
    covered = (bb >> 27) & 511
    if t < 0 or not (((bb >> 36) & ~covered) >> t) & 1:  # a vacant tile there: PR-8
        return False
    return _piece_tile_ok(t, s, a, _need(a), 511 & ~covered, hand & ~(1 << pc))


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


# ----------------------------------------------------------------------------- the legal set


@njit(cache=True, inline="always")
def _legal_set(ts, pcs, w, a, p):
    """The mover's legal actions as bit groups (module docstring); the rules live here."""
    placed = w & 511
    hand = (w >> 45) & 63
    if placed != 511 or hand != 0:  # placement phase
        pool = 511 & ~(w >> 36)
        # PR-8 tile placement; PR-10 is unchanged by it (the tile stays available)
        if pool and not _feasible(_need(a), 511 & ~(w >> 27), hand):
            pool = 0
        m0 = _piece_squares(ts, a, p, 0, w)  # PR-8 piece placement with PR-9, PR-10
        m1 = _piece_squares(ts, a, p, 1, w)
        m2 = _piece_squares(ts, a, p, 2, w)
        return 0, pool, m0, m1, m2, 511 & ~placed, 0, 0
    vacant = 511 & ~((w >> 9) | (w >> 18))
    brule = (a & 3) - 1
    base = 12 * p
    s0 = (pcs >> base) & 15
    s1 = (pcs >> (base + 4)) & 15
    s2 = (pcs >> (base + 8)) & 15
    t0 = 0
    t1 = 0
    t2 = 0
    if brule >= 0:  # PR-12 moves
        t0 = BROWN_T[brule, s0] & vacant
        t1 = BROWN_T[brule, s1] & vacant
        t2 = BROWN_T[brule, s2] & vacant
    return 1, t0, t1, t2, ((a >> 2) & 3), s0, s1, s2  # PR-12 exchanges: rule + 1


@njit(cache=True, inline="always")
def _count(L):
    """Number of legal actions other than the pass (0: the pass is the only one)."""
    mv, g0, g1, g2, g3, s0, s1, s2 = L
    if mv == 0:
        return POPC[g0] * POPC[s0] + POPC[g1] + POPC[g2] + POPC[g3]
    return POPC[g0] + POPC[g1] + POPC[g2] + (9 if g3 else 0)


@njit(cache=True, inline="always")
def _nth_action(L, r, p, ts, pcs):
    """The r-th legal action (0 <= r < ``_count(L)``) in canonical order; pass if none."""
    mv, g0, g1, g2, g3, s0, s1, s2 = L
    if mv == 0:
        n_empty = POPC[s0]
        n_tile = POPC[g0] * n_empty
        if r < n_tile:
            return 9 * _nth(g0, r // n_empty) + _nth(s0, r % n_empty)
        r -= n_tile
        c = POPC[g1]
        if r < c:
            return A_PIECE + _nth(g1, r)
        r -= c
        c = POPC[g2]
        if r < c:
            return A_PIECE + 9 + _nth(g2, r)
        r -= c
        if r < POPC[g3]:
            return A_PIECE + 18 + _nth(g3, r)
        return A_PASS
    c = POPC[g0]
    if r < c:
        return A_MOVE + 9 * s0 + _nth(g0, r)
    r -= c
    c = POPC[g1]
    if r < c:
        return A_MOVE + 9 * s1 + _nth(g1, r)
    r -= c
    c = POPC[g2]
    if r < c:
        return A_MOVE + 9 * s2 + _nth(g2, r)
    r -= c
    if g3 and r < 9:
        return A_SWAP + _swap_pair(r, g3 - 1, p, ts, pcs)
    return A_PASS


@njit(cache=True, inline="always")
def _is_legal(L, action, p, ts, pcs):
    """Whether ``action`` is in the legal set ``L`` (the check of a caller's action)."""
    mv, g0, g1, g2, g3, s0, s1, s2 = L
    if action < 0 or action >= NUM_ACTIONS:
        return False
    if _count(L) == 0:
        return action == A_PASS
    if mv == 0:
        if action < A_PIECE:
            return ((g0 >> (action // 9)) & 1) == 1 and ((s0 >> (action % 9)) & 1) == 1
        if action < A_MOVE:
            s = (action - A_PIECE) // 9
            m = g1 if s == 0 else (g2 if s == 1 else g3)
            return ((m >> ((action - A_PIECE) % 9)) & 1) == 1
        return False
    if A_MOVE <= action < A_SWAP:
        src = (action - A_MOVE) // 9
        dst = (action - A_MOVE) % 9
        m = 0
        if src == s0:
            m = g0
        elif src == s1:
            m = g1
        elif src == s2:
            m = g2
        return ((m >> dst) & 1) == 1
    if A_SWAP <= action < A_PASS and g3:
        for r in range(9):
            if A_SWAP + _swap_pair(r, g3 - 1, p, ts, pcs) == action:
                return True
    return False


@njit(cache=True, inline="always")
def _fill_from(L, p, ts, pcs, out):
    """Write the legal set ``L`` into the bool row ``out`` (cleared first).

    A group's 9-bit square mask goes down as one 9-byte row of ``SPREAD`` (no branch
    per legal action): the mask costs a clear and a few short copies.
    """
    for k in range(NUM_ACTIONS):
        out[k] = False
    mv, g0, g1, g2, g3, s0, s1, s2 = L
    if _count(L) == 0:
        out[A_PASS] = True  # PR-11, PR-14
        return
    if mv == 0:
        tp = g0
        while tp:
            t = LOWBIT[tp]
            tp &= tp - 1
            _spread(out, 9 * t, s0)
        _spread(out, A_PIECE, g1)
        _spread(out, A_PIECE + 9, g2)
        _spread(out, A_PIECE + 18, g3)
        return
    _spread(out, A_MOVE + 9 * s0, g0)
    _spread(out, A_MOVE + 9 * s1, g1)
    _spread(out, A_MOVE + 9 * s2, g2)
    if g3:
        for r in range(9):
            out[A_SWAP + _swap_pair(r, g3 - 1, p, ts, pcs)] = True


@njit(cache=True, inline="always")
def _spread(out, at, m):
    """``out[at + sq]`` = bit ``sq`` of the 9-bit mask ``m``."""
    row = SPREAD[m]
    for j in range(9):
        out[at + j] = row[j]


# ----------------------------------------------------------------------------- derived forms


@njit(cache=True, inline="always")
def _fill_mask(tiles, tsq, pieces, bb, act, player, status, b, out):
    """Legal actions of game ``b`` into the bool row ``out`` (all False once over)."""
    if status[b] != 0:
        for k in range(NUM_ACTIONS):
            out[k] = False
        return
    p = np.int64(player[b])
    ts = tsq[b]
    pcs = pieces[b]
    _fill_from(_legal_set(ts, pcs, bb[b], act[b], p), p, ts, pcs, out)


@njit(cache=True, inline="always")
def _sample(ts, pcs, w, a, p, key):
    """(action, new key): a uniformly random legal action, without building the mask."""
    L = _legal_set(ts, pcs, w, a, p)
    n = _count(L)
    if n == 0:
        return A_PASS, key
    r, key = _rand_key(key, n)
    return _nth_action(L, r, p, ts, pcs), key


@njit(cache=True, inline="always")
def _random_action(tsq, pieces, bb, act, player, rng, b):
    """A uniformly random legal action of game ``b`` drawn from its own key (no mask)."""
    action, key = _sample(tsq[b], pieces[b], bb[b], act[b], np.int64(player[b]), rng[b])
    rng[b] = key
    return action


@njit(cache=True, inline="always")
def _swap_allowed(pair, rule1, p, pcs, tw):
    """Whether the TURQUOISE rule face up (``rule1`` = its shape + 1, 0 = none) allows
    exchanging the tiles of the squares of ``pair`` in the movement phase (PR-12): the
    membership test of the nine pairs :func:`_swap_pair` lists (``tw``: the tiles word,
    nibble = tile id + 1 per square)."""
    if rule1 == 0:
        return False
    i = PAIR_A[pair]
    j = PAIR_B[pair]
    if rule1 == 1:  # POLARITY: an own piece's tile with an opponent piece's tile
        own = 0
        opp = 0
        for k in range(3):
            own |= 1 << ((pcs >> (4 * (3 * p + k))) & 15)
            opp |= 1 << ((pcs >> (4 * (3 * (1 - p) + k))) & 15)
        return ((own >> i) & (opp >> j) & 1) == 1 or ((own >> j) & (opp >> i) & 1) == 1
    ti = ((tw >> (4 * i)) & 15) - 1  # COLOUR / SHAPE: the two squares' tiles share it
    tj = ((tw >> (4 * j)) & 15) - 1
    if ti < 0 or tj < 0:
        return False
    if rule1 == 2:
        return ti // 3 == tj // 3  # tile id = 3 * colour + shape (``constants.py``)
    return ti - 3 * (ti // 3) == tj - 3 * (tj // 3)


@njit(cache=True, inline="always")
def _action_legal(tw, ts, pcs, w, a, p, action):
    """Whether ``action`` is in the mover's legal set, computing only its own group.

    Why: the check of a caller's action ran the whole placement-phase set (three
    :func:`_piece_squares` scans with PR-10 lookups) to test one bit, as much as a random
    draw. A tile put needs the pool, the empty squares and one PR-10 lookup; a piece put
    the tile on its square (:func:`_piece_legal`, ``tw``: the tiles word); a move the
    targets of the one piece on its source square; an exchange the pair test of :func:`_swap_allowed`; a pass the whole set (it
    is legal only alone, PR-11, PR-14). Same answers as
    ``_is_legal(_legal_set(..))`` (``tests/proteus/test_proteus_learner_step.py``).
    """
    if action < 0 or action >= NUM_ACTIONS:
        return False
    placed = w & 511
    hand = (w >> 45) & 63
    if action == A_PASS:
        return _is_legal(_legal_set(ts, pcs, w, a, p), action, p, ts, pcs)
    if placed == 511 and hand == 0:  # movement phase (PR-12)
        if action >= A_SWAP:
            return _swap_allowed(action - A_SWAP, (a >> 2) & 3, p, pcs, tw)
        if action < A_MOVE:
            return False
        brule = (a & 3) - 1  # the BROWN tile face up decides how pieces move
        src = (action - A_MOVE) // 9
        dst = action - A_MOVE - 9 * src
        own = (pcs >> (12 * p)) & 0xFFF  # the mover's three pieces' squares
        if brule < 0 or src not in ((own & 15), ((own >> 4) & 15), (own >> 8)):
            return False
        vacant = 511 & ~((w >> 9) | (w >> 18))
        return ((BROWN_T[brule, src] & vacant) >> dst) & 1 == 1
    if action < A_PIECE:  # PR-8 tile from the pool to an empty square, PR-10 unchanged
        tile = action // 9
        sq = action - 9 * tile
        if not ((511 & ~(w >> 36)) >> tile) & 1 or (placed >> sq) & 1:
            return False
        return _feasible(_need(a), 511 & ~(w >> 27), hand) == 1
    if action < A_MOVE:  # PR-8 piece on a vacant tile with PR-9, PR-10
        s = (action - A_PIECE) // 9
        return _piece_legal(tw, a, p, s, w, action - A_PIECE - 9 * s)
    return False  # moves and exchanges are movement-phase actions (PR-12)


@njit(cache=True, inline="always")
def _legal_of(tiles, tsq, pieces, bb, act, player, status, b, action):
    """Whether ``action`` is legal in game ``b`` (False once the game is over)."""
    if status[b] != 0:
        return False
    return _action_legal(tiles[b], tsq[b], pieces[b], bb[b], act[b], np.int64(player[b]), action)


@njit(cache=True, inline="always")
def _bad_action(tiles, tsq, pieces, bb, act, player, status, b, action):
    """An id outside ``[-1, NUM_ACTIONS)``, or one not legal while game ``b`` runs (a
    finished game ignores its own): the one test of a caller's action."""
    return (
        action < -1
        or action >= NUM_ACTIONS
        or (
            status[b] == 0 and not _legal_of(tiles, tsq, pieces, bb, act, player, status, b, action)
        )
    )


@njit(cache=True)
def _nth_legal(tsq, pieces, bb, act, player, b, r):
    """(number of legal actions counting a lone pass, the r-th of them or -1)."""
    p = np.int64(player[b])
    ts = tsq[b]
    pcs = pieces[b]
    L = _legal_set(ts, pcs, bb[b], act[b], p)
    n = max(_count(L), 1)
    if r < 0 or r >= n:
        return n, -1
    return n, _nth_action(L, r, p, ts, pcs)


guard_cache(globals())  # recompile if a sibling kernel file changed (envs/core/cache.py)
