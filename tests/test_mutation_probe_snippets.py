"""The mutation probe's snippets still plant (docs/testing.md, "The mutation probe").

The probe (``python -m tests.mutation_probe``) costs a fresh Numba compile per mutant,
so it is not part of the test suite; this cheap check is. Each mutant's original snippet,
and each of its ``also`` twins, must occur exactly once in its game's package, else the
probe would report the mutant stale or ambiguous instead of testing its rule. When rule
code moves, move the snippet with it: the same one-line bug, the same id and rule.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import mutation_probe as probe


def test_every_mutant_plants_exactly_once():
    problems = probe.check_snippets(probe.ROOT)
    assert not problems, "stale or ambiguous mutants:\n" + "\n".join(problems)


def test_every_mutant_changes_the_code_and_names_a_rule():
    for m in probe.MUTANTS:
        assert m.original != m.replacement, m.id
        assert all(o != r for o, r in m.also), m.id
        assert m.id.startswith(m.rule + "-"), f"{m.id} does not start with its rule {m.rule}"


@pytest.fixture
def package(tmp_path: Path) -> Path:
    """A toy tree with one game package, to see the check report what it should."""
    pkg = tmp_path / "envs" / "toy"
    pkg.mkdir(parents=True)
    (pkg / "rules.py").write_text("x = a + b\ny = a + b\nz = c * d\n")
    return tmp_path


def test_the_check_reports_stale_and_ambiguous_snippets(package: Path):
    def mutant(original: str, also: tuple[tuple[str, str], ...] = ()) -> probe.Mutant:
        return probe.Mutant(
            "T-1-x", "toy", "envs/toy/rules.py", original, "0", "T-1", "toy", also=also
        )

    assert probe.check_snippets(package, [mutant("c * d")]) == []
    assert "stale" in probe.check_snippets(package, [mutant("c / d")])[0]
    assert "ambiguous" in probe.check_snippets(package, [mutant("a + b")])[0]
    # a twin is checked too, on the text the first edit left
    assert "stale" in probe.check_snippets(package, [mutant("c * d", (("c * d", "1"),))])[0]
    assert (package / "envs/toy/rules.py").read_text().count("c * d") == 1  # nothing written


def test_apply_mutant_writes_only_when_it_plants(package: Path):
    m = probe.Mutant("T-1-x", "toy", "envs/toy/rules.py", "c * d", "c + d", "T-1", "toy")
    assert probe.apply_mutant(package, m) == ("ok", "envs/toy/rules.py")
    assert "z = c + d" in (package / "envs/toy/rules.py").read_text()
