"""Virus Fight legality: the one enumeration of the seat to act's legal actions (VF-9..VF-15).

Why one enumeration: the legal mask, the uniformly random legal action and the n-th legal
action all derive from :func:`_legal_set`, so a rule changes in one place; the check of a
caller's action (:func:`_action_legal`) computes only that action's group (sharing
``_step_set``, ``_erase_targets`` and ``_move_dests``; WRITE and JUMP use equivalent cheaper
tests) and is tested against the whole set on every action id. The legal
set of one game is a tuple of eight words (kept in registers, never materialised as a
mask):

===========  =========================================================================
word         meaning
===========  =========================================================================
``dest``     cells a piece may be put on (setup VF-10/VF-11, WRITE VF-14)
``avail``    pieces (12 bits, ``3 * kind + size - 1``) left in the seat's supply
``marks``    cells the marker may go to (setup end, JUMP VF-14, marker step VF-15)
``erase``    ERASE targets (VF-14)
``block``    MOVE: the active block (VF-14, VF-8); a piece ``f`` of ``movable`` may
``movable``  go to the empty cells next to ``block`` without ``f`` (``_move_dests``)
``occ``      occupied cells (for ``_move_dests``)
``npass``    1 when the pass is legal (WRITE, MOVE, ERASE without a target), else 0
===========  =========================================================================

Canonical order (the n-th legal action) is ascending action id: puts (piece, cell),
moves (from, to), erase targets, marker cells, pass. The random draw is
``nth(rand(count))`` with one draw per decision, as it always was (same seeds, same games).
The legal set and its decoders are inlined by Numba (``inline="always"``), so the
derived forms cost what the hand-fused samplers did.
"""

from __future__ import annotations

import numpy as np

from envs.core.cache import guard_cache
from envs.virus_fight.board import _bit, _flood, _markerbits, _nbrs, _nth_bit, _popcount, _rand, _tz
from envs.virus_fight.constants import (
    ACTIVE,
    ERASE,
    I_CUR,
    I_NSET,
    I_PHASE,
    I_RHI,
    I_RLO,
    JUMP,
    NPIECE,
    OCC,
    PH_EFFECT,
    PH_OVER,
    PH_SETUP,
    PH_STEP,
    U0,
    U1,
    WRITE,
    action_offsets,
    jit,
    jit_inline,
)
from envs.virus_fight.params import C_CELLS, C_MAXPROG, C_N, C_PLAYERS, C_SEGLEN, C_SEGMASK


# Each rule's target set is a function of a few bitboards (no arrays: an array passed to
# a helper costs Numba a reference-count pair per call, which made the legal set 6x
# slower); the ``*_targets`` forms read game g's bitboards for the turn order (rules.py).
@jit_inline
def _write_set(block, occ, cfg):
    """Empty cells orthogonally adjacent to the active block (VF-14 WRITE)."""
    return _nbrs(block, cfg) & ~occ


@jit_inline
def _erase_set(erasers, mk, cfg):
    """Cells next to an ERASE instruction of the active block, empty or unprotected (VF-14)."""
    return _nbrs(erasers, cfg) & ~mk


@jit_inline
def _erase_targets(g, bb, block, mk, cfg):
    """VF-14 ERASE targets of game g's active block ``block`` (its ERASE instructions)."""
    return _erase_set(block & (bb[g, 9] | bb[g, 10] | bb[g, 11]), mk, cfg)


@jit_inline
def _jump_set(block, occ, mk, cfg):
    """Unmarked instructions of the active block or of any empty block (VF-14 JUMP, VF-7)."""
    marked_blocks = _flood(mk, occ, cfg)
    return (block | (occ & ~marked_blocks)) & ~mk


@jit_inline
def _step_set(executed, occ, mk, cfg):
    """Unmarked instructions orthogonally adjacent to the executed one (VF-15)."""
    return _nbrs(_bit(executed), cfg) & occ & ~mk


@jit
def _step_targets(g, bb, marker, info, cfg):
    """VF-15 marker-step targets of game g's seat to act (:func:`_step_set`)."""
    mk = _markerbits(g, marker, info, cfg[C_PLAYERS])
    return _step_set(marker[g, info[g, I_CUR]], bb[g, OCC], mk, cfg)


@jit
def _refresh_active(g, bb, marker, info, cfg):
    """Set game g's derived word ``bb[g, ACTIVE]`` (``constants.ACTIVE``) from its state.

    For a state whose word is not known: a game put back (``undo._restore``), a loaded
    position (``kernel.refresh_active``). The transitions write the word themselves as a
    phase begins (``rules._advance``, ``rules._transition``), where they compute it anyway."""
    ph = info[g, I_PHASE]
    if ph == PH_EFFECT:
        bb[g, ACTIVE] = _flood(_bit(marker[g, info[g, I_CUR]]), bb[g, OCC], cfg)
    elif ph == PH_STEP:
        bb[g, ACTIVE] = _step_targets(g, bb, marker, info, cfg)
    else:
        bb[g, ACTIVE] = U0


