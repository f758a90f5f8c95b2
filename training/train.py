"""``arena train GAME``: self-play training with checkpoints, resume and TensorBoard logs.

Every registered game trains through its registry entry's ``trainer`` (``envs/registry.py``):
turn-based games train sb3-contrib's MaskablePPO on a batched self-play VecEnv
(:mod:`training.selfplay`), continuous-action games PPO or SAC through their own setup.
The run plumbing (seeds, pool, checkpoints, resume, the learn loop) is
:mod:`training.run`; the configuration and this command line, generated from its
fields, are :mod:`training.config`.

Run directory (``--out``, default ``runs/GAME``)::

    model.zip              latest model: weights, Adam state, step counter (SB3 zip)
    checkpoints/step_N.zip every --checkpoint-every steps, and the final one
    checkpoints/step_N.rng.pt      torch / numpy / python / env RNG states of the last save
    checkpoints/step_N.replay.pkl  SAC's replay buffer (--algo sac), of the last save
    pool/<name>.pt         the opponent pool's snapshots (policy state dicts)
    state.json             config, step counter, pool listing, throughput counters and
                           the files of the last save (written last: the commit point)
    tb/                    TensorBoard logs (tensorboard --logdir DIR/tb)

A save is one atomic unit: every file goes through a temporary name and ``os.replace``,
and ``state.json``, replaced last, names the model, RNG and replay files of its step, so a
run killed at any moment (even SIGKILL mid-save) resumes with model, optimizer, RNG, pool
and counters from one and the same step.

``--resume`` reloads all of it and trains on until the step counter reaches ``--steps``
(a target total, not an increment), so an interrupted run loses at most the steps since
its last checkpoint; Ctrl-C or SIGTERM saves a checkpoint before exiting. Games in
progress at the save are not stored: the resumed run starts fresh games.

Examples (each game's entry in the registry adds its own)::

    arena train GAME --steps 2000000
    arena train GAME --steps 4000000 --resume
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from envs.core import cli_text
from training.config import (
    DEFAULT_OPPONENTS,
    RunOptions,
    TrainConfig,
    config_from_args,
    validate,
)
from training.config import build_parser as _build_parser
from training.run import (
    Saver,
    TrainerSetup,
    TrainResult,
    build_pool,
    clear_run,
    learn,
    print_summary,
    set_seeds,
    set_threads,
    train,
)

__all__ = [
    "DEFAULT_OPPONENTS",
    "RunOptions",
    "TrainConfig",
    "TrainResult",
    "TrainerSetup",
    "build_parser",
    "build_pool",
    "config_from_args",
    "main",
    "print_summary",
    "set_threads",
    "train",
]

# deprecated private names (older callers imported them)
_learn, _Saver, _set_seeds, _clear_run, _validate = learn, Saver, set_seeds, clear_run, validate


def __getattr__(name: str) -> object:
    """``GAMES`` and ``OBSERVATIONS`` of old callers, computed from the game registry."""
    from envs import registry

    if name == "GAMES":
        return registry.names()
    if name == "OBSERVATIONS":
        return ("planes", *dict.fromkeys(o for s in registry.specs() for o in s.observations))
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def build_parser() -> argparse.ArgumentParser:
    """The ``arena train`` parser (generated from the config dataclasses)."""
    from envs import registry

    lines = ["examples:", "  arena train GAME --steps 2000000", "  arena train GAME --resume"]
    lines += [f"  {line}" for s in registry.specs() for line in s.train_examples]
    return _build_parser(epilog="\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``arena train``; returns the exit status (2 for bad arguments)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    backend = cli_text.ArgumentParser(add_help=False)
    backend.add_argument("--backend", default="sb3")
    if backend.parse_known_args(argv)[0].backend == "rllib":
        from training.rllib_train import main as rllib_main

        return int(rllib_main(argv))
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        cfg, resume = config_from_args(args)
        validate(cfg)
    except ValueError as exc:
        parser.error(str(exc))  # exits 2 with the usage line
    from envs.core.cli_text import check_output_dir, stdout_is_terminal

    try:
        check_output_dir(cfg.out, "--out")  # /dev/null/run: one line now, not a traceback
    except ValueError as exc:
        print(f"arena train: error: {exc}", file=sys.stderr)
        return 2
    if args.overwrite and not resume:
        clear_run(Path(cfg.out))
    progress = not args.no_progress and stdout_is_terminal()  # no \r bars in logs
    try:
        result = train(cfg, resume=resume, progress=progress, quiet=args.quiet)
    except ValueError as exc:
        print(f"arena train: error: {exc}", file=sys.stderr)
        return 2
    print_summary(result, cfg)
    return 130 if result.interrupted else 0


if __name__ == "__main__":
    raise SystemExit(main())
