"""Proteus observation planes from one seat's point of view, float32 or compact uint8.

Why two encodings of one body: a learner's step is bound by the bytes it writes, and 33
of the 35 planes hold only 0/1. :func:`_planes` writes either the float32 planes of the
AEC env (unchanged) or uint8 codes, 4x fewer bytes, that the consumer turns into the
same floats with ``codes * OBS_SCALE`` (per plane; see :func:`decode`):

* planes 0-32: 0/1 in both encodings;
* plane 33 (turn / max_turns): uint8 ``floor(255 * turn / max_turns)``, scale 1/255
  (the only lossy plane: steps of 1/255 of the turn limit);
* plane 34 ((occurrences - 1) / 2, PR-17): uint8 0..2, scale 1/2 (exact).

Plane layout (see :func:`envs.proteus.kernel.observe`): 0-8 tile id on the square; 9
face up; 10-12 observer's pieces by shape; 13-15 opponent's; 16-24 tile k in the pool;
25-27 / 28-30 observer's / opponent's pieces in hand; 31 movement phase; 32 observer
to move; 33 turn / max_turns; 34 repetition count.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.core.cache import guard_cache
from envs.proteus.rules import _count_key
from envs.proteus.tables import N_PLANES

#: float value of one uint8 code, per plane (compact observations, module docstring)
OBS_SCALE = np.ones(N_PLANES, dtype=np.float32)
OBS_SCALE[33] = 1.0 / 255.0
OBS_SCALE[34] = 0.5


def decode(codes: np.ndarray) -> np.ndarray:
    """float32 planes of compact (..., 3, 3, 35) uint8 observations (the consumer's side)."""
    return np.multiply(codes, OBS_SCALE, dtype=np.float32)  # one pass, no uint8 -> float copy


@njit(cache=True)
def _planes(S, b, me, o, compact):
    """Planes of game ``b`` from seat ``me``'s point of view into ``o`` (3, 3, N_PLANES)."""
    tiles, tsq, pieces, pat, bb, act, player, turn, max_turns, hist, hist_len, status, rng = S
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
            mt = max(max_turns[b], 1)
            if compact:
                v = float(min((255 * np.int64(turn[b])) // mt, 255))
            else:
                v = turn[b] / mt
        else:
            n = hist_len[b]
            if n > 0:
                v = float(min(_count_key(hist, b, n, hist[b, n - 1]) - 1, 2))
                if not compact:
                    v = v / 2.0
        for sq in range(9):
            o[sq // 3, sq % 3, k] = v
    for sq in range(9):
        r = sq // 3
        c = sq % 3
        for k in range(16):
            o[r, c, k] = 0
        t = ((tw >> (4 * sq)) & 15) - 1
        if t >= 0:
            o[r, c, t] = 1
            if ((a >> (2 * (t // 3))) & 3) == t % 3 + 1:
                o[r, c, 9] = 1
        pc = ((pw >> (4 * sq)) & 15) - 1
        if pc >= 0:
            o[r, c, (10 if pc // 3 == me else 13) + pc % 3] = 1


@njit(cache=True)
def _observe_one(S, seats, out, b):
    """float32 planes of game ``b`` from ``seats[b]``'s point of view into ``out[b]``."""
    _planes(S, b, np.int64(seats[b]), out[b], False)


guard_cache(globals())  # recompile if a sibling kernel file changed (envs/core/cache.py)
