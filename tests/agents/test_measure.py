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
