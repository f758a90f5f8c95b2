"""Virus Fight transitions: effects, turn order, rounds, eliminations and the end (VF-10..VF-17).

Why apart from legality: :func:`_apply` is what every caller that *applies* an action
shares (the batch step, the fused self-play, the learner step, the AEC env); ``legal.py``
says which actions exist. The rules are ``docs/virus_fight.md``.
"""

from __future__ import annotations

import numpy as np

from envs.core.cache import guard_cache
from envs.virus_fight.board import _bit, _flood, _markerbits, _place, _rand, _remove
from envs.virus_fight.constants import (
    ACTIVE,
    HW,
    I_ALIVE,
    I_CUR,
    I_FIRST,
    I_HLEN,
    I_K,
    I_NSET,
    I_PHASE,
    I_REP,
    I_RES,
    I_RHI,
    I_RLO,
    I_ROUND,
    JUMP,
    NPIECE,
    OCC,
    PH_EFFECT,
    PH_OVER,
    PH_SETUP,
    PH_STEP,
    U0,
    U1,
    action_offsets,
    jit,
    jit_inline,
)
from envs.virus_fight.legal import _jump_set, _step_targets
from envs.virus_fight.params import C_CELLS, C_MAX_ROUNDS, C_N, C_PLAYERS, C_SEGLEN


@jit
def _record(g, bb, cells, marker, supply, info, cfg, out):
    """Exact record of a round-start position (VF-17): board, markers, supplies of the
    players still in, first player."""
    for w in range(HW):
        out[w] = U0
    for c in range(cfg[C_CELLS]):
        v = np.uint64(cells[g, c] + 1)
        out[c >> 4] |= v << np.uint64(4 * (c & 15))
    alive = info[g, I_ALIVE]
    for s in range(cfg[C_PLAYERS]):
        if (alive >> s) & 1:
            out[4] |= np.uint64(marker[g, s] + 1) << np.uint64(7 * s)
            for p in range(NPIECE):
                bit = 48 * s + 4 * p
                out[5 + (bit >> 6)] |= np.uint64(supply[g, s, p]) << np.uint64(bit & 63)
    out[4] |= np.uint64(info[g, I_FIRST]) << np.uint64(28)


@jit
def _supply_key(g, s, supply):
    """VF-17 adjudication key of seat s (larger is better): pieces, then pips in supply."""
    pieces = 0
    pips = 0
    for p in range(NPIECE):
        pieces += supply[g, s, p]
        pips += supply[g, s, p] * (p % 3 + 1)
    return pieces * 1000 + pips


@jit
def _adjudicate(g, supply, info, cfg, rew):
    """VF-17: rank players still in by pieces then pips in supply."""
    P = cfg[C_PLAYERS]
    alive = info[g, I_ALIVE]
    best = -1
    for s in range(P):
        if (alive >> s) & 1:
            best = max(best, _supply_key(g, s, supply))
    ntop = 0
    for s in range(P):
        if (alive >> s) & 1 and _supply_key(g, s, supply) == best:
            ntop += 1
    for s in range(P):
        if (alive >> s) & 1:
            if _supply_key(g, s, supply) == best:
                r = 1 if ntop == 1 else 0
            else:
                r = -1
            info[g, I_RES + s] = r
            rew[g, s] = r
    info[g, I_PHASE] = PH_OVER
    info[g, I_CUR] = -1


@jit
def _eliminate(g, s, marker, info, cfg, rew):
    """VF-15/VF-14 JUMP: seat s is out (-1); the last one standing wins (VF-16).

    Returns True when the game is over."""
    marker[g, s] = -1
    info[g, I_ALIVE] &= ~(1 << s)
    info[g, I_RES + s] = -1
    rew[g, s] = -1
    alive = info[g, I_ALIVE]
    left = 0
    last = -1
    for t in range(cfg[C_PLAYERS]):
        if (alive >> t) & 1:
            left += 1
            last = t
    if left == 1:
        info[g, I_RES + last] = 1
        rew[g, last] = 1
        info[g, I_PHASE] = PH_OVER
        info[g, I_CUR] = -1
        return True
    return False


