"""Virus Fight constants: piece kinds, phases, the ``info`` columns, the action encoding.

Why a module of its own (every board game keeps its names in ``constants.py``): the
kernels, the facade, the notation, rendering and the agents all read these names; none
should import the rules to reach one. The rules are ``docs/virus_fight.md`` (VF-1..VF-18).

Action encoding (``N = n * n``, a fixed-size ``Discrete`` space per board size)::

    [0, 12N)              put piece p on cell c          p * N + c        (setup, WRITE)
    [12N, 12N + N^2)      MOVE from-cell f to cell t     12N + f * N + t
    [12N + N^2, 13N + N^2)  ERASE target cell c          12N + N^2 + c
    [13N + N^2, 14N + N^2)  marker to cell c             13N + N^2 + c   (setup end, JUMP,
                                                                          marker step)
    14N + N^2             pass

so ``num_actions = N^2 + 14N + 1`` (976 on 5x5, 4993 on 8x8).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.core.cache import guard_cache

KIND_LETTERS = "MWJE"
MOVE, WRITE, JUMP, ERASE = 0, 1, 2, 3
NPIECE = 12  # (kind, size) combinations, VF-2
OCC = 12  # index of the occupancy bitboard in ``bb``
#: index of a derived word in ``bb``, the set the acting seat's decision works on: the
#: active block (VF-5, the block of its marker) in the effect phase (VF-14), the marker
#: step's targets in the step phase (VF-15), else 0. Written by the transitions as a
#: phase begins (``rules._advance``, ``rules._transition``: they compute it anyway) so that
#: the legal set, the random action and the check of a caller's action read it instead of
#: each computing it again (a flood for the block); ``legal._refresh_active`` derives it
#: from scratch (a game put back, a loaded position).
ACTIVE = 13
NBB = 14  # words of ``bb`` per game
MAX_PROGRAM = 5  # VF-10

PH_SETUP, PH_EFFECT, PH_STEP, PH_OVER = 0, 1, 2, 3

# info columns
I_PHASE = 0  # PH_*
I_CUR = 1  # seat to act (-1 when over)
I_FIRST = 2  # first player of the current round (-1 during setup)
I_K = 3  # offset of the seat to act from the first player in the round's seat order
I_ROUND = 4  # play round number, 1-based (0 during setup)
I_ALIVE = 5  # bit s set while seat s is still in
I_NSET = 6  # setup: instructions placed by the seat to act
I_RLO = 7  # setup: first placed position along the home segment
I_RHI = 8  # setup: last placed position along the home segment
I_HLEN = 9  # number of records in ``hist``
I_REP = 10  # occurrences of the current round's start position (1 or 2)
I_RES = 11  # 11..14: final reward of each seat (valid once the seat is done)
NINFO = 15
HW = 8  # words per history record

#: The per-game kernels' compile options. Why ``_nrt=False``: Numba counts references to
#: every array handed to a helper, two atomic operations per array per call; helpers take
#: up to seven arrays, which made the legal set 4x slower than its work. A function that
#: allocates an array keeps the runtime (plain ``njit``) and must not be called from these.
jit = njit(cache=True, error_model="numpy", _nrt=False)  # type: ignore[call-overload]
jit_inline = njit(cache=True, error_model="numpy", inline="always", _nrt=False)  # type: ignore[call-overload]

U0 = np.uint64(0)
U1 = np.uint64(1)
U2 = np.uint64(2)
U4 = np.uint64(4)


def num_actions(n: int) -> int:
    """Size of the Discrete action space on an ``n`` x ``n`` board."""
    cells = n * n
    return cells * cells + 14 * cells + 1


@njit(cache=True)
def action_offsets(n: int) -> tuple[int, int, int, int, int]:
    """(put, move, erase, marker, pass) offsets of the action encoding (kernels use it too)."""
    cells = n * n
    return (
        0,
        12 * cells,
        12 * cells + cells * cells,
        13 * cells + cells * cells,
        (14 * cells + cells * cells),
    )


guard_cache(globals())  # recompile if a sibling kernel file changed (envs/core/cache.py)
