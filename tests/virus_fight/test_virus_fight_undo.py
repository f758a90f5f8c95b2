"""The validated steps check each action as they apply it and undo the batch on a failure
(``envs/virus_fight/undo.py``): a rejected batch is byte-identical to the batch before,
the validated step plays the same games as the unvalidated one, and VF-17 history slots
after ``I_HLEN`` stay zero (what the undo relies on)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envs.virus_fight import kernel as K
from envs.virus_fight.batch import VirusFightBatch


def _same(a, b) -> bool:
    return all(
        x.shape == y.shape and np.array_equal(x, y)
        for x, y in zip(a.arrays(), b.arrays(), strict=True)
    )


def _illegal_for(game: VirusFightBatch, state, i: int, rng: np.random.Generator) -> int:
    mask = game.legal_mask(state)
    return int(rng.choice(np.flatnonzero(~mask[i])))


@settings(max_examples=12, deadline=None)
@given(
    players=st.sampled_from([2, 3, 4]),
    seed=st.integers(0, 2**31),
    plies=st.integers(0, 160),
    learner=st.booleans(),
)
def test_a_rejected_step_leaves_every_array_as_it_was(players, seed, plies, learner) -> None:
    """Issue 11: one illegal action among legal ones (a random game, at a random point of
    random games that end and restart, VF-16/VF-17) -> ValueError and the batch unchanged,
    round starts and endings of the other games included."""
    game = VirusFightBatch(players, max_rounds=12)
    state = game.init(96, seed)
    out = game.learner_buffers(96)
    for _ in range(plies):
        game.step(state, game.random_actions(state), auto_reset=True)
    rng = np.random.default_rng(seed)
    running = np.flatnonzero(~game.terminated(state))
    i = int(rng.choice(running))
    actions = game.random_actions(state)
    actions[i] = _illegal_for(game, state, i, rng)
    before = game.copy(state)
    with pytest.raises(ValueError, match=f"game {i}"):
        if learner:
            game.learner_step(state, actions, out)
        else:
            game.step(state, actions, auto_reset=True)
    assert _same(before, state)


def test_validated_and_unvalidated_steps_play_the_same_games() -> None:
    """The check changes nothing when every action is legal: rewards, done flags, learner
    rows and every state array equal, with auto-reset (VF-16) and round limits (VF-17)."""
    for players in (2, 3, 4):
        game = VirusFightBatch(players, max_rounds=10)
        a = game.init(64, 3)
        b = game.copy(a)
        oa, ob = game.learner_buffers(64, dense=True), game.learner_buffers(64, dense=True)
        for t in range(300):
            acts = game.random_actions(a)
            assert np.array_equal(acts, game.random_actions(b))
            if t % 2:
                ra, da = game.step(a, acts, auto_reset=True)
                rb, db = game.step(b, acts, auto_reset=True, validate=False)
                assert np.array_equal(ra, rb) and np.array_equal(da, db)
            else:
                game.learner_step(a, acts, oa)
                game.learner_step(b, acts, ob, validate=False)
                for f in ("obs", "mask", "rewards", "done", "seat"):
                    assert np.array_equal(getattr(oa, f), getattr(ob, f)), f
        assert _same(a, b)


def test_history_slots_after_the_records_in_use_stay_zero() -> None:
    """VF-17 records: a game that ends (by the round limit, by repetition or by the last
    player standing) leaves no record behind for the next game in its row."""
    game = VirusFightBatch(2, max_rounds=6)
    state = game.init(128, 9)
    finished = 0
    for _ in range(400):
        _, done = game.step(state, game.random_actions(state), auto_reset=True)
        finished += int(done.sum())
    game.selfplay(state, 200)
    hlen = state.info[:, K.I_HLEN]
    assert finished > 50
    for b in range(state.batch_size):
        assert not state.hist[b, hlen[b] :].any()


def test_the_undo_row_restores_a_game_exactly() -> None:
    """Save, step, restore: the kernel pair used on a failure gives every applied game back
    bit for bit, the board undone from the action itself (a put back into the supply, a
    MOVE back, an ERASE's captured piece back on its cell; VF-10, VF-14), the markers and
    info of eliminations and round starts (VF-15..VF-17) from the row."""
    game = VirusFightBatch(3, max_rounds=8)
    state = game.init(200, 4)
    o_move, o_erase, o_mark = (K.action_offsets(game.board_size)[i] for i in (1, 2, 3))
    undo = np.zeros((200, K.UNDO_WORDS), np.uint64)
    rew = np.zeros((200, 3), np.float32)
    done = np.zeros(200, np.bool_)
    flags = np.zeros(200, np.uint8)
    groups = {"put": 0, "move": 0, "capture": 0, "erase empty": 0, "marker": 0, "pass": 0}
    for ply in range(120):
        actions = game.random_actions(state)  # (draws from the games' keys)
        applied = ~game.terminated(state)
        i = int(np.flatnonzero(applied)[ply % 7])
        actions[i] = _illegal_for(game, state, i, np.random.default_rng(ply))
        applied[i] = False
        for b in np.flatnonzero(applied):
            a = int(actions[b])
            if a < o_move:
                groups["put"] += 1
            elif a < o_erase:
                groups["move"] += 1
            elif a < o_mark:
                groups["capture" if state.cells[b, a - o_erase] >= 0 else "erase empty"] += 1
            else:
                groups["marker" if a < game.num_actions - 1 else "pass"] += 1
        before = game.copy(state)
        s = state.arrays()
        nbad = K.step_serial(*s, game.seg, game.cfg, actions, True, True, rew, done, flags, undo)
        assert nbad == 1 and np.array_equal(np.flatnonzero(flags & K.BAD), [i])
        assert _same(before, state)
        assert np.array_equal((flags & K.APPLIED) != 0, applied)  # applied, then undone
        game.step(state, game.random_actions(state), auto_reset=True)
    assert min(groups.values()) > 0, groups
