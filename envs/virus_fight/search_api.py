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

from envs.core.cache import guard_cache
from envs.core.loops import copy_rows
from envs.virus_fight.constants import PH_SETUP, jit
from envs.virus_fight.kernel import (
    I_ALIVE,
    I_CUR,
    I_HLEN,
    I_PHASE,
    PH_OVER,
    _apply,
    _fill_mask,
    _random_legal,
)
from envs.virus_fight.rules import _supply_key

#: ``az``'s playouts stop after this many decisions and are scored by the supply margin
#: (``agents.az.game_rollout_steps``; :func:`playout`). Why: the rule that ends stalled
#: games ranks the players by their supplies (VF-17), and random moves to the end spend
#: supply and rarely reach a repetition, so a long playout's result says little about who
#: is ahead on that rule; measured in docs/results.md (version 0.5.12: 4 against 10, 30,
#: 60 and to the end).
AZ_ROLLOUT_STEPS = 4
#: a cut-off playout scores ``tanh((own pieces - most pieces of another seat still in) /
#: MARGIN_SCALE)`` in supply (:func:`playout`). Why soft: VF-17's own +1 / -1 reads every
#: cut-off of a position with any lead as a certain win, so a search cannot tell a move
#: that keeps a lead of nine from one that lets it shrink to one, and the lead erodes to
#: an adjudication lost (docs/results.md, version 0.5.14: the losses to
#: ``openspiel-mcts:1000`` traced).
MARGIN_SCALE = 3.0
#: ``az``'s root drops the actions after which the opponent can force its loss within
#: this many decisions (``agents.az.game_safety_depth``, ``SearchConfig.safety_depth``).
#: Why: a turn is two decisions (VF-18) and a recomputed round order (VF-13) can give a
#: seat two turns in a row, so an elimination (VF-15) is often forced four or five
#: decisions deep on one narrow line that a prior-guided search misses; 6 covers the
#: opponent's double turn and the seat's next decision (docs/results.md, version 0.5.13).
AZ_SAFETY_DEPTH = 6
#: the deep root filter runs again at 8 and 10 decisions over the actions the shallower
#: pass kept (``agents.az.game_safety_deepening``, ``SearchConfig.safety_max_depth``), each
#: pass walking at most ``AZ_SAFETY_NODES`` applied actions per root action. Why: the
#: second seat's losses to ``openspiel-mcts:1000`` were eliminations (VF-15) forced deeper
#: than 6 decisions while ``az`` led on supply; on the series' own 40 games that seat won
#: 33 instead of 27 (docs/results.md, versions 0.5.16 and 0.5.17).
AZ_SAFETY_MAX_DEPTH = 10
AZ_SAFETY_NODES = 40000


def static(game: Any) -> tuple[np.ndarray, ...]:
    """The static argument ``G`` of the functions below for this facade."""
    return (game.seg, game.cfg, np.zeros(game.num_actions, np.bool_))


def arrays(state: Any) -> tuple[np.ndarray, ...]:
    """The kernel arrays of a batch state, in the order the functions take them."""
    return state.arrays()


@jit  # no reference counts (constants.jit): a search calls these once per step
def copy_slot(G, S, src, dst):
    """Copy game ``src`` into row ``dst`` (the VF-17 history only as far as it is used)."""
    info, hist = S[4], S[6]
    copy_rows(S[:6], src, dst)  # bb, cells, marker, supply, info, rng
    for k in range(info[src, I_HLEN]):
        for w in range(hist.shape[2]):
            hist[dst, k, w] = hist[src, k, w]


@jit
def apply_action(G, S, i, action, rew):
    """Play legal ``action`` in game ``i``; ``rew[i]`` gets the step's rewards per seat."""
    seg, cfg = G[0], G[1]
    bb, cells, marker, supply, info, rng, hist = S
    for s in range(rew.shape[1]):
        rew[i, s] = 0.0
    if info[i, I_PHASE] != PH_OVER:
        _apply(i, action, bb, cells, marker, supply, info, rng, hist, seg, cfg, rew)


@jit
def to_play(G, S, i):
    """Seat to act in game ``i``; -1 once it is over."""
    info = S[4]
    if info[i, I_PHASE] == PH_OVER:
        return -1
    return np.int64(info[i, I_CUR])


@jit
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


@jit
def wins_now(G, S, i, scratch, action, rew):
    """Whether the seat to act in game ``i`` wins at once by ``action`` (row ``scratch`` is
    overwritten, ``i`` is kept): the game ends in this step with a positive reward for it."""
    mover = to_play(G, S, i)
    copy_slot(G, S, i, scratch)
    apply_action(G, S, scratch, action, rew)
    return to_play(G, S, scratch) < 0 and rew[scratch, mover] > 0


@jit
def playout(G, S, i, key, max_steps, ret, rew):
    """Uniformly random legal moves from game ``i`` (consumed) to the end, from ``key``.

    ``ret`` gets each seat's summed rewards; a game ``max_steps`` cut off after the setup
    adds, for each seat still in, its supply margin on the rule that ends stalled games
    (VF-17 ranks the players still in by the pieces in supply): ``tanh((own pieces - most
    pieces of another seat still in) / MARGIN_SCALE)``, a soft adjudication in (-1, 1)
    that grows with the lead (:data:`MARGIN_SCALE`). A game cut off in the setup adds 0.
    Returns the advanced key.
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
    if info[i, I_PHASE] != PH_OVER and info[i, I_PHASE] != PH_SETUP:  # cut off: margin
        _add_supply_margins(i, supply, info, P, ret)
    return rng[i]


@jit
def _add_supply_margins(i, supply, info, P, ret):
    """Add each live seat's soft VF-17 score of game ``i`` to ``ret`` (:func:`playout`).

    One pass over the seats keeps the two largest piece counts (VF-17's first key, as
    ``rules._supply_key`` ranks them): the most pieces of another seat is the first of
    them for every seat but the one holding it, and the second for that one.
    """
    alive = info[i, I_ALIVE]
    top, top_seat, second = -1, -1, -1
    for s in range(P):
        if (alive >> s) & 1:
            n = _supply_key(i, s, supply) // 1000
            if n > top:
                top, top_seat, second = n, s, top
            elif n > second:
                second = n
    for s in range(P):
        if (alive >> s) & 1:
            other = second if s == top_seat else top
            if other >= 0:
                ret[s] += np.tanh((_supply_key(i, s, supply) // 1000 - other) / MARGIN_SCALE)


# recompile if a kernel file of the folder or envs/core/loops.py changed (envs/core/cache.py)
guard_cache(globals())
