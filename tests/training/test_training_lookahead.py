"""``arena train proteus --obs lookahead``: the action-feature policy trains, saves, resumes
and plays through the plain facade (ladder, evaluation) by making its own observations."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch as th

from agents.networks import FLAG_SCALE, ActionFeatureHead, ActionFeaturePolicy
from agents.policy import PolicyAgent
from envs.proteus.batch import ProteusBatch
from envs.proteus.constants import NUM_ACTIONS
from envs.proteus.lookahead import N_FLAGS, ProteusLookaheadBatch
from tests.train_small import small_config
from training.evaluate import versus
from training.train import TrainConfig, train


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("lookahead") / "run"
    cfg = small_config(
        "proteus", out, obs="lookahead", steps=1024, n_envs=16, n_steps=32, batch_size=256,
        opponents="self:0.5,random:0.5", snapshot_every=512,
    )  # fmt: skip
    train(cfg, progress=False, quiet=True)
    return out


def test_head_adds_shared_flag_weights_to_each_actions_logit() -> None:
    head = ActionFeatureHead(hidden_dim=3, n_actions=5, n_flags=2)
    with th.no_grad():
        head.linear.weight.zero_()
        head.linear.bias.zero_()
        head.flag_weight.copy_(th.tensor([0.5, -1.0]))
    flags = th.zeros(1, 2, 5)
    flags[0, 0, 1] = 1.0  # action 1: flag 0
    flags[0, 1, 3] = 1.0  # action 3: flag 1
    latent = th.cat([th.ones(1, 3), flags.reshape(1, -1)], dim=1)
    logits = head(latent)[0].tolist()
    assert logits == pytest.approx([0.0, 0.5 * FLAG_SCALE, 0.0, -1.0 * FLAG_SCALE, 0.0])


def test_trained_run_is_an_action_feature_policy_with_its_flags(run_dir: Path) -> None:
    agent = PolicyAgent.load(run_dir, game="proteus")
    assert isinstance(agent.policy, ActionFeaturePolicy)
    assert agent.policy.n_flags == N_FLAGS
    assert agent.obs_shape == ProteusLookaheadBatch.obs_shape == (315 + N_FLAGS * NUM_ACTIONS,)
    assert agent.needs_context  # it makes its observations from the state
    assert PolicyAgent.load(run_dir / "model.zip").needs_context  # recognised without game=
    weights = agent.policy.action_net.flag_weight.detach().numpy()
    assert np.all(weights != 0.0)  # the shared weights were trained (they start at 0)


def test_resume_keeps_the_observation_and_continues(run_dir: Path) -> None:
    cfg = TrainConfig(**{**_stored(run_dir), "steps": 2048})
    result = train(cfg, resume=True, progress=False, quiet=True)
    assert result.start_timesteps == 1024 and result.num_timesteps >= 2048
    assert PolicyAgent.load(run_dir, game="proteus").obs_shape == ProteusLookaheadBatch.obs_shape


def _stored(run_dir: Path) -> dict:
    import json

    return json.loads((run_dir / "state.json").read_text())["config"]


def test_plays_legally_through_the_plain_facade_and_asks_for_context(run_dir: Path) -> None:
    agent = PolicyAgent.load(run_dir, game="proteus", deterministic=False, seed=1)
    g = ProteusBatch()
    st = g.init(4, 0)
    seats = g.current_player(st)
    with pytest.raises(ValueError, match="pass an ActContext"):
        agent.act(g.observe(st, seats), g.legal_mask(st))
    result = versus("proteus", agent, "random", games=40, seed=3)
    assert result.wins + result.draws + result.losses == 40  # the runner rejects illegal moves


def test_same_observations_from_the_context_and_from_the_lookahead_facade(run_dir: Path) -> None:
    from agents.base import ActContext

    agent = PolicyAgent.load(run_dir, game="proteus")
    g = ProteusBatch()
    st = g.init(16, 2)
    g.random_step(st, 20)
    seats = g.current_player(st)
    live = seats >= 0
    sub = g.take(st, np.flatnonzero(live))
    seats = seats[live]
    mask = g.legal_mask(sub)
    direct = agent.act(ProteusLookaheadBatch().observe(sub, seats), mask)
    via_ctx = agent.act(g.observe(sub, seats), mask, ActContext(game=g, state=sub, seats=seats))
    assert np.array_equal(direct, via_ctx)
