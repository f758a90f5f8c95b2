"""Proteus one-move lookahead features: what each legal action leads to, from the kernel.

A learning agent's optional extra input (``ProteusLookaheadBatch``, ``arena train proteus
--obs lookahead``). For the player to move, every legal action ``a`` gets four flags,
computed by playing it (and the opponent's replies) on the rule kernel's own transition:

====  ==================================================================================
0     ``a`` wins at once: after it only the mover meets the active GOLD goal (PR-16)
1     ``a`` loses at once: after it only the opponent meets the goal (PR-16 checks both
      players, so a move or exchange can hand the win over)
2     ``a`` ends the game in a draw (PR-17: third occurrence or the turn limit)
3     ``a`` leaves the opponent a winning reply (some legal reply after which only the
      opponent meets the goal); set only when flags 0-2 are not
====  ==================================================================================

These are facts of the rules one and two plies ahead, not advice: how much each matters
is for the learner to find (the action-feature policy's weights on them start at zero).
Rows of a seat that is not to move, and of finished games, are all zero. Cost: about one
kernel transition per (action, reply) pair, a few tens of microseconds per position.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.core.cache import guard_cache
from envs.proteus import kernel as K
from envs.proteus.batch import ProteusBatch
from envs.proteus.constants import NUM_ACTIONS

#: Flags per action (see the module docstring).
N_FLAGS = 4
WIN_NOW, LOSE_NOW, DRAW_NOW, OPPONENT_WINS_NEXT = range(N_FLAGS)


@njit(cache=True)
def _lookahead_one(S, b, seat, out, m1, m2, c_tsq, c_pcs, c_bb, c_act, c_pl, c_st):
    """Flags of game ``b`` for ``seat`` into ``out`` (N_FLAGS, NUM_ACTIONS); zero if not to move."""
    tiles, tsq, pieces, pat, bb, act, player, turn, max_turns, hist, hist_len, status, rng = S
    for f in range(N_FLAGS):
        for a in range(NUM_ACTIONS):
            out[f, a] = 0.0
    if status[b] != 0 or np.int64(player[b]) != seat:
        return
    K._fill_mask(tiles, tsq, pieces, bb, act, player, status, b, m1)
    p = np.int64(player[b])
    q = 1 - p
    n_hist = hist_len[b]
    for a in range(NUM_ACTIONS):
        if not m1[a]:
            continue
        tw, ts, pcs, pw, w, ac, placement = K._transition(
            np.int64(a), p, tiles[b], tsq[b], pieces[b], pat[b], bb[b], act[b]
        )
        winner = K._goal_winner(tw, pcs, w, ac)  # PR-16, both players
        seen = 0  # PR-17: earlier occurrences (placements clear the history)
        if not placement:
            seen = K._count_key(hist, b, n_hist, K._key_w(tw, pcs, w, ac, q))
        ending = K._turn_status(winner, placement, seen + 1, turn[b] + 1, max_turns[b])
        if ending == 1 + p:
            out[WIN_NOW, a] = 1.0
            continue
        if ending == 1 + q:
            out[LOSE_NOW, a] = 1.0
            continue
        if ending != 0:  # PR-17 third occurrence or turn limit
            out[DRAW_NOW, a] = 1.0
            continue
        c_tsq[0] = ts
        c_pcs[0] = pcs
        c_bb[0] = w
        c_act[0] = ac
        c_pl[0] = q
        c_st[0] = 0
        K._fill_mask(c_tsq, c_tsq, c_pcs, c_bb, c_act, c_pl, c_st, 0, m2)
        for r in range(NUM_ACTIONS):
            if not m2[r]:
                continue
            tw2, ts2, pcs2, pw2, w2, ac2, _ = K._transition(np.int64(r), q, tw, ts, pcs, pw, w, ac)
            if K._goal_winner(tw2, pcs2, w2, ac2) == q:
                out[OPPONENT_WINS_NEXT, a] = 1.0
                break


@njit(cache=True)
def _lookahead(S, seats, out):
    n = S[0].shape[0]
    m1 = np.zeros(NUM_ACTIONS, np.bool_)
    m2 = np.zeros(NUM_ACTIONS, np.bool_)
    c_tsq = np.zeros(1, np.int64)
    c_pcs = np.zeros(1, np.int64)
    c_bb = np.zeros(1, np.int64)
    c_act = np.zeros(1, np.int64)
    c_pl = np.zeros(1, np.int8)
    c_st = np.zeros(1, np.int8)
    for b in range(n):
        _lookahead_one(S, b, seats[b], out[b], m1, m2, c_tsq, c_pcs, c_bb, c_act, c_pl, c_st)


def lookahead(st: K.KernelState, seats: np.ndarray) -> np.ndarray:
    """(B, N_FLAGS, NUM_ACTIONS) float32 flags of each game for ``seats[b]`` (module docstring)."""
    seats = np.asarray(seats, np.int64).reshape(-1)
    if len(seats) != st.batch_size:
        raise ValueError(f"seats has {len(seats)} entries for a batch of {st.batch_size} games")
    out = np.zeros((st.batch_size, N_FLAGS, NUM_ACTIONS), np.float32)
    _lookahead(st.arrays(), seats, out)
    return out


class ProteusLookaheadBatch(ProteusBatch):
    """The Proteus batch facade with flat observations: the 35 planes, then the flags.

    ``observe`` returns (B, 315 + N_FLAGS * NUM_ACTIONS) float32: the usual (3, 3, 35)
    planes flattened, then :func:`lookahead` flattened (flag-major). Everything else is
    ``ProteusBatch``'s, so states move freely between the two facades.
    """

    obs_shape = (3 * 3 * K.N_PLANES + N_FLAGS * NUM_ACTIONS,)
    observation = "lookahead"
    #: flags per action of :meth:`action_flags`
    n_flags = N_FLAGS

    # The fused learner step writes the plain compact planes, not these observations:
    # consumers (training/vec_env.py) take the observe + legal_mask path for this facade.
    learner_buffers = None  # type: ignore[assignment]
    learner_step = None  # type: ignore[assignment]
    learner_view = None  # type: ignore[assignment]

    def action_flags(self, state: K.KernelState, seats: np.ndarray) -> np.ndarray:
        """(B, N_FLAGS, NUM_ACTIONS) float32 :func:`lookahead` flags: the second input of an
        AlphaZero network trained with ``--obs lookahead`` (``agents.az``)."""
        return lookahead(state, seats)

    def observe(self, state: K.KernelState, seats: np.ndarray) -> np.ndarray:
        planes = K.observe(state, seats).reshape(state.batch_size, -1)
        flags = lookahead(state, seats).reshape(state.batch_size, -1)
        return np.concatenate([planes, flags], axis=1)


guard_cache(globals())  # recompile if a sibling kernel file changed (envs/core/cache.py)
