"""``arena train GAME``: self-play training with checkpoints, resume and TensorBoard logs.

Board games (Proteus, Virus Fight with 2-4 players) train sb3-contrib's MaskablePPO on a
:class:`training.vec_env.SelfPlayVecEnv` (many games per batched kernel call, opponents
from a pool of the learner's frozen snapshots and baseline agents, acting inside the
env step). ``--obs lookahead`` (Proteus) adds per-action lookahead flags to the learner's
input, read by ``agents.networks.ActionFeaturePolicy``. Moon Shot trains PPO on continuous shots (:mod:`training.moon_shot`).

Run directory (``--out``, default ``runs/GAME``)::

    model.zip              latest model: weights, Adam state, step counter (SB3 zip)
    checkpoints/step_N.zip every --checkpoint-every steps, and the final one
    pool/<name>.pt         the opponent pool's snapshots (policy state dicts)
    rng.pt                 torch / numpy / python / env RNG states at the last save
    replay.pkl             SAC's replay buffer (Moon Shot with --algo sac)
    state.json             config, step counter, pool listing, throughput counters
    tb/                    TensorBoard logs (tensorboard --logdir DIR/tb)

``--resume`` reloads all of it and trains on until the step counter reaches ``--steps``
(a target total, not an increment), so an interrupted run loses at most the steps since
its last checkpoint; Ctrl-C or SIGTERM saves a checkpoint before exiting. Games in
progress at the save are not stored: the resumed run starts fresh games.

Examples::

    arena train proteus --steps 2000000
    arena train proteus --steps 4000000 --resume
    arena train proteus --obs lookahead --time-limit 30 --opponents self:0.4,random:0.1,heuristic:0.5
    arena train virus_fight --players 3 --opponents self:0.7,random:0.1,heuristic:0.2
    arena train moon_shot --steps 300000
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sys
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np

GAMES = ("proteus", "virus_fight", "moon_shot")
#: The default pool; a default entrant whose agent does not exist for a game is skipped
#: (with a note), an explicitly requested one is an error.
DEFAULT_OPPONENTS = "self:0.6,random:0.15,heuristic:0.25"
#: What the learner observes (``--obs``); ``lookahead`` exists for Proteus only.
OBSERVATIONS = ("planes", "lookahead")


@dataclass
class TrainConfig:
    """Everything a run depends on (stored in state.json; a resumed run reuses it)."""

    game: str
    steps: int = 1_000_000
    players: int = 2
    n_envs: int = 64
    n_steps: int = 64
    batch_size: int = 1024
    n_epochs: int = 4
    learning_rate: float = 3e-4
    ent_coef: float = 0.01
    gamma: float = 0.99
    net: str = "256,256"
    seed: int = 0
    out: str = ""
    opponents: str = "self:0.6,random:0.15,heuristic:0.25"  # DEFAULT_OPPONENTS
    max_snapshots: int = 8
    snapshot_every: int = 50_000
    checkpoint_every: int = 100_000
    threads: int = 1
    algo: str = "maskable_ppo"
    time_limit: float = 0.0  # minutes of training after which the run saves and stops (0: none)
    obs: str = "planes"  # "lookahead": Proteus planes + per-action lookahead flags

    def net_arch(self) -> list[int]:
        try:
            arch = [int(x) for x in self.net.split(",") if x.strip()]
        except ValueError:
            raise ValueError(f"--net {self.net!r}: give layer sizes like 256,256") from None
        if not arch or min(arch) < 1:
            raise ValueError(f"--net {self.net!r}: give positive layer sizes like 256,256")
        return arch


@dataclass
class TrainResult:
    """What a finished (or interrupted) run reports."""

    out: Path
    num_timesteps: int
    start_timesteps: int
    seconds: float
    learner_steps_per_s: float
    decisions_per_s: float
    env_steps_per_s: float
    interrupted: bool = False

    @property
    def model_path(self) -> Path:
        return self.out / "model.zip"


# ----------------------------------------------------------------------------- CLI
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="arena train",
        description="Self-play training (MaskablePPO for the board games, PPO for Moon Shot).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("Examples::", 1)[1] if __doc__ else None,
    )
    d = TrainConfig(game="proteus")
    p.add_argument("game", help=f"one of {', '.join(GAMES)} (or package.module:Class)")
    p.add_argument(
        "--steps", type=int, default=None, help=f"target total learner steps ({d.steps})"
    )
    p.add_argument("--resume", action="store_true", help="continue the run in --out")
    p.add_argument(
        "--backend",
        choices=["sb3", "rllib"],
        default="sb3",
        help="sb3 (this machine) or rllib (Ray cluster; see docs/distributed.md)",
    )
    p.add_argument("--players", type=int, default=None, help="seats per game (2)")
    p.add_argument("--n-envs", type=int, default=None, help=f"games per batch ({d.n_envs})")
    p.add_argument(
        "--n-steps", type=int, default=None, help=f"rollout length per game ({d.n_steps})"
    )
    p.add_argument("--batch-size", type=int, default=None, help=f"PPO minibatch ({d.batch_size})")
    p.add_argument("--n-epochs", type=int, default=None, help=f"PPO epochs ({d.n_epochs})")
    p.add_argument("--learning-rate", type=float, default=None, help=f"({d.learning_rate})")
    p.add_argument("--ent-coef", type=float, default=None, help=f"entropy bonus ({d.ent_coef})")
    p.add_argument("--gamma", type=float, default=None, help=f"discount ({d.gamma})")
    p.add_argument("--net", default=None, help=f"hidden layer sizes ({d.net})")
    p.add_argument("--seed", type=int, default=None, help=f"seed of the whole run ({d.seed})")
    p.add_argument("--out", default=None, help="run directory (runs/GAME)")
    p.add_argument(
        "--opponents",
        default=None,
        help="opponent pool as name:weight items; 'self' = snapshots of the learner; "
        f"others are agent names (random, heuristic, mcts:N). ({d.opponents})",
    )
    p.add_argument("--max-snapshots", type=int, default=None, help=f"({d.max_snapshots})")
    p.add_argument("--snapshot-every", type=int, default=None, help=f"({d.snapshot_every})")
    p.add_argument("--checkpoint-every", type=int, default=None, help=f"({d.checkpoint_every})")
    p.add_argument("--threads", type=int, default=None, help=f"torch threads ({d.threads})")
    p.add_argument("--algo", default=None, help="ppo or sac (Moon Shot only)")
    p.add_argument(
        "--time-limit", type=float, default=None, help="minutes, then save and stop (0: none)"
    )
    p.add_argument(
        "--obs",
        choices=OBSERVATIONS,
        default=None,
        help="the learner's input: planes (the env's observation) or, for Proteus, lookahead "
        "(planes + what each legal action leads to, one and two plies ahead; see "
        "envs/proteus/lookahead.py) read by an action-feature policy head (planes)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--overwrite", action="store_true", help="replace an existing run in --out")
    p.add_argument("-q", "--quiet", action="store_true", help="print only the summary")
    return p


_OPTION_FIELDS = [f.name for f in fields(TrainConfig) if f.name != "game"]


def _validate(cfg: TrainConfig) -> None:
    """Raise ValueError naming the first bad setting."""
    from training.games import BOARD_GAMES, PLAYERS

    if ":" not in cfg.game and cfg.game not in GAMES:
        raise ValueError(f"unknown game {cfg.game!r}; choose one of {', '.join(GAMES)}")
    if cfg.game in PLAYERS and cfg.players not in PLAYERS[cfg.game]:
        allowed = ", ".join(map(str, PLAYERS[cfg.game]))
        raise ValueError(f"--players {cfg.players}: {cfg.game} is played by {allowed} players")
    for name in ("steps", "n_envs", "n_steps", "batch_size", "n_epochs", "threads"):
        if getattr(cfg, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(cfg, name)}")
    for name in ("snapshot_every", "checkpoint_every", "max_snapshots"):
        if getattr(cfg, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be >= 1")
    if not 0 < cfg.gamma <= 1:
        raise ValueError(f"--gamma must be in (0, 1], got {cfg.gamma}")
    if cfg.time_limit < 0:
        raise ValueError("--time-limit must be >= 0 minutes")
    if cfg.learning_rate <= 0:
        raise ValueError("--learning-rate must be > 0")
    cfg.net_arch()
    if cfg.obs not in OBSERVATIONS:
        raise ValueError(f"--obs {cfg.obs!r}: choose one of {', '.join(OBSERVATIONS)}")
    if cfg.obs == "lookahead" and cfg.game != "proteus":
        raise ValueError(f"--obs lookahead exists for proteus only, not {cfg.game}")
    if cfg.game in BOARD_GAMES or ":" in cfg.game:
        if cfg.algo != "maskable_ppo":
            raise ValueError(f"--algo {cfg.algo}: the board games train maskable_ppo only")
        from training.opponents import parse_opponents

        parse_opponents(cfg.opponents)
    elif cfg.algo not in ("ppo", "sac"):
        raise ValueError(f"--algo {cfg.algo!r}: Moon Shot trains ppo or sac")
    elif cfg.players > 1:
        from training.opponents import parse_opponents

        parse_opponents(cfg.opponents)


def config_from_args(args: argparse.Namespace) -> tuple[TrainConfig, bool]:
    """(config, resume) from parsed args, merging a resumed run's stored config."""
    out = Path(args.out) if args.out else Path("runs") / args.game.replace(":", "_")
    given = {k: getattr(args, k) for k in _OPTION_FIELDS if getattr(args, k, None) is not None}
    given["out"] = str(out)
    if args.resume:
        state_file = out / "state.json"
        if not state_file.exists():
            raise ValueError(f"--resume: no run to resume in {out} (no state.json); drop --resume")
        stored = json.loads(state_file.read_text())["config"]
        if stored["game"] != args.game:
            raise ValueError(f"--resume: {out} holds a {stored['game']} run, not {args.game}")
        cfg = TrainConfig(**stored)
        for key, value in given.items():
            if key in ("steps", "out", "threads", "time_limit", "opponents"):
                setattr(cfg, key, value)
            elif value != getattr(cfg, key):
                raise ValueError(
                    f"--resume: --{key.replace('_', '-')} {value} differs from the run's "
                    f"{getattr(cfg, key)}; only --steps, --time-limit, --opponents and --threads may change on resume"
                )
        return cfg, True
    if (out / "state.json").exists() and not args.overwrite:
        raise ValueError(
            f"{out} already holds a run; pass --resume to continue it, --overwrite to "
            "replace it, or choose another --out"
        )
    if args.game == "moon_shot":
        given.setdefault("algo", "ppo")
        given.setdefault("players", 1)  # solo shots (MS-21); 2..8: against pool opponents
        given.setdefault("n_steps", 32)
        given.setdefault("batch_size", 256)
        given.setdefault("n_epochs", 10)
        given.setdefault("net", "64,64")
        given.setdefault("ent_coef", 0.0)
        given.setdefault("n_envs", 16)
        given.setdefault("opponents", "self:0.5,random:0.2,aim:0.3")
        given.setdefault("snapshot_every", 10_000)
        given.setdefault("checkpoint_every", 20_000)
    cfg = TrainConfig(game=args.game, **given)
    return cfg, False


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``arena train``; returns the exit status (2 for bad arguments)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    backend = argparse.ArgumentParser(add_help=False)
    backend.add_argument("--backend", default="sb3")
    if backend.parse_known_args(argv)[0].backend == "rllib":
        from training.rllib_train import main as rllib_main

        return int(rllib_main(argv))
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        cfg, resume = config_from_args(args)
        _validate(cfg)
    except ValueError as exc:
        parser.error(str(exc))  # exits 2 with the usage line
    if args.overwrite and not resume:
        _clear_run(Path(cfg.out))
    try:
        result = train(cfg, resume=resume, progress=not args.no_progress, quiet=args.quiet)
    except ValueError as exc:
        print(f"arena train: error: {exc}", file=sys.stderr)
        return 2
    print_summary(result, cfg)
    return 130 if result.interrupted else 0


