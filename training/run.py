"""Run plumbing shared by every game and algorithm: seeds, threads, the opponent pool,
checkpoints and resume, the interrupt-safe learn loop.

A run is :func:`train`: it seeds everything, asks the game's *trainer* (its registry entry's
``trainer``, ``training.selfplay:setup`` for turn-based games) for a :class:`TrainerSetup`
(the SB3 algorithm, the VecEnv, the opponent pool and how to build a fresh model), then
either builds the model or reloads model, pool snapshots and RNG states from the run
directory, and learns until the step counter reaches ``cfg.steps``. The layout of a run
directory is described in ``training/train.py`` (the ``arena train`` command).
"""

from __future__ import annotations

import json
import random
import shutil
import signal
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from envs import registry
from training.config import TrainConfig
from training.run_io import TrainResult, set_threads
from training.run_io import atomic_write as _atomic
from training.run_io import in_main_thread as _in_main_thread
from training.setup import TrainerSetup, build_pool

__all__ = [
    "Saver",
    "TrainResult",
    "TrainerSetup",
    "build_pool",
    "learn",
    "set_seeds",
    "set_threads",
    "train",
]


def clear_run(out: Path) -> None:
    """Delete a run's files in ``out`` (``--overwrite``)."""
    for name in ("model.zip", "model.pt", "state.json", "rng.pt", "replay.pkl"):
        (out / name).unlink(missing_ok=True)
    for name in ("checkpoints", "pool", "tb"):
        shutil.rmtree(out / name, ignore_errors=True)


def print_summary(result: TrainResult, cfg: TrainConfig) -> None:
    """The two-line report of a finished run."""
    if result.lines:
        print("\n".join(result.lines))
        return
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


def set_seeds(seed: int) -> None:
    """Seed python, numpy's global generator (SB3 draws from it) and torch."""
    import torch as th

    random.seed(seed)
    np.random.seed(seed % 2**32)  # noqa: NPY002 - SB3 draws from the global generator
    th.manual_seed(seed)


def unit_files(out: Path, state: dict[str, Any]) -> dict[str, Path | None]:
    """The files of the checkpoint unit ``state.json`` names (model, rng, replay buffer).

    ``state.json`` is written last and names the model, RNG and replay files of its own
    step, so these always belong together; run directories from before the units named
    no files, and their top-level ``model.zip`` / ``rng.pt`` / ``replay.pkl`` are used.
    """
    if "model" not in state:  # an older run directory
        replay = out / "replay.pkl"
        return {"model": out / "model.zip", "rng": out / "rng.pt", "replay": replay}
    return {k: None if state.get(k) is None else out / state[k] for k in ("model", "rng", "replay")}


class Saver:
    """Writes checkpoints as one atomic unit; knows how to restore them.

    A save writes ``checkpoints/step_N.zip`` (model, optimizer, counter),
    ``checkpoints/step_N.rng.pt`` (torch / numpy / python / env RNG states) and, for SAC,
    ``checkpoints/step_N.replay.pkl``, each through a temporary file; then ``state.json``
    (config, counters, pool listing, and the names of those files) is replaced in one
    ``os.replace``, the commit point; only then is ``model.zip`` updated and the previous
    unit's RNG / replay files removed. Pool snapshots are written (atomically) before a
    ``state.json`` lists them. A run killed at any moment resumes from the last committed
    unit, whose parts all come from the same step.
    """

    def __init__(self, cfg: TrainConfig, model: Any, venv: Any, pool: Any) -> None:
        self.cfg = cfg
        self.out = Path(cfg.out)
        self.model = model
        self.venv = venv
        self.pool = pool
        self.checkpoints: list[str] = []
        self.elapsed_before = 0.0
        self.decisions_before = 0
        self.unit: dict[str, str | None] = {}  # the committed unit's files (relative)

    def add_snapshot(self, step: int) -> None:
        import torch as th

        from training.opponents import SnapshotAgent

        name = f"self@{step}"
        if name in self.pool.snapshot_names():
            return
        agent = SnapshotAgent(self.model.policy, name, seed=_derive(self.cfg.seed, name))
        self.pool.add_snapshot(name, agent)
        (self.out / "pool").mkdir(parents=True, exist_ok=True)
        state_dict = agent.policy.state_dict()
        _atomic(self.out / "pool" / f"{name}.pt", lambda p: th.save(state_dict, p))

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
        ckpt = f"checkpoints/step_{step}.zip"
        _atomic(self.out / ckpt, self.model.save, suffix=".zip")
        if ckpt not in self.checkpoints:
            self.checkpoints.append(ckpt)
        rng = {
            "torch": th.get_rng_state(),
            "numpy": np.random.get_state(),  # noqa: NPY002 - SB3's global generator
            "python": random.getstate(),
            "env": self.venv.rng_state() if hasattr(self.venv, "rng_state") else None,
        }
        unit: dict[str, str | None] = {
            "model": ckpt,
            "rng": f"checkpoints/step_{step}.rng.pt",
            "replay": None,
        }
        if getattr(self.model, "replay_buffer", None) is not None:  # SAC: keep its memory
            replay = f"checkpoints/step_{step}.replay.pkl"
            unit["replay"] = replay
            _atomic(self.out / replay, self.model.save_replay_buffer, suffix=".pkl")
        _atomic(self.out / str(unit["rng"]), lambda p: th.save(rng, p))
        state = {
            "config": asdict(self.cfg),
            "num_timesteps": step,
            "snapshots": self.pool.snapshot_names() if self.pool is not None else [],
            "checkpoints": self.checkpoints,
            "elapsed_seconds": self.elapsed_before + elapsed,
            "decisions": self.decisions_before + _decisions(self.venv),
            "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
            **unit,
        }
        text = json.dumps(state, indent=1)
        _atomic(self.out / "state.json", lambda p: p.write_text(text))  # the commit point
        self.unit = unit
        self.finish_commit(resumed=False)

    def finish_commit(self, resumed: bool = True) -> None:
        """The steps after a commit: the unit's model where users look for it
        (``model.zip``), and the older units' RNG / replay files (no longer named by
        ``state.json``) removed. A resumed run calls it again, since a kill may land
        between the commit and these steps: only then is ``model.zip`` compared byte for byte
        with the unit's model (it may be it already); right after a save it is copied."""
        ckpt = self.unit.get("model")
        if ckpt is None:  # an older run directory: its model.zip is the unit's model
            return
        src, dst = self.out / ckpt, self.out / "model.zip"
        if not resumed or not dst.exists() or dst.read_bytes() != src.read_bytes():
            _atomic(dst, lambda p: shutil.copyfile(src, p))
        keep = {self.out / str(v) for v in self.unit.values() if v}
        for old in self.out.glob("checkpoints/*"):  # older units, and kills' leftovers
            stale = old.name.endswith((".rng.pt", ".replay.pkl")) or ".tmp" in old.name
            if stale and old not in keep:
                old.unlink(missing_ok=True)

    def restore_rng(self, path: Path | None = None) -> None:
        """RNG states from the committed unit's file (``path``; default: ``rng.pt``)."""
        import torch as th

        rng = th.load(self.out / "rng.pt" if path is None else path, weights_only=False)
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


