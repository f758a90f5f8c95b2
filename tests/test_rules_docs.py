"""The rules live in the repository: every rule number has its place in docs/<game>.md.

The pages `docs/proteus.md` (PR-1..PR-17), `docs/virus_fight.md` (VF-1..VF-18) and
`docs/moon_shot.md` (MS-1..MS-21) are the games' rules references; code and tests cite
those rule numbers. These tests check that each page states every rule exactly once, as a
bold label (`**PR-7**`) or a heading starting with the number, in order; that nothing in the
tree cites a rule number a page does not define; and that no tracked file points at a path
outside the repository (a fresh clone has nothing there to read).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Rule numbers per game: prefix -> (page, highest rule number). Fixed here on purpose, so
# the test needs nothing outside the repository; a new rule means a new number here.
RULES: dict[str, tuple[str, int]] = {
    "PR": ("docs/proteus.md", 17),
    "VF": ("docs/virus_fight.md", 18),
    "MS": ("docs/moon_shot.md", 21),
}

# Built from pieces so that this file does not match its own check.
FORBIDDEN = ("shared" + "/rules", "shared" + "/seeds", "/" + "work/")

_LABEL = re.compile(r"^\s*(?:[-*]\s+)?\*\*([A-Z]{2}-\d+)\*\*|^#{1,6}\s+([A-Z]{2}-\d+)\b")


def _labels(text: str) -> list[tuple[str, int]]:
    """(rule number, line index) of every bold label or heading that defines a rule."""
    found = []
    for i, line in enumerate(text.splitlines()):
        m = _LABEL.match(line)
        if m:
            found.append((m.group(1) or m.group(2), i))
    return found


def _tracked_files() -> list[Path]:
    """Files git tracks (the ones a clone gets); skip the test where git is unavailable."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    files = [ROOT / name for name in out.decode().split("\0") if name]
    return [f for f in files if f.is_file()]


@pytest.mark.parametrize("prefix", sorted(RULES))
def test_every_rule_is_stated_once_in_order(prefix: str) -> None:
    page, count = RULES[prefix]
    text = (ROOT / page).read_text(encoding="utf-8")
    lines = text.splitlines()
    labels = _labels(text)
    mine = [(rule, i) for rule, i in labels if rule.startswith(prefix + "-")]
    expected = [f"{prefix}-{n}" for n in range(1, count + 1)]
    assert [rule for rule, _ in mine] == expected, (
        f"{page}: rule labels {[rule for rule, _ in mine]} != {prefix}-1..{prefix}-{count}"
    )
    # Each label opens a real statement, not a bare number: its text runs to the next
    # label or heading.
    stops = sorted({i for _, i in labels} | {i for i, ln in enumerate(lines) if ln[:1] == "#"})
    for rule, i in mine:
        nxt = next((j for j in stops if j > i), len(lines))
        body = " ".join(lines[i:nxt]).replace(f"**{rule}**", "").strip()
        assert len(body.split()) >= 4, f"{page}: {rule} is not stated (only {body!r})"


@pytest.mark.parametrize("prefix", sorted(RULES))
def test_cited_rule_numbers_exist(prefix: str) -> None:
    """A rule number past the last one, in code, tests or docs, names a rule that does not exist."""
    _, count = RULES[prefix]
    cite = re.compile(rf"\b{prefix}-(\d+)\b")
    bad = []
    for path in _tracked_files():
        if path.suffix not in {".py", ".md", ".txt", ".toml", ".cfg"}:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for m in cite.finditer(text):
            if not 1 <= int(m.group(1)) <= count:
                line = text.count("\n", 0, m.start()) + 1
                bad.append(f"{path.relative_to(ROOT)}:{line}: {m.group(0)}")
    assert not bad, f"citations of rules that do not exist: {bad}"


def test_no_tracked_file_cites_a_path_outside_the_repository() -> None:
    bad = []
    for path in _tracked_files():
        data = path.read_bytes()
        for needle in FORBIDDEN:
            if needle.encode() in data:
                bad.append(f"{path.relative_to(ROOT)}: {needle}")
    assert not bad, f"paths outside the repository (cite docs/<game>.md instead): {bad}"