def _clear_run(out: Path) -> None:
    for name in ("model.zip", "state.json", "rng.pt", "replay.pkl"):
        (out / name).unlink(missing_ok=True)
    for name in ("checkpoints", "pool", "tb"):
        shutil.rmtree(out / name, ignore_errors=True)


def print_summary(result: TrainResult, cfg: TrainConfig) -> None:
    done = result.num_timesteps - result.start_timesteps
    status = "interrupted, checkpoint saved" if result.interrupted else "done"
    print(
        f"arena train {cfg.game}: {status}: {done:,} steps this run "
        f"(total {result.num_timesteps:,}) in {result.seconds:.1f} s"
    )
    print(
        f"  throughput: {result.learner_steps_per_s:,.0f} learner steps/s overall "
        f"(incl. PPO updates); env alone {result.env_steps_per_s:,.0f} learner steps/s, "
        f"{result.decisions_per_s:,.0f} game decisions/s incl. opponents"
    )
    print(f"  model: {result.model_path}   logs: tensorboard --logdir {result.out / 'tb'}")


# ------------------------------------------------------------------------ training
def _set_seeds(seed: int) -> None:
    import torch as th

    random.seed(seed)
    np.random.seed(seed % 2**32)  # noqa: NPY002 - SB3 draws from the global generator
    th.manual_seed(seed)


