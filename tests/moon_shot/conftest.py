"""Shared Moon Shot test fixtures."""

from __future__ import annotations

from typing import Any

import pytest

from envs.moon_shot import physics


@pytest.fixture
def simulate_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The batch size of every ``physics.simulate`` call the test makes (the real physics
    still runs): how the one-physics-call-per-step tests count calls."""
    calls: list[int] = []
    real = physics.simulate

    def counting(actions: Any, seeds: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(len(seeds))
        return real(actions, seeds, *args, **kwargs)

    monkeypatch.setattr(physics, "simulate", counting)
    return calls
