"""Ladder statistics and report (issue #13 item 4): Wilson intervals, a ranking that agrees
with head to head (the docs/ladder.md example that mu - 3 sigma got wrong), anchored
ratings, alpha-Rank, Nash averaging, and ``arena ladder report``."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from training.ladder_stats import (
    anchored_ratings,
    consistent_order,
    contradictions,
    head_to_head,
    ladder_stats,
    wilson,
)
from training.ratings import MatchRecord, compute_ratings


def _games(pairs: dict[tuple[str, str], tuple[int, int, int]]) -> list[MatchRecord]:
    """Seat-swapped 2-player records: (a, b) -> (a wins, draws, b wins)."""
    out = []
    for (a, b), (w, d, l_) in pairs.items():
        k = 0
        for res in [0] * w + [1] * d + [2] * l_:
            seating = (a, b) if k % 2 == 0 else (b, a)
            ra = {0: 0, 1: 0, 2: 1}[res]
            rb = {0: 1, 1: 0, 2: 0}[res]
            ranks = (ra, rb) if seating[0] == a else (rb, ra)
            rew = tuple(1.0 if r == 0 and res != 1 else 0.0 if res == 1 else -1.0 for r in ranks)
            out.append(MatchRecord("|".join(seating), k // 2, seating, rew, ranks))
            k += 1
    return out


def test_wilson_known_values() -> None:
    lo, hi = wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0)
    assert wilson(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError, match="0 <= k <= n"):
        wilson(11, 10)


def test_docs_example_ranks_by_head_to_head() -> None:
    """The issue's case: mcts played fewer games and beat random, the heuristic beat mcts
    62.5 % head to head; the ranking must put the heuristic first whatever the ordinals."""
    recs = _games(
        {
            ("heuristic", "random"): (19, 0, 1),
            ("mcts:50", "random"): (20, 0, 0),
            ("heuristic", "mcts:50"): (10, 0, 6),
        }
    )
    names = ["random", "heuristic", "mcts:50"]
    st = ladder_stats(recs, names)
    assert st.names == ["heuristic", "mcts:50", "random"]
    assert st.contradicted == []
    i = st.names.index("heuristic")
    j = st.names.index("mcts:50")
    assert st.h2h.games[i, j] == 16 and st.h2h.score()[i, j] == pytest.approx(0.625)
    # anchored: random = 0 exactly, everyone else above it
    assert st.anchored.anchor == "random"
    assert st.anchored.rating[st.names.index("random")] == 0.0
    assert (st.anchored.rating[:2] > 0).all() and np.all(st.anchored.half95[:2] > 0)
    # alpha-Rank puts its mass on the head-to-head winner; the Nash mixture too
    assert int(np.argmax(st.alpha)) == 0 and st.nash.mixture[0] > 0.99
    assert st.nash.skill[0] == pytest.approx(0.0, abs=1e-6) and (st.nash.skill[1:] < 0).all()


def test_ranking_is_exact_over_all_orders() -> None:
    """The DP finds an order with the fewest contradicted pairings (brute force agrees)."""
    rng = np.random.default_rng(4)
    names = [f"a{i}" for i in range(6)]
    pairs = {
        (a, b): tuple(rng.multinomial(10, [0.45, 0.1, 0.45]))
        for a, b in itertools.combinations(names, 2)
    }
    h = head_to_head(_games(pairs), names)
    ar = anchored_ratings(h, None)
    order = consistent_order(h, ar.rating)
    best = min(len(contradictions(h, p)) for p in itertools.permutations(range(6)))
    assert len(contradictions(h, order)) == best
    assert sorted(order) == list(range(6))


def test_cycle_is_reported() -> None:
    recs = _games({("a", "b"): (7, 0, 3), ("b", "c"): (7, 0, 3), ("c", "a"): (7, 0, 3)})
    st = ladder_stats(recs, ["a", "b", "c"])
    assert len(st.contradicted) == 1  # rock-paper-scissors: no order agrees with all three
    assert np.allclose(st.nash.mixture, 1 / 3, atol=1e-3)


def test_anchored_ratings_compare_across_ladders() -> None:
    """Elo scale: an agent scoring 3:1 against the anchor sits near 400 log10(3) above it,
    whichever other agents the ladder holds."""
    a = _games({("x", "random"): (300, 0, 100)})
    b = _games({("x", "random"): (300, 0, 100), ("y", "random"): (100, 0, 100)})
    ra = anchored_ratings(head_to_head(a, ["random", "x"]))
    rb = anchored_ratings(head_to_head(b, ["random", "x", "y"]))
    expect = 400 * math.log10(3)
    assert ra.rating[1] == pytest.approx(expect, abs=3)
    assert rb.rating[1] == pytest.approx(expect, abs=3)


def test_report_from_a_ladder_database(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from training.cli import main as arena
    from training.ladder import run_ladder

    db = tmp_path / "ladder.sqlite"
    run_ladder("proteus", ["random", "heuristic"], games_per_pair=4, db=db, out=None, seed=2)
    out = tmp_path / "rep"
    assert arena(["ladder", "report", str(db), "--out", str(out), "--replays", "1"]) == 0
    text = capsys.readouterr().out
    assert "rating (random=0)" in text and "α-Rank" in text and "Ranked by head to head" in text
    md = (out / "report.md").read_text()
    assert "heuristic vs random" in md and "[" in md  # a pairing with its interval
    for kind in ("ratings", "heatmap", "over_time"):
        assert (out / f"proteus_players2_{kind}.png").stat().st_size > 1000
    page = (out / "report.html").read_text()
    assert page.count("data:image/png;base64,") == 3 and 'href="replays/' in page
    link = page.split('href="')[1].split('"')[0]
    assert (out / link).exists()
    assert arena(["ladder", "report", str(tmp_path / "none.sqlite")]) == 2


def test_openskill_table_is_kept_for_reference() -> None:
    recs = _games({("b", "a"): (6, 2, 2)})
    rows = {r.name: r for r in compute_ratings(recs, ["a", "b"])}
    assert rows["b"].wins == 6 and rows["b"].draws == 2 and rows["b"].losses == 2


def test_report_survives_old_and_stale_records(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """A game whose record no longer replays (e.g. stored before a rules fix) is named in
    the report instead of failing it; ``arena replay`` says why; a database without
    records (schema 1) reports without replays."""
    import json
    import sqlite3

    from training.cli import main as arena
    from training.ladder import run_ladder

    db = tmp_path / "ladder.sqlite"
    run_ladder("proteus", ["random", "heuristic"], games_per_pair=2, db=db, out=None, seed=2)
    with sqlite3.connect(db) as conn:
        rid, text = conn.execute("SELECT id, record FROM records ORDER BY id").fetchone()
        rec = json.loads(text)
        rec["rewards"] = [-x for x in rec["rewards"]]
        conn.execute("UPDATE records SET record=? WHERE id=?", (json.dumps(rec), rid))
    assert arena(["ladder", "report", str(db), "--out", str(tmp_path / "r")]) == 0
    assert f"record {rid} does not replay" in (tmp_path / "r" / "report.md").read_text()
    assert arena(["replay", str(db), str(rid), "--out", str(tmp_path / "x.html")]) == 2
    assert "does not replay: rewards" in capsys.readouterr().out
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE records")
        conn.execute("DROP TABLE meta")
    assert arena(["ladder", "report", str(db), "--out", str(tmp_path / "old")]) == 0
    assert "No replays" in (tmp_path / "old" / "report.md").read_text()
