"""``benchmarks/search.py``: the rows and the B = 1 breakdown are built from real calls.

Speeds are not asserted (docs/search.md holds the measured ones); what is checked is
that every searcher and part is measured, the derived parts are the differences they
name, and the CLI writes its JSON report.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import search as bench


def test_rows_measure_every_searcher_and_the_ratio_lines() -> None:
    table = bench.rows(["proteus"], [1], simulations=4, seconds=0.0, openspiel=False)
    assert [r["measure"] for r in table] == [
        "search array mcts:4",
        "search python-tree mcts:4",
    ]
    assert all(r["rate"] > 0 and r["unit"] == "simulations/s" for r in table)
    assert bench.ratios(table) == [
        f"proteus B=1: array / python-tree = {table[0]['rate'] / table[1]['rate']:.1f}x"
    ]


def test_breakdown_parts_are_measured_and_add_up() -> None:
    parts = {r["measure"].strip(): r["rate"] for r in bench.breakdown(["proteus"], 8, 0.05)}
    names = [
        "act (whole call)",
        "search()",
        "search() without playouts",
        "playouts (difference)",
        "act outside search()",
        "python-tree act (whole call)",
    ]
    got = {k.split(" ", 1)[1].strip(): v for k, v in parts.items()}
    assert sorted(got) == sorted(names)
    for measured in ("act (whole call)", "search()", "python-tree act (whole call)"):
        assert got[measured] > 0, measured
    assert got["playouts (difference)"] == pytest.approx(
        got["search()"] - got["search() without playouts"]
    )
    assert got["act outside search()"] == pytest.approx(got["act (whole call)"] - got["search()"])


def test_cli_breakdown_writes_its_report(tmp_path: Path) -> None:
    out = tmp_path / "bd.json"
    args = ["--games", "proteus", "--breakdown", "--simulations", "4", "--seconds", "0"]
    assert bench.main([*args, "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["args"]["breakdown"] is True and report["args"]["simulations"] == 4
    assert {r["unit"] for r in report["rows"]} == {"us/simulation"}