# --------------------------------------------------------------------------- the legal set
@jit_inline
def _avail(g, supply, s):
    """12-bit mask of the pieces left in seat ``s``'s supply."""
    m = 0
    for p in range(NPIECE):
        if supply[g, s, p] > 0:
            m |= 1 << p
    return m


@jit_inline
def _move_dests(block, f, occ, cfg):
    """VF-14 MOVE: empty cells next to the active block once piece ``f`` has left it."""
    return _nbrs(block & ~_bit(f), cfg) & ~occ


@jit_inline
def _legal_set(g, bb, cells, marker, supply, info, seg, cfg):
    """The legal actions of game g's seat to act as bit groups (module docstring)."""
    ph = info[g, I_PHASE]
    s = info[g, I_CUR]
    if ph == PH_OVER:
        return U0, 0, U0, U0, U0, U0, U0, 0
    if ph == PH_SETUP:  # VF-10, VF-11: a contiguous run of the home segment, then the marker
        nset = info[g, I_NSET]
        lo = info[g, I_RLO]
        hi = info[g, I_RHI]
        dest = U0
        marks = U0
        if nset == 0:
            dest = np.uint64(cfg[C_SEGMASK + s])  # anywhere on the home segment
        else:
            if nset < cfg[C_MAXPROG]:  # grow the run at either end
                if lo > 0:
                    dest |= _bit(seg[s, lo - 1])
                if hi < cfg[C_SEGLEN] - 1:
                    dest |= _bit(seg[s, hi + 1])
            for i in range(lo, hi + 1):  # the marker goes on the program
                marks |= _bit(seg[s, i])
        return dest, _avail(g, supply, s), marks, U0, U0, U0, U0, 0
    if ph == PH_STEP:  # VF-15: the targets (the derived word, ``constants.ACTIVE``)
        return U0, 0, bb[g, ACTIVE], U0, U0, U0, U0, 0
    occ = bb[g, OCC]
    mk = U0
    for t in range(cfg[C_PLAYERS]):
        if marker[g, t] >= 0:
            mk |= _bit(marker[g, t])
    block = bb[g, ACTIVE]  # the acting seat's block (the derived word, ``constants.ACTIVE``)
    kind = cells[g, marker[g, s]] // 3
    if kind == JUMP:
        return U0, 0, _jump_set(block, occ, mk, cfg), U0, U0, U0, U0, 0
    if kind == ERASE:
        t = _erase_targets(g, bb, block, mk, cfg)
        return U0, 0, U0, t, U0, U0, U0, 1 if t == U0 else 0
    if kind == WRITE:
        return _write_set(block, occ, cfg), _avail(g, supply, s), U0, U0, U0, U0, U0, 1
    return U0, 0, U0, U0, block, block & ~mk, occ, 1  # MOVE: pieces off the markers (VF-8)


@jit_inline
def _count(L, cfg):
    """Number of legal actions in the legal set ``L`` (0 once the game is over)."""
    dest, avail, marks, erase, block, movable, occ, npass = L
    n = npass
    if dest:  # (each group is tested first: most positions have one or two)
        n += _popcount(np.uint64(avail)) * _popcount(dest)
    if marks:
        n += _popcount(marks)
    if erase:
        n += _popcount(erase)
    x = movable
    while x:
        f = _tz(x)
        x &= x - U1
        n += _popcount(_move_dests(block, f, occ, cfg))
    return n


