"""``arena play`` records every finished game (issue #13 item 1): the record replays through
the kernels and gives the result the terminal game printed."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from envs.core import records as R


def test_moon_shot_play_record_matches_the_env(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from envs.moon_shot.play import main

    path = tmp_path / "ms.jsonl"
    for seed in (3, 4):
        argv = ["--seed", str(seed), "--max-rounds", "3", "--render", "none", "--record", str(path)]
        assert main(argv, stdin=io.StringIO("random\n" * 10)) == 0
    out = capsys.readouterr().out
    recs = R.read_records(path)
    assert len(recs) == 2 and "arena replay" in out
    printed = re.findall(r"rewards player_0 ([+-]\d), player_1 ([+-]\d)", out)
    for rec, (r0, r1) in zip(recs, printed, strict=True):
        R.replay(rec)  # MS-5..MS-17 again through MoonShotBatch.shoot
        assert rec.rewards == [float(r0), float(r1)]
        assert rec.start.startswith("key=") and rec.agents == ["you", "random"]


def test_board_play_record_from_a_position(tmp_path: Path) -> None:
    """A game started from a position text replays from that position."""
    from envs.proteus.batch import ProteusBatch, text_of

    g = ProteusBatch()
    st = g.init(1, 5)
    for _ in range(12):  # into the game, then play it out from that position
        g.step(st, g.random_actions(g.copy(st)))
    start = text_of(st)
    moves = []
    while not g.terminated(st)[0]:
        a = int(g.random_actions(g.copy(st))[0])
        moves.append((int(g.current_player(st)[0]), a))
        g.step(st, [a])
    path = tmp_path / "p.jsonl"
    note = R.save_play_record(path, "proteus", {"players": 2}, ["you", "random"], moves, start)
    assert "arena replay" in note and note.endswith(" 0)")
    (rec,) = R.read_records(path)
    assert rec.start == start and R.replay(rec).length == len(moves)
    bad = R.save_play_record(path, "proteus", {"players": 2}, ["a", "b"], moves[:-1], start)
    assert bad.startswith("game not recorded")


@pytest.mark.parametrize("players", [2, 3])
def test_virus_fight_record_from_moves(players: int) -> None:
    from envs.virus_fight.batch import VirusFightBatch

    g = VirusFightBatch(players)
    st = g.init(1, 9)
    start = f"key={int(st.rng[0])}"  # VF-12 tie-breaks draw from the game's key
    moves = []
    while not g.terminated(st)[0]:
        a = int(g.random_actions(g.copy(st))[0])
        moves.append((int(g.current_player(st)[0]), a))
        g.step(st, [a])
    rec = R.from_moves("virus_fight", R.facade_config(g), ["x"] * players,
                       [a for _, a in moves], [s for s, _ in moves], start=start)  # fmt: skip
    R.replay(rec)
    assert rec.digest == R.state_digest(st, 0)
