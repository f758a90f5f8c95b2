"""Non-slow differential smoke test: the Virus Fight kernel against the reference.

A short lockstep run (legal sets, whole states, rewards and eliminations compared after
every decision; see ``test_virus_fight_differential``) for 2, 3 and 4 players, with a
small ``max_rounds`` so that VF-17 adjudications and resets happen within the budget.
The long runs with their coverage checks stay behind the ``slow`` marker.
"""

from __future__ import annotations

from collections import Counter

import pytest

from tests.virus_fight.test_virus_fight_differential import run_lockstep


@pytest.mark.parametrize(
    ("players", "size", "max_rounds", "policy"),
    [(2, 5, 3, "aggressive"), (2, 5, 4, "passive"), (3, 6, 3, "uniform"), (4, 7, 2, "aggressive")],
)
def test_vf_kernel_matches_reference_smoke(
    players: int, size: int, max_rounds: int, policy: str
) -> None:
    coverage: Counter = Counter()
    compared = run_lockstep(players, size, max_rounds, policy, 8, 400, 77 + players, coverage)
    assert compared >= 400
    assert coverage["games"] >= 1, coverage  # at least one game ended and was restarted
    assert coverage["end_max_rounds"] >= 1, coverage  # a VF-17 adjudication was compared
    for kind in "MWJE":  # every instruction kind executed (VF-14)
        assert coverage["exec_" + kind] > 0, coverage
