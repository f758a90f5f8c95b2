"""``python_proteus``: OpenSpiel's own checks, transitions against the reference and the
AEC env, OpenSpiel MCTS against our agents, and a smoke run of OpenSpiel's AlphaZero."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.optional import need

pyspiel = need("pyspiel", "openspiel")
need("envs.openspiel", "openspiel")

from envs.openspiel import bots  # noqa: E402
from envs.proteus.reference import RefGame  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def test_pr_registered_as_perfect_information_zero_sum() -> None:
    game = pyspiel.load_game("python_proteus")
    gtype = game.get_type()
    assert gtype.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert gtype.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert gtype.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game.num_players() == 2 and game.num_distinct_actions() == 226
    assert game.observation_tensor_shape() == [3, 3, 35]
    assert game.max_game_length() == 200  # PR-17 default
    assert pyspiel.load_game("python_proteus(max_turns=50)").max_game_length() == 50


@pytest.mark.parametrize("params", ["max_turns=0", "players=3"])
def test_pr_bad_parameters_are_rejected(params: str) -> None:
    with pytest.raises((ValueError, pyspiel.SpielError)):
        pyspiel.load_game(f"python_proteus({params})")


def test_pr_openspiel_random_sim_test() -> None:
    game = pyspiel.load_game("python_proteus(max_turns=40)")
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_pr_notation_and_start_position() -> None:
    state = pyspiel.load_game("python_proteus").new_initial_state()
    assert state.current_player() == 0  # PR-4 BLACK first
    legal = {state.action_to_string(a) for a in state.legal_actions()}
    assert len(legal) == 81 and "Mo@b2" in legal  # PR-8: any pool tile on any empty square
    state.apply_action(state.string_to_action("Mo@b2"))
    assert str(state).startswith(".,.,./.,Mo,./.,.,. w 1/200")


def test_pr_transitions_match_reference_and_aec_env() -> None:
    moves = sum(_compare_one_game(seed) for seed in range(12))
    assert moves > 150  # random games often end early in the placement phase (PR-16)


def _compare_one_game(seed: int) -> int:
    """One random game through OpenSpiel, the reference and the AEC env; moves compared."""
    from envs import proteus_v0

    game = pyspiel.load_game("python_proteus(max_turns=80)")
    state = game.new_initial_state()
    ref = RefGame(max_turns=80)
    env = proteus_v0.raw_env(max_turns=80)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while not state.is_terminal():
        player = state.current_player()
        assert player == ref.to_move == env.possible_agents.index(env.agent_selection)
        legal = state.legal_actions()
        assert legal == sorted(ref.legal_actions())
        obs = env.observe(env.agent_selection)
        assert legal == [int(a) for a in np.flatnonzero(obs["action_mask"])]
        planes = np.asarray(state.observation_tensor(player), np.float32).reshape(3, 3, 35)
        np.testing.assert_array_equal(planes, obs["observation"])
        action = int(legal[rng.integers(len(legal))])
        state.apply_action(action)
        ref.step(action)
        env.step(action)
    assert ref.result is not None
    expected = {"black": [1.0, -1.0], "white": [-1.0, 1.0]}.get(ref.result, [0.0, 0.0])
    assert state.returns() == expected
    assert [env.rewards[a] for a in env.possible_agents] == expected
    return len(state.history())


def test_pr_mcts_against_our_random_agent() -> None:
    from open_spiel.python.algorithms import mcts

    random_agent = need("agents.random_agent", "openspiel")
    game = pyspiel.load_game("python_proteus(max_turns=60)")
    rs = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, 2.0, 24, mcts.RandomRolloutEvaluator(1, rs), random_state=rs)
    contenders = [bots.bot_policy(bot), bots.agent_policy(random_agent.RandomAgent(seed=1))]
    results = bots.play_match(game, contenders, games=2, seed=0)
    assert results.shape == (2, 2) and np.all(results.sum(axis=1) == 0)
    assert set(np.unique(results)) <= {-1.0, 0.0, 1.0}


def test_pr_clones_are_independent_and_state_of_caches_the_player() -> None:
    """A clone (what OpenSpiel's MCTSBot makes per simulation) shares nothing with its
    original: playing it to its end leaves the original's player to act, legal actions,
    terminal flag and string as they were; a state built from a facade state
    (``state_of``) answers for that position, not for the start (the cached player)."""
    from envs.proteus.batch import ProteusBatch
    from envs.proteus.openspiel import game_of, state_of

    facade = ProteusBatch(max_turns=60)
    game = game_of(facade)
    one = facade.init(1, 0)
    facade.step(one, facade.random_actions(one))  # seat 0 has moved (PR-3): seat 1 to act
    mid = state_of(game, facade, one)
    assert mid.current_player() == 1 and game.new_initial_state().current_player() == 0
    rng = np.random.default_rng(5)
    for state in (game.new_initial_state(), mid):
        while not state.is_terminal():
            before = (state.current_player(), state.legal_actions(), str(state), False)
            twin = state.clone()
            while not twin.is_terminal():
                legal = twin.legal_actions()
                twin.apply_action(legal[rng.integers(len(legal))])
            assert twin.current_player() == pyspiel.PlayerId.TERMINAL
            after = (state.current_player(), state.legal_actions(), str(state), state.is_terminal())
            assert before == after
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
        assert state.current_player() == pyspiel.PlayerId.TERMINAL and not state.legal_actions()


@pytest.mark.slow
def test_pr_openspiel_alpha_zero_smoke_run(tmp_path: Path) -> None:
    """One learner step of OpenSpiel's AlphaZero: self-play games, a finite loss, a checkpoint."""
    need("flax", "openspiel")
    out = tmp_path / "az"
    cmd = [sys.executable, "-m", "envs.openspiel.alpha_zero", "--steps", "1", "--path", str(out)]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=400)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    lines = [json.loads(x) for x in (out / "learner.jsonl").read_text().splitlines()]
    assert lines[-1]["step"] == 1 and lines[-1]["total_trajectories"] >= 1
    assert all(math.isfinite(v) for v in lines[-1]["loss"].values())
    assert (out / "checkpoint-1").exists()