def set_threads(threads: int) -> None:
    """Torch and Numba threads. Default 1: small batched kernels in a parallel region wait
    for every worker thread, which on a busy 2-core machine made Virus Fight's env step
    ten times slower than one thread (measured: 4.1k vs 45k learner steps/s)."""
    import numba
    import torch as th

    th.set_num_threads(threads)
    numba.set_num_threads(max(1, min(threads, int(numba.config.NUMBA_NUM_THREADS))))  # type: ignore[attr-defined]


def build_pool(cfg: TrainConfig, game_name: str) -> Any:
    """The opponent pool of a run: baselines now, snapshots added by the trainer."""
    from agents import registry
    from training.opponents import OpponentPool, parse_opponents

    items = parse_opponents(cfg.opponents)
    self_weight = sum(w for n, w in items if n == "self")
    pool = OpponentPool(self_weight=self_weight, max_snapshots=cfg.max_snapshots)
    for k, (name, weight) in enumerate(items):
        if name == "self" or weight == 0:
            continue
        try:
            if ":" in game_name:  # a test/custom facade: only the generic baselines
                if name != "random":
                    raise ValueError(f"opponent {name!r} is not available for {game_name}")
                from agents.random_agent import RandomAgent

                agent: Any = RandomAgent(seed=cfg.seed + 1000 + k)
                agent.name = "random"
            else:
                agent = registry.make_agent(game_name, name, seed=cfg.seed + 1000 + k)
        except (ImportError, ValueError) as exc:
            if cfg.opponents != DEFAULT_OPPONENTS:
                raise ValueError(f"--opponents: cannot build {name!r}: {exc}") from None
            print(f"arena train: default opponent {name!r} skipped: {exc}", file=sys.stderr)
            continue
        pool.add_baseline(name, agent, weight)
    return pool


