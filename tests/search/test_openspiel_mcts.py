"""``openspiel-mcts:N`` (OpenSpiel's MCTSBot as a ladder agent) and the searcher names of the
agent registry (``openspiel-mcts:N``, ``mcts-python:N``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from agents.base import ActContext
from agents.registry import make_agent
from envs.proteus.batch import ProteusBatch
from envs.virus_fight.batch import VirusFightBatch

pytest.importorskip("pyspiel")


def test_registry_parses_the_searcher_names() -> None:
    for game in ("proteus", "virus_fight"):
        assert make_agent(game, "openspiel-mcts:7").simulations == 7  # type: ignore[attr-defined]
        assert make_agent(game, "mcts-python:9").simulations == 9  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("game", "name", "match"),
    [
        ("proteus", "openspiel-mcts:lots", "integer"),
        ("proteus", "mcts-python:0", "N >= 1"),
        ("moon_shot", "openspiel-mcts:5", "unknown agent"),  # no pyspiel twin, no search
    ],
)
def test_registry_rejects_bad_searcher_names(game: str, name: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        make_agent(game, name)


@pytest.mark.parametrize("game", [ProteusBatch(), VirusFightBatch(2)], ids=["proteus", "vf2"])
def test_openspiel_mcts_plays_legal_moves_deterministically(game: Any) -> None:
    g = game
    st = g.init(2, 0)
    g.step(st, g.random_actions(st))
    seats = g.current_player(st)
    obs, mask = g.observe(st, seats), g.legal_mask(st)
    a = make_agent(g.name, "openspiel-mcts:6", 3).act(obs, mask, ActContext(g, st, seats))
    assert mask[np.arange(2), a].all()
    b = make_agent(g.name, "openspiel-mcts:6", 3).act(obs, mask, ActContext(g, st, seats))
    assert np.array_equal(a, b)


def test_openspiel_mcts_does_not_see_the_hidden_program() -> None:
    # VF-11: two games that differ only in seat 0's hidden program get the same answer
    game = VirusFightBatch(2)
    st = game.init(2, 0)
    n = game.board_size * game.board_size
    bottom = (game.board_size - 1) * game.board_size
    game.step(st, np.array([0 * n + bottom, 11 * n + bottom + 3]))
    mask = game.legal_mask(st)
    game.step(st, np.array([np.flatnonzero(mask[0])[-1], np.flatnonzero(mask[1])[-1]]))
    obs = game.observe(st, np.array([1, 1]))
    answers = []
    for i in (0, 1):
        sub = game.take(st, np.array([i]))
        agent = make_agent("virus_fight", "openspiel-mcts:8", 5)
        ctx = ActContext(game, sub, np.array([1]))
        answers.append(int(agent.act(obs[i : i + 1], game.legal_mask(sub), ctx)[0]))
    assert answers[0] == answers[1]
