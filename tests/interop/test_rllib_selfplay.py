"""RLlib scale-out: masked modules, the league mapping, and a tiny self-play run on a local
Ray cluster (2 CPUs) that must produce learning metrics and grow the league."""

from __future__ import annotations

import importlib
import json
import math
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from tests.optional import need

need("ray.rllib", "distributed")
torch = need("torch", "distributed")
gym = need("gymnasium", "distributed")

from training import rllib_train  # noqa: E402


def _space(n_actions: int = 6) -> tuple[Any, Any]:
    obs = gym.spaces.Dict(
        {
            "observation": gym.spaces.Box(0.0, 1.0, (2, 3, 3), np.float32),
            "action_mask": gym.spaces.Box(0, 1, (n_actions,), np.int8),
        }
    )
    return obs, gym.spaces.Discrete(n_actions)


def test_masked_module_never_prefers_an_illegal_action() -> None:
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

    masked_ppo, masked_random = rllib_train._modules()
    obs_space, act_space = _space()
    module = masked_ppo(
        observation_space=obs_space,
        action_space=act_space,
        model_config=DefaultModelConfig(fcnet_hiddens=[16]),
    )
    rng = np.random.default_rng(0)
    mask = (rng.random((64, 6)) < 0.4).astype(np.int8)
    mask[np.arange(64), rng.integers(0, 6, 64)] = 1
    batch = {
        Columns.OBS: {
            "observation": torch.tensor(rng.random((64, 2, 3, 3)), dtype=torch.float32),
            "action_mask": torch.tensor(mask),
        }
    }
    for forward in (module.forward_inference, module.forward_exploration):
        logits = forward({Columns.OBS: dict(batch[Columns.OBS])})[Columns.ACTION_DIST_INPUTS]
        assert logits.shape == (64, 6)
        best = logits.argmax(dim=1).numpy()
        assert mask[np.arange(64), best].all()  # masks apply at inference too
        assert (logits.detach().numpy()[mask == 0] < -1e30).all()
    values = module.compute_values({Columns.OBS: dict(batch[Columns.OBS])})
    assert values.shape == (64,)

    rand = masked_random(observation_space=obs_space, action_space=act_space)
    for _ in range(5):
        acts = rand.forward_inference({Columns.OBS: dict(batch[Columns.OBS])})[Columns.ACTIONS]
        assert mask[np.arange(64), acts].all()


def test_league_mapping_one_main_per_episode() -> None:
    agents = ["player_0", "player_1", "player_2"]
    mapping = rllib_train.make_mapping_fn(agents, ["main_v1", "main_v2"])
    seats_of_main = set()
    for i in range(40):
        episode = SimpleNamespace(id_=f"episode-{i}")
        modules = [mapping(a, episode) for a in agents]
        assert modules.count("main") == 1
        assert set(modules) - {"main"} <= {"main_v1", "main_v2"}
        assert modules == [mapping(a, episode) for a in agents]  # stable within an episode
        seats_of_main.add(modules.index("main"))
    assert seats_of_main == {0, 1, 2}


@pytest.mark.parametrize(
    "argv",
    [
        ["chess"],
        ["proteus", "--players", "3"],
        ["virus_fight", "--players", "5"],
        ["virus_fight", "--iterations", "0"],
        ["virus_fight", "--win-threshold", "2"],
    ],
)
def test_rllib_bad_arguments_exit(argv: list[str]) -> None:
    with pytest.raises(SystemExit):
        rllib_train.parse_args(argv)


@pytest.mark.slow
def test_rllib_selfplay_on_local_ray_cluster(tmp_path: Path) -> None:
    """Both games, a tiny budget: metrics come out finite and the league grows."""
    ray = need("ray", "distributed")
    games = [("virus_fight", ["--players", "3", "--max-len", "15"])]
    try:
        importlib.import_module("envs.proteus_v0")
        games.append(("proteus", ["--max-len", "40"]))
    except ImportError:
        if os.environ.get("CI"):
            raise
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": str(rllib_train.REPO_ROOT)}},
    )
    try:
        for game, extra in games:
            out = tmp_path / f"{game}.json"
            argv = [game, *extra, "--iterations", "2", "--env-runners", "1", "--train-batch",
                    "400", "--minibatch", "100", "--epochs", "1", "--hidden", "32",
                    "--win-threshold", "-1", "--json", str(out), "--checkpoint",
                    str(tmp_path / f"ckpt_{game}")]  # fmt: skip
            assert rllib_train.main(argv) == 0
            report = json.loads(out.read_text())
            its = report["iterations"]
            assert [m["iteration"] for m in its] == [1, 2]
            assert its[-1]["env_steps"] >= 800
            for m in its:
                for key in ("policy_loss", "vf_loss", "entropy"):
                    assert m[key] is not None and math.isfinite(m[key]), (game, key, m)
            rates = [m["win_rate"] for m in its if m["win_rate"] is not None]
            assert rates and all(0.0 <= r <= 1.0 for r in rates)
            # threshold -1: every iteration with finished episodes adds a snapshot
            assert its[-1]["league_size"] >= 3 and "main_v1" in its[-1]["league"]
            assert any((tmp_path / f"ckpt_{game}").iterdir())
    finally:
        ray.shutdown()
