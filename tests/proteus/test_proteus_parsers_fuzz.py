"""Proteus parsers: position texts are consistent; each reproduction of issue #11 item 5.

The position text (``state_from_text``) and the move notation (``str_to_action``) are
fuzzed with hypothesis (arbitrary text, seeded mutations of valid texts, the seeded
fuzzer run) with every other parser in ``tests/core/test_parsers_fuzz.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs import proteus_v0
from envs.proteus.batch import ProteusBatch, state_from_text, text_of
from envs.proteus.notation import MAX_TURNS_LIMIT, action_to_str, parse_position
from tests import fuzz_parsers as F


def test_every_reachable_position_parses_and_round_trips() -> None:
    # positions of seeded random games (every move, finished games included) are consistent
    texts = [text for _, text in F.proteus_position_seeds()]
    texts += F._random_game_texts(lambda: proteus_v0.raw_env(max_turns=30), range(100, 160), 40)
    assert sum("result=" in t for t in texts) >= 50 and len(texts) > 1500
    for text in texts:
        assert text_of(state_from_text(text), 0) == text


# ----------------------------------------------------------------------------- reproductions
START = ".,.,./.,.,./.,.,. b 0/200"
# SHAPE goal; white stands on three circles, black on no single shape: white has won
WHITE_WON = "Ms:bt,Mt,Gt+/Mo+:ws,Ts:bs,Go:wo/To:wt,Tt+:bo,Gs b 30/200"
# SHAPE goal; both meet it: play goes on (PR-16)
BOTH_MEET = "Ms:bt,Mt,Gt+/Mo+:ws,Ts:bs,Go:wo/To:wt,Tt+,Gs:bo b 30/200"


@pytest.mark.parametrize(
    "text, match",
    [
        (".,.,./.,.,./.,.,. b 5/200 result=black", "result=black does not fit"),
        (".,.,./.,.,./.,.,. b 5/200 result=turns", "has not reached max_turns"),
        (".,.,./.,.,./.,.,. w 5/5 result=repetition", "occurred 1 time"),
        (WHITE_WON + " result=black", "black does not meet"),
        (WHITE_WON.replace(" 30/200", " 200/200") + " result=turns", "white meets"),
        (BOTH_MEET + " result=white", "white does not meet the face-up goal alone"),
    ],
)
def test_result_must_fit_the_board_pr16_pr17(text: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        state_from_text(text)


def test_running_game_whose_goal_is_met_is_rejected_pr16() -> None:
    with pytest.raises(ValueError, match="white alone meets the face-up goal"):
        state_from_text(WHITE_WON)
    assert int(state_from_text(WHITE_WON + " result=white").status[0]) == 2
    assert int(state_from_text(BOTH_MEET).status[0]) == 0


def test_running_game_at_a_third_occurrence_is_rejected_pr17() -> None:
    env = proteus_v0.raw_env()
    env.reset(options={"position": BOTH_MEET})
    for move in ["b3<>c3"] * 6:  # swap two vacant triangles there and back
        if env.state_status != "ongoing":
            break
        env.step(env.str_to_action(move))
    text = env.to_text()
    assert "result=repetition" in text  # the cycle closed: a third occurrence
    running = text.replace(" result=repetition", "")
    with pytest.raises(ValueError, match="occurred three times"):
        state_from_text(running)
    assert state_from_text(text).status[0] == 3


def test_pr10_violation_is_rejected() -> None:
    # gold has no face-up tile and every gold tile is covered by a non-matching piece
    with pytest.raises(ValueError, match="PR-10"):
        state_from_text("Go:bs,Gs:bt,Gt:bo/.,.,./.,.,. w 3/200")
    with pytest.raises(ValueError, match="PR-10"):  # movement phase, gold never activated
        state_from_text("Mo+:bo,Ts,Gt/Ms:ws,Tt+:bt,Go:wo/Mt:wt,To:bs,Gs b 40/200")


def test_duplicate_fields_are_rejected() -> None:
    with pytest.raises(ValueError, match="result= appears twice"):
        state_from_text(".,.,./.,.,./.,.,. b 5/5 result=turns result=turns")
    key = text_of(state_from_text(START)).split("h=")[1]
    with pytest.raises(ValueError, match="h= appears twice"):
        state_from_text(f"{START} h={key} h={key}")


def test_history_longer_than_the_turns_is_rejected_pr17() -> None:
    key = text_of(state_from_text(START)).split("h=")[1]
    with pytest.raises(ValueError, match="more than turn"):
        state_from_text(f"{START} h={key},{key}")


@pytest.mark.parametrize("bad", [2**31, 2**63, 10**20, 0])
def test_max_turns_out_of_range_is_a_value_error(bad: int) -> None:
    with pytest.raises(ValueError, match="max_turns"):
        state_from_text(f".,.,./.,.,./.,.,. b 0/{bad}")
    with pytest.raises(ValueError, match="max_turns"):
        proteus_v0.env(max_turns=bad)
    with pytest.raises(ValueError, match="max_turns"):
        ProteusBatch(max_turns=bad)


@pytest.mark.parametrize("bad", [1.5, None, "3", True, np.float64(2.0)])
def test_bad_max_turns_types_are_value_errors(bad: object) -> None:
    with pytest.raises(ValueError, match="max_turns"):
        proteus_v0.raw_env(max_turns=bad)  # type: ignore[arg-type]


def test_the_largest_max_turns_is_accepted() -> None:
    # the parse alone: a kernel state this long would reserve max_turns + 1 history slots
    pos = parse_position(f".,.,./.,.,./.,.,. b 0/{MAX_TURNS_LIMIT}")
    assert pos.max_turns == MAX_TURNS_LIMIT


@pytest.mark.parametrize("bad", [1.5, None, "0", 226, -1, np.float32(3)])
def test_action_to_str_rejects_non_ids(bad: object) -> None:
    with pytest.raises(ValueError):
        action_to_str(bad)  # type: ignore[arg-type]
    env = proteus_v0.raw_env()
    with pytest.raises(ValueError):
        env.action_to_str(bad)  # type: ignore[arg-type]
    assert action_to_str(np.int64(225)) == "pass"
