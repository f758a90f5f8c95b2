"""Every Proteus batch operation gives the same games from its serial and its prange compile.

Why: ``envs.core.loops.run_loop`` picks the compile by batch size, so a difference would
make a game's course depend on the batch it sits in (DESIGN: "the same seed gives the
same game, whatever the batch size"). It also guards a Numba hazard met while fusing the
learner step: inlined into a ``prange`` loop, writes to arrays unpacked from the state
tuple were dropped (``envs/proteus/rules.py``, ``_store``), while the serial compile was
right. The states compared are mid-game positions of both phases (PR-8, PR-12) with
finished games among them (PR-16, PR-17).
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.proteus import kernel as K
from envs.proteus.batch import ProteusBatch

B = 70


def _mid_game(seed: int) -> K.KernelState:
    st = K.new_state(B, seed=seed, max_turns=40)
    K.random_step(st, 17, parallel=False)  # some games in the movement phase, some over
    return st


def _same(a: K.KernelState, b: K.KernelState) -> None:
    for x, y in zip(a.arrays(), b.arrays(), strict=True):
        np.testing.assert_array_equal(x, y)


def _twins(seed: int = 3) -> tuple[K.KernelState, K.KernelState]:
    st = _mid_game(seed)
    return st, st.copy()


def test_new_state_and_reset_all() -> None:
    """PR-4 / PR-8: a new batch (and a reset one) is the same from either compile."""
    a, b = _twins()
    K.reset_all(a, parallel=False)
    K.reset_all(b, parallel=True)
    _same(a, b)
    one = K.new_state(1, seed=0)
    _same(one, K.new_state(B, seed=0).take(np.array([0])))


@pytest.mark.parametrize("seed", [1, 2])
def test_mask_random_and_observe(seed: int) -> None:
    """PR-8..PR-14 masks, random legal draws (keys advance alike), observation planes."""
    a, b = _twins(seed)
    np.testing.assert_array_equal(K.legal_mask(a, parallel=False), K.legal_mask(b, parallel=True))
    np.testing.assert_array_equal(
        K.random_actions(a, parallel=False), K.random_actions(b, parallel=True)
    )
    _same(a, b)
    seats = np.arange(B, dtype=np.int64) % 2
    np.testing.assert_array_equal(
        K.observe(a, seats, parallel=False), K.observe(b, seats, parallel=True)
    )


def test_step_and_fused_selfplay() -> None:
    """PR-13/PR-16/PR-17 transitions with auto-reset, one step and 25 fused steps."""
    a, b = _twins()
    acts = K.random_actions(a.copy(), parallel=False)
    ra, da = K.step(a, acts, auto_reset=True, parallel=False)
    rb, db = K.step(b, acts, auto_reset=True, parallel=True)
    np.testing.assert_array_equal(ra, rb)
    np.testing.assert_array_equal(da, db)
    _same(a, b)
    assert K.random_step(a, 25, parallel=False) == K.random_step(b, 25, parallel=True)
    _same(a, b)


@pytest.mark.parametrize("dense, bits", [(False, False), (True, False), (True, True)])
def test_learner_step_and_view(dense: bool, bits: bool) -> None:
    """The fused learner step (validate, apply, auto-reset, planes, mask) from both
    compiles, in each encoding (planes / dense codes, bool / packed mask)."""
    g = ProteusBatch(max_turns=40)
    a, b = _twins()
    oa = g.learner_buffers(B, dense=dense, mask_bits=bits)
    ob = g.learner_buffers(B, dense=dense, mask_bits=bits)
    K.learner_view(a, oa, parallel=False)
    K.learner_view(b, ob, parallel=True)
    for _ in range(30):
        acts = K.random_actions(a.copy(), parallel=False)
        K.learner_step(a, acts, oa, parallel=False)
        K.learner_step(b, acts, ob, parallel=True)
        _same(a, b)
        for name in ("obs", "mask", "rewards", "done", "seat"):
            np.testing.assert_array_equal(getattr(oa, name), getattr(ob, name), err_msg=name)
