"""Throughput benchmarks: ``arena bench`` (``benchmarks.throughput``) and the peers harness.

:func:`write_report` and :func:`print_table` live here, below every harness module, so
that they share them without importing each other.
"""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path
from typing import Any

import envs.registry  # noqa: F401  (keeps moved per-game benchmark modules importable)


def write_report(
    path: Path, rows: list[dict[str, Any]], started: float, extra: dict[str, Any]
) -> None:
    """Write a benchmark's JSON report: machine, wall time, every row, plus ``extra``."""
    report = {
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
        },
        **extra,
        "wall_s": round(time.time() - started, 2),
        "rows": rows,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2))
    print(f"wrote {path}")


def _format_rate(rate: float) -> str:
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if rate >= scale:
            return f"{rate / scale:.2f} {suffix}"
    return f"{rate:.1f}"


def print_table(rows: list[dict[str, Any]]) -> None:
    """Print rows as a table: rich in a terminal, plain markdown when piped (or without rich)."""
    headers = ["game", "config", "measure", "batch", "threads", "rate", "unit", "compile s"]
    cells = [
        [
            str(r.get("game", "")),
            str(r.get("config", "")),
            str(r.get("measure", "")),
            str(r.get("batch", "")),
            str(r.get("threads", "")),
            _format_rate(float(r["rate"])) if r.get("rate") is not None else "skipped",
            str(r.get("unit", "")),
            f"{r['compile_s']:.1f}" if r.get("compile_s") is not None else "",
        ]
        for r in rows
    ]
    from envs.core.cli_text import markdown_table, stdout_is_terminal

    plain = markdown_table(headers, cells, {"batch", "threads", "rate", "compile s"})
    if not stdout_is_terminal():  # piped or logged: full cells, no 80-column squeeze
        print(plain)
        return
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        print(plain)
        return
    table = Table(title="Tabletop Arena throughput")
    for h in headers:
        table.add_column(h, justify="right" if h in ("batch", "threads", "rate") else "left")
    for c in cells:
        table.add_row(*c)
    Console().print(table)
