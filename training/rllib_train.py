"""Scale-out self-play training on Ray RLlib (new API stack): ``arena train GAME --backend rllib``.

The turn-based games' PettingZoo AEC envs (``envs.<game>_v0``, from the game registry) run
inside RLlib env runners through RLlib's own ``PettingZooEnv`` wrapper; PPO trains one
``main`` RLModule that applies the action mask (:class:`MaskedPPOTorchRLModule`, the
pattern of RLlib's ``ActionMaskingTorchRLModule`` example, for our ``{"observation",
"action_mask"}`` dict and board planes). Self-play league (the pattern of RLlib's
``self_play_with_open_spiel`` example): in every episode one random seat plays ``main``
and the other seats play opponents drawn from the league; the league starts with a
uniform-legal random player; whenever ``main``'s win rate over recent episodes passes
``--win-threshold`` a frozen snapshot ``main_vN`` is added as a new module (a callback on
the training result) and opponents are drawn from the snapshots from then on.

Runs on whatever Ray cluster ``ray.init`` finds: a local one by default (``--num-cpus``),
or an existing cluster with ``--address auto`` (see ``docs/distributed.md``). Each
iteration prints one line of metrics; ``--json`` writes them all.

    arena train GAME --backend rllib --players 3 --iterations 20 --env-runners 2
    python -m training.rllib_train GAME --iterations 5 --checkpoint runs/rllib_GAME
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from envs import registry
from envs.core import cli_text


def games() -> tuple[str, ...]:
    """The games RLlib trains: the registered turn-based games with an AEC env."""
    return tuple(s.name for s in registry.specs() if not s.continuous and s.aec is not None)


def __getattr__(name: str) -> Any:
    """``GAMES`` of old callers."""
    if name == "GAMES":
        return games()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


REPO_ROOT = Path(__file__).resolve().parent.parent
MAIN = "main"
RANDOM = "random"


# --------------------------------------------------------------------------- env
def env_kwargs(game: str, players: int | None, max_len: int | None) -> dict[str, Any]:
    """Constructor arguments of the game's AEC env from the command line options."""
    spec = registry.get(game)
    kwargs: dict[str, Any] = {}
    if players is not None:
        try:
            spec.check_players(players)
        except ValueError as exc:
            raise ValueError(f"--players {players}: {exc}") from None
        if spec.env_players_arg is not None:
            kwargs[spec.env_players_arg] = players
    elif spec.env_players_arg is not None:
        kwargs[spec.env_players_arg] = spec.default_players
    if max_len and spec.max_len_arg is not None:
        kwargs[spec.max_len_arg] = max_len
    return kwargs


def make_aec(game: str, kwargs: dict[str, Any]) -> Any:
    """The game's PettingZoo ``env()`` (classic wrapper stack)."""
    return registry.make_env(game, "aec", **kwargs)


