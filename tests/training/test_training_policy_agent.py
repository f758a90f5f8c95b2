"""PolicyAgent: loads an ``arena train`` checkpoint and never plays an illegal move."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.policy import PolicyAgent
from tests.tictactoe import TicTacToe
from tests.train_small import small_config
from training.opponents import SnapshotAgent
from training.train import train

TTT = "tests.tictactoe:TicTacToe"


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("policy") / "run"
    cfg = small_config(TTT, out, steps=128, opponents="random")
    train(cfg, progress=False, quiet=True)
    return out


def _random_masks(rng: np.random.Generator, n: int) -> np.ndarray:
    mask = rng.random((n, 9)) < 0.3
    mask[np.arange(n), rng.integers(0, 9, n)] = True  # at least one legal move per row
    return mask


@pytest.mark.parametrize("deterministic", [True, False])
def test_masks_applied_at_inference_never_illegal(model_dir: Path, deterministic: bool) -> None:
    agent = PolicyAgent.load(model_dir, deterministic=deterministic, seed=1)
    rng = np.random.default_rng(0)
    for _ in range(20):
        obs = rng.integers(0, 2, (64, 2, 3, 3)).astype(np.float32)
        mask = _random_masks(rng, 64)
        actions = agent.act(obs, mask)
        assert actions.dtype == np.int64 and actions.shape == (64,)
        assert mask[np.arange(64), actions].all()
    # a single legal move is always the one played
    only = np.zeros((3, 9), bool)
    only[[0, 1, 2], [8, 0, 4]] = True
    assert agent.act(np.zeros((3, 2, 3, 3), np.float32), only).tolist() == [8, 0, 4]


def test_deterministic_is_repeatable_and_stochastic_follows_the_seed(model_dir: Path) -> None:
    rng = np.random.default_rng(5)
    obs = rng.integers(0, 2, (200, 2, 3, 3)).astype(np.float32)
    mask = np.ones((200, 9), bool)
    det = PolicyAgent.load(model_dir / "model.zip")
    assert np.array_equal(det.act(obs, mask), det.act(obs, mask))
    a = PolicyAgent.load(model_dir, deterministic=False, seed=3)
    b = PolicyAgent.load(model_dir, deterministic=False, seed=3)
    assert np.array_equal(a.act(obs, mask), b.act(obs, mask))
    a.reset(seed=4)
    b.reset(seed=5)
    assert not np.array_equal(a.act(obs, mask), b.act(obs, mask))


def test_plays_real_games_of_the_facade_legally(model_dir: Path) -> None:
    game = TicTacToe()
    state = game.init(32, 0)
    agent = PolicyAgent.load(model_dir, deterministic=False, seed=0)
    while not game.terminated(state).all():
        live = np.flatnonzero(~game.terminated(state))
        sub = game.take(state, live)
        seats = game.current_player(sub)
        actions = agent.act(game.observe(sub, seats), game.legal_mask(sub))
        game.step(sub, actions)  # the facade raises on an illegal action
        for name in ("board", "player", "over", "key", "episode"):
            getattr(state, name)[live] = getattr(sub, name)


def test_clear_errors(model_dir: Path, tmp_path: Path) -> None:
    agent = PolicyAgent.load(model_dir)
    with pytest.raises(ValueError, match="observation shape"):
        agent.act(np.zeros((2, 5, 5), np.float32), np.ones((2, 9), bool))
    with pytest.raises(ValueError, match="no legal action in game"):
        agent.act(np.zeros((2, 2, 3, 3), np.float32), np.zeros((2, 9), bool))
    with pytest.raises(ValueError, match="needs the legal-action mask"):
        agent.act(np.zeros((2, 2, 3, 3), np.float32), None)
    with pytest.raises(FileNotFoundError, match="no trained model"):
        PolicyAgent.load(tmp_path / "nothing")
    with pytest.raises(ValueError, match="trained on tests.tictactoe:TicTacToe, not proteus"):
        PolicyAgent.load(model_dir, game="proteus")


def test_registry_policy_name_reaches_policy_agent_load(model_dir: Path) -> None:
    from agents.registry import make_agent

    # the registry's policy:PATH goes through PolicyAgent.load, which checks the game
    with pytest.raises(ValueError, match="trained on tests.tictactoe:TicTacToe, not proteus"):
        make_agent("proteus", f"policy:{model_dir}")


def test_registry_policy_sampled_name_samples(
    model_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``policy:PATH`` takes the most likely action, ``policy-sampled:PATH`` samples."""
    from agents import policy
    from agents.registry import make_agent

    calls: list[tuple[str, bool, int | None]] = []
    real = policy.PolicyAgent.load

    def spy(path: Any, game: Any = None, seed: Any = 0, deterministic: bool = True) -> Any:
        calls.append((str(path), deterministic, seed))
        return real(path, seed=seed, deterministic=deterministic)

    monkeypatch.setattr(policy.PolicyAgent, "load", spy)
    greedy = make_agent("proteus", f"policy:{model_dir}", seed=3)
    sampled = make_agent("proteus", f"policy-sampled:{model_dir}", seed=4)
    assert calls == [(str(model_dir), True, 3), (str(model_dir), False, 4)]
    assert greedy.deterministic and not sampled.deterministic
    assert sampled.name == f"policy-sampled:{model_dir}"


def test_snapshot_is_frozen_and_independent_of_the_learner(model_dir: Path) -> None:
    import torch as th

    learner = PolicyAgent.load(model_dir)
    snap = SnapshotAgent(learner.policy, "self@0", seed=0)
    assert all(not p.requires_grad for p in snap.policy.parameters())
    with th.no_grad():
        for p in learner.policy.parameters():
            p.add_(1.0)
    diffs = [
        not th.equal(a, b)
        for a, b in zip(snap.policy.parameters(), learner.policy.parameters(), strict=True)
    ]
    assert all(diffs)
