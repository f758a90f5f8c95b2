"""Action validation edges and the one legal-move enumeration (Proteus).

* The learner step against step + mask + observe, and the bad actions (NaN, fractions,
  wrong length, out of range, masked out) that raise ValueError with every game
  unchanged, are tested for every board game in ``tests/contract/test_board_facades.py``;
  here: finished games, ``validate=False``, buffers of the wrong shape.
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
from tests.states import same_state


def _digest(st: K.KernelState) -> str:
    m = hashlib.sha256()
    for a in st.arrays():
        m.update(np.ascontiguousarray(a).tobytes())
    return m.hexdigest()[:16]


def test_random_streams_are_pinned() -> None:
    """PR-17 histories, boards and keys after 300 fused random turns: the pre-split stream."""
    g = ProteusBatch()
    st = g.init(100, seed=7)
    g.random_step(st, 300)
    assert _digest(st) == "b590a7e6968bb91d"


def test_finished_games_ignore_their_action() -> None:
    g = ProteusBatch(max_turns=3)
    st = g.init(4, seed=0)
    for _ in range(3):
        g.step(st, g.random_actions(g.copy(st)))
    assert g.terminated(st).all()  # PR-17 turn limit
    before = g.copy(st)
    g.step(st, np.full(4, -1))  # -1 (what random_actions gives there) is accepted
    assert same_state(st, before)


def test_validation_can_be_turned_off_for_masked_samples() -> None:
    g = ProteusBatch()
    st, ref = g.init(16, seed=9), g.init(16, seed=9)
    for _ in range(40):
        a = g.random_actions(st)
        g.random_actions(ref)
        g.step(st, a, auto_reset=True, validate=False)
        g.step(ref, a, auto_reset=True)
    assert same_state(st, ref)


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
                bool(
                    K._legal_of(
                        st.tiles, st.tsq, st.pieces, st.bb, st.act, st.player, st.status, b, a
                    )
                )
                for a in range(NUM_ACTIONS)
            ]
            np.testing.assert_array_equal(legal, mask[b])
            if mask[b, A_PASS]:
                assert n == 1  # PR-11 / PR-14: a pass only when nothing else is legal
        drawn = g.random_actions(g.copy(st))
        running = st.status == 0
        assert mask[np.flatnonzero(running), drawn[running]].all()
        g.step(st, g.random_actions(st), auto_reset=True)


def test_batch_check_agrees_with_the_mask_for_every_id() -> None:
    """PR-8..PR-14: the batch check (a branch-free vector loop, then the passes apart) says
    "bad" exactly for the ids outside the mask of a running game, and for a finished game
    only for ids outside [-1, NUM_ACTIONS); its serial and parallel compiles agree.

    Every id, including the ones either side of the range, on every position of 64
    games over 150 plies (placement and movement phases, PR-17 draws, finished games)."""
    g = ProteusBatch(max_turns=60)
    st = g.init(64, seed=21)
    ids = range(-3, NUM_ACTIONS + 3)
    bad_ser = np.zeros(64, np.bool_)
    bad_par = np.zeros(64, np.bool_)
    for ply in range(150):
        mask = g.legal_mask(st)
        running = st.status == 0
        S = st.arrays()
        for a in ids:
            acts = np.full(64, a, dtype=np.int64)
            n_ser = K._validate_ser(S, acts, bad_ser)
            n_par = K._validate_par(S, acts, bad_par)
            out_of_range = a < -1 or a >= NUM_ACTIONS
            illegal = ~mask[:, a] if 0 <= a < NUM_ACTIONS else np.ones(64, np.bool_)
            expected = np.where(running, illegal, out_of_range)
            np.testing.assert_array_equal(bad_ser, expected, err_msg=f"id {a}, ply {ply}")
            np.testing.assert_array_equal(bad_par, expected, err_msg=f"id {a}, ply {ply}")
            assert n_ser == n_par == expected.sum()
        g.step(st, g.random_actions(st), auto_reset=ply % 3 != 0)  # some finished games stay


def test_division_by_three_of_the_vector_check() -> None:
    """``legal._div3`` (a multiply and a shift) is t // 3 for every tile nibble 0..15."""
    from envs.proteus.legal import _div3

    assert [_div3(t) for t in range(16)] == [t // 3 for t in range(16)]


def test_one_place_chooses_serial_or_parallel() -> None:
    assert loops.choose(1) == "serial"
    assert loops.choose(loops.SINGLE_THREAD_MIN_BATCH) == "one thread"
    assert K.PARALLEL_MIN_BATCH == loops.PARALLEL_MIN_BATCH  # the old name still works


# The rules tests' positions with their exact legal sets (tests/proteus/test_proteus_rules.py):
# the learner step's masks, bool and packed, must hold exactly these sets.
_SHAPE_SWAPS = {
    "b1<>a3", "c2<>a3", "b1<>c2", "a2<>b3", "c1<>a2", "c1<>b3", "b2<>c3", "a1<>b2", "a1<>c3",
}  # fmt: skip
_POOL_ON_EMPTY = {
    f"{t}@{sq}" for t in ["To", "Ts", "Tt", "Go", "Gt"] for sq in ["b2", "c2", "a1", "b1", "c1"]
}
LEARNER_MASK_CASES = {
    # PR-8: pool tiles on every empty square, the one piece put the rules allow
    "pr8-placement": ("Ms+:bs,Mt:bo,Gs+:ws/Mo,.,./.,.,. b 6/200", _POOL_ON_EMPTY | {"t@a2"}),
    # PR-9: no matching piece on the vacant tile of a colour with a face-up tile
    "pr9": (
        "Mo+:bo,Ms,Tt/.,.,./.,.,. w 3/200",
        {
            f"{t}@{sq}"
            for t in ["Mt", "To", "Ts", "Go", "Gs", "Gt"]
            for sq in ["a2", "b2", "c2", "a1", "b1", "c1"]
        }
        | {"o@b3", "t@b3", "o@c3", "s@c3", "t@c3"},
    ),
    # PR-10: the last piece must activate gold
    "pr10": ("Mo+:wo,Ts+:bs,Gs:wt/Ms:bt,Go,Tt:ws/Mt,To,Gt b 11/200", {"o@b2"}),
    # PR-11: nothing to place, the pass alone
    "pr11": ("Mo+:wo,Ts+:bs,Gs:wt/Ms:bt,Go,Tt:ws/Mt,To,Gt w 11/200", {"pass"}),
    # PR-12: KING moves and SHAPE exchanges (movement phase: words 1-3 of the packed mask)
    "pr12-king": (
        "Mo+:bo,Ts,Gt/Ms:ws,Tt+:bt,Go+:wo/Mt:wt,To:bs,Gs b 40/200",
        {"a3-b3", "b2-b3", "b2-c3", "b2-c1", "b1-c1"} | _SHAPE_SWAPS,
    ),
    # PR-12: ROOK moves jump over pieces
    "pr12-rook": (
        "Mo:bo,Ts,Gt/Ms+:ws,Tt+:bt,Go+:wo/Mt:wt,To:bs,Gs b 40/200",
        {"a3-b3", "a3-c3", "b2-b3", "b1-c1", "b1-b3"} | _SHAPE_SWAPS,
    ),
}


@pytest.mark.parametrize("bits", [False, True], ids=["bool", "packed"])
@pytest.mark.parametrize("dense", [False, True], ids=["planes", "dense"])
@pytest.mark.parametrize("case", list(LEARNER_MASK_CASES), ids=list(LEARNER_MASK_CASES))
def test_learner_masks_hold_the_exact_legal_sets(case: str, dense: bool, bits: bool) -> None:
    """``learner_view`` of a position: the bool mask and the packed words (``mask_bits``,
    unpacked) hold exactly the rules tests' legal sets (PR-8 .. PR-12; the pass alone
    under PR-11), in either observation encoding. (Masks written by ``learner_step`` are
    held to ``legal_mask`` on random games in ``tests/contract/test_board_facades.py``.)"""
    from envs.proteus.notation import action_to_str

    text, expected = LEARNER_MASK_CASES[case]
    g = ProteusBatch()
    st = g.from_text(text)
    out = g.learner_buffers(1, dense=dense, mask_bits=bits)
    assert out.mask_bits == bits
    g.learner_view(st, out)
    legal = {action_to_str(int(a)) for a in np.flatnonzero(out.bool_mask(NUM_ACTIONS)[0])}
    assert legal == expected
