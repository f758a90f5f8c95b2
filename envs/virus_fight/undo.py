"""Undo rows: check each game's action as it is applied, and put the batch back if any fails.

Why: the validated batch ``step`` must leave the whole batch unchanged when one action is
illegal (issue 11), and the check is not free. Checking every game in a pass of its own and
then applying in a second pass reads each game's state twice; once the batch leaves the
core's cache (about 3,600 games of 288 bytes for a 1 MB L2) the second read comes from
memory and the check cost a fifth of the step. Checking a game right before applying it
reads its state once; the price is this undo row, written while the state is in cache.
The row is small (``UNDO_WORDS`` = 4 uint64 words, 32 bytes; the first version copied the
bitboards and supplies too, 240 bytes, and its writes were most of the check's cost at
B = 16384; 0.5.2 kept ``info`` word by word, 88 bytes) because a legal action changes the
board in a way the action itself names, and ``info``'s small fields fit in a byte each:
phase, repetition count and setup count share one byte, seat numbers, ``k``, the alive
mask and the round window are below 128 (VF-1: at most 4 seats, board side at most 8).
The two counters ``I_ROUND`` and ``I_HLEN`` share a word (each below 2**31). Measured in
``docs/benchmarks.md`` ("Validation cost").

Beside the row, each game has a one-byte flag word (``BAD``, ``APPLIED``, ``ENDED``): the
step reads it after the pass to know which games to restore (one bad action) or to
re-initialise (auto-reset), without re-reading any game's state.

What an applied step may change, and how the row restores it:

* ``info``, ``marker`` (every seat's: VF-14/VF-15 eliminations), ``rng`` (the VF-12 draw):
  saved in the row's bytes and words, written back;
* ``bb``, ``cells``, ``supply``: only what the action moved (VF-10, VF-14). A put of piece
  ``p`` on cell ``c`` is taken back into the mover's supply; a MOVE from ``f`` to ``t``
  moves the piece back; an ERASE gives the captured piece (saved: the target's piece code)
  back to its cell; marker actions and passes move no piece. The mover is the seat to act
  of the restored ``info``. Nothing else touches the board: eliminations, round starts
  and adjudication (VF-15..VF-17) change ``info``, ``marker`` and ``hist`` only;
* ``hist``: a round start (VF-17) writes the record of its position into slot ``I_HLEN``
  and, unless the game ends by repetition, counts it. Slots at and after ``I_HLEN`` are
  kept zero (``board._new_game`` clears a finished game's records), so the undo zeroes the
  slots the step wrote;
* ``bb``'s derived word (``constants.ACTIVE``): computed again from the restored game
  (``legal._refresh_active``);
* a game that ends is re-initialised only after the whole batch passed (``kernel.py``), so
  no undo ever has to reverse a reset.
"""

from __future__ import annotations

import numpy as np

from envs.core.cache import guard_cache
from envs.virus_fight.board import _place, _remove
from envs.virus_fight.constants import (
    HW,
    I_ALIVE,
    I_CUR,
    I_FIRST,
    I_HLEN,
    I_K,
    I_NSET,
    I_PHASE,
    I_REP,
    I_RES,
    I_RHI,
    I_RLO,
    I_ROUND,
    PH_OVER,
    action_offsets,
    jit,
    jit_inline,
)
from envs.virus_fight.legal import _bad_action, _refresh_active
from envs.virus_fight.params import C_CELLS, C_N

#: words of one game's undo row: the two int32 counters of ``info``, its thirteen small
#: fields with the ERASE target's piece, the markers with the final results, the key
UNDO_WORDS = 4
_COUNT = 0  # info I_ROUND (low half), I_HLEN (high half)
_SMALL = 1  # bytes: phase | rep << 2 | nset << 4, cur, first, k, alive, rlo, rhi, erase + 1
_SEATS = 2  # bytes 0..3: the results I_RES.., bytes 4..7: the markers
_KEY = 3  # the RNG key

#: the step's per-game flags (a uint8 per game, ``kernel._step_loop``): the action failed
#: the check; it was applied (the undo row holds the game); the game ended in this step
BAD, APPLIED, ENDED = 1, 2, 4

_B8 = np.uint64(8)
_B32 = np.uint64(32)
_LOW8 = np.uint64(0xFF)
_LOW32 = np.uint64(0xFFFFFFFF)


@jit_inline
def _put(x, j):
    """The low byte of int ``x`` (two's complement) as byte ``j`` of a word."""
    return np.uint64(np.uint8(x & 0xFF)) << (_B8 * np.uint64(j))


@jit_inline
def _get(w, j):
    """Byte ``j`` of word ``w`` as a signed int (:func:`_put` of a value in -128..127)."""
    return np.int32(np.int8(np.uint8((w >> (_B8 * np.uint64(j))) & _LOW8)))


