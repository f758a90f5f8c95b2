"""Every registered game's batch facade passes the batch-game contract (contract.py).

Parametrised over the game registry (``envs/registry.py``): each game with a batch facade,
at its default player count and at its largest (up to 4 seats), one test per check. A
game registered without a facade is reported as skipped, naming what is missing.
"""

from __future__ import annotations

import functools

import pytest

from envs import registry
from tests.contract.contract import CHECKS


def _configs() -> list[tuple[str, int]]:
    out = []
    for spec in registry.specs():
        counts = {spec.default_players, max(p for p in spec.players if p <= 4)}
        out += [(spec.name, p) for p in sorted(counts) if p >= 2 or len(spec.players) == 1]
    return out


@functools.cache
def _facade(game: str, players: int) -> object:
    return registry.make_batch(game, players)


@pytest.mark.parametrize("check", list(CHECKS))
@pytest.mark.parametrize(("game", "players"), _configs())
def test_batch_game_contract(game: str, players: int, check: str) -> None:
    spec = registry.get(game)
    if spec.batch is None:
        pytest.skip(f"{game}: its registry entry names no batch facade yet")
    CHECKS[check](_facade(game, players), lambda: registry.make_batch(game, players))
