"""CLI edges (issue #11 item 8): one-line errors, plain tables when piped, play opponents,
illegal moves that say why.

``arena train --out /dev/null/run`` printed a traceback, ``arena bench --seconds nan``
never finished, piped output squeezed ``arena bench``'s table to 80 columns, ``arena
play``'s opponent was always random and an illegal move did not say why.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from envs.core.cli_text import check_finite, check_output_dir, markdown_table
from envs.core.play_help import explain_illegal

ROOT = Path(__file__).resolve().parents[1]


def _arena(*args: str, stdin: str = "", timeout: int = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "training.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,  # a hang fails the test
        cwd=ROOT,
    )


def _one_line(res: subprocess.CompletedProcess[str], *words: str) -> None:
    assert res.returncode == 2, (res.stdout, res.stderr)
    assert "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    for w in words:
        assert w in lines[0]


def test_train_out_under_a_file_is_one_line() -> None:
    _one_line(_arena("train", "proteus", "--out", "/dev/null/run", "--steps", "8"), "--out")


def test_bench_nan_seconds_is_one_line_not_a_hang() -> None:
    _one_line(_arena("bench", "--seconds", "nan", "--games", "proteus"), "--seconds", "nan")
    _one_line(_arena("bench", "--seconds", "-1"), "--seconds")
    _one_line(_arena("bench", "--json", "/dev/null/x.json"), "--json")


@pytest.mark.parametrize(
    "args, words",
    [
        (("train", "proteus", "--steps", "x"), ("arena train", "--steps", "'x'")),
        (("train", "proteus", "--bogus", "1"), ("arena train", "--bogus")),
        (("ladder", "proteus", "--games"), ("arena ladder", "--games")),
        (("bench", "--seconds"), ("arena bench", "--seconds")),
    ],
)
def test_argparse_errors_are_one_line_without_the_usage_block(
    args: tuple[str, ...], words: tuple[str, ...]
) -> None:
    """A malformed flag prints ``prog: error: ... (see prog --help)``, not argparse's usage."""
    res = _arena(*args)
    _one_line(res, *words, "--help")
    assert "usage:" not in res.stderr


def test_check_helpers() -> None:
    with pytest.raises(ValueError, match="--seconds .*finite"):
        check_finite(float("inf"), "--seconds")
    assert check_finite("0.5", "--seconds") == 0.5  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="--out /dev/null/x: cannot create"):
        check_output_dir("/dev/null/x", "--out")


def test_markdown_table_keeps_whole_cells() -> None:
    text = markdown_table(["game", "rate"], [["self-play (kernel)", "515.52 k"]], {"rate"})
    assert text.splitlines() == [
        "| game               |     rate |",
        "| ------------------ | -------: |",
        "| self-play (kernel) | 515.52 k |",
    ]


@pytest.mark.slow  # measures (briefly) in a subprocess
def test_bench_piped_prints_a_markdown_table(tmp_path: Path) -> None:
    res = _arena(
        "bench", "--games", "proteus", "--batch", "1", "--seconds", "0.05",
        "--json", str(tmp_path / "t.json"),
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    table = [line for line in res.stdout.splitlines() if line.startswith("|")]
    assert table[0].startswith("| game") and "| measure" in table[0]
    assert set(table[1]) <= set("|-: ")
    assert "…" not in res.stdout and "\r" not in res.stdout  # no squeeze, no bars


def test_explain_illegal_reasons() -> None:
    legal = ["Mo@a1", "Mo@b1", "s@c3", "a2-b2", "a2-a3"]
    assert "no exchange is legal" in explain_illegal("a1<>c3", legal, "play")
    assert "b3 is occupied (Gs)" in explain_illegal("Mo@b3", legal, cell={"b3": "Gs"}.get)
    assert "nothing may be placed on c1" in explain_illegal("Mo@c1", legal, cell=lambda s: None)
    assert "Tt cannot be placed" in explain_illegal("Tt@a1", legal)
    assert "b1 is empty" in explain_illegal("b1-b2", legal, cell=lambda s: None)
    assert "not your piece" in explain_illegal("c2-c3", legal, cell={"c2": "To"}.get)
    assert "from a2: a2-b2, a2-a3" in explain_illegal("a2-c1", legal)
    assert "may not pass" in explain_illegal("pass", ["pass", "a2-b2"])
    only_puts = ["M1@a1", "W2@b1"]
    assert "no erase is legal in this phase (setup)" in explain_illegal("xc2", only_puts, "setup")


#: game -> (seed, typed lines, what the output must hold: a text, or any one of several)
PLAY_CASES: dict[str, tuple[str, str, list[str | tuple[str, ...]]]] = {
    "proteus": (
        "3",
        "a1-b2\npass\nMo@b2\nMs@b2\nquit\n",
        [
            "against heuristic",
            "illegal: no move is legal",
            "illegal: no pass is legal",
            ("b2 is occupied", "cannot go on b2"),
        ],
    ),
    "virus_fight": (
        "1",
        "c1-d2\nxc2\nM1@a5\nquit\n",
        ["illegal: no move is legal in this phase (setup)", "nothing may be placed on a5"],
    ),
}


@pytest.mark.slow  # a subprocess importing the kernels
@pytest.mark.parametrize("game", sorted(PLAY_CASES))
def test_play_with_an_opponent_and_reasons(game: str) -> None:
    seed, stdin, expected = PLAY_CASES[game]
    res = _arena(
        "play", game, "--opponent", "heuristic", "--seed", seed, "--record", "", stdin=stdin
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    for want in expected:
        options = (want,) if isinstance(want, str) else want
        assert any(o in res.stdout for o in options), (want, res.stdout)
    if game == "proteus":
        _one_line(_arena("play", game, "--opponent", "nobody"), "nobody")


def test_play_moon_shot_with_a_registry_opponent(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import io

    from agents.registry import make_agent
    from envs.core import play_help
    from envs.moon_shot.play import main

    # what `arena play` installs (restored after the test: other play tests run without it)
    monkeypatch.setattr(play_help, "_agent_factory", make_agent)

    lines = io.StringIO("0 0.2 0.5 0\n" * 40)
    argv = ["--opponent", "aim", "--seed", "2", "--render", "none", "--record", ""]
    assert main([*argv, "--max-rounds", "3"], stdin=lines) == 0
    out = capsys.readouterr().out
    assert "player_1 shoots" in out and "game over" in out
    assert main(["--opponent", "nobody"]) == 2
    assert "nobody" in capsys.readouterr().err
