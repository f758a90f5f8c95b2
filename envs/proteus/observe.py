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

A third encoding, **dense** (the learner's option ``learner_buffers(B, dense=True)``),
holds the same information in ``DENSE_BYTES`` = 24 bytes, 13x fewer than the compact
planes, and :func:`decode_dense` gives back exactly the float32 planes of ``observe``:

* bytes 0-8, one per square: bits 0-3 tile id + 1 (0 = no tile), bit 4 face up, bits
  5-7 the piece (0 none, 1 + shape for the observer's, 4 + shape for the opponent's);
* bytes 9-11: planes 16-32 as bits 0-16 (pool tiles, pieces in hand, phase, to move);
* byte 12: plane 34's code (occurrences - 1, at most 2); bytes 13-15: 0;
* bytes 16-19 / 20-23: ``turn`` / ``max_turns`` as little-endian uint32 (plane 33 exact).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.core.cache import guard_cache
from envs.proteus.rules import _count_key
from envs.proteus.tables import DENSE_PIECE, DENSE_TILE, N_PLANES

#: float value of one uint8 code, per plane (compact observations, module docstring)
OBS_SCALE = np.ones(N_PLANES, dtype=np.float32)
OBS_SCALE[33] = 1.0 / 255.0
OBS_SCALE[34] = 0.5

#: the three encodings of :func:`_planes` (``code``)
FLOAT, COMPACT, DENSE = 0, 1, 2


#: bytes of one dense learner observation (module docstring)
DENSE_BYTES = 24


def decode(codes: np.ndarray) -> np.ndarray:
    """float32 planes of compact (..., 3, 3, 35) uint8 observations (the consumer's side)."""
    return np.multiply(codes, OBS_SCALE, dtype=np.float32)  # one pass, no uint8 -> float copy


def decode_dense(codes: np.ndarray) -> np.ndarray:
    """float32 (..., 3, 3, 35) planes of dense (..., 24) uint8 observations, exactly those of
    ``observe`` for the same position and seat (the consumer's side; module docstring)."""
    c = np.asarray(codes)
    if c.dtype != np.uint8 or c.ndim < 1 or c.shape[-1] != DENSE_BYTES:
        raise ValueError(
            f"decode_dense: codes are {c.dtype}{c.shape}, expected uint8 (..., {DENSE_BYTES})"
        )
    lead = c.shape[:-1]
    sq = c[..., :9].astype(np.int64)
    out = np.zeros((*lead, 9, N_PLANES), np.float32)
    out[..., :9] = (sq & 15)[..., None] - 1 == np.arange(9)  # planes 0-8: tile id
    out[..., 9] = (sq >> 4) & 1  # face up
    out[..., 10:16] = (sq >> 5)[..., None] == np.arange(1, 7)  # own / opponent piece shapes
    bits = c[..., 9].astype(np.int64) | (c[..., 10].astype(np.int64) << 8)
    bits |= c[..., 11].astype(np.int64) << 16
    out[..., 16:33] = ((bits[..., None] >> np.arange(17)) & 1)[..., None, :]
    word = np.ascontiguousarray(c[..., 16:24]).view("<u4").astype(np.float64)  # (..., 2)
    out[..., 33] = (word[..., 0] / np.maximum(word[..., 1], 1.0)).astype(np.float32)[..., None]
    out[..., 34] = (c[..., 12] / 2.0)[..., None]
    return out.reshape(*lead, 3, 3, N_PLANES)


@njit(cache=True, inline="always")
def _global_bits(w, me, to_move):
    """Planes 16-32 as bits 0-16: pool tiles, own / opponent pieces in hand, phase, to move
    (integer arithmetic, no branch: the phase and the seat differ from game to game)."""
    hand = (w >> 45) & 63
    bits = (511 & ~(w >> 36)) | (((hand >> (3 * me)) & 7) << 9)
    bits |= ((hand >> (3 * (1 - me))) & 7) << 12
    moving = np.int64((w & 511) == 511) & np.int64(hand == 0)
    return bits | (moving << 15) | (np.int64(to_move) << 16)


@njit(cache=True, inline="always")
def _write_dense(tw, pw, w, a, me, to_move, turn, mt, rep, o):
    """The dense code of one position into the 24-byte row ``o`` (module docstring).

    A square's byte is two table loads (``tables.DENSE_TILE``, ``DENSE_PIECE``), no
    branch: which squares hold a tile or a piece is random across a batch, and the
    per-square branches were mispredicted there."""
    a6 = a & 63
    for sq in range(9):
        c = DENSE_TILE[a6, (tw >> (4 * sq)) & 15] | DENSE_PIECE[me, (pw >> (4 * sq)) & 15]
        o[sq] = c
    bits = _global_bits(w, me, to_move)
    o[9] = bits & 255
    o[10] = (bits >> 8) & 255
    o[11] = bits >> 16
    o[12] = rep
    o[13] = 0
    o[14] = 0
    o[15] = 0
    for k in range(4):
        o[16 + k] = (turn >> (8 * k)) & 255
        o[20 + k] = (mt >> (8 * k)) & 255


@njit(cache=True, inline="always")
def _write_planes(tw, pw, w, a, me, to_move, v33, v34, o):
    """The planes of one position into the flat row ``o`` (9 * N_PLANES, square-major).

    Every byte is written once by fixed loops of comparisons, with no branch: which
    squares hold a tile or a piece, and which global planes are set, are random across a
    batch, and the branches of a sparse write were mispredicted there (the dense code's
    tables give a square's tile, face-up and piece codes). ``v33`` / ``v34`` are the
    values of planes 33 and 34 in ``o``'s encoding.
    """
    bits = _global_bits(w, me, to_move)
    a6 = a & 63
    for sq in range(9):
        base = N_PLANES * sq
        c = np.int64(DENSE_TILE[a6, (tw >> (4 * sq)) & 15])  # tile id + 1 | 16 if face up
        pc = np.int64(DENSE_PIECE[me, (pw >> (4 * sq)) & 15]) >> 5  # 1-3 own, 4-6 theirs
        for k in range(9):  # planes 0-8: the tile's id
            o[base + k] = (c & 15) == k + 1
        o[base + 9] = c >> 4  # face up
        for k in range(6):  # planes 10-15: own / opponent piece by shape
            o[base + 10 + k] = pc == k + 1
        for k in range(17):  # planes 16-32: the global bits
            o[base + 16 + k] = (bits >> k) & 1
        o[base + 33] = v33
        o[base + 34] = v34


@njit(cache=True, inline="always")
def _planes(S, b, me, count, o, code):
    """Planes of game ``b`` from seat ``me``'s point of view into the flat row ``o``.

    ``count``: occurrences of the position in its PR-17 window (-1: count them here).
    ``code``: ``FLOAT`` planes, ``COMPACT`` uint8 planes or the ``DENSE`` 24 bytes.
    """
    tiles, tsq, pieces, pat, bb, act, player, turn, max_turns, hist, hist_len, status, rng = S
    n = hist_len[b]
    if count < 0:
        count = _count_key(hist, b, n, hist[b, n - 1]) if n > 0 else 1
    to_move = status[b] == 0 and player[b] == me
    if code == DENSE:
        rep = min(count - 1, 2)
        t, m = np.int64(turn[b]), np.int64(max_turns[b])
        _write_dense(tiles[b], pat[b], bb[b], act[b], me, to_move, t, m, rep, o)
        return
    mt = max(np.int64(max_turns[b]), 1)
    if code == COMPACT:
        v33 = float(min((255 * np.int64(turn[b])) // mt, 255))
        v34 = float(min(count - 1, 2))
    else:
        v33 = turn[b] / mt
        v34 = min(count - 1, 2) / 2.0
    _write_planes(tiles[b], pat[b], bb[b], act[b], me, to_move, v33, v34, o)


@njit(cache=True, inline="always")
def _observe_one(S, seats, out, b):
    """float32 planes of game ``b`` from ``seats[b]``'s point of view into row ``out[b]``."""
    _planes(S, b, np.int64(seats[b]), -1, out[b], FLOAT)


guard_cache(globals())  # recompile if a sibling kernel file changed (envs/core/cache.py)
