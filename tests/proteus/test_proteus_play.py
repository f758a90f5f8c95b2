"""``envs.proteus.play`` driven through stdin (``arena play proteus``)."""

from __future__ import annotations

import io

import pytest

from envs.proteus.play import main

M1 = "Mo+:bo,Ts,Gt/Ms:ws,Tt+:bt,Go+:wo/Mt:wt,To:bs,Gs b 40/200"


def _run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, lines: str, argv):
    monkeypatch.setattr("sys.stdin", io.StringIO(lines))
    code = main(argv)
    return code, capsys.readouterr().out


def test_play_win_with_help_and_bad_input(monkeypatch, capsys) -> None:
    code, out = _run(
        monkeypatch, capsys, "help\nfoo\na3-c1\ntext\na3-b3\n", ["--position", M1, "--seed", "1"]
    )
    assert code == 0
    assert "legal moves: " in out and "a3-b3" in out.split("legal moves: ")[1].splitlines()[0]
    assert "not accepted: bad move 'foo'" in out
    # a3-c1 is not a KING move (PR-12): the reason names the legal moves from a3
    assert "illegal: a3-c1 is not a legal move; from a3: a3-b3" in out
    assert M1.split()[0] in out  # the text command
    assert "game over: black wins (you win)" in out


def test_play_as_white_against_random_mover_until_eof(monkeypatch, capsys) -> None:
    code, out = _run(monkeypatch, capsys, "", ["--seat", "white", "--seed", "3"])
    assert code == 0
    assert "black plays " in out and out.rstrip().endswith("bye")


def test_play_full_game_typing_help_moves(monkeypatch, capsys) -> None:
    """Answer every prompt with the first legal move printed by ``help``."""
    import builtins

    answers: list[str] = []
    real_print = builtins.print

    def fake_input(prompt: str = "") -> str:
        if answers and answers[-1] == "help":
            legal = captured[-1].split("legal moves: ")[1].split()
            answers.append(legal[0])
        else:
            answers.append("help")
        return answers[-1]

    captured: list[str] = []

    def fake_print(*args, **kwargs) -> None:
        captured.append(" ".join(str(a) for a in args))
        real_print(*args, **kwargs)

    monkeypatch.setattr(builtins, "input", fake_input)
    monkeypatch.setattr(builtins, "print", fake_print)
    assert main(["--seed", "5", "--max-turns", "60"]) == 0
    assert captured[-1].startswith("game over: ")


def test_play_bad_position_is_reported(capsys) -> None:
    assert main(["--position", "nonsense"]) == 2
    assert "error:" in capsys.readouterr().err
