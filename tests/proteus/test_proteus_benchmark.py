"""benchmarks.proteus produces well-formed rows (speed itself is never asserted)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
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


def test_learner_rounds_beside_pgx_name_both_encodings(tmp_path: Path) -> None:
    """``benchmarks.peers --rounds``: the planes, dense and packed-mask learner rows beside
    Pgx's step, alternating, each with its rate per CPU-second (issue 14)."""
    pytest.importorskip("pgx")
    from benchmarks import peers

    out = tmp_path / "rounds.json"
    argv = ["--rounds", "1", "--game", "proteus", "--batch", "2", "--seconds", "0.02"]
    assert peers.main([*argv, "--threads", "1", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [r["measure"] for r in rows] == [
        peers.LEARNER, peers.LEARNER_DENSE, peers.LEARNER_BITS, peers.LEARNER_UNPACKED, peers.PGX,
        peers.MEMCPY,
    ]  # fmt: skip
    bandwidth = rows.pop()
    assert bandwidth["unit"] == "bytes/s" and bandwidth["rate"] > 0
    assert all(r["cpu_rate"] > 0 and r["rate"] > 0 for r in rows)
    assert rows[0]["config"] == "2p"
    nbytes = [r["bytes_per_step"] for r in rows[:3]]
    assert nbytes[2] < nbytes[1] < nbytes[0]
    assert nbytes[1] - nbytes[2] == 226 - 32  # the bool mask against its four words
    assert rows[3]["bytes_per_step"] == nbytes[2]
