"""Virus Fight observations from one seat's point of view: float32 planes and dense codes.

Why two encodings of one content: a learner's step is bound by the bytes it writes, and
the planes repeat what a few numbers say (a supply count fills a whole plane, a cell holds
at most one piece). :func:`_codes` writes one uint8 row per game, ``code_length(n, P)``
= ``n * n + 15P + 3`` bytes (58 on 2p 5x5, against 1,175 for uint8 planes and 4,700 for
float32 ones); :func:`_expand` turns a row into the planes, on the consumer's side
(:func:`decode`) and for the AEC env's float32 planes (:func:`_observe`), so both say the
same by construction. The row, each seat listed from the observer on:

==================  ====================================================================
bytes               meaning
==================  ====================================================================
``[0, N)``          piece code + 1 at each cell, 0 when empty or hidden (VF-11)
``[N, N+P)``        marker cell + 1 of each seat, 0 when none or hidden
``[N+P, N+13P)``    the count of each of the 12 pieces in each seat's supply
``[N+13P, N+14P)``  1 while the seat is in
``[N+14P, N+15P)``  1 for the first player of the round
``N+15P``           the phase (0 setup, 1 effect, 2 marker step, 3 over)
``N+15P+1``         ``floor(255 * round / max_rounds)``: steps of 1/255 of the round limit
                    (the only lossy value; the AEC planes hold the exact fraction)
``N+15P+2``         the repetition count (VF-17), 0..3
==================  ====================================================================

Planes (``obs_channels(P)`` = 17 + 15P): 12 pieces (``3 * kind + size - 1``), P markers,
12P supplies, P alive, P first player, 3 phase, round, repetition / 3, each seat listed
from the observer on. During the hidden setup (VF-11) only the observer's own program
shows.
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
    jit,
)
from envs.virus_fight.params import C_CELLS, C_FULL, C_MAX_ROUNDS, C_N, C_PLAYERS, C_SEGMASK


def obs_scale(num_players: int) -> np.ndarray:
    """(obs_channels,) float32 value of one unit per plane (the round's 1/255, the
    repetition's 1/3, else 1): what a code stands for once :func:`decode` expanded it."""
    scale = np.ones(obs_channels(num_players), dtype=np.float32)
    scale[-2] = 1.0 / 255.0
    scale[-1] = 1.0 / 3.0
    return scale


def obs_channels(num_players: int) -> int:
    """Planes: 12 pieces, P markers, 12P supplies, P alive, P first, 3 phase, round, rep."""
    return 17 + 15 * num_players


def code_length(board_size: int, num_players: int) -> int:
    """Bytes of one game's dense code row (module docstring)."""
    return board_size * board_size + 15 * num_players + 3


def decode(codes: np.ndarray, num_players: int) -> np.ndarray:
    """float32 planes (..., C, n, n) of learner observations (the consumer's side): uint8
    planes (``codes * obs_scale``, one scale per plane) or dense (..., code_length) rows."""
    codes = np.asarray(codes)
    if codes.dtype != np.uint8 or codes.ndim < 1:
        raise ValueError(f"decode: codes must be uint8, got {codes.dtype}{codes.shape}")
    C = obs_channels(num_players)
    if codes.ndim >= 3 and codes.shape[-3] == C and codes.shape[-1] == codes.shape[-2]:
        return np.multiply(codes, obs_scale(num_players)[:, None, None], dtype=np.float32)
    n = int(round((codes.shape[-1] - 15 * num_players - 3) ** 0.5))
    if code_length(n, num_players) != codes.shape[-1]:
        raise ValueError(
            f"decode: rows of {codes.shape[-1]} bytes are not codes of {num_players} players"
        )
    lead = codes.shape[:-1]
    flat = np.ascontiguousarray(codes.reshape(-1, codes.shape[-1]))
    out = np.zeros((flat.shape[0], C * n * n), np.float32)
    _decode_loop(flat, num_players, n, out)
    return out.reshape(*lead, C, n, n)


@jit
def _codes(g, seat, cells, marker, supply, info, cfg, out):
    """Dense code row of game g from ``seat``'s point of view into ``out`` (uint8)."""
    N = cfg[C_CELLS]
    P = cfg[C_PLAYERS]
    ph = info[g, I_PHASE]
    setup = ph == PH_SETUP
    visible = np.uint64(cfg[C_FULL])
    if setup:  # VF-11: only the observer's own program is visible
        visible = np.uint64(cfg[C_SEGMASK + seat])
    for c in range(N):
        p = cells[g, c]
        out[c] = p + 1 if p >= 0 and (visible >> np.uint64(c)) & U1 else 0
    alive = info[g, I_ALIVE]
    for j in range(P):
        s = (seat + j) % P  # own first, then the others in seat order
        shown = not (setup and j > 0)  # VF-11: nothing of another program, not its supply
        live = shown and ((alive >> s) & 1) == 1
        out[N + j] = marker[g, s] + 1 if shown and marker[g, s] >= 0 else 0
        for p in range(NPIECE):
            out[N + P + 12 * j + p] = supply[g, s, p] if live else 0
        out[N + 13 * P + j] = 1 if live or not shown else 0
        out[N + 14 * P + j] = 1 if not setup and info[g, I_FIRST] == s else 0
    out[N + 15 * P] = ph
    out[N + 15 * P + 1] = min((255 * np.int64(info[g, I_ROUND])) // cfg[C_MAX_ROUNDS], 255)
    out[N + 15 * P + 2] = info[g, I_REP]


@jit
def _expand(code, n, P, out, raw):
    """The planes of one code row into the flat row ``out`` (C * n * n): floats, or with
    ``raw`` the uint8 planes (round and repetition as their codes).

    Every plane is written whole by a fixed loop over the cells (a comparison or one
    value), with no branch: which cells hold a piece and which supplies are empty differ
    from game to game across a batch, and a sparse write's branches were mispredicted
    there (the learner step's uint8 planes, measured in docs/benchmarks.md).
    """
    N = n * n
    for p in range(12):  # the piece (kind, size) on each cell
        for c in range(N):
            out[p * N + c] = code[c] == p + 1
    for j in range(P):  # each seat's marker: one cell of its plane
        m = code[N + j]
        for c in range(N):
            out[(12 + j) * N + c] = m == c + 1
    for k in range(14 * P):  # supplies, alive, first: one number per plane
        v = code[N + P + k]
        for c in range(N):
            out[(12 + P + k) * N + c] = v
    base = (12 + 15 * P) * N  # the phase planes, then round and repetition
    ph = code[N + 15 * P]
    for k in range(3):
        for c in range(N):
            out[base + k * N + c] = ph == k
    rnd = code[N + 15 * P + 1]
    rep = code[N + 15 * P + 2]
    for c in range(N):
        if raw:
            out[base + 3 * N + c] = rnd
            out[base + 4 * N + c] = rep
        else:
            out[base + 3 * N + c] = rnd / 255.0
            out[base + 4 * N + c] = rep / 3.0


@jit
def _decode_loop(codes, P, n, out):
    for b in range(codes.shape[0]):
        _expand(codes[b], n, P, out[b], False)


@njit(cache=True, error_model="numpy")
def _observe(g, seat, bb, cells, marker, supply, info, cfg, out):
    """float32 planes (C, n, n) of game g from ``seat``'s point of view into ``out``: the
    expanded code row, with the round plane exact (``round / max_rounds``)."""
    n = cfg[C_N]
    code = np.empty(cfg[C_CELLS] + 15 * cfg[C_PLAYERS] + 3, np.uint8)
    _codes(g, seat, cells, marker, supply, info, cfg, code)
    flat = out.reshape(out.size)
    _expand(code, n, cfg[C_PLAYERS], flat, False)
    out[out.shape[0] - 2] = info[g, I_ROUND] / cfg[C_MAX_ROUNDS]


guard_cache(globals())  # recompile if a sibling kernel file changed (envs/core/cache.py)
