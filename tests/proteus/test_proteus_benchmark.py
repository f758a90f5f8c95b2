"""benchmarks.proteus produces well-formed rows (speed itself is never asserted)."""

from __future__ import annotations

from benchmarks.proteus import run

KEYS = {"game", "config", "measure", "batch", "threads", "rate", "unit", "compile_s"}


def test_benchmark_rows_smoke() -> None:
    rows = run([1, 300], seconds=0.05, threads=1)
    assert {r["measure"] for r in rows} >= {
        "kernel self-play (1 step/call)",
        "kernel self-play (fused 16 steps/call)",
        "legal mask",
        "observation",
        "AEC env()",
        "peer tictactoe_v3 env()",
    }
    for r in rows:
        assert KEYS <= set(r) and r["game"] == "proteus" and r["rate"] > 0
