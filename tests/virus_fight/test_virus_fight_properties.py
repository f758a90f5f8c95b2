"""Hypothesis property tests of Virus Fight invariants over random games."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from envs.virus_fight import kernel as K
from envs.virus_fight.batch import VirusFightBatch
from envs.virus_fight.notation import str_to_action

GAMES = {p: VirusFightBatch(p, max_rounds=40) for p in (2, 3, 4)}


def _active_word(s, n: int) -> int:
    """What the derived word must hold, as a bit set: in the effect phase the block of the
    acting seat's marker by a plain breadth-first search (VF-5, VF-14); in the step phase
    the unmarked instructions orthogonally next to it (VF-15); 0 in every other phase."""
    phase = s.info[0, K.I_PHASE]
    if phase not in (K.PH_EFFECT, K.PH_STEP):
        return 0
    start = int(s.marker[0, s.info[0, K.I_CUR]])
    if phase == K.PH_STEP:
        marked = {int(m) for m in s.marker[0] if m >= 0}
        r, c = divmod(start, n)
        near = [(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)]
        return sum(
            1 << (rr * n + cc)
            for rr, cc in near
            if 0 <= rr < n
            and 0 <= cc < n
            and s.cells[0, rr * n + cc] >= 0
            and rr * n + cc not in marked
        )
    seen, todo = {start}, [start]
    while todo:
        r, c = divmod(todo.pop(), n)
        for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            k = rr * n + cc
            if 0 <= rr < n and 0 <= cc < n and k not in seen and s.cells[0, k] >= 0:
                seen.add(k)
                todo.append(k)
    return sum(1 << k for k in seen)


def _check_invariants(g: VirusFightBatch, s, before_marked: dict[int, int]) -> None:
    P = g.num_players
    n = g.board_size
    cells = s.cells[0, : n * n]
    # VF-2: pieces conserved (board + every supply, eliminated ones included)
    for p in range(12):
        assert int((cells == p).sum()) + int(s.supply[0, :P, p].sum()) == P
    assert int((cells >= 0).sum()) + int(s.supply[0, :P].sum()) == 12 * P
    # bitboards mirror the cells
    for p in range(12):
        assert int(s.bb[0, p]) == sum(1 << c for c in range(n * n) if cells[c] == p)
    assert int(s.bb[0, K.OCC]) == sum(1 << c for c in range(n * n) if cells[c] >= 0)
    # the derived word: the acting seat's block (effect phase) or step targets (step phase)
    assert int(s.bb[0, K.ACTIVE]) == _active_word(s, n)
    # VF-3: markers on distinct occupied cells
    marks = [int(m) for m in s.marker[0, :P] if m >= 0]
    assert len(marks) == len(set(marks))
    assert all(cells[m] >= 0 for m in marks)
    # VF-8: a piece carrying a marker before the step is still there, unchanged
    for c, p in before_marked.items():
        assert cells[c] == p
    # a seat is in exactly when its marker is on the board (after setup)
    if s.info[0, K.I_PHASE] != K.PH_SETUP:
        alive = int(s.info[0, K.I_ALIVE])
        for seat in range(P):
            assert bool(alive >> seat & 1) == (s.marker[0, seat] >= 0) or (
                s.info[0, K.I_PHASE] == K.PH_OVER
            )


@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.sampled_from([2, 3, 4]),
    steps=st.integers(1, 400),
)
def test_invariants_over_random_games(seed: int, players: int, steps: int) -> None:
    g = GAMES[players]
    s = g.init(1, seed)
    for _ in range(steps):
        if g.terminated(s)[0]:
            break
        marked = {int(m): int(s.cells[0, m]) for m in s.marker[0, :players] if m >= 0}
        a = g.random_actions(s)
        assert g.legal_mask(s)[0, a[0]]
        rew, done = g.step(s, a)
        _check_invariants(g, s, marked)
        if done[0]:
            res = g.results(s)[0]
            assert (res >= 0).sum() >= 1  # a winner or a shared top
            assert set(res.tolist()) <= {-1.0, 0.0, 1.0}


def _random_program(rng: np.random.Generator, seat: int, g: VirusFightBatch) -> list[str]:
    seglen, maxprog = int(g.cfg[4]), int(g.cfg[5])
    length = int(rng.integers(1, maxprog + 1))
    start = int(rng.integers(0, seglen - length + 1))
    pieces = rng.choice(12, size=length, replace=False)
    n = g.board_size
    out = []
    for j in range(length):
        c = int(g.seg[seat, start + j])
        out.append(f"{'MWJE'[pieces[j] // 3]}{pieces[j] % 3 + 1}@{chr(97 + c % n)}{n - c // n}")
    m = int(g.seg[seat, start + int(rng.integers(0, length))])
    out.append(f"*{chr(97 + m % n)}{n - m // n}")
    return out


@given(
    seed_a=st.integers(0, 2**32 - 1),
    seed_b=st.integers(0, 2**32 - 1),
    players=st.sampled_from([2, 3, 4]),
    own_steps=st.integers(0, 4),
)
def test_hidden_setup_never_leaks(seed_a: int, seed_b: int, players: int, own_steps: int) -> None:
    """VF-11: while the last seat writes, its observations and mask are the same whatever
    the others wrote (pieces, size, supplies)."""
    g = GAMES[players]
    last = players - 1
    views = []
    own_rng_seed = seed_a ^ seed_b
    for seed in (seed_a, seed_b):
        rng = np.random.default_rng(seed)
        s = g.init(1, 0)
        for seat in range(last):
            for a in _random_program(rng, seat, g):
                g.step(s, np.array([str_to_action(a, g.board_size)]))
        own = _random_program(np.random.default_rng(own_rng_seed), last, g)[:-1]
        for a in own[:own_steps]:
            g.step(s, np.array([str_to_action(a, g.board_size)]))
        assert s.info[0, K.I_PHASE] == K.PH_SETUP and s.info[0, K.I_CUR] == last
        obs = g.observe(s, np.array([last]))[0]
        views.append((obs, g.legal_mask(s)[0]))
    assert np.array_equal(views[0][0], views[1][0])
    assert np.array_equal(views[0][1], views[1][1])