@jit_inline
def _save(g, a, cells, marker, info, rng, cfg, undo):
    """What game g's legal action ``a`` may change beyond the board, and the piece an
    ERASE of ``a`` captures, into its undo row (module docstring). The small fields are
    bounded by the rules (phase < 4, rep <= 3, nset <= 5, seats < 4, segment positions
    < 64, results and markers in -1..63), so a byte each is exact."""
    undo[g, _COUNT] = np.uint64(np.uint32(info[g, I_ROUND])) | (
        np.uint64(np.uint32(info[g, I_HLEN])) << _B32
    )
    _, _, o_erase, o_mark, _ = action_offsets(cfg[C_N])
    captured = cells[g, a - o_erase] + 1 if a >= o_erase and a < o_mark else 0
    undo[g, _SMALL] = (
        _put(info[g, I_PHASE] | (info[g, I_REP] << 2) | (info[g, I_NSET] << 4), 0)
        | _put(info[g, I_CUR], 1)
        | _put(info[g, I_FIRST], 2)
        | _put(info[g, I_K], 3)
        | _put(info[g, I_ALIVE], 4)
        | _put(info[g, I_RLO], 5)
        | _put(info[g, I_RHI], 6)
        | _put(captured, 7)
    )
    w = np.uint64(0)
    for j in range(4):
        w |= _put(info[g, I_RES + j], j) | _put(marker[g, j], 4 + j)
    undo[g, _SEATS] = w
    undo[g, _KEY] = rng[g]


@jit_inline
def _check_and_save(g, a, o_pass, bb, cells, marker, supply, info, rng, seg, cfg, flags, undo):
    """flags[g] = BAD when :func:`legal._bad_action`, else APPLIED for a running game (its
    undo row saved; the step adds ENDED) and 0 for a finished one. Returns whether BAD."""
    if _bad_action(g, a, o_pass, bb, cells, marker, supply, info, seg, cfg):
        flags[g] = BAD
        return True
    if info[g, I_PHASE] == PH_OVER:
        flags[g] = 0
    else:
        flags[g] = APPLIED
        _save(g, a, cells, marker, info, rng, cfg, undo)
    return False


@jit
def _count_bad(flags):
    """Number of games flagged BAD (serial: prange reductions need Numba's runtime)."""
    n = 0
    for g in range(flags.shape[0]):
        n += flags[g] & BAD
    return n


@jit_inline
def _restore(g, a, bb, cells, marker, supply, info, rng, hist, cfg, undo):
    """Put game g back as it was before its action ``a`` (saved by :func:`_save`)."""
    written = info[g, I_HLEN]
    w = undo[g, _COUNT]
    info[g, I_ROUND] = np.int32(np.uint32(w & _LOW32))
    info[g, I_HLEN] = np.int32(np.uint32(w >> _B32))
    w = undo[g, _SMALL]
    b0 = _get(w, 0) & 0xFF
    info[g, I_PHASE] = b0 & 3
    info[g, I_REP] = (b0 >> 2) & 3
    info[g, I_NSET] = b0 >> 4
    info[g, I_CUR] = _get(w, 1)
    info[g, I_FIRST] = _get(w, 2)
    info[g, I_K] = _get(w, 3)
    info[g, I_ALIVE] = _get(w, 4)
    info[g, I_RLO] = _get(w, 5)
    info[g, I_RHI] = _get(w, 6)
    captured = _get(w, 7) - 1
    w = undo[g, _SEATS]
    for j in range(4):
        info[g, I_RES + j] = _get(w, j)
        marker[g, j] = np.int8(_get(w, 4 + j))
    rng[g] = undo[g, _KEY]
    s = info[g, I_CUR]  # the mover
    N = cfg[C_CELLS]
    _, o_move, o_erase, o_mark, _ = action_offsets(cfg[C_N])
    if a < o_move:  # a put (setup VF-10, WRITE VF-14): the piece back into the supply
        _remove(g, bb, cells, a % N)
        supply[g, s, a // N] += 1
    elif a < o_erase:  # MOVE: the piece back to where it came from
        _place(g, bb, cells, _remove(g, bb, cells, (a - o_move) % N), (a - o_move) // N)
    elif a < o_mark:  # ERASE: the captured piece (if any) back from the supply
        if captured >= 0:
            _place(g, bb, cells, captured, a - o_erase)
            supply[g, s, captured] -= 1
    for h in range(info[g, I_HLEN], min(written + 1, hist.shape[1])):  # VF-17 records
        for w8 in range(HW):
            hist[g, h, w8] = np.uint64(0)
    _refresh_active(g, bb, marker, info, cfg)  # derived from what was just put back


guard_cache(globals())  # recompile if a sibling kernel file changed (envs/core/cache.py)
