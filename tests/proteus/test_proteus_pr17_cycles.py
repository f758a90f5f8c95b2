"""PR-17 position identity: the player to move is part of the position.

The rules tests of PR-17 repeat one self-reversing exchange, so a board only ever recurs
with the same player to move. Here BLACK's triangle cycles c2-b2-c3-c2 (three KING moves,
PR-12) while WHITE swaps a1<>b1 back and forth (COLOUR exchange of two turquoise tiles):
a 3-cycle against a 2-cycle. The board of the start recurs after 5 turns with WHITE to
move -- a different position -- and the start position itself (BLACK to move) only after
12 and 24 turns: the third occurrence, and the draw, comes at turn 24, not 12.
Nothing activates on the way (no piece meets a face-down tile of its shape, PR-6) and
neither player meets the SHAPE goal (PR-15), so only PR-17 can end the game.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.proteus import kernel as K
from envs.proteus.batch import state_from_text
from envs.proteus_v0 import raw_env

# KING (Mo), COLOUR exchange (Ts), SHAPE goal (Gt) face up. Black: s b3, o a2, t c2;
# white: o a3, s a1, t c1. Vacant: c3 (Gs), b2 (Go), b1 (To).
START = "Mo+:wo,Ts+:bs,Gs/Mt:bo,Go,Ms:bt/Tt:ws,To,Gt+:wt b 40/200"
CYCLE = ("c2-b2", "b2-c3", "c3-c2")


def _load(text: str) -> raw_env:
    e = raw_env()
    e.reset(options={"position": text})
    return e


def _turn(e: raw_env, k: int) -> None:
    """Turn k (0-based) of the cycle: black's piece moves on, white exchanges a1<>b1."""
    e.step(e.str_to_action(CYCLE[(k // 2) % 3] if k % 2 == 0 else "a1<>b1"))


def _board(e: raw_env) -> str:
    return e.to_text().split()[0]


def _repetitions(e: raw_env) -> float:
    """Observation plane 34: (occurrences of the current position - 1) / 2."""
    return float(e.observe("black")["observation"][0, 0, 34])


def test_pr17_start_position_legal_moves() -> None:
    e = _load(START)
    assert set(e.legal_moves()) == {
        "c2-b2", "c2-c3", "c2-b1", "b3-b2", "b3-c3", "a2-b2", "a2-b1",  # KING
        "a2<>a3", "a2<>c2", "a1<>b1", "a1<>b3", "b1<>b3", "b2<>c3", "c1<>b2", "c1<>c3", "c2<>a3",
    }  # fmt: skip


def test_pr17_same_board_other_player_to_move_is_not_a_repetition() -> None:
    e = _load(START)
    for k in range(5):
        _turn(e, k)
    assert _board(e) == START.split()[0] and e.agent_selection == "white"
    assert _repetitions(e) == 0.0  # first occurrence of (board, WHITE to move)
    a = state_from_text(START)
    b = state_from_text(e.to_text())
    assert K.key_of(a, 0) != K.key_of(b, 0)  # the packed positions differ in the mover only
    assert K.key_of(a, 0) ^ K.key_of(b, 0) == 1 << 62


def test_pr17_odd_cycle_draws_at_the_third_occurrence_only() -> None:
    """Turns 1..23 go on (under a key without the mover, turn 12 would be the third
    occurrence of the start board); turn 24 recreates START for the third time."""
    e = _load(START)
    seen: dict[tuple[str, str], int] = {(START.split()[0], "black"): 1}
    for k in range(24):
        _turn(e, k)
        pos = (_board(e), e.agent_selection)
        seen[pos] = seen.get(pos, 0) + 1
        assert _repetitions(e) == (seen[pos] - 1) / 2, k + 1
        if k + 1 < 24:
            assert e.state_status == "ongoing", k + 1
    assert seen[(START.split()[0], "black")] == 3
    assert len(seen) == 12  # six boards, each with either player to move
    assert e.state_status == "draw (repetition)"
    assert e.rewards == {"black": 0.0, "white": 0.0}


def test_pr17_odd_cycle_restored_from_text_midway() -> None:
    """The text after turn 7 carries the history: the restored game draws at turn 24 too."""
    e = _load(START)
    for k in range(7):
        _turn(e, k)
    e2 = _load(e.to_text())
    for k in range(7, 24):
        assert e2.state_status == "ongoing", k
        _turn(e2, k)
    assert e2.state_status == "draw (repetition)"


def test_pr17_odd_cycle_in_the_batch_kernel() -> None:
    """The same 24 turns through ProteusBatch.step: status 3 (repetition) at turn 24 only."""
    e = _load(START)
    actions = []
    for k in range(24):
        actions.append(e.str_to_action(CYCLE[(k // 2) % 3] if k % 2 == 0 else "a1<>b1"))
        _turn(e, k)
    st = state_from_text(START)
    for k, a in enumerate(actions):
        _, done = K.step(st, np.array([a]))
        assert bool(done[0]) == (k == 23), k + 1
    assert int(st.status[0]) == 3 and int(st.turn[0]) == 64


def test_pr17_history_row_shorter_than_max_turns_plus_one_is_refused() -> None:
    """PR-17 needs every position since the last placement: a custom history row shorter
    than max_turns + 1 (the empty board and one position per turn) could fill before the
    game ends and miss a third occurrence, so ``new_state`` refuses it by name."""
    with pytest.raises(ValueError, match=r"history must hold at least max_turns \+ 1 = 201"):
        K.new_state(1, max_turns=200, history=8)
    with pytest.raises(ValueError, match=r"max_turns \+ 1 = 41"):
        K.new_state(1, max_turns=40, history=40)
    assert K.new_state(2, max_turns=40, history=41).hist.shape == (2, 41)
    assert K.new_state(2, max_turns=40, history=64).hist.shape == (2, 64)
