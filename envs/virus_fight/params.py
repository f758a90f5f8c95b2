"""Virus Fight static parameters (gymnax's ``EnvParams``): named fields, one njit vector.

Why both: the facade and the tools read :class:`VirusFightParams` by name; the Numba
kernels read the same numbers from one int64 vector ``cfg`` through the ``C_*`` index
constants below (compile-time constants, so a named read costs what ``cfg[k]`` did).
The vector's layout is unchanged, so code that kept a ``cfg`` keeps working.

==============  ======================================================================
index           field
==============  ======================================================================
``C_N``         board side ``n`` (VF-4)
``C_CELLS``     ``n * n``
``C_PLAYERS``   number of players ``P`` (VF-1)
``C_MAX_ROUNDS``  round limit (VF-17)
``C_SEGLEN``    home-segment length (VF-9)
``C_MAXPROG``   largest program (VF-10)
``C_FULL``      mask of the board's cells (int64 bits)
``C_NOTA``      cells not on the first file
``C_NOTH``      cells not on the last file
``C_SEGMASK``   ``C_SEGMASK + s``: cells of seat ``s``'s home segment
==============  ======================================================================
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envs.virus_fight.constants import MAX_PROGRAM

C_N, C_CELLS, C_PLAYERS, C_MAX_ROUNDS, C_SEGLEN, C_MAXPROG = range(6)
C_FULL, C_NOTA, C_NOTH, C_SEGMASK = 6, 7, 8, 9
N_CFG = 13


@dataclass(frozen=True)
class VirusFightParams:
    """The static parameters of a Virus Fight batch, by name (see the module docstring)."""

    board_size: int
    num_players: int
    max_rounds: int
    segment_length: int
    max_program: int

    @classmethod
    def from_cfg(cls, cfg: np.ndarray) -> VirusFightParams:
        """The named view of a ``cfg`` vector."""
        return cls(
            board_size=int(cfg[C_N]),
            num_players=int(cfg[C_PLAYERS]),
            max_rounds=int(cfg[C_MAX_ROUNDS]),
            segment_length=int(cfg[C_SEGLEN]),
            max_program=int(cfg[C_MAXPROG]),
        )

    def to_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(cfg, seg): the vector the kernels read and the home-segment cells."""
        return make_geometry(self.board_size, self.num_players, self.max_rounds)


def segment_cells(n: int, num_players: int) -> np.ndarray:
    """(4, 8) int64 home-segment cells per seat in order along the segment, -1 padded (VF-9).

    2 players: seat 0 the bottom row, seat 1 the top row (whole rows). 3-4 players: seat 0
    bottom, 1 left, 2 top, 3 right edge, each without its two corner cells.
    """
    seg = -np.ones((4, 8), dtype=np.int64)
    if num_players == 2:
        for c in range(n):
            seg[0, c] = (n - 1) * n + c
            seg[1, c] = c
    else:
        for i in range(n - 2):
            seg[0, i] = (n - 1) * n + (i + 1)  # bottom
            seg[1, i] = (i + 1) * n  # left
            seg[2, i] = i + 1  # top
            seg[3, i] = (i + 1) * n + (n - 1)  # right
    return seg


def make_geometry(n: int, num_players: int, max_rounds: int) -> tuple[np.ndarray, np.ndarray]:
    """Static configuration arrays passed to every kernel: (cfg int64, seg int64).

    cfg is read through the ``C_*`` indices (module docstring); masks are int64 bits.
    """
    if not 5 <= n <= 8:
        raise ValueError(f"board_size must be 5..8 (VF-4), got {n}")
    if num_players not in (2, 3, 4):
        raise ValueError(f"num_players must be 2, 3 or 4 (VF-1), got {num_players}")
    seg = segment_cells(n, num_players)
    seglen = n if num_players == 2 else n - 2
    full = 0
    nota = 0
    noth = 0
    for r in range(n):
        for c in range(n):
            b = 1 << (r * n + c)
            full |= b
            if c != 0:
                nota |= b
            if c != n - 1:
                noth |= b
    segmask = [0, 0, 0, 0]
    for s in range(num_players):
        for i in range(seglen):
            segmask[s] |= 1 << int(seg[s, i])
    vals = [n, n * n, num_players, max_rounds, seglen, min(MAX_PROGRAM, seglen)]
    vals += [full, nota, noth] + segmask
    cfg = np.array([np.uint64(v).view(np.int64) for v in vals], dtype=np.int64)
    return cfg, seg
