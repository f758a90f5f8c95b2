"""Proteus legality: the one enumeration of the mover's legal actions (PR-8..PR-14).

Why one enumeration: the legal mask, the uniformly random legal action and the n-th legal
action all derive from :func:`_legal_set`, so a rule changes in one place. The check of a
caller's action (:func:`_action_core`) is the exception, for speed: it restates each
group's test as branch-free arithmetic over the same tables and the shared PR-9 / PR-10
test :func:`_piece_tile_ok`, and a test holds it to the mask for every id on random
positions (``tests/proteus/test_proteus_learner_step.py``). The legal set of one game is a tuple of eight int64 words
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
from envs.proteus.constants import A_MOVE, A_PASS, A_PIECE, A_SWAP, NUM_ACTIONS
from envs.proteus.tables import (
    _PAIR3,
    _PAIR_ID,
    ACT_CODE,
    BROWN_T,
    DEP9,
    FEAS,
    NTH,
    POPC,
)


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
    """Square index of the n-th (0-based) set bit of a 9-bit mask (``tables.NTH``)."""
    return np.int64(NTH[mask, n & 15])


@njit(cache=True, inline="always")
def _feasible(need, avail, hand):
    """PR-10 table lookup (see ``tables.FEAS``): 1 or 0."""
    idx = need | (avail << 3) | (hand << 12)
    return np.int64((FEAS[idx >> 6] >> np.uint64(idx & 63)) & np.uint64(1))


@njit(cache=True, inline="always")
def _need(a):
    """Colours without a face-up tile (bit per colour) from the ``act`` word."""
    brown = np.int64(a & 3 == 0)
    turquoise = np.int64((a >> 2) & 3 == 0)
    return brown | (turquoise << 1) | (np.int64((a >> 4) & 3 == 0) << 2)


@njit(cache=True, inline="always")
def _div3(t):
    """``t // 3`` for 0 <= t < 16 as a multiply and a shift (a vector loop has no integer
    division): a tile id's colour (``constants.py``: tile = 3 * colour + shape)."""
    return (t * 11) >> 5


@njit(cache=True, inline="always")
def _piece_tile_ok(t, s, a, need, avail, hand2, piece):
    """PR-9 and PR-10 for a put-down on tile ``t`` (0-8; 15: no tile, an answer to be
    discarded): the mover's piece of shape ``s`` (``piece`` = 1), or a tile from the pool
    (``piece`` = 0: nothing matches, the tile stays available); 1 or 0. The one test of
    :func:`_piece_squares` and :func:`_action_core`; ``hand2``: the pieces in hand after.

    Integer arithmetic, no branch: :func:`_action_core` is compiled into a vector loop.
    """
    c = _div3(t)
    match = piece & np.int64(t - 3 * c == s) & np.int64(t < 9)  # a match (PR-5)
    up = (a >> (2 * c)) & 3
    pr9 = (1 - match) | np.int64(up == 0) | np.int64(up == s + 1)  # PR-9: no other face up
    # PR-6: a match activates its colour (or it already is active); PR-10 afterwards
    return pr9 & _feasible(need & ~(match << c), avail & ~(piece << t), hand2)


