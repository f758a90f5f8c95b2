"""Proteus transitions: one action applied to one game's words, and the end of a turn.

Why apart from legality: the transition (PR-6..PR-8, PR-12, PR-13), the goal check
(PR-15, PR-16) and the PR-17 history are what every caller that *applies* an action
shares (the batch step, the fused self-play, the lookahead flags); ``legal.py`` says
which actions exist. :func:`_play` is the whole turn on words held in registers, so
:func:`_apply_one` (arrays) and the fused self-play (registers) run the same code.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.core.cache import guard_cache
from envs.proteus.constants import A_MOVE, A_PASS, A_PIECE, A_SWAP
from envs.proteus.tables import _PAIR_A, _PAIR_B, EMPTY_PIECES, EMPTY_TSQ, HAND_ALL, IS_LINE


@njit(cache=True)
def _activated(a, t):
    """PR-6: tile ``t`` face up, the previously active tile of its colour face down."""
    c = t // 3
    return (a & ~(3 << (2 * c))) | ((t - 3 * c + 1) << (2 * c))


@njit(cache=True)
def _is_new_active(a, t, pc):
    """A piece ``pc`` on tile ``t`` is a match (PR-5) on a face-down tile (PR-6)."""
    c = t // 3
    s = t - 3 * c
    return pc % 3 == s and ((a >> (2 * c)) & 3) != s + 1


@njit(cache=True)
def _goal_winner(tiles, pieces, bb, a):
    """PR-15/PR-16: the only player meeting the face-up GOLD goal, else -1."""
    g = ((a >> 4) & 3) - 1
    if g < 0:
        return -1
    meets0 = False
    meets1 = False
    for p in range(2):
        x = (pieces >> (12 * p)) & 0xFFF
        s0 = x & 15
        s1 = (x >> 4) & 15
        s2 = x >> 8
        if s0 == 15 or s1 == 15 or s2 == 15:
            continue  # the goal needs all three pieces on the board (PR-15)
        if g == 0:  # THREE-IN-LINE
            m = IS_LINE[(bb >> (9 + 9 * p)) & 511]
        else:
            t0 = ((tiles >> (4 * s0)) & 15) - 1
            t1 = ((tiles >> (4 * s1)) & 15) - 1
            t2 = ((tiles >> (4 * s2)) & 15) - 1
            if g == 1:  # COLOUR: three tiles of one colour
                m = t0 // 3 == t1 // 3 and t1 // 3 == t2 // 3
            else:  # SHAPE: three tiles of one shape
                m = t0 % 3 == t1 % 3 and t1 % 3 == t2 % 3
        if p == 0:
            meets0 = m
        else:
            meets1 = m
    if meets0 and not meets1:
        return 0
    if meets1 and not meets0:
        return 1
    return -1  # nobody, or both: play goes on


@njit(cache=True)
def _key(tiles, pieces, bb, act, player, b):
    """The exact 64-bit packing of game ``b``'s position (module docstring)."""
    w = bb[b]
    if (w & 511) == 511 and ((w >> 45) & 63) == 0:
        k = np.uint64(tiles[b] & 0xFFFFFFFF) | (np.uint64(pieces[b]) << np.uint64(32))
        k |= np.uint64(act[b]) << np.uint64(56)
        k |= np.uint64(player[b]) << np.uint64(62)
        return k | (np.uint64(1) << np.uint64(63))
    k = np.uint64(tiles[b]) | (np.uint64(pieces[b]) << np.uint64(36))
    return k | (np.uint64(player[b]) << np.uint64(60))


@njit(cache=True, inline="always")
def _count_key(hist, b, n, key):
    cnt = 0
    for i in range(n):
        cnt += hist[b, i] == key
    return cnt


