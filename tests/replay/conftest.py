"""Records of real ladder games of every game, shared by the replay tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from training.ladder import run_ladder
from training.ladder_records import list_records, load_record

GAMES = {
    "proteus": (["random", "heuristic"], None),
    "virus_fight": (["random", "heuristic"], 3),
    "moon_shot": (["random", "aim"], 2),
}


@pytest.fixture(scope="session")
def ladder_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One database with a few recorded ladder games of each game."""
    db = tmp_path_factory.mktemp("replay") / "ladder.sqlite"
    for game, (agents, players) in GAMES.items():
        run_ladder(game, agents, games_per_pair=3, players=players, db=db, out=None, seed=1)
    return db


@pytest.fixture(scope="session")
def records(ladder_db: Path) -> dict:  # type: ignore[type-arg]
    """game -> its longest recorded game (the most moves to step through)."""
    out: dict = {}  # type: ignore[type-arg]
    for rid, game, *_ in list_records(ladder_db):
        rec = load_record(ladder_db, rid)
        if game not in out or rec.length > out[game][1].length:
            out[game] = (rid, rec)
    return out
