"""Undo rows: check each game's action as it is applied, and put the batch back if any fails.

Why: the validated batch ``step`` must leave the whole batch unchanged when one action is
illegal (issue 11), and the check is not free. Checking every game in a pass of its own and
then applying in a second pass reads each game's state twice; once the batch leaves the
core's cache (about 3,600 games of 288 bytes for a 1 MB L2) the second read comes from
memory and the check cost a fifth of the step. Checking a game right before applying it
reads its state once; the price is this undo row, written while the state is in cache.
The row is small (``UNDO_WORDS`` = 11 uint64 words, 88 bytes; the first version copied the
bitboards and supplies too, 240 bytes, and its writes were most of the check's cost at
B = 16384) because a legal action changes the board in a way the action itself names.
Measured in ``docs/benchmarks.md`` ("Validation cost").

What an applied step may change, and how the row restores it:

* ``info``, ``marker`` (every seat's: VF-14/VF-15 eliminations), ``rng`` (the VF-12 draw):
  saved words, written back;
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
* a game that ends is re-initialised only after the whole batch passed (``kernel.py``), so
  no undo ever has to reverse a reset.
"""

from __future__ import annotations

import numpy as np

from envs.core.cache import guard_cache
from envs.virus_fight.board import _place, _remove
from envs.virus_fight.constants import (
    HW,
    I_CUR,
    I_HLEN,
    I_PHASE,
    NINFO,
    PH_OVER,
    action_offsets,
    jit,
    jit_inline,
)
from envs.virus_fight.legal import _bad_action
from envs.virus_fight.params import C_CELLS, C_N

#: words of one game's undo row (8 of info, the markers with the ERASE target's piece,
#: the key, and the flag "this game's action was applied")
UNDO_WORDS = 11
_INF = 0  # the 15 info int32s (2 per word)
_MARK = 8  # bytes 0..3: the 4 markers; byte 4: the ERASE target's piece code + 1
_KEY = 9  # the RNG key
APPLIED = 10  # 1 when the row holds a saved game, else 0

_B8 = np.uint64(8)
_B32 = np.uint64(32)
_LOW8 = np.uint64(0xFF)
_LOW32 = np.uint64(0xFFFFFFFF)


@jit_inline
def _save(g, a, cells, marker, info, rng, cfg, undo):
    """What game g's legal action ``a`` may change beyond the board, and the piece an
    ERASE of ``a`` captures, into its undo row (module docstring)."""
    for k in range(8):
        w = np.uint64(np.uint32(info[g, 2 * k]))
        if 2 * k + 1 < NINFO:
            w |= np.uint64(np.uint32(info[g, 2 * k + 1])) << _B32
        undo[g, _INF + k] = w
    w = np.uint64(0)
    for j in range(4):
        w |= np.uint64(np.uint8(marker[g, j])) << (_B8 * np.uint64(j))
    _, _, o_erase, o_mark, _ = action_offsets(cfg[C_N])
    if a >= o_erase and a < o_mark:
        w |= np.uint64(cells[g, a - o_erase] + 1) << _B32
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
        _save(g, a, cells, marker, info, rng, cfg, undo)
    return bad[g]


@jit
def _count_bad(bad):
    """Number of True entries of ``bad`` (serial: prange reductions need Numba's runtime)."""
    n = 0
    for g in range(bad.shape[0]):
        n += bad[g]
    return n


@jit_inline
def _restore(g, a, bb, cells, marker, supply, info, rng, hist, cfg, undo):
    """Put game g back as it was before its action ``a`` (saved by :func:`_save`)."""
    written = info[g, I_HLEN]
    for k in range(8):
        w = undo[g, _INF + k]
        info[g, 2 * k] = np.int32(np.uint32(w & _LOW32))
        if 2 * k + 1 < NINFO:
            info[g, 2 * k + 1] = np.int32(np.uint32(w >> _B32))
    w = undo[g, _MARK]
    for j in range(4):
        marker[g, j] = np.int8(np.uint8((w >> (_B8 * np.uint64(j))) & _LOW8))
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
        p = np.int64((w >> _B32) & _LOW8) - 1
        if p >= 0:
            _place(g, bb, cells, p, a - o_erase)
            supply[g, s, p] -= 1
    for h in range(info[g, I_HLEN], min(written + 1, hist.shape[1])):  # VF-17 records
        for w8 in range(HW):
            hist[g, h, w8] = np.uint64(0)


@jit_inline
def _undone(g, a, nbad, bb, cells, marker, supply, info, rng, hist, cfg, undo):
    """After a checked pass with ``nbad`` failures: put game g back if its action ``a``
    was applied. Returns whether the batch failed (then no game may start a new one)."""
    if nbad and undo[g, APPLIED]:
        _restore(g, a, bb, cells, marker, supply, info, rng, hist, cfg, undo)
    return nbad > 0


guard_cache(globals())  # recompile if a sibling kernel file changed (envs/core/cache.py)