@njit(cache=True)
def _piece_squares(tsq, a, p, s, bb):
    """Squares where player ``p`` may put its piece of shape ``s`` (PR-8, PR-9, PR-10)."""
    pc = 3 * p + s
    hand = (bb >> 45) & 63
    hand2 = hand & ~(1 << pc)
    covered = (bb >> 27) & 511
    avail = 511 & ~covered
    need = _need(a)
    v = (bb >> 36) & ~covered & 511  # vacant tiles (on the board, no piece): PR-8
    # every tile tested, no branch: which tiles are vacant is random across a batch, and
    # a loop over the set bits mispredicted its exits (a tile not on the board has square
    # 15 and its ``ok`` is 0)
    out = 0
    for t in range(9):
        ok = ((v >> t) & 1) & _piece_tile_ok(t, s, a, need, avail, hand2, 1)
        out |= ok << ((tsq >> (4 * t)) & 15)
    return out & 511 & -((hand >> pc) & 1)  # nothing when the piece is not in hand


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

    A group's 9-bit square mask goes down as nine stores of its bits (no branch per
    legal action, no table: a copy from a table row of bools was 20 % slower): the mask
    costs a clear and a few short runs of stores. The tile block is nine groups, empty
    for tiles not in the pool, not a loop over the pool (its exits were mispredicted
    across a batch).
    """
    for k in range(NUM_ACTIONS):
        out[k] = False
    mv, g0, g1, g2, g3, s0, s1, s2 = L
    if _count(L) == 0:
        out[A_PASS] = True  # PR-11, PR-14
        return
    if mv == 0:
        for t in range(9):
            _spread(out, 9 * t, s0 & -((g0 >> t) & 1))
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
    for j in range(9):
        out[at + j] = (m >> j) & 1


@njit(cache=True, inline="always")
def _fill_bits(L, p, ts, pcs, words):
    """Write the legal set ``L`` as packed bits into the uint64 row ``words``: action ``a``
    is bit ``a % 64`` of ``words[a // 64]`` (``LearnerBuffers`` with ``mask_bits``), the
    set :func:`_fill_from` writes as bools (tested equal on every step of random games).

    The four words are built in registers by shifts and multiplies, with no branch but
    the phase: which groups are empty differs from game to game across a batch, and a
    loop over the set bits was mostly mispredicted branches (measured: 23 ns a game).
    """
    mv, g0, g1, g2, g3, s0, s1, s2 = L
    none = np.uint64(_count(L) == 0)  # PR-11, PR-14: the pass is the only action
    if mv == 0:
        # tiles: bit 9 t + sq for pool tile t in g0 and empty square sq in s0, a product
        # (the nine shifted copies of s0 never overlap); tile 7 straddles words 0 and 1
        u = np.uint64(s0)
        t7 = np.uint64((g0 >> 7) & 1)
        t8 = np.uint64((g0 >> 8) & 1)
        w0 = u * DEP9[g0 & 127] | ((u & t7) << np.uint64(63))
        w1 = (u >> np.uint64(1)) * t7 | ((u * t8) << np.uint64(8))
        w1 |= np.uint64(g1 | (g2 << 9) | (g3 << 18)) << np.uint64(A_PIECE - 64)
        w2 = np.uint64(0)
        w3 = none << np.uint64(A_PASS - 192)
    else:
        # moves: bit 9 src + dst of the 81-bit block at A_MOVE (words 1 and 2)
        w0 = np.uint64(0)
        w1 = _block_word(g0, s0, 1) | _block_word(g1, s1, 1) | _block_word(g2, s2, 1)
        w2 = _block_word(g0, s0, 2) | _block_word(g1, s1, 2) | _block_word(g2, s2, 2)
        # exchanges: the nine pairs the TURQUOISE rule allows, a 36-bit set at A_SWAP
        rule = max(g3 - 1, 0)
        pairs = 0
        for r in range(9):
            pairs |= 1 << _swap_pair(r, rule, p, ts, pcs)
        pairs &= -np.int64(g3 != 0)
        w2 |= np.uint64(pairs) << np.uint64(A_SWAP - 128)
        w3 = (np.uint64(pairs) >> np.uint64(192 - A_SWAP)) | (none << np.uint64(A_PASS - 192))
    words[0] = w0
    words[1] = w1
    words[2] = w2
    words[3] = w3


@njit(cache=True, inline="always")
def _block_word(g, src, k):
    """Word ``k``'s share of the move group ``g`` (targets of the piece on square ``src``),
    whose bits start at ``A_MOVE + 9 src``; without a branch (the shifts stay in 0..63)."""
    rel = A_MOVE + 9 * src - 64 * k  # where the group starts, relative to the word
    m = np.uint64(g)
    up = (m << np.uint64(rel & 63)) & -np.uint64((rel >= 0) & (rel < 64))
    down = (m >> np.uint64(-rel & 63)) & -np.uint64((rel < 0) & (rel > -64))
    return up | down


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
def _action_core(tw, w, a, p, x):
    """1 if the id ``x`` (0 <= x < ``A_PASS``: not the pass) is legal for the mover, else 0.

    Why this form: the check of a caller's actions meets them in random order, and the
    earlier test (one branch per phase, kind and rule) spent more time in mispredicted
    branches than in the tests (measured 2026-12-04, serial, ns per game, fresh random
    actions / the same actions again: 12.0 / 4.8). Here the action is decoded by table
    (``ACT_CODE``), both phases' tests are computed in integer
    arithmetic and combined by the kind, with no branch at all: the check's loop
    (``kernel._check_pass``) compiles to vector instructions (about 5 ns per game on one
    thread, 3 on two, whatever the order of the actions). ``tw``: the tiles word.
    """
    code = ACT_CODE[x]
    kind = code & 15
    i = (code >> 4) & 15
    j = code >> 8
    placed = w & 511
    hand = (w >> 45) & 63
    movement = np.int64((placed == 511) & (hand == 0))  # PR-12: everything placed
    covered = (w >> 27) & 511
    onboard = (w >> 36) & 511
    # PR-8: tile i from the pool on empty square j, or own piece of shape i on the vacant
    # tile on square j; PR-9 and PR-10 in _piece_tile_ok
    piece = np.int64(kind == 1)
    pc = 3 * p + i
    t = (((tw >> (4 * j)) & 15) - 1) & 15  # the tile on square j, 15 = none
    piece_ok = np.int64(t < 9) & ((onboard & ~covered) >> t) & (hand >> pc) & 1
    tile_ok = ((~onboard) >> i) & ((~placed) >> j) & 1
    put_ok = piece * piece_ok + (1 - piece) * tile_ok
    rules_ok = _piece_tile_ok(t, i, a, _need(a), 511 & ~covered, hand & ~(piece << pc), piece)
    placement_ok = (1 - movement) & put_ok & rules_ok
    # PR-12 move i -> j: an own piece on i, j among the face-up BROWN rule's vacant targets
    own = (w >> (9 + 9 * p)) & 511
    opp = (w >> (18 - 9 * p)) & 511
    brule = (a & 3) - 1
    vacant = 511 & ~((w >> 9) | (w >> 18))
    targets = BROWN_T[max(brule, 0), i] & vacant & -np.int64(brule >= 0)
    move_ok = (own >> i) & (targets >> j) & 1
    # PR-12 exchange of squares i, j under the face-up TURQUOISE rule: POLARITY an own
    # piece's tile with an opponent piece's, COLOUR / SHAPE two tiles sharing it
    rule1 = (a >> 2) & 3
    polar = ((own >> i) & (opp >> j)) | ((own >> j) & (opp >> i))
    ti = ((tw >> (4 * i)) & 15) - 1  # the tiles on squares i and j (both placed: PR-12)
    tj = ((tw >> (4 * j)) & 15) - 1
    same_colour = np.int64(_div3(ti) == _div3(tj))
    same_shape = np.int64(ti - 3 * _div3(ti) == tj - 3 * _div3(tj))
    by_rule = (polar & np.int64(rule1 == 1)) | (same_colour & np.int64(rule1 == 2))
    swap_ok = (by_rule | (same_shape & np.int64(rule1 == 3))) & 1
    is_move = np.int64(kind == 2)
    movement_ok = movement & (is_move * move_ok + (1 - is_move) * swap_ok)
    return np.int64(kind <= 1) * placement_ok + np.int64(kind > 1) * movement_ok


@njit(cache=True, inline="always")
def _pass_legal(ts, pcs, w, a, p):
    """PR-11, PR-14: the pass is legal only when nothing else is (the whole set)."""
    return _count(_legal_set(ts, pcs, w, a, p)) == 0


@njit(cache=True, inline="always")
def _action_legal(tw, ts, pcs, w, a, p, action):
    """Whether ``action`` is in the mover's legal set (:func:`_action_core`, the pass
    apart); same answers as ``_is_legal(_legal_set(..))``
    (``tests/proteus/test_proteus_learner_step.py``)."""
    if action == A_PASS:
        return _pass_legal(ts, pcs, w, a, p)
    if action < 0 or action > A_PASS:
        return False
    return _action_core(tw, w, a, p, action) == 1


@njit(cache=True, inline="always")
def _legal_of(tiles, tsq, pieces, bb, act, player, status, b, action):
    """Whether ``action`` is legal in game ``b`` (False once the game is over)."""
    if status[b] != 0:
        return False
    return _action_legal(tiles[b], tsq[b], pieces[b], bb[b], act[b], np.int64(player[b]), action)


@njit(cache=True, inline="always")
def _bad_action(tiles, tsq, pieces, bb, act, player, status, b, action):
    """An id outside ``[-1, NUM_ACTIONS)``, or one not legal while game ``b`` runs (a
    finished game ignores its own): the one test of a caller's action, 1 or 0.

    Without a branch but for the pass (PR-11, PR-14: legal only alone, which takes the
    whole set): :func:`_bad_unless_pass` is this test with the pass counted good, the
    body of the check's vector loop; the passes are tested after it (``kernel.py``).
    """
    if action == A_PASS:
        return np.int64(
            status[b] == 0
            and not _pass_legal(tsq[b], pieces[b], bb[b], act[b], np.int64(player[b]))
        )
    return _bad_unless_pass(tiles, bb, act, player, status, b, action)


@njit(cache=True, inline="always")
def _bad_unless_pass(tiles, bb, act, player, status, b, action):
    """:func:`_bad_action` with the pass taken as legal: integer arithmetic only."""
    x = min(max(action, 0), A_PASS - 1)  # a table index whatever the id
    ok = _action_core(tiles[b], bb[b], act[b], np.int64(player[b]), x)
    running = np.int64(status[b] == 0)
    other = np.int64(action >= 0) & np.int64(action < A_PASS)
    illegal = (np.int64(action == -1) | (other & (1 - ok))) & running
    return np.int64(action < -1) | np.int64(action >= NUM_ACTIONS) | illegal


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
