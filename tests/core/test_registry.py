"""The game registry (envs/registry.py): entries, errors, laziness and the old names kept."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from envs import registry
from envs.registry import GameSpec

ROOT = Path(__file__).resolve().parents[2]


def test_the_three_games_are_registered_with_their_player_counts() -> None:
    assert registry.names()[:3] == ("proteus", "virus_fight", "moon_shot")
    assert registry.get("proteus").players == (2,)  # PR-4
    assert registry.get("virus_fight").players == (2, 3, 4)  # VF-1
    assert registry.get("moon_shot").players == tuple(range(1, 9))  # MS-14, MS-21


def test_importing_the_registry_imports_no_kernel_and_no_torch() -> None:
    code = (
        "import sys, envs.registry, envs.core.match, agents.registry\n"
        "bad = {'torch', 'numba', 'pygame', 'stable_baselines3'} & set(sys.modules)\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_bad_entries_and_names_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        registry.get("chess")
    with pytest.raises(ValueError, match="already registered"):
        registry.register(registry.get("proteus"))
    with pytest.raises(TypeError, match="takes a GameSpec"):
        registry.register("proteus")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="identifier"):
        GameSpec(name="tic-tac-toe", players=(2,))
    with pytest.raises(ValueError, match="default_players 2 not in"):
        GameSpec(name="solo", players=(1,))
    with pytest.raises(ValueError, match="played by 2 players, not 3"):
        registry.make_batch("proteus", 3)
    with pytest.raises(ValueError, match="observation 'lookahead' is not available"):
        registry.make_batch("virus_fight", 2, obs="lookahead")
    with pytest.raises(ValueError, match="write 'package.module:attr'"):
        registry.load("envs.registry")
    with pytest.raises(ValueError, match="has no nothing_here"):
        registry.load("envs.registry:nothing_here")
    with pytest.raises(ValueError, match="env kind"):
        registry.make_env("proteus", "vector")


def test_entries_are_read_only() -> None:
    spec = registry.get("proteus")
    with pytest.raises(TypeError):
        spec.agents["new"] = "x:y"  # type: ignore[index]


def test_every_reference_of_every_entry_resolves() -> None:
    pytest.importorskip("stable_baselines3")
    for spec in registry.specs():
        refs = [spec.batch, spec.aec, spec.parallel, spec.gym, spec.trainer, spec.runner]
        refs += [spec.bench, spec.peer_facade, spec.play, spec.evaluate]
        refs += [spec.record, spec.replay_scenes]
        refs += [*spec.agents.values(), *spec.observations.values()]
        for ref in refs:
            if ref is not None:
                assert callable(registry.load(ref)), (spec.name, ref)


def test_old_module_paths_and_names_still_work() -> None:
    import agents.proteus_heuristic as old_heuristic
    import benchmarks.virus_fight as old_bench

    from agents.games import load_batch_game
    from agents.registry import DEFAULT_AGENTS, GAMES, REGISTRY
    from envs.proteus.bench import run
    from envs.proteus.heuristic import ProteusHeuristicAgent
    from training import ladder
    from training.games import BOARD_GAMES, PLAYERS, make_batch_game

    assert old_heuristic.ProteusHeuristicAgent is ProteusHeuristicAgent
    assert old_bench.run.__module__ == "envs.virus_fight.bench"
    import benchmarks.proteus as old_proteus_bench

    assert old_proteus_bench.run is run
    assert GAMES == registry.names() and set(REGISTRY) == set(GAMES)
    assert DEFAULT_AGENTS["virus_fight"] == ["random", "heuristic", "mcts:50"]
    assert BOARD_GAMES == ("proteus", "virus_fight") and PLAYERS["virus_fight"] == (2, 3, 4)
    assert load_batch_game("virus_fight", 3).num_players == 3
    assert make_batch_game("proteus").num_players == 2
    from envs.core import match

    for name in ("GameOutcome", "Runner", "TurnBasedRunner", "make_runner", "IllegalActionError"):
        assert getattr(ladder, name) is getattr(match, name)


def test_records_and_replays_take_each_game_from_its_entry() -> None:
    """The record hooks and replay pictures are the entries' (no consumer lists games)."""
    from envs.core import records as R

    for spec in registry.specs():
        hooks = R.hooks(spec.name)
        assert isinstance(hooks, R.RecordHooks) and hooks.game == spec.name
        assert hooks.env_name == f"{spec.name}_v0"
        assert spec.replay_scenes is not None and callable(registry.load(spec.replay_scenes))
    assert R.ENV_NAMES["virus_fight"] == "virus_fight_v0"
    assert R.BOARD_GAMES == ("proteus", "virus_fight")
    plain = GameSpec(name="plain", players=(2,), batch="tests.tictactoe:TicTacToe")
    registry.register(plain)
    try:  # no hooks of its own: the turn-based default, action ids as notation
        assert type(R.hooks("plain")) is R.RecordHooks and R.hooks("plain").env_name == "plain"
        assert R.notation("plain", {"players": 2})(4) == "4"
        assert R.make_facade("plain", {"players": 2}).num_players == 2
        with pytest.raises(ValueError, match="no position texts"):
            R.hooks("plain").start_state(R.make_facade("plain", {"players": 2}), "x")
    finally:
        registry.unregister("plain")
    # a game played on a runner of its own without an entry: recorded, not replayable
    assert type(R.hooks("chess")) is R.RecordHooks and R.hooks("chess").env_name == "chess"
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        R.make_facade("chess", {"players": 2})


def test_old_record_and_peer_names_still_work() -> None:
    from benchmarks import peers
    from envs.core import records as R
    from envs.moon_shot import record as ms_record
    from envs.moon_shot.batch import MoonShotBatch

    for name in ("moon_shot_config", "moon_shot_record", "record_shots", "shot_notation"):
        assert getattr(R, name) is getattr(ms_record, name)
    from envs.core.records import realised_launches

    assert realised_launches is ms_record.realised_launches
    assert peers.MoonShotSelfPlay is MoonShotBatch
    with pytest.raises(AttributeError, match="no attribute"):
        R.no_such_name  # noqa: B018


def test_old_training_names_still_work() -> None:
    pytest.importorskip("stable_baselines3")
    from training import run, train
    from training.evaluate import moon_shot_returns
    from training.moon_shot import solo_returns

    assert moon_shot_returns is solo_returns
    assert train._learn is run.learn and train._Saver is run.Saver
    assert train._set_seeds is run.set_seeds
    assert train.GAMES == registry.names()
    assert "lookahead" in train.OBSERVATIONS


def test_python_dash_m_runs_a_moved_module() -> None:
    cmd = [sys.executable, "-m", "benchmarks.proteus", "--help"]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert "--threads" in out