class _Saver:
    """Writes checkpoints atomically; knows how to restore them."""

    def __init__(self, cfg: TrainConfig, model: Any, venv: Any, pool: Any) -> None:
        self.cfg = cfg
        self.out = Path(cfg.out)
        self.model = model
        self.venv = venv
        self.pool = pool
        self.checkpoints: list[str] = []
        self.elapsed_before = 0.0
        self.decisions_before = 0

    def add_snapshot(self, step: int) -> None:
        import torch as th

        from training.opponents import SnapshotAgent

        name = f"self@{step}"
        if name in self.pool.snapshot_names():
            return
        agent = SnapshotAgent(self.model.policy, name, seed=_derive(self.cfg.seed, name))
        self.pool.add_snapshot(name, agent)
        (self.out / "pool").mkdir(parents=True, exist_ok=True)
        th.save(agent.policy.state_dict(), self.out / "pool" / f"{name}.pt")

    def restore_snapshots(self, names: list[str]) -> None:
        import torch as th

        from training.opponents import SnapshotAgent

        for name in names:
            agent = SnapshotAgent(self.model.policy, name, seed=_derive(self.cfg.seed, name))
            path = self.out / "pool" / f"{name}.pt"
            agent.policy.load_state_dict(th.load(path, map_location="cpu", weights_only=True))
            self.pool.add_snapshot(name, agent)

    def save(self, elapsed: float) -> None:
        import torch as th

        step = int(self.model.num_timesteps)
        (self.out / "checkpoints").mkdir(parents=True, exist_ok=True)
        tmp = self.out / "model.tmp.zip"
        self.model.save(tmp)
        os.replace(tmp, self.out / "model.zip")
        ckpt = f"checkpoints/step_{step}.zip"
        shutil.copyfile(self.out / "model.zip", self.out / ckpt)
        if ckpt not in self.checkpoints:
            self.checkpoints.append(ckpt)
        rng = {
            "torch": th.get_rng_state(),
            "numpy": np.random.get_state(),  # noqa: NPY002 - SB3's global generator
            "python": random.getstate(),
            "env": self.venv.rng_state() if hasattr(self.venv, "rng_state") else None,
        }
        if getattr(self.model, "replay_buffer", None) is not None:  # SAC: keep its memory
            self.model.save_replay_buffer(self.out / "replay.tmp.pkl")
            os.replace(self.out / "replay.tmp.pkl", self.out / "replay.pkl")
        th.save(rng, self.out / "rng.tmp.pt")
        os.replace(self.out / "rng.tmp.pt", self.out / "rng.pt")
        state = {
            "config": asdict(self.cfg),
            "num_timesteps": step,
            "snapshots": self.pool.snapshot_names() if self.pool is not None else [],
            "checkpoints": self.checkpoints,
            "elapsed_seconds": self.elapsed_before + elapsed,
            "decisions": self.decisions_before + _decisions(self.venv),
            "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
        }
        (self.out / "state.tmp.json").write_text(json.dumps(state, indent=1))
        os.replace(self.out / "state.tmp.json", self.out / "state.json")

    def restore_rng(self) -> None:
        import torch as th

        rng = th.load(self.out / "rng.pt", weights_only=False)
        th.set_rng_state(rng["torch"])
        np.random.set_state(rng["numpy"])  # noqa: NPY002
        random.setstate(rng["python"])
        if rng.get("env") is not None and hasattr(self.venv, "set_rng_state"):
            self.venv.set_rng_state(rng["env"])
            # MaskablePPO.load re-runs set_random_seed(seed), which queues env.seed(seed)
            # for the next reset: drop it, or the resumed run would replay the first games
            self.venv._reset_seeds()


