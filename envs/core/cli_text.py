"""What every ``arena`` sub-command shares at its edges: plain tables when stdout is not a
terminal (logs, pipes: no 80-column squeeze, no progress bars) and one-line checks of
paths and numbers made before any work starts.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import typing
from collections.abc import Sequence
from pathlib import Path

__all__ = [
    "ArgumentParser",
    "check_finite",
    "check_output_dir",
    "check_output_file",
    "markdown_table",
    "stdout_is_terminal",
]


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser, but a bad argument is one line on stderr (``prog: error: ...``
    and where to find the options), not the whole usage block; exit status 2 as argparse."""

    def error(self, message: str) -> typing.NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def stdout_is_terminal() -> bool:
    """True when stdout is an interactive terminal (rich tables and progress bars then)."""
    try:
        return bool(sys.stdout.isatty())
    except (AttributeError, ValueError):  # replaced or closed stdout
        return False


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: set[str]) -> str:
    """A GitHub-markdown table, columns padded to their widths; ``right`` columns align
    right. What the commands print when stdout is a pipe or a file."""
    widths = [max(len(h), *(len(str(r[i])) for r in rows)) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        out = [
            str(c).rjust(w) if h in right else str(c).ljust(w)
            for c, w, h in zip(cells, widths, headers, strict=True)
        ]
        return "| " + " | ".join(out) + " |"

    rule = [
        ("-" * (w - 1) + ":") if h in right else "-" * w
        for w, h in zip(widths, headers, strict=True)
    ]
    return "\n".join([line(headers), "| " + " | ".join(rule) + " |", *(line(r) for r in rows)])


def check_finite(value: float, flag: str, low: float = 0.0, high: float = math.inf) -> float:
    """``value`` as a finite float in (low, high]; ValueError naming ``flag`` otherwise."""
    v = float(value)
    if not math.isfinite(v) or not (low < v <= high):
        bound = f"in ({low:g}, {high:g}]" if math.isfinite(high) else f"> {low:g}"
        raise ValueError(f"{flag} must be a finite number {bound}, got {value!r}")
    return v


def check_output_dir(path: str | Path, flag: str, shown: str | Path | None = None) -> Path:
    """Create directory ``path`` (and parents) and check it is writable; ValueError with one
    line naming ``flag`` and ``shown`` (default ``path``) otherwise (e.g. ``/dev/null/run``:
    not a directory)."""
    p = Path(path)
    path = path if shown is None else shown
    try:
        p.mkdir(parents=True, exist_ok=True)
    except (OSError, ValueError) as exc:
        raise ValueError(f"{flag} {path}: cannot create the directory ({_why(exc)})") from None
    if not p.is_dir():
        raise ValueError(f"{flag} {path}: not a directory")
    try:  # os.access says yes to root even on read-only mounts: try a file
        with tempfile.TemporaryFile(dir=p):
            pass
    except OSError as exc:
        raise ValueError(f"{flag} {path}: the directory is not writable ({_why(exc)})") from None
    return p


def check_output_file(path: str | Path, flag: str) -> Path:
    """Check file ``path`` can be written (its directory created, the file writable if it
    exists); ValueError with one line naming ``flag`` otherwise."""
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"{flag} {path}: is a directory, not a file")
    check_output_dir(p.parent if str(p.parent) else Path("."), flag)
    try:
        with open(p, "ab"):  # creates an empty file where none was (SQLite takes it)
            pass
    except OSError as exc:
        raise ValueError(f"{flag} {path}: the file is not writable ({_why(exc)})") from None
    return p


def _why(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or str(exc)
