"""``benchmarks/interleaved.py``: two trees timed turn about (issue 10's fine A/B)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_two_trees_timed_turn_about_with_a_json_record(tmp_path: Path) -> None:
    # a base tree whose ``envs`` is a stand-in: the worker must import each tree's own
    base = tmp_path / "base"
    (base / "envs").mkdir(parents=True)
    (base / "envs" / "__init__.py").write_text("TREE = 'base'\n")
    out = tmp_path / "ab.json"
    cmd = [sys.executable, "-m", "benchmarks.interleaved", "--base", str(base), "--head", str(ROOT)]
    cmd += ["--rounds", "3", "--seconds", "0.01", "--threads", "1", "--json", str(out)]
    cmd += ["--setup", "import envs; slow = 50000 if getattr(envs, 'TREE', '') == 'base' else 5000"]
    cmd += ["--case", "loop=sum(range(slow))@1", "--case", "tree=len(str(envs.__file__))@1"]
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "| loop |" in res.stdout and "| tree |" in res.stdout
    record = json.loads(out.read_text())
    assert {len(v) for side in record["rates_per_cpu_s"].values() for v in side.values()} == {3}
    # the head's loop does a tenth of the base's work: the ratio says so (a wide margin)
    assert record["summary"]["loop"]["ratio"] > 3.0


def test_a_malformed_case_is_one_line_error() -> None:
    cmd = [sys.executable, "-m", "benchmarks.interleaved", "--base", ".", "--setup", "x = 1"]
    res = subprocess.run(cmd + ["--case", "no units"], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode != 0 and "expected NAME=EXPR@UNITS" in res.stderr