def make_callback(
    saver: Saver, cfg: TrainConfig, start_step: int, report_every: float = 0.0
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


def trainer_of(game: str) -> Callable[[TrainConfig], TrainerSetup]:
    """The training setup of ``game`` (its registry entry's ``trainer``)."""
    if ":" in game:  # a module:Class facade: the turn-based self-play setup
        from training.selfplay import setup

        return setup
    return registry.load(registry.get(game).trainer)


def train(
    cfg: TrainConfig, resume: bool = False, progress: bool = True, quiet: bool = False
) -> TrainResult:
    """Run (or continue) training as configured; returns counters and throughput."""
    if cfg.algo == "alphazero":  # search-guided self-play, its own loop (training/alphazero)
        from training.alphazero import train as train_alphazero

        return train_alphazero(cfg, resume, progress, quiet)
    set_threads(cfg.threads)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    setup_fn = trainer_of(cfg.game)
    set_seeds(cfg.seed)
    setup = setup_fn(cfg)
    from stable_baselines3.common.vec_env import VecMonitor

    venv, pool = setup.venv, setup.pool
    env = VecMonitor(venv)
    if resume:
        state = json.loads((out / "state.json").read_text())
        files = unit_files(out, state)
        model = setup.algo.load(
            files["model"], env=env, device="cpu", tensorboard_log=str(out / "tb")
        )
        if int(model.num_timesteps) != int(state["num_timesteps"]):
            raise ValueError(
                f"--resume: {files['model']} is at step {int(model.num_timesteps):,} but "
                f"state.json at {int(state['num_timesteps']):,}: the run directory is "
                "inconsistent (a save from before atomic checkpoints was interrupted?)"
            )
        saver = Saver(cfg, model, venv, pool)
        saver.unit = {k: state.get(k) for k in ("model", "rng", "replay")}
        saver.finish_commit()  # a kill after the last commit may have left model.zip stale
        saver.checkpoints = list(state.get("checkpoints", []))
        saver.elapsed_before = float(state.get("elapsed_seconds", 0.0))
        saver.decisions_before = int(state.get("decisions", 0))
        if pool is not None:
            saver.restore_snapshots(list(state.get("snapshots", [])))
        saver.restore_rng(files["rng"])
        if setup.after_load is not None:
            setup.after_load(model, out)
    else:
        model = setup.build(env)
        saver = Saver(cfg, model, venv, pool)
        if pool is not None and pool.self_weight > 0:
            saver.add_snapshot(0)
    if pool is not None and pool.self_weight > 0 and not pool.snapshot_names():
        saver.add_snapshot(int(model.num_timesteps))
    if not quiet:
        print(f"arena train {cfg.game}: {setup.describe}; run dir {out}")
    return learn(model, saver, cfg, progress)


def learn(model: Any, saver: Saver, cfg: TrainConfig, progress: bool) -> TrainResult:
    """The learn loop shared by every game: interrupt-safe, timed, checkpointed."""
    start = int(model.num_timesteps)
    remaining = cfg.steps - start
    venv = saver.venv
    if hasattr(venv, "env_seconds"):
        venv.env_seconds = 0.0
    t0 = time.perf_counter()
    interrupted = False
    if remaining > 0:
        callback = make_callback(saver, cfg, start, report_every=0.0 if progress else 60.0)
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