def make_rllib_env(config: dict[str, Any]) -> Any:
    """Env creator registered with Ray: RLlib's PettingZooEnv over our AEC env."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    return PettingZooEnv(make_aec(config["game"], dict(config.get("kwargs", {}))))


# --------------------------------------------------------------------------- modules
def _modules() -> tuple[type, type]:
    """Build the RLModule classes (imports torch and ray lazily)."""
    import gymnasium as gym
    import torch
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import (
        DefaultPPOTorchRLModule as PPOTorchRLModule,
    )
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModule
    from ray.rllib.utils.torch_utils import FLOAT_MIN

    def split(batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """(float mask, batch whose OBS is the flattened planes)."""
        obs = batch[Columns.OBS]
        mask = obs["action_mask"].float()
        planes = obs["observation"].float()
        batch = dict(batch)
        batch[Columns.OBS] = planes.reshape(planes.shape[0], -1)
        return mask, batch

    def apply_mask(out: dict[str, Any], mask: Any) -> dict[str, Any]:
        """Illegal actions get logit FLOAT_MIN: never sampled, never argmax (also at inference)."""
        out[Columns.ACTION_DIST_INPUTS] = out[Columns.ACTION_DIST_INPUTS] + torch.clamp(
            torch.log(mask), min=FLOAT_MIN
        )
        return out

    class MaskedPPOTorchRLModule(PPOTorchRLModule):
        """PPO's default MLP over the flattened planes, logits masked by ``action_mask``."""

        def __init__(self, *, observation_space: Any = None, **kwargs: Any) -> None:
            if not isinstance(observation_space, gym.spaces.Dict):
                raise ValueError("needs a Dict observation space {observation, action_mask}")
            self.observation_space_with_mask = observation_space
            planes: Any = observation_space["observation"]
            flat = gym.spaces.Box(
                float(np.min(planes.low)),
                float(np.max(planes.high)),
                (int(np.prod(planes.shape)),),
                np.float32,
            )
            super().__init__(observation_space=flat, **kwargs)

        def setup(self) -> None:
            super().setup()
            self.observation_space = self.observation_space_with_mask

        def _forward_inference(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            mask, batch = split(batch)
            return apply_mask(super()._forward_inference(batch, **kwargs), mask)

        def _forward_exploration(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            mask, batch = split(batch)
            return apply_mask(super()._forward_exploration(batch, **kwargs), mask)

        def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            mask, batch = split(batch)
            return apply_mask(super()._forward_train(batch, **kwargs), mask)

        def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
            if isinstance(batch[Columns.OBS], dict):
                _, batch = split(batch)
            return super().compute_values(batch, embeddings)

    class MaskedRandomRLModule(RLModule):
        """The league's first opponent: uniform over the legal actions (never trained)."""

        def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
            mask = batch[Columns.OBS]["action_mask"]
            mask = mask.cpu().numpy() if hasattr(mask, "cpu") else np.asarray(mask)
            mask = mask.reshape(mask.shape[0], -1) > 0
            scores = self._rng.random(mask.shape)
            scores[~mask] = -1.0
            return {Columns.ACTIONS: scores.argmax(axis=1)}

        def setup(self) -> None:
            super().setup()
            self._rng = np.random.default_rng()

        def _forward_train(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError("the random opponent is never trained")

        def compile(self, *args: Any, **kwargs: Any) -> None:
            """No-op (TorchRLModule compatibility)."""

    return MaskedPPOTorchRLModule, MaskedRandomRLModule


# --------------------------------------------------------------------------- league
def _episode_seed(episode: Any) -> int:
    return zlib.crc32(str(episode.id_).encode())


def make_mapping_fn(agents: list[str], league: list[str]) -> Any:
    """Agent -> module per episode: one seat (from the episode id) is ``main``, every other
    seat an opponent drawn from ``league`` (the same draw for the whole episode)."""
    seats = {a: i for i, a in enumerate(agents)}
    opponents = list(league)

    def mapping(agent_id: Any, episode: Any, **kwargs: Any) -> str:
        seed = _episode_seed(episode)
        if seeds_main(seed, len(agents)) == seats[agent_id]:
            return MAIN
        return random.Random(seed * 31 + seats[agent_id]).choice(opponents)

    return mapping


def seeds_main(seed: int, num_seats: int) -> int:
    """The seat ``main`` plays in the episode with this seed."""
    return seed % num_seats


def make_callback_class(agents: list[str], win_threshold: float, keep_random: bool) -> type:
    """The league callback class: logs main's result, adds a snapshot past the threshold."""
    from ray.rllib.callbacks.callbacks import RLlibCallback
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS

    class LeagueCallback(RLlibCallback):
        def __init__(self) -> None:
            super().__init__()
            self.snapshots: list[str] = []

        def on_episode_end(  # type: ignore[override]
            self,
            *,
            episode: Any,
            metrics_logger: Any,
            prev_episode_chunks: list[Any] | None = None,
            **kwargs: Any,
        ) -> None:
            # main's seat comes from the episode id (see make_mapping_fn); its return is
            # summed over every chunk of the episode (a seat eliminated early got its -1
            # in an earlier chunk); rewards are terminal only, so return > 0 is a win
            main_agent = agents[seeds_main(_episode_seed(episode), len(agents))]
            total, seen = 0.0, False
            for chunk in [*(prev_episode_chunks or []), episode]:
                single = chunk.agent_episodes.get(main_agent)
                if single is not None:
                    total += float(single.get_return())
                    seen = True
            if seen:
                metrics_logger.log_value("win_rate", float(total > 0), reduce="mean", window=100)
                metrics_logger.log_value("main_return", total, reduce="mean", window=100)

        def on_train_result(  # type: ignore[override]
            self, *, algorithm: Any, result: dict[str, Any], **kwargs: Any
        ) -> None:
            win_rate = result.get(ENV_RUNNER_RESULTS, {}).get("win_rate", float("nan"))
            if not math.isnan(win_rate) and win_rate > win_threshold:
                module_id = f"main_v{len(self.snapshots) + 1}"
                main_module = algorithm.get_module(MAIN)
                self.snapshots.append(module_id)
                league = self.snapshots + ([RANDOM] if keep_random else [])
                algorithm.add_module(
                    module_id=module_id,
                    module_spec=RLModuleSpec.from_module(main_module),
                    new_agent_to_module_mapping_fn=make_mapping_fn(agents, league),
                )
                algorithm.set_state(
                    {
                        "learner_group": {
                            "learner": {"rl_module": {module_id: main_module.get_state()}}
                        }
                    }
                )
            result["league_size"] = len(self.snapshots) + 2  # + main + random
            result["league"] = [MAIN, RANDOM, *self.snapshots]

    return LeagueCallback


# --------------------------------------------------------------------------- config
def build_config(args: argparse.Namespace, agents: list[str]) -> Any:
    """The PPOConfig: env, env runners, multi-agent league, masked modules, callback."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    masked_ppo, masked_random = _modules()
    env_name = f"arena_{args.game}"
    register_env(env_name, make_rllib_env)
    kwargs = env_kwargs(args.game, args.players, args.max_len)
    return (
        PPOConfig()
        .environment(env_name, env_config={"game": args.game, "kwargs": kwargs})
        .env_runners(
            num_env_runners=args.env_runners,
            num_envs_per_env_runner=args.envs_per_runner,
            num_cpus_per_env_runner=args.cpus_per_runner,
            rollout_fragment_length="auto",
        )
        .learners(num_learners=args.learners, num_gpus_per_learner=args.gpus_per_learner)
        .callbacks(make_callback_class(agents, args.win_threshold, args.keep_random))
        .multi_agent(
            policies={MAIN, RANDOM},
            policy_mapping_fn=make_mapping_fn(agents, [RANDOM]),
            policies_to_train=[MAIN],
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    MAIN: RLModuleSpec(
                        module_class=masked_ppo,
                        model_config=DefaultModelConfig(
                            fcnet_hiddens=list(args.hidden), vf_share_layers=False
                        ),
                    ),
                    RANDOM: RLModuleSpec(module_class=masked_random),
                }
            ),
        )
        .training(
            train_batch_size_per_learner=args.train_batch,
            minibatch_size=args.minibatch,
            num_epochs=args.epochs,
            lr=args.lr,
            gamma=args.gamma,
            entropy_coeff=args.entropy,
        )
        .debugging(seed=args.seed)
    )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = cli_text.ArgumentParser(
        prog="arena train GAME --backend rllib", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("game", choices=games())
    p.add_argument("--backend", default="rllib", choices=["rllib"], help=argparse.SUPPRESS)
    p.add_argument(
        "--players", type=int, default=None, help="seats per game (the game's player counts)"
    )
    p.add_argument(
        "--max-len",
        type=int,
        default=None,
        help="the game's length limit (its registry entry's max_len_arg)",
    )
    p.add_argument("--iterations", type=int, default=10, help="training iterations")
    p.add_argument("--env-runners", type=int, default=2, help="remote env runners (0: local)")
    p.add_argument("--envs-per-runner", type=int, default=1)
    p.add_argument("--cpus-per-runner", type=float, default=1.0)
    p.add_argument("--learners", type=int, default=0, help="remote learners (0: local)")
    p.add_argument("--gpus-per-learner", type=float, default=0.0)
    p.add_argument("--train-batch", type=int, default=2000, help="env steps per iteration")
    p.add_argument("--minibatch", type=int, default=256)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--entropy", type=float, default=0.01)
    p.add_argument("--hidden", type=int, nargs="+", default=[256, 256])
    p.add_argument("--win-threshold", type=float, default=0.75, help="snapshot main above it")
    p.add_argument("--keep-random", action="store_true", help="keep random in the league")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--address", default=None, help="Ray cluster address ('auto' to join)")
    p.add_argument("--num-cpus", type=int, default=None, help="CPUs of a new local cluster")
    p.add_argument(
        "--working-dir", type=Path, default=None, help="upload this checkout to the cluster"
    )
    p.add_argument("--verbose", action="store_true", help="show the Ray workers' logs")
    p.add_argument("--checkpoint", type=Path, default=None, help="save the algorithm here")
    p.add_argument("--json", type=Path, default=None, help="write per-iteration metrics")
    args = p.parse_args(argv)
    if args.iterations < 1 or args.train_batch < 1 or args.minibatch < 1 or args.epochs < 1:
        p.error("--iterations, --train-batch, --minibatch and --epochs must be positive")
    if args.env_runners < 0 or args.envs_per_runner < 1:
        p.error("--env-runners must be >= 0 and --envs-per-runner >= 1")
    if not 0 <= args.win_threshold <= 1 and args.win_threshold != -1:
        p.error("--win-threshold must be in [0, 1] (or -1: snapshot every iteration)")
    try:
        env_kwargs(args.game, args.players, args.max_len)
    except ValueError as exc:
        p.error(str(exc))
    return args


def summarize(result: dict[str, Any]) -> dict[str, Any]:
    """The learning metrics of one iteration, flat and JSON-safe."""
    env = result.get("env_runners", {})
    learner = result.get("learners", {}).get(MAIN, {})

    def num(x: Any) -> float | None:
        try:
            v = float(x)
        except (TypeError, ValueError):
            return None
        return None if math.isnan(v) else v

    return {
        "iteration": int(result.get("training_iteration", 0)),
        "env_steps": num(result.get("num_env_steps_sampled_lifetime")),
        "episodes": num(env.get("num_episodes_lifetime", env.get("num_episodes"))),
        "episode_len_mean": num(env.get("episode_len_mean")),
        "win_rate": num(env.get("win_rate")),
        "main_return": num(env.get("main_return")),
        "policy_loss": num(learner.get("policy_loss")),
        "vf_loss": num(learner.get("vf_loss")),
        "entropy": num(learner.get("entropy")),
        "mean_kl": num(learner.get("mean_kl_loss")),
        "league_size": int(result.get("league_size", 2)),
        "league": list(result.get("league", [])),
    }


def train(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Run the iterations; returns the per-iteration metrics."""
    import ray

    agents = list(
        make_aec(args.game, env_kwargs(args.game, args.players, args.max_len)).possible_agents
    )
    started_ray = False
    if not ray.is_initialized():
        init: dict[str, Any] = {"include_dashboard": False, "log_to_driver": args.verbose}
        if args.working_dir is not None:  # ship this checkout to every node of a cluster
            init["runtime_env"] = {
                "working_dir": str(args.working_dir),
                "excludes": [".venv", ".git", "runs", "results", "**/__pycache__"],
            }
        else:  # same machine(s) with the repo at the same path: import it from there
            init["runtime_env"] = {"env_vars": {"PYTHONPATH": str(REPO_ROOT)}}
        if args.address:
            init["address"] = args.address
        elif args.num_cpus:
            init["num_cpus"] = args.num_cpus
        ray.init(**init)
        started_ray = True
    algo = build_config(args, agents).build_algo()
    history: list[dict[str, Any]] = []
    try:
        for _ in range(args.iterations):
            t0 = time.perf_counter()
            metrics = summarize(algo.train())
            metrics["seconds"] = round(time.perf_counter() - t0, 2)
            history.append(metrics)
            print(
                f"iter {metrics['iteration']:3d}  steps {metrics['env_steps']}  "
                f"win {metrics['win_rate']}  pi_loss {metrics['policy_loss']}  "
                f"vf_loss {metrics['vf_loss']}  league {metrics['league_size']}  "
                f"{metrics['seconds']} s",
                flush=True,
            )
        if args.checkpoint is not None:
            args.checkpoint.mkdir(parents=True, exist_ok=True)
            algo.save_to_path(str(args.checkpoint.resolve()))
    finally:
        algo.stop()
        if started_ray:
            ray.shutdown()
    return history


def main(argv: list[str] | None = None) -> int:
    """Entry point (``arena train GAME --backend rllib`` dispatches here)."""
    args = parse_args(list(sys.argv[1:] if argv is None else argv))
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    history = train(args)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(
            json.dumps(
                {
                    "args": vars(args)
                    | {"json": str(args.json), "checkpoint": str(args.checkpoint)},
                    "iterations": history,
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
