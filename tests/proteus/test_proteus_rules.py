"""Concrete-position tests, one or more per Proteus rule (PR-1 .. PR-17) and the notation.

Positions are written in the position text (``envs.proteus.notation``): ranks 3..1 separated
by '/', squares a..c by ','; a square is '.' or a tile (M/T/G + o/s/t), '+' when face up,
then ':' and a piece (b/w + o/s/t). Legal-move sets are asserted exactly, as notation.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.proteus import kernel as K
from envs.proteus.constants import A_PASS, INSCRIPTIONS, NUM_ACTIONS
from envs.proteus_v0 import raw_env
from tests.aec import legal_moves as moves
from tests.aec import play

# A movement-phase position: brown KING (Mo) up, turquoise SHAPE (Tt) up, gold
# THREE-IN-LINE (Go) up. Black: o a3, t b2, s b1. White: s a2, o c2, t a1. Vacant: b3 c3 c1.
M1 = "Mo+:bo,Ts,Gt/Ms:ws,Tt+:bt,Go+:wo/Mt:wt,To:bs,Gs b 40/200"
SHAPE_SWAPS = {
    "b1<>a3", "c2<>a3", "b1<>c2",  # circles Mo a3, To b1, Go c2
    "a2<>b3", "c1<>a2", "c1<>b3",  # squares Ms a2, Ts b3, Gs c1
    "b2<>c3", "a1<>b2", "a1<>c3",  # triangles Tt b2, Gt c3, Mt a1
}  # fmt: skip
ALL_SQUARES = ["a3", "b3", "c3", "a2", "b2", "c2", "a1", "b1", "c1"]
ALL_TILES = ["Mo", "Ms", "Mt", "To", "Ts", "Tt", "Go", "Gs", "Gt"]


def load(text: str, **kwargs) -> raw_env:
    e = raw_env(**kwargs)
    e.reset(options={"position": text})
    return e


def status(e: raw_env) -> str:
    return e.state_status


def active_tiles(e: raw_env) -> list[str]:
    """Face-up tiles, read from the position text."""
    board = e.to_text().split()[0]
    return sorted(
        cell.split(":")[0][:2] for cell in board.replace("/", ",").split(",") if "+" in cell
    )


# ----------------------------------------------------------------------------- PR-1 .. PR-4


def test_pr1_board_is_3x3_and_a3_is_top_left() -> None:
    e = raw_env()
    e.reset()
    play(e, "Mo@a3", "Gt@c1")
    assert e.to_text().split()[0] == "Mo,.,./.,.,./.,.,Gt"
    assert e._state.tile_at[0, 0] == 0 and e._state.tile_at[0, 8] == 8  # (row 0, col 0)...


def test_pr2_at_most_one_face_up_tile_per_colour() -> None:
    with pytest.raises(ValueError, match="two face-up tiles of one colour"):
        load("Mo+:bo,Ms+:bs,./.,.,./.,.,. w 2/200")
    e = load(M1.replace("Mo+:bo", "Mo:bo").replace("Ms:ws", "Ms+:ws"))
    assert active_tiles(e) == ["Go", "Ms", "Tt"]


def test_pr3_inscriptions_table() -> None:
    assert INSCRIPTIONS == (
        ("KING", "ROOK", "BISHOP"),
        ("POLARITY", "COLOUR", "SHAPE"),
        ("THREE-IN-LINE", "COLOUR", "SHAPE"),
    )


def test_pr4_black_moves_first_with_three_pieces_each() -> None:
    e = raw_env()
    e.reset()
    assert e.agent_selection == "black" and e.possible_agents == ["black", "white"]
    obs = e.observe("black")["observation"]
    assert obs[0, 0, 25:31].tolist() == [1.0] * 6  # own and opponent's circle/square/triangle
    # PR-8: nothing placed, so the only legal actions are the 81 tile placements
    assert moves(e) == {f"{t}@{sq}" for t in ALL_TILES for sq in ALL_SQUARES}


# ----------------------------------------------------------------------------- PR-5 .. PR-7


def test_pr5_match_is_by_shape_not_colour() -> None:
    e = raw_env()
    e.reset()
    play(e, "Ms@b2", "o@b2")  # white circle on the brown square tile: no match
    assert active_tiles(e) == []
    e.reset()
    play(e, "Mo@b2", "o@b2")  # circle on the circle tile: match, KING face up
    assert active_tiles(e) == ["Mo"]


def test_pr6_new_match_replaces_the_active_tile_of_its_colour() -> None:
    # ROOK active (Ms, white square on it); black circle a3 -> ... use KING: move b1 (square)
    e = load("Mo+:bo,Ts,Gt/Ms:ws,Tt+:bt,Go+:wo/Mt:wt,To:bs,Gs b 40/200")
    play(e, "b1-c1")  # black square onto Gs (gold square, inactive): Gs up, Go down
    assert active_tiles(e) == ["Gs", "Mo", "Tt"]


def test_pr6_match_on_already_active_tile_changes_nothing() -> None:
    # black's triangle and white's circle step off their face-up tiles and back on
    e = load(M1)
    play(e, "b2-b3", "c2-c3", "b3-b2", "c3-c2")
    assert active_tiles(e) == ["Go", "Mo", "Tt"]
    assert e.to_text().split()[0] == M1.split()[0]


def test_pr7_two_new_matches_of_one_colour_cancel() -> None:
    # COLOUR exchange (Ts up). a3: black circle on Ms, a2: white square on Mo; Mt is up.
    e = load("Ms:bo,Ts+,Gt/Mo:ws,Tt:bt,Go+:wo/Mt+:wt,To:bs,Gs b 40/200")
    play(e, "a2<>a3")  # Mo comes under the circle, Ms under the square: both brown
    assert active_tiles(e) == ["Go", "Mt", "Ts"]  # cancelled: Mt stays up
    assert e.to_text().split()[0].startswith("Mo:bo,Ts+,Gt/Ms:ws")


def test_pr7_two_new_matches_of_different_colours_both_activate() -> None:
    # POLARITY exchange (To up). a3: black circle on Ts, a2: white square on Mo.
    e = load("Ts:bo,Ms,Gt/Mo:ws,Tt:bt,Go+:wo/Mt+:wt,To+:bs,Gs b 40/200")
    assert "a2<>a3" in moves(e)
    play(e, "a2<>a3")  # circle onto Mo (brown), square onto Ts (turquoise)
    assert active_tiles(e) == ["Go", "Mo", "Ts"]


def test_pr7_swapping_active_with_inactive_of_its_colour_activates_the_other() -> None:
    # COLOUR exchange (Ts up). a3: black circle on Ms; a2: white square on Mo (up).
    e = load("Ms:bo,Ts+,Gt/Mo+:ws,Tt:bt,Go+:wo/Mt:wt,To:bs,Gs b 40/200")
    play(e, "a2<>a3")  # both end matched; only Ms was inactive: it activates
    assert active_tiles(e) == ["Go", "Ms", "Ts"]


# ----------------------------------------------------------------------------- PR-8 .. PR-11

# Placement: Ms (black square) up; Mt with black circle; Gs up with white square; Mo vacant.
P1 = "Ms+:bs,Mt:bo,Gs+:ws/Mo,.,./.,.,. b 6/200"


def test_pr8_placement_legal_set() -> None:
    e = load(P1)
    pool = ["To", "Ts", "Tt", "Go", "Gt"]
    empty = ["b2", "c2", "a1", "b1", "c1"]
    assert moves(e) == {f"{t}@{sq}" for t in pool for sq in empty} | {"t@a2"}


def test_pr8_second_turn_piece_only_on_placed_tile() -> None:
    e = raw_env()
    e.reset()
    play(e, "Mo@b2")
    tiles = {f"{t}@{sq}" for t in ALL_TILES if t != "Mo" for sq in ALL_SQUARES if sq != "b2"}
    assert moves(e) == tiles | {"o@b2", "s@b2", "t@b2"}


def test_pr9_no_matching_piece_on_other_tile_of_active_colour() -> None:
    # brown Mo is up; Ms (b3) is vacant: white's square may not go there, its circle may
    e = load("Mo+:bo,Ms,Tt/.,.,./.,.,. w 3/200")
    tiles = {
        f"{t}@{sq}"
        for t in ["Mt", "To", "Ts", "Go", "Gs", "Gt"]
        for sq in ["a2", "b2", "c2", "a1", "b1", "c1"]
    }
    assert moves(e) == tiles | {"o@b3", "t@b3", "o@c3", "s@c3", "t@c3"}


# All placed; brown (Mo) and turquoise (Ts) up; gold must still be activated and black's
# circle is the only piece left: it must go on Go (PR-10); To is barred by PR-9.
P10 = "Mo+:wo,Ts+:bs,Gs:wt/Ms:bt,Go,Tt:ws/Mt,To,Gt b 11/200"


def test_pr10_forced_activation() -> None:
    e = load(P10)
    assert moves(e) == {"o@b2"}
    play(e, "o@b2")
    assert active_tiles(e) == ["Go", "Mo", "Ts"]
    assert status(e) == "ongoing" and e.agent_selection == "white"


def test_pr10_counts_either_players_pieces() -> None:
    # Gold still to activate; both players hold a triangle, Gt (c1) is vacant. Black's
    # triangle may cover Go (b2) or To (b1) because WHITE's triangle can still take Gt;
    # c2 (Tt) and a1 (Mt) are barred by PR-9.
    e = load("Mo+:wo,Ts+:bs,Gs:ws/Ms:bo,Go,Tt/Mt,To,Gt b 10/200")
    assert moves(e) == {"t@b2", "t@b1", "t@c1"}


def test_pr10_last_piece_must_activate() -> None:
    # Same, but white's triangle is already placed: black's must go on Gt itself.
    e = load("Mo+:wo,Ts+:bs,Gs:ws/Ms:bo,Go,Tt/Mt,To:wt,Gt b 11/200")
    assert moves(e) == {"t@c1"}
    play(e, "t@c1")
    assert active_tiles(e) == ["Gt", "Mo", "Ts"]


def test_pr11_pass_when_no_legal_placement() -> None:
    e = load(P10.replace(" b ", " w "))  # white has nothing left and the pool is empty
    assert moves(e) == {"pass"}
    play(e, "pass")
    assert e.agent_selection == "black" and e.to_text().split()[2] == "12/200"


# ----------------------------------------------------------------------------- PR-12 .. PR-14


def test_pr12_king_moves_and_shape_exchanges() -> None:
    e = load(M1)
    assert moves(e) == {"a3-b3", "b2-b3", "b2-c3", "b2-c1", "b1-c1"} | SHAPE_SWAPS


def test_pr12_rook_moves_jump_over_pieces() -> None:
    e = load(M1.replace("Mo+:bo", "Mo:bo").replace("Ms:ws", "Ms+:ws"))
    assert moves(e) == {"a3-b3", "a3-c3", "b2-b3", "b1-c1", "b1-b3"} | SHAPE_SWAPS


def test_pr12_bishop_moves() -> None:
    e = load(M1.replace("Mo+:bo", "Mo:bo").replace("Mt:wt", "Mt+:wt"))
    assert moves(e) == {"a3-c1", "b2-c3", "b2-c1", "b1-c3"} | SHAPE_SWAPS


def test_pr12_polarity_exchanges() -> None:
    e = load(M1.replace("Tt+:bt", "Tt:bt").replace("To:bs", "To+:bs"))
    polarity = {
        "a2<>a3", "c2<>a3", "a1<>a3", "a2<>b2", "b2<>c2",
        "a1<>b2", "b1<>a2", "b1<>c2", "a1<>b1",
    }  # fmt: skip
    assert moves(e) == {"a3-b3", "b2-b3", "b2-c3", "b2-c1", "b1-c1"} | polarity


def test_pr12_colour_exchanges() -> None:
    e = load(M1.replace("Tt+:bt", "Tt:bt").replace("Ts,", "Ts+,"))
    colour = {
        "a2<>a3", "a1<>a3", "a1<>a2",  # brown: Mo a3, Ms a2, Mt a1
        "b2<>b3", "b1<>b3", "b1<>b2",  # turquoise: Ts b3, Tt b2, To b1
        "c2<>c3", "c1<>c3", "c1<>c2",  # gold: Gt c3, Go c2, Gs c1
    }  # fmt: skip
    assert moves(e) == {"a3-b3", "b2-b3", "b2-c3", "b2-c1", "b1-c1"} | colour


def test_pr12_exchange_moves_tiles_not_pieces_and_face_up_travels() -> None:
    e = load(M1)
    play(e, "c1<>b3")  # Ts <-> Gs, both vacant
    assert e.to_text().split()[0] == "Mo+:bo,Gs,Gt/Ms:ws,Tt+:bt,Go+:wo/Mt:wt,To:bs,Ts"
    e = load(M1)
    play(e, "c2<>a3")  # Mo+ <-> Go+: both face up, both travel; new matches already up
    assert e.to_text().split()[0] == "Go+:bo,Ts,Gt/Ms:ws,Tt+:bt,Mo+:wo/Mt:wt,To:bs,Gs"


def test_pr13_activation_after_move() -> None:
    e = load(M1)
    play(e, "b2-c3")  # black triangle onto Gt: gold SHAPE up, Go down
    assert active_tiles(e) == ["Gt", "Mo", "Tt"]


def test_pr14_pass_in_movement_phase_only_without_moves() -> None:
    # Always something to do under valid positions; a kernel state without BROWN and
    # TURQUOISE rules (unreachable by PR-10) must pass.
    e = load(M1)
    assert "pass" not in moves(e)
    st = K.from_board(
        np.array([0, 4, 8, 1, 5, 6, 2, 3, 7]),
        np.array([0, -1, -1, 4, 2, 3, 5, -1, 1]),
        np.array([-1, -1, 0]),
        player=0,
    )
    mask = K.legal_mask(st)
    assert list(np.flatnonzero(mask[0])) == [A_PASS]


# ----------------------------------------------------------------------------- PR-15, PR-16


def test_pr15_three_in_line_win() -> None:
    e = load(M1)
    play(e, "a3-b3")  # black b3 b2 b1: a column
    assert status(e) == "black wins"
    assert e.rewards == {"black": 1.0, "white": -1.0}
    assert all(e.terminations.values()) and not any(e.truncations.values())


def test_pr15_colour_win() -> None:
    e = load("Ms:bo,Ts,Gt/Mo+:ws,Tt+:bt,Go:wo/Mt:wt,To:bs,Gs+ b 30/200")
    play(e, "a3-b3")  # black on Ts, Tt, To: all turquoise
    assert status(e) == "black wins"


def test_pr15_shape_win() -> None:
    e = load("Ms:bt,Mt,Gt+/Mo+:ws,Ts:bs,Go:wo/Tt+:wt,To:bo,Gs b 30/200")
    play(e, "b1-c1")  # black's circle onto Gs: black on Ms, Ts, Gs, all squares
    assert status(e) == "black wins"


def test_pr15_goal_needs_all_three_pieces_on_board() -> None:
    e = load(P1)  # COLOUR goal; black's two pieces on brown tiles do not win
    assert status(e) == "ongoing"
    play(e, "t@a2")  # the third on Mo: all three on brown
    assert status(e) == "black wins"


# SHAPE goal; black on three squares, white on three circles: both meet, play goes on
S2 = "Ms:bt,Mt,Gt+/Mo+:ws,Ts:bs,Go:wo/To:wt,Tt+,Gs:bo b 30/200"


def test_pr16_both_meeting_goal_play_goes_on() -> None:
    e = load(S2)  # a running game in which both meet the goal is consistent (PR-16)
    assert status(e) == "ongoing"
    play(e, "b3<>c3")  # exchange two vacant triangles: both still meet
    assert status(e) == "ongoing"


def test_pr16_goal_checked_for_the_player_not_moving() -> None:
    e = load(S2)
    play(e, "a3-b3")  # black does not meet it; white (on three circles) does
    assert status(e) == "white wins"
    assert e.rewards == {"black": -1.0, "white": 1.0}


def test_pr16_goal_checked_in_placement_phase() -> None:
    e = load(P1)
    play(e, "t@a2")
    assert status(e) == "black wins"


# ----------------------------------------------------------------------------- PR-17


def test_pr17_third_occurrence_is_a_draw() -> None:
    e = load(M1)
    for k in range(3):
        play(e, "c1<>b3")  # M1 recurs after every second exchange
        assert status(e) == "ongoing", k
    play(e, "c1<>b3")  # M1 with black to move for the third time
    assert status(e) == "draw (repetition)"
    assert e.rewards == {"black": 0.0, "white": 0.0}
    assert all(e.terminations.values()) and not any(e.truncations.values())


def test_pr17_history_in_text_continues_exactly() -> None:
    e = load(M1)
    play(e, "c1<>b3")
    text = e.to_text()
    e2 = load(text)
    assert e2.to_text() == text
    play(e2, "c1<>b3", "c1<>b3")
    assert status(e2) == "ongoing"
    play(e2, "c1<>b3")  # third M1, counting the one before the text was written
    assert status(e2) == "draw (repetition)"
    # without the history the restored game forgets the first M1 and goes on
    e3 = load(" ".join(f for f in text.split() if not f.startswith("h=")))
    play(e3, "c1<>b3", "c1<>b3", "c1<>b3")
    assert status(e3) == "ongoing"


def test_pr17_turn_limit_draw_counts_passes_and_placements() -> None:
    e = load(P10.replace(" b 11/200", " w 11/13"))
    play(e, "pass")
    assert status(e) == "ongoing"
    play(e, "o@b2")
    assert status(e) == "draw (turn limit)"


def test_pr17_max_turns_parameter() -> None:
    e = raw_env(max_turns=3)
    e.reset()
    play(e, "Mo@a3", "Ms@b3")
    assert status(e) == "ongoing"
    play(e, "Mt@c3")
    assert status(e) == "draw (turn limit)"


def test_pr17_win_on_last_turn_stands() -> None:
    e = load(M1.replace("40/200", "199/200"))
    play(e, "a3-b3")
    assert status(e) == "black wins"


def test_pr17_repetition_checked_before_turn_limit() -> None:
    e = load(M1.replace("40/200", "196/200"))
    for _ in range(4):
        play(e, "c1<>b3")
    assert status(e) == "draw (repetition)"


def test_pr17_history_starts_with_empty_board() -> None:
    e = raw_env()
    e.reset()
    fields = e.to_text().split()
    assert fields[0] == ".,.,./.,.,./.,.,." and len(fields[3][2:].split(",")) == 1
    assert e.observe("black")["observation"][0, 0, 34] == 0.0  # first occurrence


# ----------------------------------------------------------------------------- notation


def test_notation_examples() -> None:
    e = raw_env()
    assert e.str_to_action("Mo@b2") == 4
    assert e.action_to_str(4) == "Mo@b2"
    assert e.action_to_str(e.str_to_action("s@b2")) == "s@b2"
    assert e.action_to_str(e.str_to_action("b2-c3")) == "b2-c3"
    assert e.action_to_str(e.str_to_action("a1<>c3")) == "a1<>c3"
    assert e.str_to_action("c3<>a1") == e.str_to_action("a1<>c3")
    assert e.action_to_str(e.str_to_action("pass")) == "pass" and e.str_to_action("pass") == 225


def test_notation_round_trip_every_action() -> None:
    e = raw_env()
    names = [e.action_to_str(a) for a in range(NUM_ACTIONS)]
    for a, name in enumerate(names):
        assert e.str_to_action(name) == a
    assert len(set(names)) == NUM_ACTIONS


def test_notation_exchange_smaller_square_first() -> None:
    e = raw_env()
    order = ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"]
    for a in range(189, 225):
        left, right = e.action_to_str(a).split("<>")
        assert order.index(left) < order.index(right)
