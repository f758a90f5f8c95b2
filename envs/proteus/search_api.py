"""Single-game functions of Proteus for the array tree search (``agents/search``).

Why apart from the batch API: a search walks one game at a time inside compiled code
(copy a position into a scratch slot, apply an action, list the legal actions, play a
random game to its end), so it needs ``@njit`` functions over *one row* of the kernel's
arrays rather than loops over the whole batch. ``S`` is ``KernelState.arrays()``; row
``i`` is one game ("slot"). ``G`` carries static data (none for Proteus). Rewards follow
the batch facade: +1 / -1 to the players when a game is won (PR-16), 0 for the PR-17 draws.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from envs.core.cache import guard_cache
from envs.core.loops import copy_rows
from envs.proteus.constants import A_PASS
from envs.proteus.kernel import (
    _apply_one,
    _goal_winner,
    _legal_set,
    _play,
    _rewards_of,
    _sample,
    _transition,
)
from envs.proteus.legal import _count, _nth_action

#: the compile options of the functions below: no reference counts (as the kernel's
#: ``FAST`` loops), so they must not allocate; a search calls them once per step
search_jit = njit(cache=True, _nrt=False)  # type: ignore[call-overload]


def static(game: Any) -> tuple[np.ndarray, ...]:
    """The static argument ``G`` of the functions below (nothing for Proteus)."""
    return (np.zeros(1, np.int64),)


def arrays(state: Any) -> tuple[np.ndarray, ...]:
    """The kernel arrays of a batch state, in the order the functions take them."""
    return state.arrays()


@search_jit
def copy_slot(G, S, src, dst):
    """Copy game ``src`` into row ``dst`` (the PR-17 history only as far as it is used)."""
    hist, hist_len = S[9], S[10]
    copy_rows(S[:9], src, dst)  # tiles ... max_turns
    copy_rows(S[10:], src, dst)  # hist_len, status, rng
    for k in range(hist_len[src]):
        hist[dst, k] = hist[src, k]


@search_jit
def apply_action(G, S, i, action, rew):
    """Play legal ``action`` in game ``i``; ``rew[i]`` gets the step's rewards per seat."""
    status = S[11]
    for s in range(rew.shape[1]):
        rew[i, s] = 0.0
    if status[i] != 0:
        return
    _apply_one(S, i, action)
    if status[i] != 0:
        _rewards_of(status, i, rew)


@search_jit
def to_play(G, S, i):
    """Seat to move in game ``i``; -1 once it is over."""
    if S[11][i] != 0:
        return -1
    return np.int64(S[6][i])


@search_jit
def legal_actions(G, S, i, out):
    """Write the legal actions of game ``i`` into ``out``; returns how many (a lone pass: 1)."""
    tsq, pieces, bb, act, player = S[1], S[2], S[4], S[5], S[6]
    p = np.int64(player[i])
    ts = tsq[i]
    pcs = pieces[i]
    L = _legal_set(ts, pcs, bb[i], act[i], p)
    k = _count(L)
    if k == 0:
        out[0] = A_PASS  # PR-11, PR-14
        return 1
    for r in range(k):
        out[r] = _nth_action(L, r, p, ts, pcs)
    return k


@search_jit
def wins_now(G, S, i, scratch, action, rew):
    """Whether the mover of game ``i`` wins at once by ``action`` (PR-16); ``i`` is kept.

    Only the goal decides it (a win stands even where PR-17 would also end the game), so
    the words are transformed in registers: no copy, no history (the root filter's hot
    loop). ``scratch`` and ``rew`` are unused here.
    """
    tiles, tsq, pieces, pat, bb, act, player = S[0], S[1], S[2], S[3], S[4], S[5], S[6]
    p = np.int64(player[i])
    tw, ts, pcs, pw, w, a, placement = _transition(
        action, p, tiles[i], tsq[i], pieces[i], pat[i], bb[i], act[i]
    )
    return _goal_winner(tw, pcs, w, a) == p


@search_jit
def playout(G, S, i, key, max_steps, ret, rew):
    """Uniformly random legal moves from game ``i`` (consumed) to the end, from ``key``.

    ``ret`` gets each seat's return (0 for both if ``max_steps`` ran out first); returns
    the advanced key. The words stay in registers, as in the fused self-play kernel.
    """
    tiles, tsq, pieces, pat, bb, act, player, turn, max_turns, hist, hist_len, status, rng = S
    tw = tiles[i]
    ts = tsq[i]
    pcs = pieces[i]
    pw = pat[i]
    w = bb[i]
    a = act[i]
    p = np.int64(player[i])
    t = np.int64(turn[i])
    mt = np.int64(max_turns[i])
    n = np.int64(hist_len[i])
    st = np.int64(status[i])
    steps = 0
    while st == 0 and steps < max_steps:
        action, key = _sample(ts, pcs, w, a, p, key)
        tw, ts, pcs, pw, w, a, p, t, n, st = _play(
            hist, i, action, p, tw, ts, pcs, pw, w, a, t, n, mt
        )
        steps += 1
    status[i] = st
    ret[0] = 0.0
    ret[1] = 0.0
    if st == 1:
        ret[0] = 1.0
        ret[1] = -1.0
    elif st == 2:
        ret[0] = -1.0
        ret[1] = 1.0
    return key


# recompile if a kernel file of the folder or envs/core/loops.py changed (envs/core/cache.py)
guard_cache(globals())
