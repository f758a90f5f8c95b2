"""``arena demo`` smoke test: the real command with a tiny budget (train, ladder, table, plots)."""

from __future__ import annotations

from pathlib import Path

import pytest

from training.demo import main


@pytest.mark.slow  # imports torch, trains and runs a ladder: ~20-40 s on 2 busy cores
def test_demo_trains_runs_the_ladder_prints_the_table_and_writes_plots(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("envs.proteus.batch")
    out = tmp_path / "demo"
    argv = ["--steps", "512", "--games-per-pair", "4", "--agents", "random", "--out", str(out)]
    assert main([*argv, "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "[1/2] training proteus" in text and "[2/2] ladder random, policy" in text
    assert "policy" in text and "random" in text  # the ratings table lists both
    plots = sorted(p.name for p in (out / "plots").glob("*.png"))
    assert len(plots) == 2
    assert (out / "train" / "model.zip").exists()
    from agents.policy import PolicyAgent

    # Proteus demo policies read the lookahead flags (docs/training.md)
    assert PolicyAgent.load(out / "train", game="proteus").needs_context
    assert (out / "ladder.sqlite").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--steps", "0"], "--steps must be >= 1"),
        (["--game", "virus_fight", "--obs", "lookahead"], "lookahead exists for proteus only"),
    ],
)
def test_demo_rejects_bad_arguments(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
