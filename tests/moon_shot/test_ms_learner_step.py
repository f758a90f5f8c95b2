"""The fused learner step of Moon Shot's batch facades (envs/moon_shot/batch.py).

Same names and semantics as the board facades (``envs/core/batch.LearnerBuffers``):
validated continuous actions in (MS-5), one shot per running game (MS-14..MS-17, solo
MS-21), auto-reset of finished games, then the observation of the seat to move, the
rewards and done flags in caller-owned buffers; no legal mask (``mask`` is None).
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.moon_shot.batch import MoonShotBatch, MoonShotSoloBatch, check_batch

FACADES = [
    pytest.param(lambda: MoonShotBatch(num_players=2, max_rounds=2), id="turn-2p"),
    pytest.param(lambda: MoonShotBatch(num_players=3, max_rounds=2, target_score=3), id="turn-3p"),
    pytest.param(lambda: MoonShotSoloBatch(max_shots=3), id="solo"),
]


def _arrays(state: object) -> dict[str, np.ndarray]:
    return {k: v.copy() for k, v in state.__dict__.items()}


def _same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("make", FACADES)
def test_learner_step_equals_step_auto_reset_then_observe(make) -> None:
    """Under one seed the fused step plays the same games as step(auto_reset) + observe
    of the seat to move, and writes the same rewards and done flags (MS-14..MS-17, MS-21)."""
    g = make()
    fused, plain = g.init(16, seed=3), g.init(16, seed=3)
    out = g.learner_buffers(16)
    assert out.mask is None and out.obs.dtype == np.float32
    assert g.learner_view(fused, out) is out
    assert np.array_equal(out.obs, g.observe(plain, np.zeros(16, np.int64)))
    ended = 0
    for _ in range(8):  # past the end of every game: the auto-reset is exercised
        a = g.random_actions(plain)
        assert np.array_equal(a, g.random_actions(fused))
        rewards, done = g.step(plain, a, auto_reset=True)
        g.learner_step(fused, a, out)
        seat = np.maximum(g.current_player(plain), 0)
        assert _same(_arrays(fused), _arrays(plain))
        assert np.array_equal(out.rewards, rewards) and np.array_equal(out.done, done)
        assert np.array_equal(out.seat, seat)
        assert np.array_equal(g.decode(out.obs), g.observe(plain, seat))
        assert not out.bad.any()
        ended += int(done.sum())
    assert ended > 0  # some games ended and restarted
    assert not g.terminated(fused).any()  # auto-reset: every game runs again


def test_learner_rewards_are_the_final_rewards_of_the_ended_games() -> None:
    """MS-16/MS-17: with one round, every game ends by its second shot and pays its final
    rewards in the step that ends it (0 in the others); the games restart at once."""
    g = MoonShotBatch(num_players=2, max_rounds=1)
    fused, plain = g.init(8, seed=1), g.init(8, seed=1)
    out = g.learner_buffers(8)
    paid = np.zeros((8, 2), np.float32)
    ended = np.zeros(8, bool)
    for _ in range(2):
        a = g.random_actions(plain)
        g.shoot(plain, a)
        g.learner_step(fused, a, out)
        now = out.done & ~ended
        assert (out.rewards[~out.done] == 0).all()
        paid[now] = out.rewards[now]
        ended |= out.done
    assert ended.all() and plain.done.all()
    assert np.array_equal(paid, plain.rewards.astype(np.float32))
    assert (fused.turn == 0).all() and (out.seat == 0).all()  # restarted at once


@pytest.mark.parametrize("make", FACADES)
@pytest.mark.parametrize(
    "bad",
    [np.nan, np.inf, -np.inf, 1.5, -1.0000001],
    ids=["nan", "inf", "-inf", "over", "under"],
)
def test_bad_actions_are_rejected_with_the_batch_unchanged(make, bad) -> None:
    """MS-5: a non-finite or out-of-range entry raises ValueError naming the game; no
    game changes (learner_step and step alike) and ``out.bad`` marks the row."""
    g = make()
    st = g.init(5, seed=9)
    g.step(st, g.random_actions(st))
    before = _arrays(st)
    out = g.learner_buffers(5)
    a = g.random_actions(st)
    a[3, 2] = bad
    with pytest.raises(ValueError, match=r"game 3"):
        g.learner_step(st, a, out)
    assert _same(_arrays(st), before)
    assert out.bad.tolist() == [False, False, False, True, False]
    with pytest.raises(ValueError, match=r"MS-5"):
        g.step(st, a)
    assert _same(_arrays(st), before)
    with pytest.raises(ValueError, match=r"game 3"):
        g.shoot(st, a)  # the raw turn loop checks too
    assert _same(_arrays(st), before)


@pytest.mark.parametrize(
    "actions",
    [
        np.zeros((4, 4)),  # wrong batch
        np.zeros((5, 3)),  # wrong action size
        np.zeros(20),  # flat
        np.zeros((5, 4), complex),  # complex
        np.full((5, 4), "x"),  # not numeric
        [[0.0, 0.0, 0.0, None]] * 5,  # object
        np.full((5, 4), "0.5"),  # numeric text is text too
        np.zeros((5, 4), bool),  # booleans are no shots
    ],
    ids=["batch", "size", "flat", "complex", "text", "none", "numeric-text", "bool"],
)
def test_malformed_actions_are_rejected(actions) -> None:
    g = MoonShotBatch()
    st = g.init(5, seed=0)
    before = _arrays(st)
    with pytest.raises(ValueError, match="moon_shot"):
        g.learner_step(st, actions, g.learner_buffers(5))
    with pytest.raises(ValueError, match="moon_shot"):
        g.shoot(st, actions)
    assert _same(_arrays(st), before)


def test_buffers_are_checked_and_sized() -> None:
    g = MoonShotBatch(num_players=3)
    out = g.learner_buffers(4)
    assert out.obs.shape == (4, 16) and out.rewards.shape == (4, 3)
    assert out.bytes_per_step() == 16 * 4 + 3 * 4 + 1 + 8  # obs, rewards, done, seat
    st = g.init(5, seed=0)
    with pytest.raises(ValueError, match="learner buffer 'obs'"):
        g.learner_step(st, g.random_actions(st), out)
    with pytest.raises(ValueError, match="learner buffer 'obs'"):
        g.learner_view(st, MoonShotSoloBatch().learner_buffers(5))
    with pytest.raises(ValueError, match="batch_size"):
        g.learner_buffers(-1)


def test_decode_is_a_float_copy() -> None:
    g = MoonShotSoloBatch()
    out = g.learner_view(g.init(2, seed=0), g.learner_buffers(2))
    obs = g.decode(out.obs)
    assert obs.dtype == np.float32 and np.array_equal(obs, out.obs)
    obs[:] = -1
    assert not np.array_equal(obs, out.obs)  # the buffers are reused: the learner's copy


def test_validate_false_skips_the_check_only() -> None:
    g = MoonShotBatch()
    a, b = g.init(6, seed=4), g.init(6, seed=4)
    acts = g.random_actions(a)
    g.learner_step(a, acts, g.learner_buffers(6), validate=False)
    g.step(b, acts, auto_reset=True)
    assert _same(_arrays(a), _arrays(b))


def test_check_batch_message_lists_the_games() -> None:
    a = np.zeros((12, 4))
    a[1:11, 0] = 2.0
    with pytest.raises(ValueError, match=r"10 action\(s\).*game 1: .* and 2 more"):
        check_batch(a, 12)
    assert check_batch(a[:1], 1).flags.c_contiguous


def test_learner_buffers_take_the_board_facades_keywords() -> None:
    """``dense`` is accepted (the float features are already dense), ``mask_bits`` refused
    with the reason (continuous actions have no mask), as one consumer asks every game."""
    g = MoonShotBatch(num_players=2)
    out = g.learner_buffers(3, dense=True)
    assert out.mask is None and out.obs.shape == (3, *g.obs_shape)
    assert not out.mask_bits
    with pytest.raises(ValueError, match="continuous: no legal mask to pack"):
        g.learner_buffers(3, mask_bits=True)
