"""The training run's configuration, and the ``arena train`` command line built from it.

:class:`TrainConfig` is the one description of a run (stored in ``state.json``; a resumed
run reuses it). Every field is a ``--flag`` of ``arena train`` (``n_envs`` ->
``--n-envs``) with its help text in the field's metadata, and :class:`RunOptions` holds
the switches that are not part of a run's identity (``--resume``, ``--quiet``...). The
parser is generated from both dataclasses (CleanRL's "the CLI is the config" without a
copy of each option): adding a field adds its flag. A game's own defaults come from its
registry entry (``train`` in ``envs/registry.py``) and apply unless a flag is given.
"""

from __future__ import annotations

import argparse
import json
import typing
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from typing import Any

from envs import registry
from envs.core import cli_text

#: The default pool; a default entrant whose agent does not exist for a game is skipped
#: (with a note), an explicitly requested one is an error.
DEFAULT_OPPONENTS = "self:0.6,random:0.15,heuristic:0.25"
#: What the learner observes (``--obs``): the env's planes, or a variant a game lists.
PLANES = "planes"
#: Fields a resumed run may change (the others define the run and must match).
RESUMABLE = ("steps", "out", "threads", "time_limit", "opponents", "train_against")


def _opt(default: Any, help: str, **meta: Any) -> Any:
    return field(default=default, metadata={"help": help, **meta})


@dataclass
class TrainConfig:
    """Everything a run depends on (stored in state.json; a resumed run reuses it)."""

    game: str = field(metadata={"help": "a registered game, or package.module:Class"})
    steps: int = _opt(1_000_000, "target total learner steps")
    players: int = _opt(2, "seats per game")
    n_envs: int = _opt(64, "games per batch")
    n_steps: int = _opt(64, "rollout length per game")
    batch_size: int = _opt(1024, "PPO minibatch")
    n_epochs: int = _opt(4, "PPO epochs")
    learning_rate: float = _opt(3e-4, "optimizer step size")
    ent_coef: float = _opt(0.01, "entropy bonus")
    gamma: float = _opt(0.99, "discount")
    net: str = _opt("256,256", "hidden layer sizes")
    seed: int = _opt(0, "seed of the whole run")
    out: str = _opt("", "run directory (runs/GAME)", show_default=False)
    opponents: str = _opt(
        DEFAULT_OPPONENTS,
        "opponent pool as name:weight items; 'self' = snapshots of the learner; others are "
        "agent names (random, heuristic, mcts:N)",
    )
    max_snapshots: int = _opt(8, "snapshots kept in the pool")
    snapshot_every: int = _opt(50_000, "steps between snapshots of the learner")
    checkpoint_every: int = _opt(100_000, "steps between checkpoints")
    threads: int = _opt(1, "torch threads")
    algo: str = _opt(
        "maskable_ppo",
        "algorithm (board games: maskable_ppo or alphazero; continuous-action games: ppo or sac)",
    )
    time_limit: float = _opt(0.0, "minutes, then save and stop (0: none)", show_default=False)
    obs: str = _opt(
        PLANES,
        "the learner's input: planes (the env's observation) or a variant the game's "
        "registry entry lists, e.g. lookahead (planes + what each legal action leads to, "
        "one and two plies ahead) read by an action-feature policy head",
    )
    simulations: int = _opt(32, "alphazero: search simulations per self-play move")
    replay_size: int = _opt(200_000, "alphazero: positions kept in the replay buffer")
    gumbel: bool = _opt(
        False,
        "alphazero: Gumbel root search (sequential halving) with completed-Q policy "
        "targets instead of PUCT visit counts with Dirichlet noise",
    )
    train_against: str = _opt(
        "",
        "alphazero: NAME:FRACTION,... share of the self-play games in which one seat "
        "(alternating) is played by a fixed agent (e.g. heuristic:0.3); only the "
        "network's own moves are stored; empty: pure self-play",
        show_default=False,
    )
    rollout_mix: float = _opt(
        0.0,
        "alphazero: weight of one random playout in each searched leaf's value, the "
        "network's value weighted 1 - this (0: the network alone)",
    )

    def net_arch(self) -> list[int]:
        """The hidden layer sizes of ``net`` (ValueError naming the problem)."""
        try:
            arch = [int(x) for x in self.net.split(",") if x.strip()]
        except ValueError:
            raise ValueError(f"--net {self.net!r}: give layer sizes like 256,256") from None
        if not arch or min(arch) < 1:
            raise ValueError(f"--net {self.net!r}: give positive layer sizes like 256,256")
        return arch


@dataclass
class RunOptions:
    """Switches of one invocation that are not part of the run's identity."""

    resume: bool = _opt(False, "continue the run in --out")
    backend: str = _opt(
        "sb3",
        "sb3 (this machine) or rllib (Ray cluster; see docs/distributed.md)",
        choices=("sb3", "rllib"),
    )
    no_progress: bool = _opt(False, "no progress bar")
    overwrite: bool = _opt(False, "replace an existing run in --out")
    quiet: bool = _opt(False, "print only the summary", short="-q")


def flag(name: str) -> str:
    """The command-line flag of a config field (``n_envs`` -> ``--n-envs``)."""
    return "--" + name.replace("_", "-")