def _derive(seed: int, name: str) -> int:
    import zlib

    return int(np.random.SeedSequence([seed, zlib.crc32(name.encode())]).generate_state(1)[0])


def _decisions(venv: Any) -> int:
    return int(getattr(venv, "learner_decisions", 0) + getattr(venv, "opponent_decisions", 0))


def _make_callback(
    saver: _Saver, cfg: TrainConfig, start_step: int, report_every: float = 0.0
) -> Any:
    from stable_baselines3.common.callbacks import BaseCallback

    class TrainingCallback(BaseCallback):
        """Snapshots into the pool, checkpoints, outcome and throughput logging."""

        def __init__(self) -> None:
            super().__init__()
            self.next_snapshot = (start_step // cfg.snapshot_every + 1) * cfg.snapshot_every
            self.next_ckpt = (start_step // cfg.checkpoint_every + 1) * cfg.checkpoint_every
            self.t0 = time.perf_counter()
            self.outcomes: dict[str, list[float]] = {}
            self.last_report = self.t0

        def _on_step(self) -> bool:
            n = self.num_timesteps
            for info in self.locals.get("infos", []):
                if "outcome" in info:
                    key = "+".join(sorted(set(info.get("opponents", ["?"]))))
                    key = "self" if key.startswith("self@") else key
                    self.outcomes.setdefault(key, []).append(info["outcome"])
            if n >= self.next_snapshot:
                if saver.pool is not None:
                    saver.add_snapshot(n)
                self.next_snapshot = (n // cfg.snapshot_every + 1) * cfg.snapshot_every
            if n >= self.next_ckpt:
                saver.save(time.perf_counter() - self.t0)
                self.next_ckpt = (n // cfg.checkpoint_every + 1) * cfg.checkpoint_every
            if cfg.time_limit > 0 and time.perf_counter() - self.t0 > 60.0 * cfg.time_limit:
                return False  # time budget spent: learn() stops, the final save follows
            return True

        def _on_rollout_end(self) -> None:
            for key, vals in self.outcomes.items():
                arr = np.asarray(vals)
                self.logger.record(f"selfplay/win_rate_vs_{key}", float((arr > 0).mean()))
                self.logger.record(f"selfplay/mean_outcome_vs_{key}", float(arr.mean()))
            now = time.perf_counter()
            if report_every > 0 and now - self.last_report >= report_every:
                self.last_report = now
                rates = " ".join(
                    f"{k}:{(np.asarray(v) > 0).mean():.2f}/{len(v)}"
                    for k, v in sorted(self.outcomes.items())
                )
                ep = [e["r"] for e in (self.model.ep_info_buffer or [])]
                print(
                    f"[{time.strftime('%H:%M:%S')}] step {self.num_timesteps:,} "
                    f"({(self.num_timesteps - start_step) / (now - self.t0):,.0f}/s) "
                    f"ep_return {np.mean(ep) if ep else float('nan'):+.3f} wins {rates}",
                    flush=True,
                )
            self.outcomes.clear()
            dt = time.perf_counter() - self.t0
            venv = saver.venv
            env_s = float(getattr(venv, "env_seconds", 0.0))
            if dt > 0:
                self.logger.record(
                    "throughput/learner_steps_per_s", (self.num_timesteps - start_step) / dt
                )
            if env_s > 0:
                self.logger.record(
                    "throughput/env_learner_steps_per_s",
                    getattr(venv, "learner_decisions", 0) / env_s,
                )
                self.logger.record("throughput/env_decisions_per_s", _decisions(venv) / env_s)

    return TrainingCallback()


def train(
    cfg: TrainConfig, resume: bool = False, progress: bool = True, quiet: bool = False
) -> TrainResult:
    """Run (or continue) training as configured; returns counters and throughput."""
    set_threads(cfg.threads)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    if cfg.game == "moon_shot":
        from training import moon_shot

        return moon_shot.train(cfg, resume=resume, progress=progress, quiet=quiet)

    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from training.games import make_batch_game
    from training.vec_env import SelfPlayVecEnv

    _set_seeds(cfg.seed)
    game = make_batch_game(cfg.game, cfg.players, obs=cfg.obs)
    pool = build_pool(cfg, cfg.game)
    venv = SelfPlayVecEnv(game, cfg.n_envs, pool, seed=cfg.seed)
    env = VecMonitor(venv)
    if resume:
        state = json.loads((out / "state.json").read_text())
        model = MaskablePPO.load(
            out / "model.zip", env=env, device="cpu", tensorboard_log=str(out / "tb")
        )
        saver = _Saver(cfg, model, venv, pool)
        saver.checkpoints = list(state.get("checkpoints", []))
        saver.elapsed_before = float(state.get("elapsed_seconds", 0.0))
        saver.decisions_before = int(state.get("decisions", 0))
        saver.restore_snapshots(list(state.get("snapshots", [])))
        saver.restore_rng()
    else:
        arch = cfg.net_arch()
        policy: Any = "MlpPolicy"
        policy_kwargs: dict[str, Any] = {"net_arch": {"pi": arch, "vf": arch}}
        if cfg.obs == "lookahead":
            from agents.networks import ActionFeaturePolicy
            from envs.proteus.lookahead import N_FLAGS

            policy = ActionFeaturePolicy
            policy_kwargs["n_flags"] = N_FLAGS
        model = MaskablePPO(
            policy,
            env,
            learning_rate=cfg.learning_rate,
            n_steps=cfg.n_steps,
            batch_size=min(cfg.batch_size, cfg.n_steps * cfg.n_envs),
            n_epochs=cfg.n_epochs,
            gamma=cfg.gamma,
            gae_lambda=0.95,
            ent_coef=cfg.ent_coef,
            clip_range=0.2,
            policy_kwargs=policy_kwargs,
            tensorboard_log=str(out / "tb"),
            seed=cfg.seed,
            device="cpu",
            verbose=0,
        )
        saver = _Saver(cfg, model, venv, pool)
        if pool.self_weight > 0:
            saver.add_snapshot(0)
    if pool.self_weight > 0 and not pool.snapshot_names():
        saver.add_snapshot(int(model.num_timesteps))
    if not quiet:
        print(
            f"arena train {cfg.game}: {cfg.players} players, {cfg.n_envs} games/batch, "
            f"opponents: {pool.describe()}; run dir {out}"
        )
    return _learn(model, saver, cfg, progress)


def _learn(model: Any, saver: _Saver, cfg: TrainConfig, progress: bool) -> TrainResult:
    """The learn loop shared by every game: interrupt-safe, timed, checkpointed."""
    start = int(model.num_timesteps)
    remaining = cfg.steps - start
    venv = saver.venv
    if hasattr(venv, "env_seconds"):
        venv.env_seconds = 0.0
    t0 = time.perf_counter()
    interrupted = False
    if remaining > 0:
        callback = _make_callback(saver, cfg, start, report_every=0.0 if progress else 60.0)
        previous = signal.getsignal(signal.SIGTERM)

        def _on_term(signum: int, frame: Any) -> None:
            raise KeyboardInterrupt

        in_main = _in_main_thread()
        if in_main:
            signal.signal(signal.SIGTERM, _on_term)
        try:
            model.learn(
                total_timesteps=remaining,
                callback=callback,
                reset_num_timesteps=start == 0,
                tb_log_name="run",
                progress_bar=progress,
            )
        except KeyboardInterrupt:
            interrupted = True
        finally:
            if in_main:
                signal.signal(signal.SIGTERM, previous)
    seconds = time.perf_counter() - t0
    if remaining > 0 or not (Path(cfg.out) / "model.zip").exists():
        saver.save(seconds)
    done = int(model.num_timesteps) - start
    env_s = float(getattr(venv, "env_seconds", 0.0))
    return TrainResult(
        out=Path(cfg.out),
        num_timesteps=int(model.num_timesteps),
        start_timesteps=start,
        seconds=seconds,
        learner_steps_per_s=done / seconds if seconds > 0 else 0.0,
        decisions_per_s=_decisions(venv) / env_s if env_s > 0 else 0.0,
        env_steps_per_s=getattr(venv, "learner_decisions", done) / env_s if env_s > 0 else 0.0,
        interrupted=interrupted,
    )


def _in_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


if __name__ == "__main__":
    raise SystemExit(main())