@jit_inline
def _nth_action(L, r, cfg):
    """The r-th legal action of ``L`` in canonical order (0 <= r < ``_count``), else -1."""
    dest, avail, marks, erase, block, movable, occ, npass = L
    N = cfg[C_CELLS]
    _, o_move, o_erase, o_mark, o_pass = action_offsets(cfg[C_N])
    if dest:
        nd = _popcount(dest)
        n_put = _popcount(np.uint64(avail)) * nd
        if r < n_put:
            return _nth_bit(np.uint64(avail), r // nd) * N + _nth_bit(dest, r % nd)
        r -= n_put
    x = movable
    while x:
        f = _tz(x)
        x &= x - U1
        d = _move_dests(block, f, occ, cfg)
        c = _popcount(d)
        if r < c:
            return o_move + f * N + _nth_bit(d, r)
        r -= c
    if erase:
        c = _popcount(erase)
        if r < c:
            return o_erase + _nth_bit(erase, r)
        r -= c
    if marks:
        c = _popcount(marks)
        if r < c:
            return o_mark + _nth_bit(marks, r)
        r -= c
    if r < npass:
        return o_pass
    return -1


@jit_inline
def _fill_from(L, cfg, row):
    """Write the legal set ``L`` into the bool row (cleared first)."""
    dest, avail, marks, erase, block, movable, occ, npass = L
    N = cfg[C_CELLS]
    _, o_move, o_erase, o_mark, o_pass = action_offsets(cfg[C_N])
    row[:] = False
    for p in range(NPIECE):
        if (avail >> p) & 1:
            x = dest
            while x:
                row[p * N + _tz(x)] = True
                x &= x - U1
    y = movable
    while y:
        f = _tz(y)
        y &= y - U1
        x = _move_dests(block, f, occ, cfg)
        while x:
            row[o_move + f * N + _tz(x)] = True
            x &= x - U1
    x = erase
    while x:
        row[o_erase + _tz(x)] = True
        x &= x - U1
    x = marks
    while x:
        row[o_mark + _tz(x)] = True
        x &= x - U1
    if npass:
        row[o_pass] = True


@jit_inline
def _or_bits(words, at, m):
    """OR the bit set ``m`` (at most 64 bits) into bits ``at``.. of the packed row."""
    i = at >> 6
    sh = at & 63
    u = np.uint64(m)
    words[i] |= u << np.uint64(sh)
    if sh != 0 and i + 1 < words.shape[0]:  # the bits that run into the next word
        words[i + 1] |= u >> np.uint64(64 - sh)


@jit_inline
def _fill_bits(L, cfg, words):
    """Write the legal set ``L`` as packed bits into the uint64 row ``words`` (cleared
    first): action ``a`` is bit ``a % 64`` of ``words[a // 64]``, the set :func:`_fill_from`
    writes as bools (``LearnerBuffers`` with ``mask_bits``). A group of targets is one
    shifted OR, not one store per action: a row is an eighth of the bool row's bytes."""
    dest, avail, marks, erase, block, movable, occ, npass = L
    N = cfg[C_CELLS]
    _, o_move, o_erase, o_mark, o_pass = action_offsets(cfg[C_N])
    for k in range(words.shape[0]):
        words[k] = U0
    if dest:
        for p in range(NPIECE):
            if (avail >> p) & 1:
                _or_bits(words, p * N, dest)
    y = movable
    while y:
        f = _tz(y)
        y &= y - U1
        _or_bits(words, o_move + f * N, _move_dests(block, f, occ, cfg))
    _or_bits(words, o_erase, erase)
    _or_bits(words, o_mark, marks)
    if npass:
        _or_bits(words, o_pass, U1)


# --------------------------------------------------------------------------- derived forms
@jit
def _nth_legal(g, bb, cells, marker, supply, info, seg, cfg, pick):
    """(number of legal actions, the pick-th of them in canonical order or -1).

    With pick < 0 (or out of range) only counts.
    """
    L = _legal_set(g, bb, cells, marker, supply, info, seg, cfg)
    n = _count(L, cfg)
    if pick < 0 or pick >= n:
        return n, -1
    return n, _nth_action(L, pick, cfg)


@jit_inline
def _random_legal(g, bb, cells, marker, supply, info, rng, seg, cfg):
    """A uniformly random legal action of game g from its own key (-1 when over):
    ``_nth_legal(.., _rand(rng, g, count))``, one draw per decision."""
    if info[g, I_PHASE] == PH_OVER:
        return -1
    L = _legal_set(g, bb, cells, marker, supply, info, seg, cfg)
    return _nth_action(L, _rand(rng, g, _count(L, cfg)), cfg)


@jit_inline
def _fill_mask(g, bb, cells, marker, supply, info, seg, cfg, row):
    """Write the legal actions of game g into the bool row (cleared first)."""
    _fill_from(_legal_set(g, bb, cells, marker, supply, info, seg, cfg), cfg, row)


@jit_inline
def _action_legal(g, a, bb, cells, marker, supply, info, seg, cfg):
    """Whether action ``a`` is in the legal set of game g's seat to act, computing only
    what ``a``'s own group needs (False once the game is over).

    Why: the check of a caller's action built the whole :func:`_legal_set` (the twelve
    supply reads of ``_avail``, the flood of every marked block for JUMP) to test one bit.
    In play the active block is the state's derived word ``bb[g, ACTIVE]`` (the transition
    that starts the effect phase writes it, ``constants.ACTIVE``), so a WRITE, a MOVE and
    an ERASE are bit tests on it, as is the marker step (the word holds its targets); a JUMP target outside it floods its own block (legal when that
    block holds no marker, VF-14 with VF-7). A put reads one supply entry. Same answers as the
    mask :func:`_fill_from` writes from :func:`_legal_set`
    (``tests/virus_fight/test_virus_fight_codes_and_checks.py``, every id of random games).
    """
    N = cfg[C_CELLS]
    _, o_move, o_erase, o_mark, o_pass = action_offsets(cfg[C_N])
    ph = info[g, I_PHASE]
    if ph == PH_OVER or a < 0 or a > o_pass:
        return False
    s = info[g, I_CUR]
    is_mark = a >= o_mark and a < o_pass
    if ph == PH_SETUP:  # VF-10, VF-11
        nset = info[g, I_NSET]
        lo = info[g, I_RLO]
        hi = info[g, I_RHI]
        if a < o_move:  # a piece of the supply onto the home segment, growing the run
            c = a % N
            if supply[g, s, a // N] <= 0:
                return False
            if nset == 0:
                return (np.uint64(cfg[C_SEGMASK + s]) >> np.uint64(c)) & U1 == U1
            if nset >= cfg[C_MAXPROG]:
                return False
            return (lo > 0 and seg[s, lo - 1] == c) or (
                hi < cfg[C_SEGLEN] - 1 and seg[s, hi + 1] == c
            )
        if not is_mark or nset == 0:  # the marker goes on the program
            return False
        for i in range(lo, hi + 1):
            if seg[s, i] == a - o_mark:
                return True
        return False
    if ph == PH_STEP:  # VF-15: the targets are the derived word (``constants.ACTIVE``)
        return is_mark and (bb[g, ACTIVE] >> np.uint64(a - o_mark)) & U1 == U1
    occ = bb[g, OCC]
    mk = _markerbits(g, marker, info, cfg[C_PLAYERS])
    kind = cells[g, marker[g, s]] // 3
    if kind == JUMP:  # VF-14: an unmarked instruction of the active block or of an empty one
        if not is_mark:
            return False
        t = _bit(a - o_mark)
        if not (t & occ) or (t & mk):
            return False
        if t & bb[g, ACTIVE]:
            return True
        return (_flood(t, occ, cfg) & mk) == U0  # another block: legal when it is empty
    if kind == WRITE:  # VF-14: a supply piece onto an empty cell next to the active block
        if a == o_pass:
            return True
        if a >= o_move:
            return False
        c = _bit(a % N)
        if supply[g, s, a // N] <= 0 or (c & occ):
            return False
        return (bb[g, ACTIVE] & _nbrs(c, cfg)) != U0
    if kind == ERASE:  # VF-14: a cell next to one of the block's ERASE instructions
        if a != o_pass and (a < o_erase or a >= o_mark):
            return False
        t = _erase_targets(g, bb, bb[g, ACTIVE], mk, cfg)
        if a == o_pass:
            return t == U0
        return (t >> np.uint64(a - o_erase)) & U1 == U1
    # MOVE (VF-14, VF-8): a piece of the block off the markers, to an empty cell next to
    # the block without it
    if a == o_pass:
        return True
    if a < o_move or a >= o_erase:
        return False
    f = (a - o_move) // N
    t = (a - o_move) % N
    block = bb[g, ACTIVE]
    if not ((block & ~mk) >> np.uint64(f)) & U1:
        return False
    return (_move_dests(block, f, occ, cfg) >> np.uint64(t)) & U1 == U1


@jit_inline
def _legal_of(g, bb, cells, marker, supply, info, seg, cfg, a):
    """Whether action ``a`` is legal in game g (False once the game is over)."""
    return _action_legal(g, a, bb, cells, marker, supply, info, seg, cfg)


@jit_inline
def _bad_action(g, a, o_pass, bb, cells, marker, supply, info, seg, cfg):
    """Action ``a`` is outside ``[-1, o_pass]`` (``o_pass`` = the last id) or, while game g
    runs, not legal (a finished game ignores its own): the one test of a caller's action."""
    return (
        a < -1
        or a > o_pass
        or (
            info[g, I_PHASE] != PH_OVER
            and not _legal_of(g, bb, cells, marker, supply, info, seg, cfg, a)
        )
    )


@jit
def _illegal_games(bb, cells, marker, supply, info, seg, cfg, actions, bad):
    """bad[g] = :func:`_bad_action` for game g's action; returns how many are bad (the
    facade's ``check_legal``; the steps check as they apply, ``undo.py``)."""
    o_pass = action_offsets(cfg[C_N])[4]
    nbad = 0
    for g in range(bb.shape[0]):
        bad[g] = _bad_action(g, actions[g], o_pass, bb, cells, marker, supply, info, seg, cfg)
        nbad += bad[g]
    return nbad


guard_cache(globals())  # recompile if a sibling kernel file changed (envs/core/cache.py)
