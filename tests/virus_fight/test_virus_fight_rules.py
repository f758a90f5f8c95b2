"""One or more concrete-position tests per Virus Fight rule (VF-1..VF-18, notation).

Positions are written as ranks from the top; exact legal-move sets are asserted in the
rules file's notation.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.virus_fight import kernel as K
from envs.virus_fight.env import raw_env
from tests.virus_fight.vf_positions import adjudicated, legal, load, play

PIECES = [f"{k}{s}" for k in "MWJE" for s in (1, 2, 3)]
EMPTY5 = ". . . . ."


def test_vf1_players_two_to_four() -> None:
    for p in (2, 3, 4):
        assert raw_env(num_players=p).possible_agents == [f"player_{i}" for i in range(p)]
    for bad in (1, 5, 0, "2", 2.0, True):
        with pytest.raises(ValueError, match="num_players"):
            raw_env(num_players=bad)  # type: ignore[arg-type]


def test_vf2_supply_one_of_each_kind_and_size() -> None:
    e = raw_env(num_players=3)
    e.reset(seed=1)
    assert "supply=" + ",".join(["111111111111"] * 3) in e.to_text()
    assert e.state_arrays.supply[0, :3].sum() == 36


def test_vf2_captured_piece_joins_capturer_supply_even_as_duplicate() -> None:
    # seat 0 holds its own W2 and captures the other W2
    e = load(
        [EMPTY5, EMPTY5, EMPTY5, ". . . . J1", "E1 W2 . . J2"],
        ["a1", "e2"],
        supply={1: ""},  # seat 0 holds everything left, its own W2 included
    )
    play(e, "xb1")
    assert e.state_arrays.supply[0, 0, 4] == 2  # W2 twice


def test_vf3_marker_step_skips_marked_instruction() -> None:
    # seat 0 on a1; b1 carries seat 1's marker, a2 free
    e = load([EMPTY5, EMPTY5, EMPTY5, "M1 . . . .", "W1 J1 . . ."], ["a1", "b1"], phase="step")
    assert legal(e) == {"*a2"}


def test_vf4_board_sizes() -> None:
    assert raw_env(num_players=2).board_size == 5
    assert raw_env(num_players=3).board_size == 6
    assert raw_env(num_players=4).board_size == 7
    assert raw_env(num_players=2, board_size=8).num_actions == 64 * 64 + 14 * 64 + 1
    for bad in (4, 9, "5", 5.5):
        with pytest.raises(ValueError, match="board_size"):
            raw_env(board_size=bad)  # type: ignore[arg-type]


def test_vf5_blocks_are_orthogonal_not_diagonal() -> None:
    # WRITE on a1: b2 touches a1 only diagonally, so its neighbours are no targets
    e = load(
        [EMPTY5, EMPTY5, EMPTY5, ". M1 . . .", "W1 . . . J1"],
        ["a1", "e1"],
        supply={0: "E3"},
    )
    assert legal(e) == {"E3@a2", "E3@b1", "pass"}


def test_vf6_shared_active_block_moves_any_unprotected_piece() -> None:
    # both markers in one block (a1 for seat 0, c1 for seat 1); seat 0 may move b1 or b2
    e = load(
        [EMPTY5, EMPTY5, EMPTY5, ". W2 . . .", "M1 J1 J2 . ."],
        ["a1", "c1"],
    )
    moves = legal(e)
    assert {m.split("-")[0] for m in moves if "-" in m} == {"b1", "b2"}
    assert moves == {
        "b1-a2", "b1-c2", "b1-d1",  # rest {a1, b2, c1}: a2, c2, d1, b3 (b1 itself not empty)
        "b1-b3",
        "b2-a2", "b2-c2", "b2-d1",  # rest {a1, b1, c1}
        "pass",
    }  # fmt: skip


def test_vf7_jump_to_empty_block_but_not_to_another_active_block() -> None:
    e = load(
        [". . . M3 J1", ". E1 . . .", ". W1 . . .", EMPTY5, "J2 M1 . . ."],
        ["a1", "e5"],
    )
    # own block {a1, b1}: b1; empty block {b3, b4}; d5 is in seat 1's active block
    assert legal(e) == {"*b1", "*b3", "*b4"}


def test_vf8_protected_pieces_cannot_be_moved_or_erased() -> None:
    # MOVE: a2 carries seat 1's marker, a1 seat 0's: only b1 may move
    e = load([EMPTY5, EMPTY5, EMPTY5, "J1 . . . .", "M1 W1 . . ."], ["a1", "a2"])
    assert legal(e) == {"b1-a3", "b1-b2", "pass"}
    # ERASE: the marked neighbour is never a target
    e = load([EMPTY5, EMPTY5, EMPTY5, "J1 . . . .", "E1 W1 . . ."], ["a1", "a2"])
    assert legal(e) == {"xb1"}


def test_vf9_home_segments_two_players() -> None:
    e = raw_env(num_players=2)
    e.reset(seed=0)
    assert legal(e) == {f"{p}@{f}1" for p in PIECES for f in "abcde"}
    play(e, "M1@a1", "*a1")
    assert legal(e) == {f"{p}@{f}5" for p in PIECES for f in "abcde"}


@pytest.mark.parametrize(
    ("players", "squares"),
    [
        (3, [["b1", "c1", "d1", "e1"], ["a2", "a3", "a4", "a5"], ["b6", "c6", "d6", "e6"]]),
        (
            4,
            [
                ["b1", "c1", "d1", "e1", "f1"],
                ["a2", "a3", "a4", "a5", "a6"],
                ["b7", "c7", "d7", "e7", "f7"],
                ["g2", "g3", "g4", "g5", "g6"],
            ],
        ),
    ],
)
def test_vf9_home_segments_without_corners(players: int, squares: list[list[str]]) -> None:
    e = raw_env(num_players=players)
    e.reset(seed=0)
    for seat in range(players):
        assert legal(e) == {f"{p}@{sq}" for p in PIECES for sq in squares[seat]}, seat
        play(e, f"W1@{squares[seat][0]}", f"*{squares[seat][0]}")


def test_vf10_program_is_contiguous_run_and_needs_marker() -> None:
    e = raw_env(num_players=2)
    e.reset(seed=0)
    play(e, "J2@c1")
    rest = [p for p in PIECES if p != "J2"]
    assert legal(e) == {f"{p}@{sq}" for p in rest for sq in ("b1", "d1")} | {"*c1"}
    play(e, "M1@d1", "E3@b1")
    rest = [p for p in rest if p not in ("M1", "E3")]
    assert legal(e) == {f"{p}@{sq}" for p in rest for sq in ("a1", "e1")} | {
        "*b1",
        "*c1",
        "*d1",
    }
    play(e, "W1@a1", "W2@e1")  # five: only the marker remains
    assert legal(e) == {"*a1", "*b1", "*c1", "*d1", "*e1"}


def test_vf10_program_at_most_segment_length_three_players() -> None:
    e = raw_env(num_players=3)
    e.reset(seed=0)
    play(e, "M1@b1", "M2@c1", "M3@d1", "W1@e1")
    assert legal(e) == {"*b1", "*c1", "*d1", "*e1"}


def test_vf11_hidden_setup_observations() -> None:
    """Seat 1's observation does not depend on seat 0's program (not even its size)."""
    obs = []
    for prog in (["M1@a1", "*a1"], ["J3@b1", "E2@c1", "W1@d1", "*c1"]):
        e = raw_env(num_players=2)
        e.reset(seed=0)
        play(e, *prog)
        o = e.observe("player_1")
        obs.append((o["observation"].copy(), o["action_mask"].copy()))
    assert np.array_equal(obs[0][0], obs[1][0])
    assert np.array_equal(obs[0][1], obs[1][1])
    # seat 0's view while seat 1 writes shows none of seat 1's pieces or supply
    e = raw_env(num_players=2)
    e.reset(seed=0)
    play(e, "M1@a1", "*a1", "E3@c5")
    o = e.observe("player_0")["observation"]
    assert o[:12].sum() == 1 and o[11, 0, 2] == 0
    assert o[12 + 2 + 12 : 12 + 2 + 24].sum() == 0  # the other supply planes are empty
    # once all programs are complete everything is revealed
    play(e, "*c5")
    o = e.observe("player_0")["observation"]
    assert o[11, 0, 2] == 1 and o[0, 4, 0] == 1


def _setup(e: raw_env, *programs: list[str]) -> None:
    for prog in programs:
        play(e, *prog)


def test_vf12_fewest_instructions_first() -> None:
    e = raw_env(num_players=2)
    e.reset(seed=0)
    _setup(e, ["M1@a1", "W1@b1", "*a1"], ["W3@c5", "*c5"])
    assert e.agent_selection == "player_1"
    assert e.state_arrays.info[0, K.I_FIRST] == 1


def test_vf12_tie_lowest_pips_then_largest_marked() -> None:
    e = raw_env(num_players=2)
    e.reset(seed=0)
    _setup(e, ["M2@a1", "*a1"], ["M1@a5", "W2@b5", "*a5"])
    assert e.agent_selection == "player_0"  # one instruction beats two
    e.reset(seed=0)
    _setup(e, ["M3@a1", "*a1"], ["M2@a5", "*a5"])
    assert e.agent_selection == "player_1"  # fewer pips
    e.reset(seed=0)
    _setup(e, ["M1@a1", "W2@b1", "*a1"], ["M2@a5", "W1@b5", "*a5"])
    assert e.agent_selection == "player_1"  # same pips, marker on the larger one


def test_vf12_random_tie_break_is_seeded() -> None:
    seen = set()
    for seed in range(16):
        firsts = []
        for _ in range(2):
            e = raw_env(num_players=2)
            e.reset(seed=seed)
            _setup(e, ["M1@a1", "*a1"], ["M1@a5", "*a5"])
            firsts.append(e.agent_selection)
        assert firsts[0] == firsts[1]  # same seed, same first player
        seen.add(firsts[0])
    assert seen == {"player_0", "player_1"}


ROUND_END = [". . . . .", ". . . . .", ". . . . .", ". . . . .", ". . . . ."]


@pytest.mark.parametrize(
    ("piece", "first"),
    [
        ("M2", 0),  # a tie of the largest: the previous first stays first
        ("M3", 1),  # a single largest becomes first
    ],
)
def test_vf13_first_of_the_next_round(piece: str, first: int) -> None:
    # round 1, first seat 0 (on M2), seat 1 steps last from W1 onto ``piece``
    e = load(
        [". . . . .", f"W1 {piece} . . .", ". . . . .", ". . . . .", "M2 W1 . . ."],
        ["a1", "a4"],
        phase="step",
        turn=1,
        first=0,
    )
    play(e, "*b4")
    assert e.state_arrays.info[0, K.I_ROUND] == 2
    assert e.state_arrays.info[0, K.I_FIRST] == first
    assert e.agent_selection == f"player_{first}"


def test_vf13_tie_nearest_after_previous_first_exact() -> None:
    # order of round 1: 1, 2, 0; seat 0 acts last and steps onto a size-3 piece;
    # seat 2 already sits on a size-3 piece; seat 1 (previous first) on size 1
    rows = [
        ". . . . . .",
        ". M3 . . . .",
        ". . . . . .",
        ". . . . M1 W1",
        ". . . . . .",
        "W1 M3 . . . .",
    ]
    e = load(rows, ["a1", "e3", "b5"], players=3, phase="step", turn=0, first=1)
    play(e, "*b1")
    info = e.state_arrays.info[0]
    assert info[K.I_ROUND] == 2 and info[K.I_FIRST] == 2
    assert e.agent_selection == "player_2"


def test_vf13_previous_first_eliminated_uses_seat_after_it() -> None:
    # 3 players, first seat 1 was eliminated this round; seats 0 and 2 tie -> seat 2
    rows = [
        ". . . . . .",
        ". M3 . . . .",
        ". . . . . .",
        ". . . . . .",
        ". . . . . .",
        "W1 M3 . . . .",
    ]
    e = load(rows, ["a1", "-", "b5"], players=3, phase="step", turn=0, first=1)
    play(e, "*b1")
    assert e.state_arrays.info[0, K.I_FIRST] == 2


def test_vf14_move_exact_set_and_marker_step() -> None:
    e = load([". . . . J1", EMPTY5, EMPTY5, ". M1 . . .", "W1 M2 . . ."], ["b1", "e5"])
    assert legal(e) == {
        "a1-c1", "a1-a2", "a1-c2", "a1-b3",
        "b2-a2", "b2-c1",
        "pass",
    }  # fmt: skip
    play(e, "a1-b3")
    assert e.agent_selection == "player_0" and e.phase() == "step"  # VF-18
    assert legal(e) == {"*b2"}


def test_vf14_move_may_pass() -> None:
    e = load([". . . . J1", EMPTY5, EMPTY5, ". . . . .", "M1 W1 . . ."], ["a1", "e5"])
    play(e, "pass")
    assert e.phase() == "step" and legal(e) == {"*b1"}


def test_vf14_move_without_movable_piece_only_pass() -> None:
    e = load([". . . . J1", EMPTY5, EMPTY5, ". . . . .", "M1 . . . ."], ["a1", "e5"])
    assert legal(e) == {"pass"}


def test_vf14_write_exact_set() -> None:
    e = load([". . . . J1", EMPTY5, EMPTY5, EMPTY5, "W1 . . . ."], ["a1", "e5"],
             supply={0: "M1 E3"})  # fmt: skip
    assert legal(e) == {"M1@a2", "M1@b1", "E3@a2", "E3@b1", "pass"}
    play(e, "E3@b1")
    assert e.state_arrays.supply[0, 0].tolist() == [1] + [0] * 11
    assert legal(e) == {"*b1"}


def test_vf14_write_with_empty_supply_only_pass_then_vf15_elimination() -> None:
    e = load([". . . . J1", EMPTY5, EMPTY5, EMPTY5, "W1 . . . ."], ["a1", "e5"],
             supply={0: ""})  # fmt: skip
    assert legal(e) == {"pass"}
    play(e, "pass")  # no marker step: eliminated at once; one player left wins
    assert e.terminations == {"player_0": True, "player_1": True}
    assert e.rewards == {"player_0": -1.0, "player_1": 1.0}


def test_vf14_jump_single_decision() -> None:
    e = load(
        [". . . M3 J1", ". E1 . . .", ". W1 . . .", EMPTY5, "J2 M1 . . ."],
        ["a1", "e5"],
    )
    play(e, "*b3")
    assert e.agent_selection == "player_1" and e.phase() == "effect"  # VF-18


def test_vf14_jump_without_target_eliminated_without_decision() -> None:
    # seat 0 ends its turn; seat 1's JUMP has no target: it is eliminated inside the step
    e = load([". . . . J1", EMPTY5, EMPTY5, EMPTY5, "W1 M1 . . ."], ["a1", "e5"],
             phase="step", turn=0, first=0)  # fmt: skip
    play(e, "*b1")
    assert e.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert all(e.terminations.values())


def test_vf14_jump_without_target_three_players_turn_passes_on() -> None:
    rows = [
        ". . . . . J1",
        ". . . . . .",
        ". . . . . .",
        ". . . . . .",
        ". . . . . .",
        "W1 M1 . . M2 W2",
    ]
    e = load(rows, ["a1", "f6", "e1"], players=3, phase="step", turn=0, first=0)
    play(e, "*b1")
    assert e.rewards["player_1"] == -1.0 and e.terminations["player_1"]
    assert e.agent_selection == "player_1"  # the dead agent is stepped first (PettingZoo)
    e.step(None)
    assert e.agent_selection == "player_2" and "player_1" not in e.agents


def test_vf14_erase_exact_set_and_capture() -> None:
    e = load(
        [". . . . .", EMPTY5, EMPTY5, "M3 . . . .", "E1 W2 E2 J1 ."],
        ["a1", "d1"],
    )
    # erasers a1, c1; d1 carries seat 1's marker
    assert legal(e) == {"xa2", "xb1", "xc2"}
    before = e.state_arrays.supply[0, 0].copy()
    play(e, "xb1")
    assert e.state_arrays.supply[0, 0, 4] == before[4] + 1  # W2 captured
    assert legal(e) == {"*a2"}


def test_vf14_erase_empty_target_has_no_effect() -> None:
    e = load([". . . . J1", EMPTY5, EMPTY5, EMPTY5, "E1 M1 . . ."], ["a1", "e5"])
    assert legal(e) == {"xa2", "xb1"}
    text = e.to_text()
    play(e, "xa2")
    assert e.to_text().split()[2:5] == text.split()[2:5]  # board, markers, supplies


def test_vf14_erase_without_target_only_pass() -> None:
    rows = [". . . . . .", ". . . . . .", ". . . . . .", ". . . . . .", "J1 . . . . .",
            "E1 M1 . . . ."]  # fmt: skip
    e = load(rows, ["a1", "a2", "b1"], players=3)
    assert legal(e) == {"pass"}
    play(e, "pass")  # both neighbours marked: no marker step, eliminated
    assert e.terminations["player_0"] and e.rewards["player_0"] == -1.0


def test_vf15_marker_step_exact_set_orthogonal() -> None:
    e = load(
        [". . . . J1", EMPTY5, ". W1 . . .", "W1 M1 W2 . .", ". E3 . . ."],
        ["b2", "e5"],
        phase="step",
    )
    assert legal(e) == {"*a2", "*c2", "*b3", "*b1"}


def test_vf15_eliminated_marker_leaves_pieces_stay() -> None:
    rows = [". . . . . .", ". . . . . .", ". . . . . .", ". . . . . .", ". . . . . .",
            "W1 . . . M1 W2"]  # fmt: skip
    e = load(rows, ["a1", "e1", "f1"], players=3, supply={0: ""})
    play(e, "pass")
    st = e.state_arrays
    assert st.marker[0, 0] == -1 and st.cells[0, 30] == 3  # W1 still on a1
    assert e.rewards["player_0"] == -1.0 and not e.terminations["player_1"]


def test_vf16_last_player_standing_wins() -> None:
    e = load([". . . . J1", EMPTY5, EMPTY5, EMPTY5, "W1 . . . ."], ["a1", "e5"],
             supply={0: ""})  # fmt: skip
    play(e, "pass")
    assert e.rewards == {"player_0": -1.0, "player_1": 1.0}


def test_vf17_round_limit_adjudication_pieces_in_supply() -> None:
    assert adjudicated({0: "E1 E2", 1: "E3"}) == {"player_0": 1.0, "player_1": -1.0}


def test_vf17_adjudication_pips_then_shared_top() -> None:
    assert adjudicated({0: "E1", 1: "E3"}) == {"player_0": -1.0, "player_1": 1.0}
    assert adjudicated({0: "E3 J1", 1: "J3 E1"}) == {"player_0": 0.0, "player_1": 0.0}


def _loop_game(max_rounds: int = 100) -> raw_env:
    # both seats pass and step between an M1 and an M2; supplies equal (shared top)
    return load(
        ["M1 M2 . . .", EMPTY5, EMPTY5, EMPTY5, "M1 M2 . . ."],
        ["a1", "a5"],
        max_rounds=max_rounds,
    )


def _loop_round(e: raw_env) -> None:
    for _ in range(2):
        seat = e.agent_selection
        play(e, "pass")
        play(e, sorted(e.legal_moves())[0])
        assert e.agent_selection != seat or not e.agents


def test_vf17_third_repetition_ends_game() -> None:
    # round starts: X (1), Y (2), X (3), Y (4), X (5: third time) -> adjudicated at once
    e = _loop_game()
    for _ in range(3):
        _loop_round(e)
    assert e.agents and e.state_arrays.info[0, K.I_ROUND] == 4
    text = e.to_text()
    _loop_round(e)  # round 4 ends; round 5 would start on X a third time
    assert not e.agents or all(e.terminations.values())
    assert e.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert e.state_arrays.info[0, K.I_ROUND] == 5
    # the position text carries the history: restored, the game ends the same way
    e2 = raw_env()
    e2.reset(seed=5, options={"position": text})
    _loop_round(e2)
    assert all(e2.terminations.values())


def test_vf17_round_limit_wins_over_repetition_same_moment() -> None:
    e = _loop_game(max_rounds=4)
    for _ in range(4):
        _loop_round(e)
    assert all(e.terminations.values())
    assert e.state_arrays.info[0, K.I_ROUND] == 4  # ended by the round limit


def test_vf18_effect_then_step_same_agent() -> None:
    e = load([". . . . J1", EMPTY5, EMPTY5, EMPTY5, "W1 M1 . . ."], ["a1", "e5"])
    play(e, "pass")
    assert e.agent_selection == "player_0" and legal(e) == {"*b1"}


def test_notation_examples() -> None:
    e = raw_env()
    e.reset(seed=0)
    n = 5
    cases = {
        "W2@c1": 4 * n * n + (4 * n + 2),
        "c1-d2": 12 * 25 + (22 * 25 + 18),
        "xc2": 12 * 25 + 625 + 17,
        "*c2": 13 * 25 + 625 + 17,
        "pass": 14 * 25 + 625,
    }
    for text, action in cases.items():
        assert e.str_to_action(text) == action
        assert e.action_to_str(action) == text
    for bad in ("W4@c1", "Q1@a1", "f1-a1", "xz9", "*", "pass!", "a1-a9", ""):
        with pytest.raises(ValueError):
            e.str_to_action(bad)
