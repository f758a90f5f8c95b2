"""Throughput benchmarks: ``arena bench`` (``benchmarks.throughput``) and the peers harness.

:func:`write_report` lives here, below both, so that the harness modules share it without
importing each other.
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
