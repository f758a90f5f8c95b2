"""The validated batch step (issue 11), serial and parallel: the check pass runs before
any game changes. A rejected batch is byte-identical to the batch before (PR-17 histories
included); accepted actions play the same games as the unvalidated step, auto-reset (PR-8)
and endings (PR-16, PR-17) included."""

from __future__ import annotations

import numpy as np
import pytest

from envs.proteus import kernel as K
from envs.proteus.batch import ProteusBatch


def _same(a, b) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a.arrays(), b.arrays(), strict=True))


@pytest.mark.parametrize("parallel", [False, True])
def test_rejected_batches_unchanged_accepted_ones_as_unvalidated(parallel: bool) -> None:
    game = ProteusBatch(max_turns=40)  # short games: many PR-17 endings and resets
    a = game.init(128, 5)
    b = game.copy(a)
    rng = np.random.default_rng(0)
    rejected = 0
    for t in range(300):
        actions = game.random_actions(a)
        assert np.array_equal(actions, game.random_actions(b))
        if t % 7 == 3:
            i = int(rng.choice(np.flatnonzero(~game.terminated(a))))
            wrong = actions.copy()
            wrong[i] = int(rng.choice(np.flatnonzero(~game.legal_mask(a)[i])))
            before = game.copy(a)
            with pytest.raises(ValueError, match=f"game {i}: "):
                K.step(a, wrong, auto_reset=True, parallel=parallel)
            assert _same(before, a)
            rejected += 1
        ra, da = K.step(a, actions, auto_reset=True, parallel=parallel)
        rb, db = K.step(b, actions, auto_reset=True, parallel=parallel, validate=False)
        assert np.array_equal(ra, rb) and np.array_equal(da, db)
    assert _same(a, b) and rejected > 30


def test_out_of_range_ids_are_named_serial_and_parallel() -> None:
    for parallel in (False, True):
        game = ProteusBatch()
        st = game.init(8, 1)
        acts = game.random_actions(st)  # (draws from the games' keys)
        acts[3] = K.NUM_ACTIONS
        before = game.copy(st)
        with pytest.raises(ValueError, match=r"outside \[-1, 226\).*game 3: 226"):
            K.step(st, acts, parallel=parallel)
        assert _same(before, st)
