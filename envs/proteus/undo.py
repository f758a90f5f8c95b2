"""Undo rows: the validated batch ``step`` checks each game's action as it applies it.

Why: a rejected batch must be left unchanged (issue 11). Checking every action in a pass
of its own before the step pass reads every game's words twice. Checking a game right
before its turn reads them once; the price is this row, written while they are in
registers: the ten words the turn may change and the one PR-17 history slot it may write
(slot 0 after a placement, else slot ``hist_len``), so that a failed batch is put back bit
for bit. A game that ends is re-initialised only once the whole batch has passed
(``kernel.py``), so no undo has to reverse a reset.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.core.cache import guard_cache
from envs.proteus.legal import _bad_action

#: words of one game's undo row: tiles, tsq, pieces, pat, bb, act, player, turn,
#: hist_len, status, history slot 0, history slot hist_len, "applied" flag
UNDO_WORDS = 13
APPLIED = 12


@njit(cache=True, inline="always")
def _check_and_save(S, b, action, bad, undo):
    """bad[b] = :func:`legal._bad_action` (PR-8..PR-14); a running game with a legal action
    gets its undo row."""
    tiles, tsq, pieces, pat, bb, act, player, turn, max_turns, hist, hist_len, status, rng = S
    undo[b, APPLIED] = 0
    bad[b] = _bad_action(tsq, pieces, bb, act, player, status, b, action)
    if not bad[b] and status[b] == 0:
        n = hist_len[b]
        undo[b, 0] = tiles[b]
        undo[b, 1] = tsq[b]
        undo[b, 2] = pieces[b]
        undo[b, 3] = pat[b]
        undo[b, 4] = bb[b]
        undo[b, 5] = act[b]
        undo[b, 6] = player[b]
        undo[b, 7] = turn[b]
        undo[b, 8] = n
        undo[b, 9] = status[b]
        undo[b, 10] = np.int64(hist[b, 0])
        undo[b, 11] = np.int64(hist[b, min(n, hist.shape[1] - 1)])
        undo[b, APPLIED] = 1
    return bad[b]


@njit(cache=True, inline="always")
def _restore(S, b, undo):
    """Put game ``b`` back as :func:`_check_and_save` found it (writes as ``S[k][b]``: see
    ``rules._store`` on Numba and tuple unpacking in prange loops)."""
    n = undo[b, 8]
    S[9][b, min(n, S[9].shape[1] - 1)] = np.uint64(undo[b, 11])
    S[9][b, 0] = np.uint64(undo[b, 10])
    S[0][b] = undo[b, 0]
    S[1][b] = undo[b, 1]
    S[2][b] = undo[b, 2]
    S[3][b] = undo[b, 3]
    S[4][b] = undo[b, 4]
    S[5][b] = undo[b, 5]
    S[6][b] = undo[b, 6]
    S[7][b] = undo[b, 7]
    S[10][b] = n
    S[11][b] = undo[b, 9]


guard_cache(globals())  # recompile if a sibling kernel file changed (envs/core/cache.py)