def add_dataclass_arguments(parser: argparse.ArgumentParser, cls: type, defaults: bool) -> None:
    """One ``--flag`` per field of dataclass ``cls`` (positional for fields without default).

    Flags default to None so that :func:`config_from_args` can tell a given flag from an
    omitted one (a resumed run keeps its stored values); the help shows the real default.
    A bool field becomes a ``store_true`` switch.
    """
    hints = typing.get_type_hints(cls)
    for f in fields(cls):
        meta = dict(f.metadata)
        text = meta.get("help", "")
        kind = hints[f.name]
        if f.default is MISSING:
            parser.add_argument(f.name, help=text)
            continue
        names = [flag(f.name)] + ([meta["short"]] if "short" in meta else [])
        if kind is bool:
            parser.add_argument(*names, action="store_true", dest=f.name, help=text)
            continue
        if meta.get("show_default", True):
            text = f"{text} ({f.default})"
        parser.add_argument(
            *names,
            type=kind,
            dest=f.name,
            default=f.default if defaults else None,
            choices=meta.get("choices"),
            metavar=f.name.upper() if meta.get("choices") is None else None,
            help=text,
        )


def build_parser(epilog: str | None = None) -> argparse.ArgumentParser:
    """The ``arena train`` parser, generated from TrainConfig and RunOptions."""
    p = cli_text.ArgumentParser(
        prog="arena train",
        description="Self-play training (MaskablePPO or AlphaZero-style search self-play for "
        "turn-based games, PPO or SAC for continuous actions). Games: "
        + ", ".join(registry.names())
        + ".",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=epilog,
    )
    add_dataclass_arguments(p, TrainConfig, defaults=False)
    add_dataclass_arguments(p, RunOptions, defaults=True)
    return p


def _spec(game: str) -> registry.GameSpec | None:
    """The registry entry of ``game``; None for a ``module:Class`` facade (tests, plugins)."""
    return None if ":" in game else registry.get(game)


def validate(cfg: TrainConfig) -> None:
    """Raise ValueError naming the first bad setting."""
    spec = _spec(cfg.game)
    if spec is not None:
        try:
            spec.check_players(cfg.players)
        except ValueError as exc:
            raise ValueError(f"--players {cfg.players}: {exc}") from None
    names = ("steps", "n_envs", "n_steps", "batch_size", "n_epochs", "threads")
    for name in (*names, "simulations", "replay_size"):
        if getattr(cfg, name) < 1:
            raise ValueError(f"{flag(name)} must be >= 1, got {getattr(cfg, name)}")
    for name in ("snapshot_every", "checkpoint_every", "max_snapshots"):
        if getattr(cfg, name) < 1:
            raise ValueError(f"{flag(name)} must be >= 1")
    if not 0 < cfg.gamma <= 1:
        raise ValueError(f"--gamma must be in (0, 1], got {cfg.gamma}")
    if cfg.time_limit < 0:
        raise ValueError("--time-limit must be >= 0 minutes")
    if cfg.learning_rate <= 0:
        raise ValueError("--learning-rate must be > 0")
    cfg.net_arch()
    variants = tuple(spec.observations) if spec is not None else ()
    if cfg.obs != PLANES and cfg.obs not in variants:
        owners = [s.name for s in registry.specs() if cfg.obs in s.observations]
        if owners:
            raise ValueError(f"--obs {cfg.obs} exists for {', '.join(owners)} only, not {cfg.game}")
        raise ValueError(f"--obs {cfg.obs!r}: choose one of {', '.join((PLANES, *variants))}")
    algos = spec.algos if spec is not None else ("maskable_ppo",)
    if cfg.algo not in algos:
        raise ValueError(f"--algo {cfg.algo!r}: {cfg.game} trains {' or '.join(algos)}")
    if cfg.algo == "alphazero" and cfg.obs != PLANES:
        from agents.az import flag_facade  # ValueError unless the variant has action_flags

        flag_facade(registry.make_batch(cfg.game, cfg.players), cfg.obs)
    if cfg.train_against:
        if cfg.algo != "alphazero":
            raise ValueError("--train-against is an --algo alphazero option (PPO: --opponents)")
        from training.alphazero.selfplay import parse_against

        parse_against(cfg.train_against, cfg.game)
    if not 0.0 <= cfg.rollout_mix <= 1.0:
        raise ValueError(f"--rollout-mix must be in [0, 1], got {cfg.rollout_mix}")
    if cfg.players > 1:
        from training.opponents import parse_opponents

        parse_opponents(cfg.opponents)


def config_from_args(args: argparse.Namespace) -> tuple[TrainConfig, bool]:
    """(config, resume) from parsed args, merging a resumed run's stored config."""
    out = Path(args.out) if args.out else Path("runs") / args.game.replace(":", "_")
    names = [f.name for f in fields(TrainConfig) if f.name != "game"]
    given = {k: getattr(args, k) for k in names if getattr(args, k, None) is not None}
    given["out"] = str(out)
    spec = _spec(args.game)  # ValueError for an unknown game
    if args.resume:
        state_file = out / "state.json"
        if not state_file.exists():
            raise ValueError(f"--resume: no run to resume in {out} (no state.json); drop --resume")
        stored = json.loads(state_file.read_text())["config"]
        if stored["game"] != args.game:
            raise ValueError(f"--resume: {out} holds a {stored['game']} run, not {args.game}")
        cfg = TrainConfig(**stored)
        for key, value in given.items():
            if key in RESUMABLE:
                setattr(cfg, key, value)
            elif value != getattr(cfg, key):
                raise ValueError(
                    f"--resume: {flag(key)} {value} differs from the run's "
                    f"{getattr(cfg, key)}; only --steps, --time-limit, --opponents and "
                    "--threads may change on resume"
                )
        return cfg, True
    if (out / "state.json").exists() and not getattr(args, "overwrite", False):
        raise ValueError(
            f"{out} already holds a run; pass --resume to continue it, --overwrite to "
            "replace it, or choose another --out"
        )
    if spec is not None:
        for key, value in spec.train.items():
            given.setdefault(key, value)
    return TrainConfig(game=args.game, **given), False
