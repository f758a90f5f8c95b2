"""Game records (issue #13 item 1): the ladder records every game; records read back from
the database and from JSON-lines files replay bit-exactly through the kernels; a changed
record is caught; a database from before records (schema 1) still opens."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from pathlib import Path

import pytest

from envs.core import records as R
from training.ladder import MatchDB, run_ladder
from training.ladder_records import SCHEMA_VERSION, list_records, load_record, schema_version

LADDERS = [
    # (game, agents, players, games per pair): random against a real agent, so both
    # random and searched/heuristic moves are recorded
    ("proteus", ["random", "heuristic"], None, 16),
    ("virus_fight", ["random", "heuristic"], 2, 12),
    ("virus_fight", ["random", "heuristic"], 3, 6),
]


def _ladder_records(tmp: Path, game: str, agents: list[str], players: int | None, n: int):
    db = tmp / f"{game}_{players}.sqlite"
    run_ladder(game, agents, games_per_pair=n, players=players, db=db, out=None, seed=3)
    ids = list_records(db, game)
    return db, [load_record(db, rid) for rid, *_ in ids]


@pytest.mark.parametrize(("game", "agents", "players", "n"), LADDERS)
def test_ladder_games_replay_bit_exactly(tmp_path: Path, game, agents, players, n) -> None:  # type: ignore[no-untyped-def]
    db, recs = _ladder_records(tmp_path, game, agents, players, n)
    with sqlite3.connect(db) as conn:
        stored = conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
    assert len(recs) == stored >= n  # every game has its record
    path = R.write_records(tmp_path / "games.jsonl", recs, append=False)
    back = R.read_records(path)
    assert [r.to_json() for r in back] == [r.to_json() for r in recs]
    for r in back:
        rep = R.replay(r)  # raises ReplayMismatch at the first difference
        assert rep.length == r.length == len(r.moves) == len(r.actions)
        assert r.digest and r.started and r.finished and r.versions["numpy"]
        assert min(r.ranks) == 0 and len(r.ranks) == len(r.agents)
    # the notation is the rules' notation and round-trips to the action ids
    to_str = R.notation(game, back[0].config)
    assert all(to_str(a) == m for r in back for a, m in zip(r.actions, r.moves, strict=True))


def test_moon_shot_ladder_records_replay_bit_exactly(tmp_path: Path) -> None:
    """MS-5..MS-7 shots: actions, noise seeds, realised launches and resting poses replay to
    the same float64 bits, and the game to the same MS-17 result."""
    db, recs = _ladder_records(tmp_path, "moon_shot", ["random", "aim"], 2, 6)
    assert len(recs) == 6
    for r in recs:
        R.replay(r)
        assert len(r.shots) == r.length > 0
        assert {"seed", "launch", "poses", "points", "action"} <= set(r.shots[0])
    back = R.read_records(R.write_records(tmp_path / "ms.jsonl", recs, append=False))
    for r in back:
        R.replay(r)


def test_changed_records_are_caught(tmp_path: Path) -> None:
    _, recs = _ladder_records(tmp_path, "proteus", ["random", "heuristic"], None, 2)
    r = recs[0]
    bad = dataclasses.replace(r, rewards=[-x for x in r.rewards])
    with pytest.raises(R.ReplayMismatch, match="rewards"):
        R.replay(bad)
    bad = dataclasses.replace(r, digest="0" * 32)
    with pytest.raises(R.ReplayMismatch, match="digest"):
        R.replay(bad)
    bad = dataclasses.replace(r, actions=r.actions[:-1], seats=r.seats[:-1])
    with pytest.raises(R.ReplayMismatch, match="not over"):
        R.replay(bad)
    bad = dataclasses.replace(r, seats=[1 - s for s in r.seats])
    with pytest.raises(R.ReplayMismatch, match="seat"):
        R.replay(bad)


def test_moon_shot_changed_pose_bit_is_caught(tmp_path: Path) -> None:
    _, recs = _ladder_records(tmp_path, "moon_shot", ["random", "aim"], 2, 2)
    r = recs[0]
    shots = [dict(s) for s in r.shots]
    x = shots[0]["poses"][0][0]
    shots[0]["poses"] = [list(p) for p in shots[0]["poses"]]
    shots[0]["poses"][0][0] = float.fromhex(x.hex()[:-1] + ("1" if x.hex()[-1] != "1" else "2"))
    with pytest.raises(R.ReplayMismatch, match="poses"):
        R.replay(dataclasses.replace(r, shots=shots))


def test_record_file_errors(tmp_path: Path) -> None:
    p = tmp_path / "bad.jsonl"
    p.write_text('{"format": "something else"}\n')
    with pytest.raises(ValueError, match="bad.jsonl:1: not a game record"):
        R.read_records(p)
    p.write_text("{not json\n")
    with pytest.raises(ValueError, match="bad JSON"):
        R.read_records(p)
    with pytest.raises(FileNotFoundError):
        R.read_records(tmp_path / "missing.jsonl")
    newer = {"format": R.FORMAT, "version": R.VERSION + 1}
    with pytest.raises(ValueError, match="newer"):
        R.GameRecord.from_json(json.dumps(newer))


def test_schema_1_database_still_opens(tmp_path: Path) -> None:
    """A ladder database from before game records: its games stay, new games get records."""
    db = tmp_path / "old.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute(
            "CREATE TABLE matches (game TEXT NOT NULL, config TEXT NOT NULL, seating TEXT NOT"
            " NULL, game_index INTEGER NOT NULL, seed INTEGER NOT NULL, agents TEXT NOT NULL,"
            " rewards TEXT NOT NULL, ranks TEXT NOT NULL, length INTEGER NOT NULL,"
            " PRIMARY KEY (game, config, seating, game_index))"
        )
        conn.execute(
            "INSERT INTO matches VALUES ('proteus', 'players=2', 'a|b', 0, 1, '[\"a\", \"b\"]',"
            " '[1.0, -1.0]', '[0, 1]', 9)"
        )
        assert schema_version(conn) == 1
    assert list_records(db) == []
    store = MatchDB(db)
    assert schema_version(store.conn) == SCHEMA_VERSION
    assert store.count() == 1
    store.close()
    run_ladder("proteus", ["random", "heuristic"], games_per_pair=2, db=db, out=None)
    assert len(list_records(db)) == 2
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 3
        conn.execute("UPDATE meta SET value='99' WHERE key='schema_version'")
    with pytest.raises(ValueError, match="newer"):
        MatchDB(db)


def test_a_game_without_record_hooks_records_and_replays(tmp_path: Path) -> None:
    """A registered game without ``record`` / ``replay_scenes`` (the toy of
    docs/adding_a_game.md): the turn-based default records and replays its ladder games;
    asking for pictures is a clear error."""
    from envs import registry
    from tests.contract.test_toy_game import TOY
    from training.replay import replay_html

    registry.register(TOY)
    try:
        _, recs = _ladder_records(tmp_path, TOY.name, ["random", "mcts:4"], 3, 2)
        assert len(recs) >= 2 and all(r.config == {"players": 3} for r in recs)
        for r in recs:
            assert R.replay(r).length == r.length and r.moves == [str(a) for a in r.actions]
        assert json.loads(recs[0].to_json())["env"] == TOY.name
        with pytest.raises(ValueError, match="no pictures for game 'tictactoe'"):
            replay_html(recs[0])
    finally:
        registry.unregister(TOY.name)
