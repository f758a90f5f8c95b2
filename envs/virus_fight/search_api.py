"""Single-game functions of Virus Fight for the array tree search (``agents/search``).

Why apart from the batch API: a search walks one game at a time inside compiled code
(copy a position into a scratch slot, apply an action, list the legal actions, play a
random game to its end), so it needs ``@njit`` functions over *one row* of the kernel's
arrays. ``S`` is ``VFState.arrays()``; row ``i`` is one game ("slot"). ``G`` is
``(seg, cfg, row)``: the static geometry of the facade and a scratch mask row. Rewards
per seat follow the batch facade (a seat gets its final reward in the step that ends its
game or eliminates it, VF-16/VF-17). The hidden setup (VF-11) is the caller's business:
search from ``determinize``-d roots.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from envs.core.cache import guard_cache
from envs.core.loops import copy_rows
from envs.virus_fight.constants import PH_SETUP
from envs.virus_fight.kernel import (
    I_CUR,
    I_HLEN,
    I_PHASE,
    PH_OVER,
    _apply,
    _fill_mask,
    _random_legal,
)
from envs.virus_fight.rules import _adjudicate

#: ``az``'s playouts stop after this many decisions and are scored by VF-17's adjudication
#: (``agents.az.game_rollout_steps``). Why: the rule that ends stalled games ranks the
#: players by their supplies, and random moves to the end spend supply and rarely reach a
#: repetition, so a long playout's result says little about who is ahead on that rule;
#: measured in docs/results.md (version 0.5.12: 4 against 10, 30, 60 and to the end).
AZ_ROLLOUT_STEPS = 4
#: ``az``'s root drops the actions after which the opponent can force its loss within
#: this many decisions (``agents.az.game_safety_depth``, ``SearchConfig.safety_depth``).
#: Why: a turn is two decisions (VF-18) and a recomputed round order (VF-13) can give a
#: seat two turns in a row, so an elimination (VF-15) is often forced four or five
#: decisions deep on one narrow line that a prior-guided search misses; 6 covers the
#: opponent's double turn and the seat's next decision (docs/results.md, version 0.5.13).
AZ_SAFETY_DEPTH = 6


def static(game: Any) -> tuple[np.ndarray, ...]:
    """The static argument ``G`` of the functions below for this facade."""
    return (game.seg, game.cfg, np.zeros(game.num_actions, np.bool_))


def arrays(state: Any) -> tuple[np.ndarray, ...]:
    """The kernel arrays of a batch state, in the order the functions take them."""
    return state.arrays()


@njit(cache=True, error_model="numpy")
def copy_slot(G, S, src, dst):
    """Copy game ``src`` into row ``dst`` (the VF-17 history only as far as it is used)."""
    info, hist = S[4], S[6]
    copy_rows(S[:6], src, dst)  # bb, cells, marker, supply, info, rng
    for k in range(info[src, I_HLEN]):
        hist[dst, k] = hist[src, k]


@njit(cache=True, error_model="numpy")
def apply_action(G, S, i, action, rew):
    """Play legal ``action`` in game ``i``; ``rew[i]`` gets the step's rewards per seat."""
    seg, cfg = G[0], G[1]
    bb, cells, marker, supply, info, rng, hist = S
    for s in range(rew.shape[1]):
        rew[i, s] = 0.0
    if info[i, I_PHASE] != PH_OVER:
        _apply(i, action, bb, cells, marker, supply, info, rng, hist, seg, cfg, rew)


@njit(cache=True, error_model="numpy")
def to_play(G, S, i):
    """Seat to act in game ``i``; -1 once it is over."""
    info = S[4]
    if info[i, I_PHASE] == PH_OVER:
        return -1
    return np.int64(info[i, I_CUR])


@njit(cache=True, error_model="numpy")
def legal_actions(G, S, i, out):
    """Write the legal actions of game ``i`` (ascending) into ``out``; returns how many."""
    seg, cfg, row = G
    bb, cells, marker, supply, info, rng, hist = S
    _fill_mask(i, bb, cells, marker, supply, info, seg, cfg, row)
    k = 0
    for a in range(row.shape[0]):
        if row[a]:
            out[k] = a
            k += 1
    return k


@njit(cache=True, error_model="numpy")
def wins_now(G, S, i, scratch, action, rew):
    """Whether the seat to act in game ``i`` wins at once by ``action`` (row ``scratch`` is
    overwritten, ``i`` is kept): the game ends in this step with a positive reward for it."""
    mover = to_play(G, S, i)
    copy_slot(G, S, i, scratch)
    apply_action(G, S, scratch, action, rew)
    return to_play(G, S, scratch) < 0 and rew[scratch, mover] > 0


@njit(cache=True, error_model="numpy")
def playout(G, S, i, key, max_steps, ret, rew):
    """Uniformly random legal moves from game ``i`` (consumed) to the end, from ``key``.

    ``ret`` gets each seat's summed rewards; a game ``max_steps`` cut off is adjudicated
    there as at the round limit (VF-17: the supplies rank the players still in), so a
    short playout still reads who is ahead on the rule that ends stalled games. Returns
    the advanced key.
    """
    seg, cfg = G[0], G[1]
    bb, cells, marker, supply, info, rng, hist = S
    P = cfg[2]
    for s in range(P):
        ret[s] = 0.0
    rng[i] = key
    steps = 0
    while info[i, I_PHASE] != PH_OVER and steps < max_steps:
        a = _random_legal(i, bb, cells, marker, supply, info, rng, seg, cfg)
        for s in range(P):
            rew[i, s] = 0.0
        _apply(i, a, bb, cells, marker, supply, info, rng, hist, seg, cfg, rew)
        for s in range(P):
            ret[s] += rew[i, s]
        steps += 1
    if info[i, I_PHASE] != PH_OVER and info[i, I_PHASE] != PH_SETUP:  # cut off: VF-17
        for s in range(P):
            rew[i, s] = 0.0
        _adjudicate(i, supply, info, cfg, rew)
        for s in range(P):
            ret[s] += rew[i, s]
    return rng[i]


# recompile if a kernel file of the folder or envs/core/loops.py changed (envs/core/cache.py)
guard_cache(globals())
