"""The ladder: planning, persistence and resume, reproducibility, ratings, plots, CLI."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from agents.mcts import MCTSAgent
from agents.random_agent import RandomAgent
from tests.tictactoe import TicTacToe
from training import ladder
from training.ladder import TurnBasedRunner, plan_combinations, run_ladder, seatings_of
from training.ratings import MatchRecord, compute_ratings, ranks_from_results

FACTORIES = {
    "random": lambda s: RandomAgent(s),
    "mcts4": lambda s: MCTSAgent(simulations=4, seed=s),
    "mcts24": lambda s: MCTSAgent(simulations=24, seed=s),
}


def ttt_ladder(tmp: Path, names, n=10, seed=0, players=2, out=True, **kw):  # type: ignore[no-untyped-def]
    return run_ladder(
        "tictactoe",
        {k: FACTORIES[k] for k in names},
        games_per_pair=n,
        db=tmp / "ladder.sqlite",
        out=(tmp / "plots") if out else None,
        seed=seed,
        runner=TurnBasedRunner(TicTacToe(players)),
        **kw,
    )


def rows(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT * FROM matches ORDER BY seating, game_index").fetchall()


def test_plan_pairs_are_seat_swapped_and_multiplayer_seatings_rotate() -> None:
    assert plan_combinations(["a", "b", "c"], 2) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert seatings_of(("a", "b")) == [("a", "b"), ("b", "a")]
    assert seatings_of(("a", "b", "c")) == [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]
    # fewer agents than seats: every multiset with at least two different agents
    assert plan_combinations(["a", "b"], 3) == [("a", "a", "b"), ("a", "b", "b")]
    assert seatings_of(("a", "a", "b")) == [("a", "a", "b"), ("a", "b", "a"), ("b", "a", "a")]
    assert len(plan_combinations(list("abcde"), 4)) == 5
    with pytest.raises(ValueError, match="two different agents"):
        plan_combinations(["a"], 2)


def test_ranks_from_results_reward_first_then_later_finish() -> None:
    assert ranks_from_results([1, -1], [5, 5]) == (0, 1)
    assert ranks_from_results([0, 0], [9, 9]) == (0, 0)
    # three seats: winner, then the later eliminated, then the first eliminated
    assert ranks_from_results([-1, 1, -1], [3, 10, 7]) == (2, 0, 1)
    assert ranks_from_results([-1, 1, -1], [7, 10, 7]) == (1, 0, 1)


def test_ratings_rank_a_dominant_agent_first_and_count_results() -> None:
    recs = [MatchRecord("a|b", i, ("a", "b"), (1.0, -1.0), (0, 1)) for i in range(20)] + [
        MatchRecord("b|a", i, ("b", "a"), (0.0, 0.0), (0, 0)) for i in range(5)
    ]
    table = compute_ratings(recs, ["b", "a"])
    assert [r.name for r in table] == ["a", "b"]
    a = table[0]
    assert (a.games, a.wins, a.draws, a.losses) == (25, 20, 5, 0)
    assert a.ordinal == pytest.approx(a.mu - 3 * a.sigma)
    assert table[1].win_rate == 0.0


def test_ladder_stores_every_game_and_resume_adds_only_new_entrant(tmp_path: Path) -> None:
    first = ttt_ladder(tmp_path, ["random", "mcts24"], n=10)
    assert first.games_played == 10 and first.games_stored == 10
    before = rows(tmp_path / "ladder.sqlite")
    assert len(before) == 10
    assert {r[2] for r in before} == {"random|mcts24", "mcts24|random"}  # seat-swapped, 5 each

    again = ttt_ladder(tmp_path, ["random", "mcts24"], n=10)
    assert again.games_played == 0 and again.games_stored == 10

    grown = ttt_ladder(tmp_path, ["random", "mcts24", "mcts4"], n=10)
    assert grown.games_played == 20  # only the two new pairings
    after = rows(tmp_path / "ladder.sqlite")
    assert len(after) == 30
    assert set(before) <= set(after)  # old matches untouched (append-only)
    by_name = {r.name: r for r in grown.ratings}
    assert by_name["mcts24"].games == 20 and by_name["random"].games == 20
    assert by_name["mcts24"].mu > by_name["random"].mu

    more = ttt_ladder(tmp_path, ["random", "mcts24", "mcts4"], n=12)  # 2 more per pairing
    assert more.games_played == 6 and more.games_stored == 36


def test_interrupted_ladder_resumes_to_the_same_database_as_one_run(
    tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    names = ["random", "mcts4", "mcts24"]
    whole = tmp_path / "whole"
    ttt_ladder(whole, names, n=6, out=False)

    broken = tmp_path / "broken"
    real_insert = ladder.MatchDB.insert
    calls = {"n": 0}

    def failing_insert(self, game, config, batch):  # type: ignore[no-untyped-def]
        if calls["n"] == 2:
            raise KeyboardInterrupt
        calls["n"] += 1
        real_insert(self, game, config, batch)

    monkeypatch.setattr(ladder.MatchDB, "insert", failing_insert)
    with pytest.raises(KeyboardInterrupt):
        ttt_ladder(broken, names, n=6, out=False)
    assert len(rows(broken / "ladder.sqlite")) == 6  # two seatings of 3 games stored
    monkeypatch.setattr(ladder.MatchDB, "insert", real_insert)
    resumed = ttt_ladder(broken, names, n=6, out=False)
    assert resumed.games_played == 12
    assert rows(broken / "ladder.sqlite") == rows(whole / "ladder.sqlite")


def test_seeded_ladder_is_reproducible(tmp_path: Path) -> None:
    a = ttt_ladder(tmp_path / "a", ["random", "mcts4", "mcts24"], n=8, seed=5, out=False)
    b = ttt_ladder(tmp_path / "b", ["random", "mcts4", "mcts24"], n=8, seed=5, out=False)
    ttt_ladder(tmp_path / "c", ["random", "mcts4", "mcts24"], n=8, seed=6, out=False)
    assert rows(tmp_path / "a" / "ladder.sqlite") == rows(tmp_path / "b" / "ladder.sqlite")
    assert a.table() == b.table()
    assert np.array_equal(a.win_matrix, b.win_matrix, equal_nan=True)
    assert rows(tmp_path / "a" / "ladder.sqlite") != rows(tmp_path / "c" / "ladder.sqlite")


def test_plots_are_written_as_png(tmp_path: Path) -> None:
    res = ttt_ladder(tmp_path, ["random", "mcts24"], n=4)
    assert set(res.plots) == {"ratings", "winrate"}
    for path in res.plots.values():
        data = Path(path).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 2000


def test_multiplayer_ladder_ranks_every_seat(tmp_path: Path) -> None:
    res = ttt_ladder(tmp_path, ["random", "mcts24"], n=6, players=3, out=False)
    stored = rows(tmp_path / "ladder.sqlite")
    # two multisets (r,r,m) and (r,m,m), three rotations each, 2 games per rotation
    assert len(stored) == 12 and res.games_stored == 12
    assert len({r[2] for r in stored}) == 6
    assert sum(r.games for r in res.ratings) == 36  # every seat of every game is rated


def test_ladder_on_real_games_and_the_cli(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code = ladder.main(
        [
            "proteus",
            "--agents",
            "random",
            "heuristic",
            "--games-per-pair",
            "4",
            "--db",
            str(tmp_path / "l.sqlite"),
            "--out",
            str(tmp_path / "out"),
            "--no-progress",
        ]
    )
    text = capsys.readouterr().out
    assert code == 0
    assert "heuristic" in text and "ordinal" in text and "played 4 new games" in text
    assert (tmp_path / "out" / "proteus_players2_ratings.png").exists()
    res = run_ladder(
        "virus_fight",
        ["random", "heuristic"],
        games_per_pair=3,  # per combination: one game in each of its 3 seatings
        players=3,
        db=tmp_path / "l.sqlite",
        out=None,
    )
    assert res.config == "players=3" and res.games_played == 6
    assert (
        ladder.main(["proteus", "--agents", "random", "nobody", "--db", str(tmp_path / "x.sqlite")])
        == 2
    )
    assert "unknown agent" in capsys.readouterr().err  # errors go to stderr
    assert ladder.main(["proteus", "--players", "3", "--db", str(tmp_path / "z.sqlite")]) == 2
    assert "2 players, not 3" in capsys.readouterr().err
    missing = str(tmp_path / "no_such_run")
    args = [
        "proteus",
        "--agents",
        "random",
        f"policy:{missing}",
        "--db",
        str(tmp_path / "y.sqlite"),
    ]
    assert ladder.main(args) == 2
    assert "no trained model" in capsys.readouterr().err


def test_moon_shot_ladder_through_the_game_flow(tmp_path: Path) -> None:
    res = run_ladder(
        "moon_shot", ["random", "aim"], games_per_pair=6, db=tmp_path / "m.sqlite", out=tmp_path
    )
    assert res.games_played == 6 and res.config == "players=2"
    assert [r.name for r in res.ratings][0] == "aim"
    assert res.plots["winrate"].exists()
