"""Virus Fight parsers: the reproductions of issue #11 item 5.

The position text (``position.from_text``, 2-4 players) and the move notation
(``notation.str_to_action``, boards 5..8) are fuzzed with hypothesis (arbitrary text,
seeded mutations of valid texts, the seeded fuzzer run) with every other parser in
``tests/core/test_parsers_fuzz.py``; the issue's reproductions (numbers >= 2**31,
``action_to_str(1.5)`` / ``(None)``, bad constructor numbers) are tests here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from envs import virus_fight_v0
from envs.virus_fight import position
from envs.virus_fight.batch import VirusFightBatch
from envs.virus_fight.notation import action_to_str, str_to_action, str_to_piece, str_to_square
from tests import fuzz_parsers as F


def test_every_reachable_position_round_trips() -> None:
    games = F._vf_games()
    seeds = F.virus_fight_position_seeds()
    assert {p for p, _ in seeds} == {2, 3, 4} and len(seeds) > 500
    for players, text in seeds:
        game = games[players]
        assert position.to_text(game, position.from_text(game, text)) == text


# ----------------------------------------------------------------------------- reproductions
def _play_text(players: int = 2) -> str:
    """A position after setup (phase effect, round >= 1) from a seeded random game."""
    return next(t for p, t in F.virus_fight_position_seeds() if p == players and "round=2" in t)


@pytest.mark.parametrize("bad", [2**31, 2**32, 2**63, 10**20, 31])
def test_round_out_of_range_is_a_value_error(bad: int) -> None:
    game = F._vf_games()[2]  # max_rounds=30
    text = _play_text()
    with pytest.raises(ValueError, match="round must be"):
        position.from_text(game, text.replace(" round=2 ", f" round={bad} "))


@pytest.mark.parametrize("field", ["turn", "first"])
@pytest.mark.parametrize("bad", [str(2**31), str(2**64), "٣", "²", "-1"])
def test_seat_numbers_out_of_range_are_value_errors(field: str, bad: str) -> None:
    game = F._vf_games()[2]
    text = _play_text()
    value = text.split(f" {field}=")[1].split(" ")[0]
    with pytest.raises(ValueError, match=f"{field} must be a seat"):
        position.from_text(game, text.replace(f" {field}={value} ", f" {field}={bad} "))


@pytest.mark.parametrize("bad", [1.5, None, "3", True, np.float64(2.0), 976, -1])
def test_action_to_str_rejects_non_ids(bad: object) -> None:
    with pytest.raises(ValueError):
        action_to_str(bad, 5)  # type: ignore[arg-type]
    env = virus_fight_v0.raw_env()
    with pytest.raises(ValueError):
        env.action_to_str(bad)  # type: ignore[arg-type]
    assert action_to_str(np.int64(975), 5) == "pass"


def test_helpers_reject_non_strings_and_bad_sizes() -> None:
    for call in (
        lambda: str_to_piece(None),  # type: ignore[arg-type]
        lambda: str_to_square(3, 5),  # type: ignore[arg-type]
        lambda: str_to_action("pass", 9),
        lambda: action_to_str(0, 4),
    ):
        with pytest.raises(ValueError):
            call()


@pytest.mark.parametrize("bad", [2**31, 2**31 - 1, math.inf, float("nan"), 0, -3, True, 1.5, "3"])
def test_max_rounds_out_of_range_is_a_value_error(bad: object) -> None:
    with pytest.raises(ValueError, match="max_rounds"):
        virus_fight_v0.env(max_rounds=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_rounds"):
        VirusFightBatch(2, max_rounds=bad)  # type: ignore[arg-type]
