"""The lookahead flags (envs.proteus.lookahead): concrete positions and a differential check.

Concrete positions are the rules tests' (PR-15, PR-16, PR-17); the property test replays
every legal action (and every reply) through the batch facade's ``step`` and compares the
outcome with the flags, over random games.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envs.proteus.batch import ProteusBatch, state_from_text
from envs.proteus.constants import NUM_ACTIONS
from envs.proteus.lookahead import (
    DRAW_NOW,
    LOSE_NOW,
    N_FLAGS,
    OPPONENT_WINS_NEXT,
    WIN_NOW,
    ProteusLookaheadBatch,
    lookahead,
)
from envs.proteus.notation import action_to_str, str_to_action

# positions of tests/proteus/test_proteus_rules.py
M1 = "Mo+:bo,Ts,Gt/Ms:ws,Tt+:bt,Go+:wo/Mt:wt,To:bs,Gs b 40/200"  # THREE-IN-LINE goal
P1 = "Ms+:bs,Mt:bo,Gs+:ws/Mo,.,./.,.,. b 6/200"  # placement, COLOUR goal
S2 = "Ms:bt,Mt,Gt+/Mo+:ws,Ts:bs,Go:wo/To:wt,Tt+,Gs:bo b 30/200"  # SHAPE goal, both meet it


def flagged(text: str, flag: int, seat: int | None = None) -> set[str]:
    st_ = state_from_text(text)
    seat = int(st_.player[0]) if seat is None else seat
    f = lookahead(st_, np.array([seat]))[0]
    return {action_to_str(int(a)) for a in np.flatnonzero(f[flag])}


def test_win_now_three_in_line_pr15() -> None:
    # black o a3, t b2, s b1: a3-b3 makes the b column. b1-c1 makes the a3-c1 diagonal
    # but puts the square on Gs, which turns the goal to COLOUR (PR-6) before PR-16 looks
    assert flagged(M1, WIN_NOW) == {"a3-b3"}
    assert flagged(M1, LOSE_NOW) == set()
    assert flagged(M1, DRAW_NOW) == set()


def test_win_now_in_the_placement_phase_pr16() -> None:
    # the third black piece on Mo puts black's three pieces on brown tiles (COLOUR goal)
    assert flagged(P1, WIN_NOW) == {"t@a2"}


def test_lose_now_when_the_move_completes_the_opponents_goal_pr16() -> None:
    # a3-b3 leaves black on no single shape while white stands on three circles
    assert "a3-b3" in flagged(S2, LOSE_NOW)
    assert "b3<>c3" not in flagged(S2, LOSE_NOW) | flagged(S2, WIN_NOW)  # both meet: goes on


def test_draw_now_third_occurrence_pr17() -> None:
    e = ProteusBatch()
    st_ = e.from_text(M1)
    for _ in range(3):
        e.step(st_, np.array([str_to_action("c1<>b3")]))
    text = e.to_text(st_)  # white to move; c1<>b3 brings M1 back a third time
    assert flagged(text, DRAW_NOW) == {"c1<>b3"}


def test_draw_now_turn_limit_pr17() -> None:
    text = M1.replace("40/200", "199/200")  # the 200th turn: every move but a win draws
    legal = {
        action_to_str(int(a))
        for a in np.flatnonzero(ProteusBatch().legal_mask(state_from_text(text))[0])
    }
    assert flagged(text, WIN_NOW) == {"a3-b3"}
    assert flagged(text, DRAW_NOW) == legal - {"a3-b3"}
    assert flagged(text, OPPONENT_WINS_NEXT) == set()


def test_rows_of_the_seat_not_to_move_and_of_finished_games_are_zero() -> None:
    assert all(not flagged(M1, f, seat=1) for f in range(N_FLAGS))
    g = ProteusBatch()
    st_ = g.from_text(M1)
    g.step(st_, np.array([str_to_action("a3-b3")]))  # black wins
    assert not lookahead(st_, np.array([0])).any() and not lookahead(st_, np.array([1])).any()


def test_seats_must_match_the_batch() -> None:
    with pytest.raises(ValueError, match="seats has 2 entries for a batch of 1"):
        lookahead(state_from_text(M1), np.array([0, 1]))


def test_lookahead_facade_observation_is_planes_then_flags() -> None:
    g = ProteusLookaheadBatch()
    st_ = g.from_text(M1)
    obs = g.observe(st_, np.array([0]))
    assert obs.shape == (1, 315 + N_FLAGS * NUM_ACTIONS) == (1, *g.obs_shape)
    np.testing.assert_array_equal(
        obs[0, :315], ProteusBatch().observe(st_, np.array([0]))[0].ravel()
    )
    flags = obs[0, 315:].reshape(N_FLAGS, NUM_ACTIONS)
    assert {action_to_str(int(a)) for a in np.flatnonzero(flags[WIN_NOW])} == {"a3-b3"}


def _outcome_flags(g: ProteusBatch, st_, b: int, legal: np.ndarray) -> np.ndarray:
    """The flags of game b computed the slow way: facade steps of every action and reply."""
    want = np.zeros((N_FLAGS, NUM_ACTIONS), np.float32)
    p = int(st_.player[b])
    one = g.take(st_, np.array([b]))
    actions = np.flatnonzero(legal)
    kids = g.take(one, np.zeros(len(actions), np.int64))
    r, d = g.step(kids, actions)
    for k, a in enumerate(actions):
        if d[k]:
            want[WIN_NOW if r[k, p] > 0 else LOSE_NOW if r[k, p] < 0 else DRAW_NOW, a] = 1
            continue
        kid = g.take(kids, np.array([k]))
        replies = np.flatnonzero(g.legal_mask(kid)[0])
        grand = g.take(kid, np.zeros(len(replies), np.int64))
        r2, d2 = g.step(grand, replies)
        want[OPPONENT_WINS_NEXT, a] = float(np.any(d2 & (r2[:, 1 - p] > 0)))
    return want


@settings(max_examples=15)
@given(seed=st.integers(0, 2**31 - 1), plies=st.integers(0, 60))
def test_flags_agree_with_playing_every_action_and_reply(seed: int, plies: int) -> None:
    g = ProteusBatch()
    st_ = g.init(8, seed)
    for _ in range(plies):  # random legal play; finished games restart (auto-reset)
        g.random_step(st_, 1)
    seats = np.maximum(g.current_player(st_), 0)
    got = lookahead(st_, seats)
    mask = g.legal_mask(st_)
    for b in range(8):
        if st_.status[b] != 0:
            assert not got[b].any()
            continue
        np.testing.assert_array_equal(
            got[b], _outcome_flags(g, st_, b, mask[b]), err_msg=f"game {b}"
        )
