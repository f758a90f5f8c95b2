"""``python -m agents.measure``: running counts on stderr after each seat's games."""

from __future__ import annotations

import re

import pytest

from agents.measure import main, measure


def test_progress_gets_the_running_counts_after_each_seat() -> None:
    lines: list[str] = []
    r = measure("proteus", "random", "random", games=6, seed=3, progress=lines.append)
    assert len(lines) == 2  # one line per seat, the last with the final counts
    assert lines[0].startswith("seat 1/2 done: ") and lines[0].endswith(" of 3 games")
    assert lines[1] == (
        f"seat 2/2 done: {r['wins']} wins, {r['draws']} draws, {r['losses']} losses of 6 games"
    )


def test_cli_prints_running_counts_on_stderr_unless_quiet(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["proteus", "random", "--games", "4", "--seed", "1"]) == 0
    out, err = capsys.readouterr()
    assert re.findall(r"seat (\d)/2 done: .* of (\d) games \[\d+ s\]", err) == [
        ("1", "2"),
        ("2", "4"),
    ]
    assert "proteus players=default random vs random: " in out
    assert main(["proteus", "random", "--games", "4", "--seed", "1", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "random vs random" in out


def test_first_game_splits_a_series_into_runs_of_the_same_games() -> None:
    """Each seat plays games first_game.. of its series; agents that choose per game (the
    searches) play the same games in any batch, so two runs add up to one."""
    whole = measure("proteus", "mcts:4", "mcts:8", games=8, seed=2)
    parts = [measure("proteus", "mcts:4", "mcts:8", games=4, seed=2, first_game=k) for k in (0, 2)]
    for key in ("games", "wins", "draws", "losses"):
        assert whole[key] == parts[0][key] + parts[1][key], key
    later = measure("proteus", "mcts:4", "mcts:8", games=4, seed=2, first_game=20)
    assert later["games"] == 4
    with pytest.raises(ValueError, match="first_game must be >= 0"):
        measure("proteus", "random", "random", games=2, first_game=-1)


def test_seats_play_their_share_of_the_full_run() -> None:
    """``seats=[s]`` plays seat s's games of the full run (the same games, so the parts add
    up to the whole); a bad seat list is a ``ValueError`` naming it, before any game."""
    whole = measure("proteus", "mcts:4", "mcts:8", games=8, seed=2)
    parts = [measure("proteus", "mcts:4", "mcts:8", games=8, seed=2, seats=[s]) for s in (0, 1)]
    assert [p["games"] for p in parts] == [4, 4]
    for key in ("games", "wins", "draws", "losses"):
        assert whole[key] == parts[0][key] + parts[1][key], key
    both = measure("proteus", "mcts:4", "mcts:8", games=8, seed=2, seats=[1, 0])
    assert both == whole
    for bad, match in (([], "at least one"), ([0, 0], "distinct"), ([2], r"seats \[2\] out of")):
        with pytest.raises(ValueError, match=match):
            measure("proteus", "random", "random", games=2, seats=bad)


def test_cli_seat_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["proteus", "mcts:4", "--games", "4", "--seat", "2"]) == 0
    out, err = capsys.readouterr()
    assert err.startswith("seat 2/2 done: ") and "of 2 games" in err
    assert "mcts:4 vs random: " in out and "/2 wins" in out
    with pytest.raises(SystemExit):
        main(["proteus", "random", "--games", "4", "--seat", "3"])
    assert "seats [2] out of range" in capsys.readouterr().err


def test_cli_first_game_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["proteus", "mcts:4", "--games", "2", "--first-game", "3", "--quiet"]) == 0
    assert "mcts:4 vs random: " in capsys.readouterr().out


def test_games_not_a_multiple_of_the_seats_is_an_error_not_a_truncation(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Each seat plays games / P: a rest used to be dropped silently (5 games played 4)."""
    with pytest.raises(ValueError, match=r"multiple of the 2 seats .* got 5: use 4 or 6"):
        measure("proteus", "random", "random", games=5)
    with pytest.raises(ValueError, match=r"multiple of the 3 seats .* got 2: use 3$"):
        measure("virus_fight", "random", "random", games=2, players=3)
    assert measure("virus_fight", "random", "random", games=3, players=3)["games"] == 3
    with pytest.raises(SystemExit):
        main(["proteus", "random", "--games", "7"])
    assert "got 7: use 6 or 8" in capsys.readouterr().err


def test_series_options_with_decision_time_are_an_error_not_ignored(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--decision-time plays no series: --games, --seat, ... would be silently unused."""
    with pytest.raises(SystemExit):
        main(["proteus", "random", "--decision-time", "2", "--games", "4", "--seat", "1"])
    assert "--games, --seat have no effect with --decision-time" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["proteus", "random", "--decision-time", "2", "--opponent", "heuristic"])
    assert "--opponent has no effect with --decision-time" in capsys.readouterr().err
    assert main(["proteus", "random", "--decision-time", "2"]) == 0
    assert "ms per move (median; mean " in capsys.readouterr().out