@njit(cache=True)
def _transition(action, p, tw, ts, pcs, pw, w, a):
    """Apply legal ``action`` of player ``p`` to one game's words (PR-6..PR-8, PR-12, PR-13).

    Returns the new (tiles, tsq, pieces, pat, bb, act) words and whether it was a placement.
    """
    placement = False
    if action < A_PIECE:  # PR-8 tile face down on an empty square
        t = action // 9
        sq = action - 9 * t
        tw |= (t + 1) << (4 * sq)
        ts = (ts & ~(15 << (4 * t))) | (sq << (4 * t))
        w |= (1 << sq) | (1 << (36 + t))
        placement = True
    elif action < A_MOVE:  # PR-8 own piece on a vacant tile
        s = (action - A_PIECE) // 9
        sq = action - A_PIECE - 9 * s
        pc = 3 * p + s
        pcs = (pcs & ~(15 << (4 * pc))) | (sq << (4 * pc))
        pw |= (pc + 1) << (4 * sq)
        t = ((tw >> (4 * sq)) & 15) - 1
        w = (w | (1 << (9 + 9 * p + sq)) | (1 << (27 + t))) & ~(1 << (45 + pc))
        if _is_new_active(a, t, pc):  # PR-6
            a = _activated(a, t)
        placement = True
    elif action < A_SWAP:  # PR-12 move to a vacant tile
        src = (action - A_MOVE) // 9
        dst = action - A_MOVE - 9 * src
        pc = ((pw >> (4 * src)) & 15) - 1
        pw = (pw & ~(15 << (4 * src))) | ((pc + 1) << (4 * dst))
        pcs = (pcs & ~(15 << (4 * pc))) | (dst << (4 * pc))
        t_src = ((tw >> (4 * src)) & 15) - 1
        td = ((tw >> (4 * dst)) & 15) - 1
        w = (w & ~((1 << (9 + 9 * p + src)) | (1 << (27 + t_src)))) | (1 << (9 + 9 * p + dst))
        w |= 1 << (27 + td)
        if _is_new_active(a, td, pc):  # PR-13 -> PR-6
            a = _activated(a, td)
    elif action < A_PASS:  # PR-12 exchange: tiles swap, pieces stay, face-up state travels
        i = _PAIR_A[action - A_SWAP]
        j = _PAIR_B[action - A_SWAP]
        ti = ((tw >> (4 * i)) & 15) - 1
        tj = ((tw >> (4 * j)) & 15) - 1
        tw = (tw & ~((15 << (4 * i)) | (15 << (4 * j)))) | ((tj + 1) << (4 * i))
        tw |= (ti + 1) << (4 * j)
        x = ts & ~((15 << (4 * ti)) | (15 << (4 * tj)))
        ts = x | (j << (4 * ti)) | (i << (4 * tj))
        pi = ((pw >> (4 * i)) & 15) - 1
        pj = ((pw >> (4 * j)) & 15) - 1
        w &= ~((1 << (27 + ti)) | (1 << (27 + tj)))
        if pi >= 0:
            w |= 1 << (27 + tj)
        if pj >= 0:
            w |= 1 << (27 + ti)
        # PR-13 -> PR-6/PR-7: new matches that land on face-down tiles
        ci = pi >= 0 and _is_new_active(a, tj, pi)
        cj = pj >= 0 and _is_new_active(a, ti, pj)
        if ci and cj and ti // 3 == tj // 3:
            pass  # PR-7: two new matches of one colour cancel
        else:
            if ci:
                a = _activated(a, tj)
            if cj:
                a = _activated(a, ti)
    # else: PR-11 / PR-14 pass
    return tw, ts, pcs, pw, w, a, placement


@njit(cache=True)
def _key_w(tw, pcs, w, a, p):
    """The exact 64-bit packing of a position (module docstring)."""
    if (w & 511) == 511 and ((w >> 45) & 63) == 0:
        k = np.uint64(tw & 0xFFFFFFFF) | (np.uint64(pcs) << np.uint64(32))
        k |= np.uint64(a) << np.uint64(56)
        k |= np.uint64(p) << np.uint64(62)
        return k | (np.uint64(1) << np.uint64(63))
    k = np.uint64(tw) | (np.uint64(pcs) << np.uint64(36))
    return k | (np.uint64(p) << np.uint64(60))


@njit(cache=True)
def _turn_status(winner, placement, occurrences, t_now, max_t):
    """PR-16/PR-17 status after a turn: 0 ongoing, 1 + winner, 3 repetition, 4 turn limit.

    ``occurrences``: how often the new position has now occurred (this turn's included).
    """
    if winner >= 0:
        return 1 + winner  # a win stands even if PR-17 also ends the game
    if not placement and occurrences >= 3:
        return 3  # PR-17 third occurrence
    if t_now >= max_t:
        return 4  # PR-17 turn limit (checked after repetition)
    return 0


@njit(cache=True, inline="always")
def _end_turn(hist, b, n, key, placement, winner, t_now, max_t):
    """Record the new position in the PR-17 history: (history length, status, count).

    ``count`` is how often the history's last entry occurs in it: the observation's PR-17
    plane, handed on so that the learner step scans the history once, not twice.
    """
    if placement:
        n = 0  # after a placement earlier positions cannot recur
    if n < hist.shape[1]:
        hist[b, n] = key
        n += 1
        occurrences = 1 if placement else _count_key(hist, b, n, key)
        count = occurrences
    else:  # never with a row of max_turns + 1 (``state._alloc`` refuses a shorter one)
        occurrences = _count_key(hist, b, n, key)
        count = _count_key(hist, b, n, hist[b, n - 1])
    return n, _turn_status(winner, placement, occurrences, t_now, max_t), count


