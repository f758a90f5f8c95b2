"""The peer benchmark harness: rows in the throughput format, skips reported, ratios right.

Speed is never asserted; these tests check the harness measures what it says.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from benchmarks import peers

KEYS = {"game", "config", "measure", "batch", "threads", "rate", "unit", "compile_s"}


def _extras_present() -> bool:
    try:
        import pgx  # noqa: F401
        import pyspiel  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("CI installs the bench extra: open-spiel and pgx must import")
        return False
    return True


def test_peer_rows_format_and_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    if not _extras_present():
        pytest.skip("bench extra (open-spiel, pgx) not installed locally")
    monkeypatch.setattr(peers, "OUR_GAMES", ())  # ours: test_peers_ours_*
    monkeypatch.setenv("XLA_FLAGS", os.environ.get("XLA_FLAGS", ""))  # restored afterwards
    rows = peers.run([1, 4], seconds=0.05, threads=1, loop_games=2)
    assert all(KEYS <= set(r) for r in rows)
    peer_rows = [r for r in rows if r["game"] in ("tic_tac_toe", "connect_four")]
    measures = {(r["game"], r["measure"]) for r in peer_rows}
    for game in ("tic_tac_toe", "connect_four"):
        for m in (peers.PZ, peers.OS_CPP, peers.OS_PY, peers.PGX):
            assert (game, m) in measures
    for r in peer_rows:
        assert r["rate"] is not None and r["rate"] > 0, r
        assert r["unit"] == "steps/s"
    pgx_rows = [r for r in peer_rows if r["measure"] == peers.PGX]
    assert sorted({r["batch"] for r in pgx_rows}) == [1, 4]
    assert all(r["compile_s"] is not None and r["compile_s"] > 0 for r in pgx_rows)
    # one-game loops are capped at loop_games
    assert max(r["batch"] for r in peer_rows if r["measure"] == peers.OS_PY) == 2


def test_missing_peer_is_skipped_not_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    real = peers._installed
    monkeypatch.setattr(
        peers, "_installed", lambda m: "not installed (test)" if m == "pgx" else real(m)
    )
    monkeypatch.setattr(peers, "OUR_GAMES", ())
    monkeypatch.setattr(peers, "PEER_GAMES", peers.PEER_GAMES[:1])
    rows = peers.run([2], seconds=0.02, threads=1, loop_games=1)
    pgx_rows = [r for r in rows if r["measure"] == peers.PGX]
    assert pgx_rows and all(r["rate"] is None and r["skipped"] for r in pgx_rows)


def test_our_game_that_fails_is_reported_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> object:
        raise ImportError("no facade yet")

    game = peers.OurGame("nogame", "x", broken, broken)
    monkeypatch.setattr(peers, "OUR_GAMES", (game,))
    monkeypatch.setattr(peers, "PEER_GAMES", ())
    rows = peers.run([1], seconds=0.01, threads=1)
    assert [r["measure"] for r in rows] == [peers.KERNEL, peers.AEC]
    assert all(r["rate"] is None and "no facade yet" in r["skipped"] for r in rows)


def test_ratios_divide_ours_by_the_like_for_like_peer() -> None:
    rows = [
        peers._row("g", "c", peers.KERNEL, 8, 1, 800.0, 0.1),
        peers._row("g", "c", peers.AEC, 2, 1, 90.0, 0.1),
        peers._row("tic_tac_toe", "2p", peers.PGX, 8, 1, 400.0, 1.0),
        peers._row("tic_tac_toe", "2p", peers.OS_CPP, 1, 1, 1600.0),
        peers._row("tic_tac_toe", "2p", peers.OS_PY, 2, 1, 30.0),
        peers._row("tic_tac_toe", "2p", peers.PZ, 2, 1, None, skipped="x"),
    ]
    table = {(e["game"], e["measure"]): e for e in peers.ratios(rows)}
    kern = table[("g", peers.KERNEL)]
    assert kern["vs pgx tic_tac_toe"] == pytest.approx(2.0)
    assert kern["vs openspiel C++ tic_tac_toe"] == pytest.approx(0.5)
    aec = table[("g", peers.AEC)]
    assert aec["vs openspiel py tic_tac_toe"] == pytest.approx(3.0)
    assert aec["vs pettingzoo tic_tac_toe"] is None
    assert "| g | kernel self-play | 8 |" in peers.markdown(rows, list(table.values()))


def test_cli_writes_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(peers, "OUR_GAMES", ())
    monkeypatch.setattr(peers, "PEER_GAMES", peers.PEER_GAMES[:1])
    out = tmp_path / "p.json"
    assert peers.main(["--batch", "1", "--seconds", "0.02", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["rows"] and "versions" in report and report["args"]["batch"] == [1]
    with pytest.raises(SystemExit):
        peers.main(["--batch", "0"])
