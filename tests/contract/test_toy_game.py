"""A fourth game registered at run time, as docs/adding_a_game.md says, and nothing else.

The tic-tac-toe of ``tests/tictactoe.py`` (its batch facade) and ``tests/core/toy_games.py``
(its AEC env) become a registered game through one :class:`envs.registry.GameSpec`; then
the contract suite, the agent names, the match runner, the ladder, evaluation, a tiny
training run through ``arena train`` and the benchmark rows all work on it without a
change to any other file.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from envs import registry
from envs.registry import GameSpec
from tests.contract.contract import check_batch_game

# step 2 of docs/adding_a_game.md: one entry
TOY = GameSpec(
    name="tictactoe",
    title="Tic-tac-toe",
    players=(2, 3),  # 3: the "last man standing" variant of tests/tictactoe.py
    batch="tests.tictactoe:TicTacToe",
    aec="tests.core.toy_games:tictactoe_env",
    env_players_arg=None,  # the AEC toy is 2-player only
    ladder_agents=("random", "mcts:4"),
    peer_config="2p 3x3",
    demo={"steps": 256, "agents": ("random",), "games_per_pair": 2},
)
TINY = ["--n-envs", "8", "--n-steps", "16", "--batch-size", "64", "--n-epochs", "1", "--net", "32"]


@pytest.fixture
def toy() -> Iterator[GameSpec]:
    registry.register(TOY)
    try:
        yield TOY
    finally:
        registry.unregister(TOY.name)


@pytest.mark.parametrize("players", [2, 3])
def test_toy_passes_the_contract(toy: GameSpec, players: int) -> None:
    check_batch_game(lambda: registry.make_batch(toy.name, players))


def test_toy_is_listed_by_every_consumer(toy: GameSpec) -> None:
    from agents.registry import agent_names, default_agents
    from training.config import build_parser

    assert toy.name in registry.names()
    assert agent_names(toy.name) == ["mcts", "random"]
    assert default_agents(toy.name) == ["random", "mcts:4"]
    assert "tictactoe" in build_parser().description
    with pytest.raises(ValueError, match="played by 2, 3 players"):
        registry.make_batch(toy.name, 4)


def test_toy_plays_matches_and_a_ladder(toy: GameSpec, tmp_path: Path) -> None:
    from agents.measure import measure
    from envs.core.match import make_runner
    from training.ladder import run_ladder

    runner = make_runner(toy.name, 3)
    assert runner.num_players == 3 and runner.config == "players=3"
    result = run_ladder(toy.name, games_per_pair=4, db=tmp_path / "l.sqlite", out=None)
    assert sorted(result.names) == ["mcts:4", "random"]
    assert result.games_played == 4
    assert measure(toy.name, "mcts:4", "random", games=4)["games"] == 4


def test_toy_trains_through_arena_train_and_is_evaluated(toy: GameSpec, tmp_path: Path) -> None:
    from agents.random_agent import RandomAgent
    from training.evaluate import versus
    from training.train import main

    out = tmp_path / "run"
    argv = [toy.name, "--steps", "128", "--out", str(out), "--no-progress", "-q", *TINY]
    assert main([*argv, "--opponents", "self:0.5,random:0.5"]) == 0
    assert (out / "model.zip").exists()
    res = versus(toy.name, RandomAgent(seed=1), "random", games=4, players=2)
    assert res.games == 4


def test_toy_gets_benchmark_rows(toy: GameSpec) -> None:
    from benchmarks.throughput import run

    rows = run([toy.name], batch_sizes=[1, 8], seconds=0.02, threads=1)
    measures = {(r["measure"], r["batch"]) for r in rows if r["rate"] is not None}
    assert {("kernel self-play", 1), ("kernel self-play", 8), ("AEC env()", 1)} <= measures
    assert all(r["game"] == toy.name and r["config"] == "2p 3x3" for r in rows)
    assert all(np.isfinite(r["rate"]) and r["rate"] > 0 for r in rows if r["rate"] is not None)
