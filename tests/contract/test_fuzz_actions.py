"""Bad actions through every batch facade: refused cleanly, batch unchanged (issue #11).

The pytest smoke version of ``python -m tests.fuzz_actions`` (see its docstring for the
kinds and outcomes): a few hundred seeded cases per registered facade, in this process,
through ``step`` and ``learner_step`` (a continuous game: ``shoot`` too). The recorded
100,000-case run and its table are in ``docs/testing.md``.
"""

from __future__ import annotations

import pytest

from tests import fuzz_actions as fuzz

CASES = 250


@pytest.mark.parametrize("key", fuzz.facades())
def test_bad_actions_are_refused_and_change_no_game(key: str) -> None:
    counts = fuzz.run_in_process(key, CASES, seed=1)
    failures = {f"{k}/{o}": c for (k, o), c in counts.items() if o in fuzz.FAILURES}
    assert failures == {}, f"{key}: {failures}"
    outcomes = {o for _, o in counts}
    assert outcomes == {"rejected-clean", "accepted-legal"}, counts  # controls are accepted
    assert sum(counts.values()) == CASES + CASES // fuzz.CONTROL_EVERY


def test_every_kind_is_drawn() -> None:
    key = fuzz.facades()[0]
    counts = fuzz.run_in_process(key, CASES, seed=2)
    assert {k for k, _ in counts} == set(fuzz.KINDS)


def test_same_state_sees_any_change_but_reserved_zero_rows() -> None:
    import numpy as np

    class S:
        def __init__(self, hist: np.ndarray, n: int = 0) -> None:
            self.hist, self.n = hist, n

    base = S(np.ones((2, 3, 4)))
    assert fuzz.same_state(base, S(np.ones((2, 3, 4))))
    assert not fuzz.same_state(base, S(np.ones((2, 3, 4)), n=1))
    grown = np.zeros((2, 5, 4))
    grown[:, :3] = 1
    assert fuzz.same_state(base, S(grown))  # room reserved, no game changed
    grown[1, 4, 0] = 7
    assert not fuzz.same_state(base, S(grown))
    changed = np.ones((2, 3, 4))
    changed[0, 0, 0] = 2
    assert not fuzz.same_state(base, S(changed))


@pytest.mark.slow
def test_a_crash_and_a_hang_are_counted_at_their_case(monkeypatch: pytest.MonkeyPatch) -> None:
    key = fuzz.facades()[0]
    monkeypatch.setenv(fuzz.CRASH_AT_ENV, "3")
    monkeypatch.setenv(fuzz.HANG_AT_ENV, "7")
    res = fuzz.run(key, 12, seed=0, hang_seconds=30.0)  # a loaded machine: no false hang
    assert res["counts"]["crash"] == 1 and res["counts"]["hang"] == 1, res
    assert res["workers"] == 3
    assert res["cases"] == 12, res  # the 10 others ran, each once
