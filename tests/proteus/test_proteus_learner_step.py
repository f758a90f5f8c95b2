"""The fused learner step, action validation, and the one legal-move enumeration (Proteus).

* ``learner_step`` = ``step(auto_reset=True)`` + ``legal_mask`` + ``observe`` of the seat
  to move, in one call; its compact uint8 observation decodes to ``observe``'s floats
  (plane 33, turn / max_turns, within 1/255; every other plane exactly).
* Bad actions (NaN, fractions, wrong length, out of range, masked out) raise ValueError
  naming the games, and leave every game unchanged (issue: "batch facades take anything").
* The mask, the n-th legal action, the random draw and the validation all come from one
  enumeration (``envs/proteus/legal.py``): they must agree on every position.
* The random streams are pinned: same seed, same games as before the kernel split.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from envs.core import loops
from envs.proteus import kernel as K
from envs.proteus.batch import ProteusBatch
from envs.proteus.constants import A_PASS, NUM_ACTIONS


def _digest(st: K.KernelState) -> str:
    m = hashlib.sha256()
    for a in st.arrays():
        m.update(np.ascontiguousarray(a).tobytes())
    return m.hexdigest()[:16]


def _same(a: K.KernelState, b: K.KernelState) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a.arrays(), b.arrays(), strict=True))


def test_random_streams_are_pinned() -> None:
    """PR-17 histories, boards and keys after 300 fused random turns: the pre-split stream."""
    g = ProteusBatch()
    st = g.init(100, seed=7)
    g.random_step(st, 300)
    assert _digest(st) == "b590a7e6968bb91d"


@pytest.mark.parametrize("batch", [1, 70])
def test_learner_step_is_step_mask_and_observation(batch: int) -> None:
    g = ProteusBatch()
    st = g.init(batch, seed=3)
    ref = g.copy(st)
    out = g.learner_buffers(batch)
    g.learner_view(st, out)
    assert (out.mask == g.legal_mask(st)).all()
    ends = 0
    for _ in range(250):
        actions = g.random_actions(st)
        g.random_actions(ref)  # keep the keys in step
        g.learner_step(st, actions, out)
        rewards, done = g.step(ref, actions, auto_reset=True)
        ends += int(done.sum())
        assert _same(st, ref)
        np.testing.assert_array_equal(out.rewards, rewards)
        np.testing.assert_array_equal(out.done, done)
        np.testing.assert_array_equal(out.seat, g.current_player(st))
        np.testing.assert_array_equal(out.mask, g.legal_mask(st))
        planes = g.observe(st, out.seat)
        decoded = g.decode(out.obs)
        assert out.obs.dtype == np.uint8
        np.testing.assert_array_equal(np.delete(decoded, 33, -1), np.delete(planes, 33, -1))
        assert np.abs(decoded[..., 33] - planes[..., 33]).max() <= 1 / 255 + 1e-7
    assert ends > 0  # auto-reset was exercised (PR-16 / PR-17 endings)
    assert out.bytes_per_step() < (3 * 3 * 35 * 4 + NUM_ACTIONS) / 2


BAD_ACTIONS = {
    "nan": lambda a: np.where(np.arange(len(a)) == 2, np.nan, a.astype(np.float64)),
    "fraction": lambda a: a + 0.5,
    "negative": lambda a: np.where(np.arange(len(a)) == 1, -5, a),
    "too large": lambda a: np.where(np.arange(len(a)) == 0, NUM_ACTIONS, a),
    "huge uint": lambda a: a.astype(np.uint64) + np.uint64(2**63),
    "wrong length": lambda a: a[:1],
    "strings": lambda a: a.astype(str),
}


@pytest.mark.parametrize("kind", sorted(BAD_ACTIONS))
@pytest.mark.parametrize("path", ["step", "learner_step"])
def test_bad_actions_raise_and_change_nothing(kind: str, path: str) -> None:
    g = ProteusBatch()
    st = g.init(8, seed=1)
    g.random_step(st, 30)
    before = g.copy(st)
    actions = BAD_ACTIONS[kind](g.random_actions(g.copy(st)))
    with pytest.raises(ValueError, match="proteus"):
        if path == "step":
            g.step(st, actions)
        else:
            g.learner_step(st, actions, g.learner_buffers(8))
    assert _same(st, before)


@pytest.mark.parametrize("path", ["step", "learner_step"])
def test_masked_out_actions_are_named(path: str) -> None:
    g = ProteusBatch()
    st = g.init(6, seed=4)
    g.random_step(st, 40)
    mask = g.legal_mask(st)
    actions = g.random_actions(g.copy(st))
    illegal = [int(np.flatnonzero(~mask[b])[0]) for b in (1, 4)]
    actions[[1, 4]] = illegal
    before = g.copy(st)
    with pytest.raises(ValueError, match=r"2 action\(s\) not legal.*game 1: .*game 4: "):
        if path == "step":
            g.step(st, actions)
        else:
            g.learner_step(st, actions, g.learner_buffers(6))
    assert _same(st, before)
    g.step(st, g.random_actions(g.copy(st)))  # legal actions still pass


def test_finished_games_ignore_their_action() -> None:
    g = ProteusBatch(max_turns=3)
    st = g.init(4, seed=0)
    for _ in range(3):
        g.step(st, g.random_actions(g.copy(st)))
    assert g.terminated(st).all()  # PR-17 turn limit
    before = g.copy(st)
    g.step(st, np.full(4, -1))  # -1 (what random_actions gives there) is accepted
    assert _same(st, before)


def test_validation_can_be_turned_off_for_masked_samples() -> None:
    g = ProteusBatch()
    st, ref = g.init(16, seed=9), g.init(16, seed=9)
    for _ in range(40):
        a = g.random_actions(st)
        g.random_actions(ref)
        g.step(st, a, auto_reset=True, validate=False)
        g.step(ref, a, auto_reset=True)
    assert _same(st, ref)


def test_buffers_of_the_wrong_shape_are_refused() -> None:
    g = ProteusBatch()
    st = g.init(4, seed=0)
    with pytest.raises(ValueError, match="learner_buffers"):
        g.learner_step(st, g.random_actions(g.copy(st)), g.learner_buffers(5))


def test_one_enumeration_gives_mask_nth_draw_and_check() -> None:
    """PR-8..PR-14: every derived form of the legal set agrees, on many positions."""
    g = ProteusBatch()
    st = g.init(60, seed=12)
    for _ in range(120):
        mask = g.legal_mask(st)
        for b in range(st.batch_size):
            if st.status[b] != 0:
                continue
            n, _ = K._nth_legal(st.tsq, st.pieces, st.bb, st.act, st.player, b, -1)
            listed = [
                K._nth_legal(st.tsq, st.pieces, st.bb, st.act, st.player, b, r)[1] for r in range(n)
            ]
            assert len(set(listed)) == n
            assert sorted(listed) == list(np.flatnonzero(mask[b]))
            legal = [
                bool(K._legal_of(st.tsq, st.pieces, st.bb, st.act, st.player, st.status, b, a))
                for a in range(NUM_ACTIONS)
            ]
            np.testing.assert_array_equal(legal, mask[b])
            if mask[b, A_PASS]:
                assert n == 1  # PR-11 / PR-14: a pass only when nothing else is legal
        drawn = g.random_actions(g.copy(st))
        running = st.status == 0
        assert mask[np.flatnonzero(running), drawn[running]].all()
        g.step(st, g.random_actions(st), auto_reset=True)


def test_one_place_chooses_serial_or_parallel() -> None:
    assert loops.choose(1) == "serial"
    assert loops.choose(loops.SINGLE_THREAD_MIN_BATCH) == "one thread"
    assert K.PARALLEL_MIN_BATCH == loops.PARALLEL_MIN_BATCH  # the old name still works
