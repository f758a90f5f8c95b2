"""Ladders (issue #11 item 3): concurrent writers, batch-independent games, early errors.

Two ``arena ladder`` processes on one database once lost the second one's games to an
``sqlite3.IntegrityError``; 20 then 40 games per pair gave other games than 40 at once (an
agent's randomness depended on its batch); a bad ``--db`` gave a traceback and a bad
``--out`` crashed after the games were stored.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tictactoe import TicTacToe
from training.ladder import TurnBasedRunner, run_ladder

ROOT = Path(__file__).resolve().parents[2]
COLUMNS = "game, config, seating, game_index, seed, agents, rewards, ranks, length"


def _rows(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            f"SELECT {COLUMNS} FROM matches ORDER BY game, config, seating, game_index"
        ).fetchall()


def _arena(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "training.cli", "ladder", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _tiny(db: Path, n: int, seed: int = 0, out: Path | None = None):
    return run_ladder(
        "tictactoe",
        _factories(),
        games_per_pair=n,
        db=db,
        out=out,
        seed=seed,
        runner=TurnBasedRunner(TicTacToe(2)),
    )


def _factories():
    from agents.random_agent import RandomAgent

    return {n: (lambda s: RandomAgent(seed=s)) for n in ("r1", "r2", "r3")}


def test_extended_in_steps_equals_one_run_row_for_row(tmp_path: Path) -> None:
    steps, once = tmp_path / "steps.sqlite", tmp_path / "once.sqlite"
    _tiny(steps, 2)
    _tiny(steps, 4)  # plays only the missing game index 1 of each seating
    _tiny(once, 4)
    a, b = _rows(steps), _rows(once)
    assert len(a) == len(b) == 3 * 4  # 3 pairs, 4 games each (2 per seating)
    assert a == b


def test_extended_in_steps_registry_agents(tmp_path: Path) -> None:
    """The same with real registry agents drawing randomness (Proteus random + heuristic)."""
    pytest.importorskip("envs.proteus.batch")
    steps, once = tmp_path / "steps.sqlite", tmp_path / "once.sqlite"
    for n in (2, 4):
        run_ladder("proteus", ["random", "heuristic"], games_per_pair=n, db=steps, out=None)
    run_ladder("proteus", ["random", "heuristic"], games_per_pair=4, db=once, out=None)
    assert _rows(steps) == _rows(once) and len(_rows(once)) == 4


@pytest.mark.slow  # two subprocesses importing the game kernels
def test_two_ladder_processes_on_one_database(tmp_path: Path) -> None:
    pytest.importorskip("envs.proteus.batch")
    db = tmp_path / "shared.sqlite"
    args = ["proteus", "--agents", "random", "heuristic", "--games-per-pair", "6"]
    args += ["--db", str(db), "--no-progress"]
    procs = [_arena(*args, "--out", str(tmp_path / f"out{k}")) for k in range(2)]
    results = [p.communicate(timeout=600) for p in procs]
    for p, (_out, err) in zip(procs, results, strict=True):
        assert p.returncode == 0, err
        assert "Traceback" not in err
    rows = _rows(db)
    keys = [r[:4] for r in rows]
    assert len(rows) == 6 and len(set(keys)) == 6  # every game stored, once
    alone = tmp_path / "alone.sqlite"
    run_ladder("proteus", ["random", "heuristic"], games_per_pair=6, db=alone, out=None)
    assert rows == _rows(alone)  # and they are the games one process plays


def _one_line_error(proc: subprocess.Popen[str], flag: str) -> None:
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 2, (out, err)
    assert "Traceback" not in err and flag in err
    assert len(err.strip().splitlines()) == 1, err


@pytest.mark.slow  # subprocesses importing the registry
def test_bad_db_and_out_fail_before_the_first_game(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a database, just some words\n" * 20)
    base = ["proteus", "--agents", "random", "heuristic", "--games-per-pair", "2", "--no-progress"]
    _one_line_error(_arena(*base, "--db", str(text), "--out", str(tmp_path / "o")), "--db")
    _one_line_error(_arena(*base, "--db", "/dev/null/ladder.sqlite"), "--db")
    db = tmp_path / "ok.sqlite"
    _one_line_error(_arena(*base, "--db", str(db), "--out", "/dev/null/plots"), "--out")
    assert not db.exists() or _rows(db) == []  # no game was played


def test_bad_db_in_python(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("plain text " * 100)
    with pytest.raises(ValueError, match="--db .*SQLite"):
        _tiny(text, 2)
    with pytest.raises(ValueError, match="--out"):
        _tiny(tmp_path / "ok.sqlite", 2, out=Path("/dev/null/plots"))