@jit
def _start_round(g, bb, cells, marker, supply, info, hist, cfg, rew):
    """Repetition check at the start of a round (VF-17). Returns True if the game ended.

    The record is written into the next history slot, then compared with the earlier ones.
    """
    hlen = info[g, I_HLEN]
    if hlen >= hist.shape[1]:  # cannot happen in play (one record per round started)
        hlen = hist.shape[1] - 1
    rec = hist[g, hlen]  # capacity max_rounds + 1 > number of round starts
    _record(g, bb, cells, marker, supply, info, cfg, rec)
    seen = 0
    for h in range(hlen):
        same = True
        for w in range(HW):
            if hist[g, h, w] != rec[w]:
                same = False
                break
        if same:
            seen += 1
    if seen >= 2:
        info[g, I_REP] = 3
        for w in range(HW):
            rec[w] = U0
        _adjudicate(g, supply, info, cfg, rew)
        return True
    info[g, I_HLEN] = min(hlen + 1, hist.shape[1])
    info[g, I_REP] = seen + 1
    return False


@jit
def _next_first(g, cells, marker, info, cfg):
    """VF-13: first player of the next round."""
    P = cfg[C_PLAYERS]
    alive = info[g, I_ALIVE]
    prev = info[g, I_FIRST]
    best = 0
    for s in range(P):
        if (alive >> s) & 1:
            sz = cells[g, marker[g, s]] % 3 + 1
            if sz > best:
                best = sz
    if (alive >> prev) & 1 and cells[g, marker[g, prev]] % 3 + 1 == best:
        return prev
    for d in range(1, P + 1):
        s = (prev + d) % P
        if (alive >> s) & 1 and cells[g, marker[g, s]] % 3 + 1 == best:
            return s
    return prev  # unreachable: some seat is alive


@jit
def _first_key(g, s, bb, cells, marker, seg, cfg):
    """VF-12 order key of seat s (smaller is better)."""
    occ = bb[g, OCC]
    cnt = 0
    pips = 0
    for i in range(cfg[C_SEGLEN]):
        c = seg[s, i]
        if (occ >> np.uint64(c)) & U1:
            cnt += 1
            pips += cells[g, c] % 3 + 1
    msize = cells[g, marker[g, s]] % 3 + 1
    # fewer pieces, then fewer pips, then the larger marked size
    return cnt * 10000 + pips * 10 + (3 - msize)


@jit
def _first_of_game(g, bb, cells, marker, info, rng, seg, cfg):
    """VF-12: fewest instructions, then lowest pips, then largest marked one, then RNG."""
    P = cfg[C_PLAYERS]
    best = -1
    for s in range(P):
        key = _first_key(g, s, bb, cells, marker, seg, cfg)
        if best < 0 or key < best:
            best = key
    ntie = 0
    for s in range(P):
        if _first_key(g, s, bb, cells, marker, seg, cfg) == best:
            ntie += 1
    pick = 0
    if ntie > 1:
        pick = _rand(rng, g, ntie)
    for s in range(P):
        if _first_key(g, s, bb, cells, marker, seg, cfg) == best:
            if pick == 0:
                return s
            pick -= 1
    return 0


@jit_inline
def _advance(g, bb, cells, marker, supply, info, rng, hist, cfg, rew, new_round):
    """Pass the turn on: next seat of the round, round ends (VF-13, VF-17), and the
    eliminations that need no decision (VF-14 JUMP without target)."""
    P = cfg[C_PLAYERS]
    while True:
        if new_round:
            new_round = False
            if _start_round(g, bb, cells, marker, supply, info, hist, cfg, rew):
                return
            k = 0
        else:
            k = info[g, I_K] + 1
        alive = info[g, I_ALIVE]
        first = info[g, I_FIRST]
        while k < P and not (alive >> ((first + k) % P)) & 1:
            k += 1
        if k == P:
            # round ends
            if info[g, I_ROUND] >= cfg[C_MAX_ROUNDS]:
                _adjudicate(g, supply, info, cfg, rew)  # VF-17 round limit
                return
            info[g, I_ROUND] += 1
            info[g, I_FIRST] = _next_first(g, cells, marker, info, cfg)
            new_round = True
            continue
        s = (first + k) % P
        info[g, I_K] = k
        info[g, I_CUR] = s
        info[g, I_PHASE] = PH_EFFECT
        occ = bb[g, OCC]
        block = _flood(_bit(marker[g, s]), occ, cfg)
        bb[g, ACTIVE] = block  # the derived word of the effect phase (constants.ACTIVE)
        if cells[g, marker[g, s]] // 3 == JUMP:
            if _jump_set(block, occ, _markerbits(g, marker, info, P), cfg) == U0:
                if _eliminate(g, s, marker, info, cfg, rew):
                    return
                continue
        return


