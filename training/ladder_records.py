"""Game records in the ladder's SQLite database (``records`` table, schema version 2).

Schema history: version 1 is the ``matches`` table alone (results, no moves); version 2
adds ``meta`` (the schema version) and ``records``: one row per game, keyed like its
``matches`` row, holding the game's JSON record (``envs.core.records``) and its timestamps.
A version-1 database opens unchanged; its old games simply have no record (the report
says so), new games get one. A database of a newer version than this package refuses to
open rather than be written wrongly.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from envs.core.records import GameRecord
from training.ratings import MatchRecord

SCHEMA_VERSION = 2

_TABLES = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS records (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        game TEXT NOT NULL,
        config TEXT NOT NULL,
        seating TEXT NOT NULL,
        game_index INTEGER NOT NULL,
        started TEXT NOT NULL,
        finished TEXT NOT NULL,
        record TEXT NOT NULL,
        UNIQUE (game, config, seating, game_index)
    )""",
)


def match_from_row(seating: str, index: Any, agents: str, rewards: str, ranks: str) -> MatchRecord:
    """One ``matches`` row (its JSON columns decoded) as a :class:`MatchRecord`.

    Why one function: the ladder reads its own games back and the report reads any
    database, from the same columns."""
    return MatchRecord(
        seating=seating,
        game_index=int(index),
        agents=tuple(json.loads(agents)),
        rewards=tuple(float(x) for x in json.loads(rewards)),
        ranks=tuple(int(x) for x in json.loads(ranks)),
    )


def schema_version(conn: sqlite3.Connection) -> int:
    """1 for a database without ``meta`` (the ``matches`` table alone), else the stored one."""
    row = conn.execute("SELECT name FROM sqlite_master WHERE type='table' AND name='meta'")
    if row.fetchone() is None:
        return 1
    got = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    return int(got[0]) if got else 1


def ensure_schema(conn: sqlite3.Connection) -> int:
    """Create the version-2 tables if missing (an old database is upgraded in place)."""
    v = schema_version(conn)
    if v > SCHEMA_VERSION:
        raise ValueError(
            f"ladder database schema version {v} is newer than this package ({SCHEMA_VERSION})"
        )
    with conn:
        for sql in _TABLES:
            conn.execute(sql)
        conn.execute(
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
            (str(SCHEMA_VERSION),),
        )
    return SCHEMA_VERSION


def insert_records(
    conn: sqlite3.Connection, config: str, records: Sequence[tuple[str, GameRecord]]
) -> None:
    """Add (seating key, record) pairs (inside the transaction storing their ``matches``)."""
    conn.executemany(
        "INSERT OR REPLACE INTO records (game, config, seating, game_index, started, finished,"
        " record) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (r.game, config, key, int(r.game_index), r.started, r.finished, r.to_json())
            for key, r in records
        ],
    )


def records_from_outcomes(
    runner: Any,
    game: str,
    agents: Sequence[str],
    seed: int,
    indices: Sequence[int],
    outcomes: Sequence[Any],
    ranks: Sequence[Sequence[int]],
    started: str,
    source: str = "ladder",
) -> list[GameRecord]:
    """Game records of a runner's outcomes (``envs.core.match.GameOutcome``); empty when
    the runner kept no moves (a runner outside this package)."""
    from envs.core import records as R

    if not outcomes or not any(getattr(o, "moves", None) for o in outcomes):
        return []
    common = {"source": source, "started": started, "finished": R.now()}
    # the game's record hooks (its registry entry's ``record``) build them
    out = R.hooks(game).from_outcomes(runner, seed, indices, agents, outcomes, **common)
    for r, o, k in zip(out, outcomes, ranks, strict=True):
        r.ranks = [int(x) for x in k]
        r.length = int(o.length)
    return out


def _connect(db: str | Path) -> sqlite3.Connection:
    p = Path(db)
    if not p.exists():
        raise FileNotFoundError(f"no ladder database {p}")
    return sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True)


def has_records(conn: sqlite3.Connection) -> bool:
    row = conn.execute("SELECT name FROM sqlite_master WHERE type='table' AND name='records'")
    return row.fetchone() is not None


def list_records(
    db: str | Path, game: str | None = None, config: str | None = None
) -> list[tuple[int, str, str, str, int]]:
    """(id, game, config, seating, game_index) of every stored record, in id order."""
    conn = _connect(db)
    try:
        if not has_records(conn):
            return []
        q = "SELECT id, game, config, seating, game_index FROM records"
        cond, args = [], []
        if game is not None:
            cond.append("game=?")
            args.append(game)
        if config is not None:
            cond.append("config=?")
            args.append(config)
        if cond:
            q += " WHERE " + " AND ".join(cond)
        rows = conn.execute(q + " ORDER BY id", args).fetchall()
        return [(int(a), b, c, d, int(e)) for a, b, c, d, e in rows]
    finally:
        conn.close()


def load_record(db: str | Path, game_id: int) -> GameRecord:
    """The record with id ``game_id`` (see :func:`list_records`); KeyError if absent."""
    conn = _connect(db)
    try:
        if not has_records(conn):
            raise KeyError(f"{db} holds no game records (a database from before schema 2)")
        row = conn.execute("SELECT record FROM records WHERE id=?", (int(game_id),)).fetchone()
    finally:
        conn.close()
    if row is None:
        raise KeyError(f"{db} has no game record with id {game_id}")
    return GameRecord.from_json(row[0])