@njit(cache=True, inline="always")
def _initial(hist, b):
    """PR-8: empty board, everything in the pool / in hand, BLACK to move (PR-4).

    Returns the words (tiles, tsq, pieces, pat, bb, act, player, turn, status, hist_len)
    and writes the first PR-17 history entry (the empty board) of game ``b``.
    """
    hist[b, 0] = _key_w(0, EMPTY_PIECES, HAND_ALL, 0, 0)
    return 0, EMPTY_TSQ, EMPTY_PIECES, 0, HAND_ALL, 0, 0, 0, 0, 1


@njit(cache=True, inline="always")
def _load(S, b):
    """Game ``b``'s words: (tiles, tsq, pieces, pat, bb, act, player, turn, max_turns,
    hist_len, status), the integers as int64 (the registers every transition works on)."""
    tiles, tsq, pieces, pat, bb, act, player, turn, max_turns, hist, hist_len, status, rng = S
    return (
        tiles[b], tsq[b], pieces[b], pat[b], bb[b], act[b], np.int64(player[b]),
        np.int64(turn[b]), np.int64(max_turns[b]), np.int64(hist_len[b]), np.int64(status[b]),
    )  # fmt: skip


@njit(cache=True, inline="always")
def _store(S, b, tw, ts, pcs, pw, w, a, p, t, n, st):
    """Write game ``b``'s words back (max_turns and the RNG key are not written).

    The arrays are written as ``S[k]``, never unpacked from ``S``: inlined into a
    ``prange`` loop, Numba 0.68 drops writes to arrays taken from a tuple by unpacking
    (``tests/proteus/test_proteus_serial_parallel.py`` guards every batch operation).
    """
    S[0][b] = tw  # tiles
    S[1][b] = ts  # tsq
    S[2][b] = pcs  # pieces
    S[3][b] = pw  # pat
    S[4][b] = w  # bb
    S[5][b] = a  # act
    S[6][b] = p  # player
    S[7][b] = t  # turn
    S[10][b] = n  # hist_len
    S[11][b] = st  # status


@njit(cache=True, inline="always")
def _reset_game(S, b):
    """Start game ``b`` anew (:func:`_initial`); its RNG key and max_turns are kept."""
    tw, ts, pcs, pw, w, a, p, t, st, n = _initial(S[9], b)
    _store(S, b, tw, ts, pcs, pw, w, a, p, t, n, st)


@njit(cache=True, inline="always")
def _turn(hist, b, action, p, tw, ts, pcs, pw, w, a, t, n, mt):
    """One whole turn of player ``p`` on game ``b``'s words (PR-13, PR-16, PR-17).

    Returns the new (tiles, tsq, pieces, pat, bb, act, player, turn, hist_len, status)
    and the PR-17 count of the new position (:func:`_end_turn`).
    """
    tw, ts, pcs, pw, w, a, placement = _transition(action, p, tw, ts, pcs, pw, w, a)
    q = 1 - p
    t += 1
    winner = _goal_winner(tw, pcs, w, a)  # PR-16, both players
    n, st, count = _end_turn(hist, b, n, _key_w(tw, pcs, w, a, q), placement, winner, t, mt)
    return tw, ts, pcs, pw, w, a, q, t, n, st, count


@njit(cache=True, inline="always")
def _play(hist, b, action, p, tw, ts, pcs, pw, w, a, t, n, mt):
    """:func:`_turn` without the count (the self-play and search paths)."""
    tw, ts, pcs, pw, w, a, q, t, n, st, _ = _turn(
        hist, b, action, p, tw, ts, pcs, pw, w, a, t, n, mt
    )
    return tw, ts, pcs, pw, w, a, q, t, n, st


@njit(cache=True, inline="always")
def _apply_one(S, b, action):
    """Apply legal ``action`` to game ``b`` and finish the turn (:func:`_play`)."""
    tw, ts, pcs, pw, w, a, p, t, mt, n, st = _load(S, b)
    tw, ts, pcs, pw, w, a, q, t, n, st = _play(S[9], b, action, p, tw, ts, pcs, pw, w, a, t, n, mt)
    _store(S, b, tw, ts, pcs, pw, w, a, q, t, n, st)


@njit(cache=True, inline="always")
def _outcome(st):
    """(BLACK's, WHITE's) final reward for status ``st`` (PR-16 win +1 / -1, draws 0)."""
    if st == 1:
        return 1.0, -1.0
    if st == 2:
        return -1.0, 1.0
    return 0.0, 0.0


@njit(cache=True, inline="always")
def _rewards_of(status, b, rewards):
    rewards[b, 0], rewards[b, 1] = _outcome(status[b])


guard_cache(globals())  # recompile if a sibling kernel file changed (envs/core/cache.py)
