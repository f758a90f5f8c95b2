"""Differential test: the Numba kernel against the plain-Python reference, step by step.

Seeded random games (uniform, plus biased policies that undo their last exchange to
provoke PR-17 repetitions or walk a piece round a triangle so that a board recurs with the
other player to move, and small ``max_turns`` to reach the PR-17 turn limit). At
every step the legal action set, the next state and the outcome must be equal; the
kernel's own random sampler must return a legal action. Coverage counters make sure the
movement phase, wins of every goal kind (PR-15), both kinds of draw (PR-17), passes
(PR-11) and PR-7 cancellations were actually exercised.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from envs.proteus import kernel as K
from envs.proteus.constants import A_MOVE, A_PASS, A_SWAP, GOLD, NUM_ACTIONS
from envs.proteus.reference import RefGame

BATCH = 32


def _kernel_snapshot(st: K.KernelState, b: int) -> tuple:
    return (
        tuple(int(x) for x in st.tile_at[b]),
        tuple(int(x) for x in st.piece_at[b]),
        tuple(int(x) for x in st.active[b]),
        int(st.player[b]),
        int(st.turn[b]),
        int(st.status[b]),
    )


def _cycle_move(rng: np.random.Generator, legal: list[int], last: dict, me: int) -> int | None:
    """A piece move that walks a triangle (a-b-c-a): the board recurs after an odd number
    of own turns, so with the opponent undoing exchanges it recurs with the other player to
    move (PR-17: a different position)."""
    moves = [a for a in legal if A_MOVE <= a < A_SWAP]
    if not moves:
        return None
    path = last.get(("path", me), [])
    here = [a for a in moves if path and (a - A_MOVE) // 9 == path[-1]]
    close = [a for a in here if len(path) >= 3 and (a - A_MOVE) % 9 == path[-3]]
    onward = [a for a in here if len(path) < 2 or (a - A_MOVE) % 9 != path[-2]]
    a = int(rng.choice(close or onward or moves))
    src, dst = divmod(a - A_MOVE, 9)
    last[("path", me)] = (path if path and path[-1] == src else [src])[-2:] + [dst]
    return a


def _choose(rng: np.random.Generator, legal: list[int], policy: str, last: dict, me: int) -> int:
    if policy == "cycle" and me == 0 and rng.random() < 0.9:
        a = _cycle_move(rng, legal, last, me)
        if a is not None:
            return a
    if policy in ("undo", "cycle") and rng.random() < 0.85:
        prev = last.get(me)
        if prev is not None and prev in legal:
            return prev  # an exchange undoes itself: positions recur (PR-17)
    if policy == "swappy" and rng.random() < 0.7:
        swaps = [a for a in legal if A_SWAP <= a < A_PASS]
        if swaps:
            return int(rng.choice(swaps))
    return int(rng.choice(legal))


def _run(seed: int, min_steps: int) -> Counter:
    rng = np.random.default_rng(seed)
    cov: Counter = Counter()
    steps = 0
    game_no = 0
    while steps < min_steps:
        max_turns = [int(rng.integers(1, 40)) if rng.random() < 0.3 else 200 for _ in range(BATCH)]
        policies = [str(rng.choice(["uniform", "undo", "swappy", "cycle"])) for _ in range(BATCH)]
        st = K.new_state(BATCH, seed=seed * 1000 + game_no, max_turns=200)
        st.max_turns[:] = max_turns
        game_no += 1
        refs = [RefGame(m) for m in max_turns]
        last: list[dict] = [{} for _ in range(BATCH)]
        counted = [False] * BATCH
        movers: list[dict] = [{} for _ in range(BATCH)]  # board -> players seen to move
        mask = np.zeros((BATCH, NUM_ACTIONS), dtype=np.bool_)
        rewards = np.zeros((BATCH, 2), dtype=np.float32)
        done = np.zeros(BATCH, dtype=np.bool_)
        sampled = np.zeros(BATCH, dtype=np.int64)
        while any(r.result is None for r in refs):
            K.legal_mask(st, mask)
            K.random_actions(st, sampled)
            actions = np.zeros(BATCH, dtype=np.int64)
            for b, ref in enumerate(refs):
                legal = ref.legal_actions()
                assert list(np.flatnonzero(mask[b])) == legal, (seed, b, ref.snapshot())
                if ref.result is not None:
                    assert sampled[b] == -1
                    continue
                assert int(sampled[b]) in legal
                if ref.phase() == "movement":
                    cov["movement steps"] += 1
                me = ref.to_move
                a = _choose(rng, legal, policies[b], last[b], me)
                if A_SWAP <= a < A_PASS:
                    last[b][me] = a
                if a == A_PASS:
                    cov["pass"] += 1
                if A_MOVE <= a < A_SWAP:
                    cov["move"] += 1
                actions[b] = a
                before = ref.cancellations
                ref.step(a)
                seen = movers[b].setdefault(ref.position()[:-1], set())
                cov["board recurs, other mover"] += bool(seen) and ref.to_move not in seen
                seen.add(ref.to_move)
                cov["PR-7 cancellation"] += ref.cancellations - before
                steps += 1
            K.step(st, actions, False, rewards, done)
            for b, ref in enumerate(refs):
                assert _kernel_snapshot(st, b) == ref.snapshot(), (seed, b)
                assert bool(done[b]) == (ref.result is not None)
                if ref.result is not None and not counted[b]:
                    counted[b] = True
                    if ref.result in ("black", "white"):
                        kind = ("three-in-line", "colour", "shape")[int(st.active[b, GOLD])]
                        cov[f"win {kind}"] += 1
                        expect = [1.0, -1.0] if ref.result == "black" else [-1.0, 1.0]
                        assert list(rewards[b]) == expect
                        if ref.phase() == "placement":
                            cov["win in placement"] += 1
                    else:
                        cov[ref.result] += 1
                        assert list(rewards[b]) == [0.0, 0.0]
    cov["steps"] = steps
    return cov


def _check_coverage(cov: Counter, min_steps: int) -> None:
    assert cov["steps"] >= min_steps
    assert cov["movement steps"] >= 1000, cov
    for kind in ("three-in-line", "colour", "shape"):
        assert cov[f"win {kind}"] >= 5, cov
    assert cov["win in placement"] >= 1, cov
    assert cov["draw-repetition"] >= 5, cov
    assert cov["draw-turns"] >= 5, cov
    assert cov["pass"] >= 5, cov
    assert cov["move"] >= 100, cov
    assert cov["PR-7 cancellation"] >= 1, cov
    assert cov["board recurs, other mover"] >= 5, cov  # PR-17 position includes the mover


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_kernel_matches_reference_random_games(seed: int) -> None:
    """Two halves of >= 20,000 compared steps in all (parallel under xdist)."""
    cov = _run(seed, 12_000)
    _check_coverage(cov, 12_000)


def test_kernel_matches_reference_smoke() -> None:
    cov = _run(99, 300)
    assert cov["steps"] >= 300
