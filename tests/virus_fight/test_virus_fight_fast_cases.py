"""Fast concrete cases that separate readings of VF-14 (ERASE) and VF-17 (adjudication).

The rules tests give the same result under some wrong readings: there the supply with
more pieces also has more pips, and every ERASE instruction stands in the active block.
Here pieces and pips disagree, and ERASE instructions stand outside the active block
(in an empty block and in another player's active block): they give no targets.
"""

from __future__ import annotations

import pytest

from envs.virus_fight.env import raw_env
from tests.virus_fight.vf_positions import adjudicated, legal, load, play

EMPTY5 = ". . . . ."


@pytest.mark.parametrize(
    ("supply", "rewards"),
    [
        # 2 pieces / 2 pips against 1 piece / 3 pips: pieces decide (VF-17 ranks them first)
        ({0: "M1 W1", 1: "E3"}, (1.0, -1.0)),
        ({0: "E3", 1: "M1 W1"}, (-1.0, 1.0)),
        # 3 pieces / 3 pips against 2 pieces / 6 pips
        ({0: "M1 J1 E1", 1: "E3 J3"}, (1.0, -1.0)),
        # equal pieces: pips decide; equal both: shared top (0, 0)
        ({0: "M1 E2", 1: "E3 J1"}, (-1.0, 1.0)),
        ({0: "M2 E1", 1: "E2 J1"}, (0.0, 0.0)),
        # an empty supply: the other seat wins on pieces even with fewer pips than a set
        ({0: "", 1: "M1"}, (-1.0, 1.0)),
    ],
)
def test_vf17_adjudication_pieces_before_pips(
    supply: dict[int, str], rewards: tuple[float, float]
) -> None:
    got = adjudicated(supply)
    assert (got["player_0"], got["player_1"]) == rewards


def test_vf14_erase_in_an_empty_block_gives_no_targets() -> None:
    """Seat 0 executes E1 on a1; the E2 on c3 is a block of its own (no marker): its
    neighbours b3, d3, c4, c2 are no targets."""
    e = load([". . . . J1", EMPTY5, ". . E2 . .", EMPTY5, "E1 M1 . . ."], ["a1", "e5"])
    assert legal(e) == {"xa2", "xb1"}


def test_vf14_erase_in_another_players_active_block_gives_no_targets() -> None:
    """The E3 on d5 stands in seat 1's active block {d5, e5}; seat 0's block {a1, b1} has
    only the executing E1: targets a2 and b1 (M1, unprotected), never c5, d4 or e4."""
    e = load([". . . E3 J1", EMPTY5, EMPTY5, EMPTY5, "E1 M1 . . ."], ["a1", "e5"])
    assert legal(e) == {"xa2", "xb1"}


def test_vf14_only_erasers_of_the_active_block_give_targets() -> None:
    """Seat 0 executes E1 on b1; its block is {a1, b1, b2}. The E2 on d2 is a block of
    its own: its neighbours c2, e2, d3, d1 are no targets; b1's are (a1, b2, c1)."""
    e = load([". . . . J1", EMPTY5, EMPTY5, ". W1 . E2 .", "M1 E1 . . ."], ["b1", "e5"])
    assert legal(e) == {"xa1", "xb2", "xc1"}
    play(e, "xb2")  # W1 captured into seat 0's supply
    assert "*a1" in legal(e)


@pytest.mark.parametrize("size", [6, 8])
def test_vf10_program_at_most_five_instructions_on_long_segments(size: int) -> None:
    """2 players on a 6x6 / 8x8 board: the home row has 6 / 8 cells, but a program holds
    at most 5 instructions (VF-10): after five, only the marker placement is left."""
    e = raw_env(num_players=2, board_size=size)
    e.reset(seed=0)
    play(e, "M1@a1", "M2@b1", "M3@c1", "W1@d1")
    assert "J1@e1" in legal(e)
    play(e, "J1@e1")
    assert legal(e) == {"*a1", "*b1", "*c1", "*d1", "*e1"}
