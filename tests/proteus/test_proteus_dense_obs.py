"""The dense learner observation (``learner_buffers(B, dense=True)``, issue 14).

24 bytes per game instead of the 315 of the compact planes; ``decode`` of them must give
exactly the float32 planes of ``observe`` (every plane, plane 33 turn / max_turns and
the PR-17 repetition plane 34 included), and the step itself must not change: states,
masks, rewards, done flags and seats equal to the compact learner step's from the same
keys.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.proteus import kernel as K
from envs.proteus.batch import ProteusBatch
from tests.states import assert_same_state


@pytest.mark.parametrize("max_turns", [200, 40])
def test_dense_decodes_to_observe_and_the_step_is_the_compact_one(max_turns: int) -> None:
    """PR-8 resets, PR-16 wins, PR-17 repetitions and turn limits: decode == observe."""
    g = ProteusBatch(max_turns=max_turns)
    dense_st, compact_st = g.init(48, seed=3), g.init(48, seed=3)
    dense, compact = g.learner_buffers(48, dense=True), g.learner_buffers(48)
    assert dense.obs.shape == (48, K.DENSE_BYTES) and dense.obs.dtype == np.uint8
    g.learner_view(dense_st, dense)
    g.learner_view(compact_st, compact)
    repeated = finished = 0
    for _ in range(260):
        np.testing.assert_array_equal(g.decode(dense.obs), g.observe(dense_st, dense.seat))
        planes = g.observe(dense_st, dense.seat)
        repeated += int((planes[:, 0, 0, 34] > 0).sum())  # PR-17 plane exercised
        g.learner_step(dense_st, g.random_actions(dense_st), dense)
        g.learner_step(compact_st, g.random_actions(compact_st), compact)
        assert_same_state(dense_st, compact_st)
        for name in ("mask", "rewards", "done", "seat"):
            np.testing.assert_array_equal(getattr(dense, name), getattr(compact, name), name)
        finished += int(dense.done.sum())
    assert finished > 0 and repeated > 0
    assert dense.bytes_per_step() < compact.bytes_per_step() - 280


def test_dense_serial_and_parallel_compiles_agree() -> None:
    """The prange compile writes the same dense rows as the serial one (loops.py)."""
    g = ProteusBatch()
    runs = []
    for parallel in (False, True):
        st = g.init(40, seed=5)
        out = g.learner_buffers(40, dense=True)
        rows = []
        for _ in range(60):
            K.learner_step(st, K.random_actions(st), out, parallel=parallel)
            rows.append(out.obs.copy())
        runs.append(np.stack(rows))
    np.testing.assert_array_equal(runs[0], runs[1])


def test_decode_dense_names_bad_codes() -> None:
    with pytest.raises(ValueError, match="decode_dense"):
        K.decode_dense(np.zeros((2, K.DENSE_BYTES), np.int64))
    with pytest.raises(ValueError, match="decode_dense"):
        K.decode_dense(np.zeros((2, 23), np.uint8))


def test_dense_buffers_of_another_batch_are_refused() -> None:
    g = ProteusBatch()
    st = g.init(4, seed=0)
    with pytest.raises(ValueError, match="learner_buffers"):
        g.learner_step(st, g.random_actions(g.copy(st)), g.learner_buffers(5, dense=True))
