"""Virus Fight observation planes from one seat's point of view, float32 or compact uint8.

Why two encodings of one body: a learner's step is bound by the bytes it writes, and all
planes but two hold small integers. :func:`_planes` writes either the float32 planes of
the AEC env (unchanged) or uint8 codes, 4x fewer bytes, that the consumer turns into the
same floats with ``codes * obs_scale(P)`` (per plane; :func:`decode`):

* pieces, markers, alive, first player, phase: 0/1 in both encodings;
* supplies: the count of each piece in each supply (exact);
* round / max_rounds: uint8 ``floor(255 * round / max_rounds)``, scale 1/255 (the only
  lossy plane: steps of 1/255 of the round limit);
* repetition count / 3 (VF-17): uint8 0..3, scale 1/3 (exact).

Planes (``obs_channels(P)`` = 17 + 15P): 12 pieces (``3 * kind + size - 1``), P markers,
12P supplies, P alive, P first player, 3 phase, round, repetition, each seat listed from
the observer on. During the hidden setup (VF-11) only the observer's own program shows.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.core.cache import guard_cache
from envs.virus_fight.constants import (
    I_ALIVE,
    I_FIRST,
    I_PHASE,
    I_REP,
    I_ROUND,
    NPIECE,
    PH_SETUP,
    U1,
)
from envs.virus_fight.params import C_CELLS, C_FULL, C_MAX_ROUNDS, C_N, C_PLAYERS, C_SEGMASK


def obs_scale(num_players: int) -> np.ndarray:
    """(obs_channels,) float32 value of one uint8 code per plane (module docstring)."""
    scale = np.ones(obs_channels(num_players), dtype=np.float32)
    scale[-2] = 1.0 / 255.0
    scale[-1] = 1.0 / 3.0
    return scale


def decode(codes: np.ndarray, num_players: int) -> np.ndarray:
    """float32 planes of compact (..., C, n, n) uint8 observations (the consumer's side)."""
    return np.multiply(codes, obs_scale(num_players)[:, None, None], dtype=np.float32)


def obs_channels(num_players: int) -> int:
    """Planes: 12 pieces, P markers, 12P supplies, P alive, P first, 3 phase, round, rep."""
    return 17 + 15 * num_players


@njit(cache=True, error_model="numpy")
def _planes(g, seat, bb, cells, marker, supply, info, cfg, out, compact):
    """Planes of game g from ``seat``'s point of view into ``out`` (float or uint8 codes)."""
    n = cfg[C_N]
    N = cfg[C_CELLS]
    P = cfg[C_PLAYERS]
    out[:] = 0.0
    ph = info[g, I_PHASE]
    setup = ph == PH_SETUP
    visible = np.uint64(cfg[C_FULL])
    if setup:  # VF-11: only the observer's own program is visible
        visible = np.uint64(cfg[C_SEGMASK + seat])
    for c in range(N):
        p = cells[g, c]
        if p >= 0 and (visible >> np.uint64(c)) & U1:
            out[p, c // n, c % n] = 1.0
    alive = info[g, I_ALIVE]
    base_sup = 12 + P
    base_alive = base_sup + 12 * P
    base_first = base_alive + P
    base_phase = base_first + P
    for j in range(P):
        s = (seat + j) % P  # own first, then the others in seat order
        if setup and j > 0:
            continue  # VF-11: nothing of another program, not even its supply
        c = marker[g, s]
        if c >= 0:
            out[12 + j, c // n, c % n] = 1.0
        if (alive >> s) & 1:
            out[base_alive + j] = 1.0
            for p in range(NPIECE):
                v = supply[g, s, p]
                if v:
                    out[base_sup + 12 * j + p] = v
        if not setup and info[g, I_FIRST] == s:
            out[base_first + j] = 1.0
    if setup and P > 1:
        for j in range(1, P):
            out[base_alive + j] = 1.0
    if ph < 3:
        out[base_phase + ph] = 1.0
    if compact:
        out[base_phase + 3] = min((255 * np.int64(info[g, I_ROUND])) // cfg[C_MAX_ROUNDS], 255)
        out[base_phase + 4] = info[g, I_REP]
    else:
        out[base_phase + 3] = info[g, I_ROUND] / cfg[C_MAX_ROUNDS]
        out[base_phase + 4] = info[g, I_REP] / 3.0


@njit(cache=True, error_model="numpy")
def _observe(g, seat, bb, cells, marker, supply, info, cfg, out):
    """float32 planes of game g from ``seat``'s point of view into ``out``."""
    _planes(g, seat, bb, cells, marker, supply, info, cfg, out, False)


guard_cache(globals())  # recompile if a sibling kernel file changed (envs/core/cache.py)