@jit_inline
def _apply(g, a, bb, cells, marker, supply, info, rng, hist, seg, cfg, rew):
    """Apply legal action a to game g; rewards of seats done in this step go to rew.

    The derived word ``constants.ACTIVE`` is written where a phase that has one begins
    (the effect phase in :func:`_advance`, the step phase after an effect: each computes
    it anyway) and cleared here when the game ends; setup leaves it 0. Same value as
    ``legal._refresh_active`` (tested), without computing it twice."""
    _transition(g, a, bb, cells, marker, supply, info, rng, hist, seg, cfg, rew)
    if info[g, I_PHASE] == PH_OVER:
        bb[g, ACTIVE] = U0


@jit_inline
def _transition(g, a, bb, cells, marker, supply, info, rng, hist, seg, cfg, rew):
    """The rules of one decision (VF-10..VF-17) for :func:`_apply`."""
    N = cfg[C_CELLS]
    _, o_move, o_erase, o_mark, o_pass = action_offsets(cfg[C_N])
    ph = info[g, I_PHASE]
    s = info[g, I_CUR]
    if ph == PH_SETUP:
        if a < o_move:  # put a piece of the program (VF-10, VF-11)
            p = a // N
            c = a % N
            _place(g, bb, cells, p, c)
            supply[g, s, p] -= 1
            pos = 0
            for i in range(cfg[C_SEGLEN]):
                if seg[s, i] == c:
                    pos = i
            if info[g, I_NSET] == 0:
                info[g, I_RLO] = pos
                info[g, I_RHI] = pos
            elif pos < info[g, I_RLO]:
                info[g, I_RLO] = pos
            else:
                info[g, I_RHI] = pos
            info[g, I_NSET] += 1
            return
        marker[g, s] = a - o_mark  # program complete
        info[g, I_NSET] = 0
        info[g, I_RLO] = 0
        info[g, I_RHI] = 0
        if s + 1 < cfg[C_PLAYERS]:
            info[g, I_CUR] = s + 1
            return
        # all programs revealed: play starts (VF-12)
        info[g, I_ROUND] = 1
        info[g, I_FIRST] = _first_of_game(g, bb, cells, marker, info, rng, seg, cfg)
        info[g, I_K] = 0
        _advance(g, bb, cells, marker, supply, info, rng, hist, cfg, rew, True)
        return
    if ph == PH_STEP:
        marker[g, s] = a - o_mark  # VF-15 marker step
        _advance(g, bb, cells, marker, supply, info, rng, hist, cfg, rew, False)
        return
    # effect (VF-14)
    if a >= o_mark and a < o_pass:  # JUMP: the single decision of the turn (VF-18)
        marker[g, s] = a - o_mark
        _advance(g, bb, cells, marker, supply, info, rng, hist, cfg, rew, False)
        return
    if a < o_move:  # WRITE
        p = a // N
        _place(g, bb, cells, p, a % N)
        supply[g, s, p] -= 1
    elif a < o_erase:  # MOVE
        f = (a - o_move) // N
        t = (a - o_move) % N
        p = _remove(g, bb, cells, f)
        _place(g, bb, cells, p, t)
    elif a < o_mark:  # ERASE: capture into the player's supply
        c = a - o_erase
        if cells[g, c] >= 0:
            p = _remove(g, bb, cells, c)
            supply[g, s, p] += 1
    # VF-15: the marker step, or elimination without a decision
    info[g, I_PHASE] = PH_STEP
    targets = _step_targets(g, bb, marker, info, cfg)
    bb[g, ACTIVE] = targets  # the derived word of the step phase (constants.ACTIVE)
    if targets == U0:
        if _eliminate(g, s, marker, info, cfg, rew):
            return
        _advance(g, bb, cells, marker, supply, info, rng, hist, cfg, rew, False)


guard_cache(globals())  # recompile if a sibling kernel file changed (envs/core/cache.py)
