"""Undo rows: check each game's action as it is applied, and put the batch back if any fails.

Why: the validated batch ``step`` must leave the whole batch unchanged when one action is
illegal (issue 11), and the check is not free. Checking every game in a pass of its own and
then applying in a second pass reads each game's state twice; once the batch leaves the
core's cache (about 3,600 games of 288 bytes for a 1 MB L2) the second read comes from
memory and the check cost a fifth of the step. Checking a game right before applying it
reads its state once; the price is this undo row, written while the state is in cache:
the game's rows packed into ``UNDO_WORDS`` uint64 words (232 bytes: the bitboards, the
supplies, the info row, the markers, the key; the ``cells`` mirror is rebuilt from the
bitboards). Measured in ``docs/benchmarks.md`` ("Validation cost").

What an applied step may change, and how the row restores it:

* ``bb``, ``supply``, ``info``, ``marker``, ``rng``: saved words, written back;
* ``cells``: a mirror of ``bb`` (VF-4), rebuilt from it;
* ``hist``: a round start (VF-17) writes the record of its position into slot ``I_HLEN``
  and, unless the game ends by repetition, counts it. Slots at and after ``I_HLEN`` are
  kept zero (``board._new_game`` clears a finished game's records), so the undo zeroes the
  slots the step wrote;
* a game that ends is re-initialised only after the whole batch passed (``kernel.py``), so
  no undo ever has to reverse a reset.
"""

from __future__ import annotations

import numpy as np

from envs.core.cache import guard_cache
from envs.virus_fight.board import _bit
from envs.virus_fight.constants import (
    HW,
    I_HLEN,
    I_PHASE,
    NINFO,
    NPIECE,
    PH_OVER,
    U0,
    jit,
    jit_inline,
)
from envs.virus_fight.legal import _bad_action

#: words of one game's undo row (13 bitboards, 6 of supplies, 8 of info, markers, key,
#: and the flag "this game's action was applied")
UNDO_WORDS = 30
_SUP = 13  # first word of the 48 supply bytes (seat-major, 8 per word)
_INF = 19  # first word of the 15 info int32s (2 per word)
_MARK = 27  # the 4 marker bytes
_KEY = 28  # the RNG key
APPLIED = 29  # 1 when the row holds a saved game, else 0

_B8 = np.uint64(8)
_LOW8 = np.uint64(0xFF)
_LOW32 = np.uint64(0xFFFFFFFF)
_S32 = np.uint64(32)


@jit_inline
def _save(g, bb, marker, supply, info, rng, undo):
    """Game g's rows into its undo row (packed: LLVM turns the byte loops into loads)."""
    for i in range(13):
        undo[g, i] = bb[g, i]
    for k in range(6):
        w = U0
        for j in range(8):
            i = 8 * k + j
            w |= np.uint64(np.uint8(supply[g, i // NPIECE, i % NPIECE])) << (_B8 * np.uint64(j))
        undo[g, _SUP + k] = w
    for k in range(8):
        w = np.uint64(np.uint32(info[g, 2 * k]))
        if 2 * k + 1 < NINFO:
            w |= np.uint64(np.uint32(info[g, 2 * k + 1])) << _S32
        undo[g, _INF + k] = w
    w = U0
    for j in range(4):
        w |= np.uint64(np.uint8(marker[g, j])) << (_B8 * np.uint64(j))
    undo[g, _MARK] = w
    undo[g, _KEY] = rng[g]
    undo[g, APPLIED] = 1


@jit_inline
def _check_and_save(g, a, o_pass, bb, cells, marker, supply, info, rng, seg, cfg, bad, undo):
    """bad[g] = :func:`legal._bad_action`; a running game with a legal action gets its undo
    row. Returns bad[g]."""
    undo[g, APPLIED] = 0
    bad[g] = _bad_action(g, a, o_pass, bb, cells, marker, supply, info, seg, cfg)
    if not bad[g] and info[g, I_PHASE] != PH_OVER:
        _save(g, bb, marker, supply, info, rng, undo)
    return bad[g]


@jit
def _count_bad(bad):
    """Number of True entries of ``bad`` (serial: prange reductions need Numba's runtime)."""
    n = 0
    for g in range(bad.shape[0]):
        n += bad[g]
    return n


@jit_inline
def _restore(g, bb, cells, marker, supply, info, rng, hist, undo):
    """Put game g back as :func:`_save` found it (the slots its step wrote zeroed)."""
    written = info[g, I_HLEN]
    for i in range(13):
        bb[g, i] = undo[g, i]
    for c in range(64):
        cells[g, c] = -1
    for p in range(12):  # the mirror (VF-4): piece code p on every cell of its bitboard
        x = bb[g, p]
        for c in range(64):
            if x & _bit(c):
                cells[g, c] = p
    for k in range(6):
        w = undo[g, _SUP + k]
        for j in range(8):
            i = 8 * k + j
            supply[g, i // NPIECE, i % NPIECE] = np.int8(
                np.uint8((w >> (_B8 * np.uint64(j))) & _LOW8)
            )
    for k in range(8):
        w = undo[g, _INF + k]
        info[g, 2 * k] = np.int32(np.uint32(w & _LOW32))
        if 2 * k + 1 < NINFO:
            info[g, 2 * k + 1] = np.int32(np.uint32(w >> _S32))
    w = undo[g, _MARK]
    for j in range(4):
        marker[g, j] = np.int8(np.uint8((w >> (_B8 * np.uint64(j))) & _LOW8))
    rng[g] = undo[g, _KEY]
    for h in range(info[g, I_HLEN], min(written + 1, hist.shape[1])):  # VF-17 records
        for w8 in range(HW):
            hist[g, h, w8] = U0


@jit_inline
def _undone(g, nbad, bb, cells, marker, supply, info, rng, hist, undo):
    """After a checked pass with ``nbad`` failures: put game g back if it was applied.
    Returns whether the batch failed (then no game may start a new one)."""
    if nbad and undo[g, APPLIED]:
        _restore(g, bb, cells, marker, supply, info, rng, hist, undo)
    return nbad > 0


guard_cache(globals())  # recompile if a sibling kernel file changed (envs/core/cache.py)
