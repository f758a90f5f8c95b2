"""Differential test: the Numba kernel against the plain-Python reference (all VF rules).

Games are played in lockstep by both implementations; at every decision the legal action
sets (as notation strings), and after every action the whole state, the rewards and the
eliminations are compared. Policies are mixed (uniform, aggressive, passive/looping) and
some batches use a small ``max_rounds`` so that every instruction kind, both kinds of
elimination and all three game endings are covered (asserted at the end).
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from envs.virus_fight import kernel as K
from envs.virus_fight.batch import VirusFightBatch
from envs.virus_fight.notation import action_to_str, str_to_action
from envs.virus_fight.reference import RefGame

PHASES = {K.PH_SETUP: "setup", K.PH_EFFECT: "effect", K.PH_STEP: "step", K.PH_OVER: "over"}


def kernel_view(b: VirusFightBatch, st, g: int) -> dict:
    """The kernel's game g in the reference's vocabulary."""
    n, P = b.board_size, b.num_players
    board = {}
    for c in range(n * n):
        p = int(st.cells[g, c])
        if p >= 0:
            board[divmod(c, n)] = ("MWJE"[p // 3], p % 3 + 1)
    # the bitboards must mirror the cell array
    for p in range(12):
        bits = {c for c in range(n * n) if int(st.bb[g, p]) >> c & 1}
        assert bits == {c for c in range(n * n) if st.cells[g, c] == p}
    assert int(st.bb[g, K.OCC]) == sum(1 << c for c in range(n * n) if st.cells[g, c] >= 0)
    markers = [divmod(int(m), n) if m >= 0 else None for m in st.marker[g, :P]]
    supplies = []
    for s in range(P):
        sup = []
        for p in range(12):
            sup += [("MWJE"[p // 3], p % 3 + 1)] * int(st.supply[g, s, p])
        supplies.append(sorted(sup))
    info = st.info[g]
    phase = PHASES[int(info[K.I_PHASE])]
    return {
        "board": board,
        "markers": markers,
        "supplies": supplies,
        "alive": [bool(int(info[K.I_ALIVE]) >> s & 1) for s in range(P)],
        "phase": phase,
        "seat": int(info[K.I_CUR]) if phase != "over" else None,
        "round": int(info[K.I_ROUND]),
        "first": int(info[K.I_FIRST]),
    }


def ref_view(r: RefGame) -> dict:
    return {
        "board": dict(r.board),
        "markers": list(r.markers),
        "supplies": [sorted(s) for s in r.supplies],
        "alive": list(r.alive),
        "phase": r.phase,
        "seat": r.seat if r.phase != "over" else None,
        "round": r.round,
        "first": r.first,
    }


def choose(legal: list[str], policy: str, rng: random.Random, ref: RefGame) -> str:
    """Pick an action; the biased policies steer games to every kind of ending."""
    if policy == "uniform" or len(legal) == 1:
        return rng.choice(legal)
    if policy == "passive":  # decline, erase empty squares, always the same marker choice
        if ref.phase == "setup":
            puts = [a for a in legal if "@" in a]
            if len(ref.program) < 2 and puts:
                return rng.choice(puts)
            return sorted(a for a in legal if a.startswith("*"))[0]
        if "pass" in legal:
            return "pass"
        empty = [a for a in legal if a.startswith("x") and ref.parse_square(a[1:]) not in ref.board]
        if empty:
            return sorted(empty)[0]
        return sorted(legal)[0]
    # aggressive: capture and move often
    caps = [a for a in legal if a.startswith("x") and ref.parse_square(a[1:]) in ref.board]
    if caps and rng.random() < 0.9:
        return rng.choice(caps)
    non_pass = [a for a in legal if a != "pass"]
    if non_pass and rng.random() < 0.8:
        return rng.choice(non_pass)
    return rng.choice(legal)


def run_lockstep(
    num_players: int,
    board_size: int,
    max_rounds: int,
    policy: str,
    batch: int,
    positions: int,
    seed: int,
    coverage: Counter,
) -> int:
    b = VirusFightBatch(num_players, board_size, max_rounds)
    st = b.init(batch, seed)
    refs = [RefGame(board_size, num_players, max_rounds) for _ in range(batch)]
    rng = random.Random(seed)
    compared = 0
    while compared < positions:
        mask = b.legal_mask(st)
        actions = np.zeros(batch, np.int64)
        for g in range(batch):
            legal_k = sorted(action_to_str(int(a), board_size) for a in np.flatnonzero(mask[g]))
            legal_r = sorted(refs[g].legal())
            assert legal_k == legal_r, (g, kernel_view(b, st, g), legal_k, legal_r)
            a = choose(legal_r, policy, rng, refs[g])
            actions[g] = str_to_action(a, board_size)
            compared += 1
        kinds_before = [
            int(st.cells[g, st.marker[g, st.info[g, K.I_CUR]]]) // 3
            if st.info[g, K.I_PHASE] == K.PH_EFFECT
            else -1
            for g in range(batch)
        ]
        rew, done = b.step(st, actions)
        for g in range(batch):
            r = refs[g]
            before = list(r.results)
            n_events = len(r.events)
            first = int(st.info[g, K.I_FIRST])

            def tie_break(tied: list[int], first: int = first) -> int:
                assert first in tied, (first, tied)
                coverage["vf12_random_tie"] += 1
                return first

            r.apply(action_to_str(int(actions[g]), board_size), tie_break)
            assert kernel_view(b, st, g) == ref_view(r), (g, actions[g])
            for s in range(num_players):
                expect = r.results[s] if before[s] is None and r.results[s] is not None else 0
                assert rew[g, s] == expect, (g, s, rew[g], r.results, before)
            assert bool(done[g]) == (r.phase == "over")
            if kinds_before[g] >= 0:
                coverage["exec_" + "MWJE"[kinds_before[g]]] += 1
            for ev, _ in r.events[n_events:]:
                coverage[ev] += 1
            if r.phase == "over":
                for s in range(num_players):
                    assert st.info[g, K.I_RES + s] == r.results[s]
                # restart this game in both implementations
                K._reset_game(g, st.bb, st.cells, st.marker, st.supply, st.info, b.cfg)
                refs[g] = RefGame(board_size, num_players, max_rounds)
                coverage["games"] += 1
    return compared


def _configs(size: int, other: int, short: tuple[int, int]) -> list[tuple[int, int, str]]:
    """Per player count: its default board with each policy and a short round limit,
    another board size, and one short game on a third size."""
    return [
        (size, 100, "uniform"),
        (size, 100, "aggressive"),
        (size, 3, "uniform"),
        (size, 100, "passive"),
        (other, 100, "uniform"),
        (*short, "aggressive"),
    ]


CONFIGS = {2: _configs(5, 8, (6, 6)), 3: _configs(6, 5, (7, 5)), 4: _configs(7, 8, (5, 4))}


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_vf_kernel_matches_reference(num_players: int) -> None:
    coverage: Counter = Counter()
    total = 0
    per_config = 20_000 // len(CONFIGS[num_players]) + 1
    for i, (size, max_rounds, policy) in enumerate(CONFIGS[num_players]):
        total += run_lockstep(
            num_players, size, max_rounds, policy, 32, per_config, 1000 * num_players + i, coverage
        )
    assert total >= 20_000
    for key in (
        "exec_M",
        "exec_W",
        "exec_J",
        "exec_E",
        "eliminated_no_step",
        "eliminated_no_jump",
        "end_last_standing",
        "end_max_rounds",
        "end_repetition",
    ):
        assert coverage[key] > 0, (key, coverage)
    print(num_players, dict(coverage))
