"""The ``arena`` command: play, bench, train, ladder, demo.

Each sub-command imports its heavy dependencies lazily, so ``arena play`` and
``arena bench`` work with only the core install (no torch, no pygame).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any

from envs import registry
from envs.core import cli_text


def __getattr__(name: str) -> Any:
    """``GAMES`` of old callers: the registered games (``envs/registry.py``)."""
    if name == "GAMES":
        return registry.names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _play(argv: list[str]) -> int:
    """``arena play GAME [game options]``: a person against random movers in the terminal."""
    games = registry.names()
    if not argv or argv[0] in ("-h", "--help"):
        print(f"usage: arena play {{{','.join(games)}}} [options]  (arena play GAME --help)")
        return 0 if argv else 2
    game, rest = argv[0], argv[1:]
    if game not in games:
        print(
            f"arena play: unknown game {game!r}; choose one of {', '.join(games)}", file=sys.stderr
        )
        return 2
    ref = registry.get(game).play
    if ref is None:
        print(f"arena play: {game} has no terminal play mode", file=sys.stderr)
        return 2
    from agents.registry import make_agent
    from envs.core.play_help import set_agent_factory

    set_agent_factory(make_agent)  # --opponent AGENT: any registry agent
    return int(registry.load(ref)(rest))


def _bench(argv: list[str]) -> int:
    return int(importlib.import_module("benchmarks.throughput").main(argv))


# Sub-commands that take over their own argument parsing: name -> (module, help).
_DELEGATED = {
    "play": (_play, "play a game in the terminal against random movers"),
    "bench": (_bench, "measure self-play throughput (prints a table, writes JSON)"),
}


def _delegated(module: str, attr: str = "main"):  # type: ignore[no-untyped-def]
    def run(argv: list[str]) -> int:
        return int(getattr(importlib.import_module(module), attr)(argv))

    return run


# Filled by the training layer (train, ladder, demo) without touching the dispatcher.
for _name, _module, _help in (
    ("train", "training.train", "self-play training: arena train GAME [--steps N] [--resume]"),
    ("ladder", "training.ladder", "round-robin ladder with openskill ratings"),
    ("demo", "training.demo", "the main job: train briefly, run a ladder, print the table"),
    ("replay", "training.replay", "watch a recorded game: arena replay SOURCE [ID] [--gif F]"),
):
    _DELEGATED[_name] = (_delegated(_module), _help)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``arena`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = cli_text.ArgumentParser(
        prog="arena",
        description="Tabletop Arena: environments, training, ladders and benchmarks.",
    )
    parser.add_argument("command", choices=sorted(_DELEGATED), help="sub-command")
    for name, (_, text) in sorted(_DELEGATED.items()):
        parser.epilog = (parser.epilog or "") + f"\n  {name:8s} {text}"
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    if not argv or argv[0] in ("-h", "--help"):
        parser.print_help()
        return 0 if argv else 2
    args, rest = parser.parse_known_args(argv[:1])
    handler, _ = _DELEGATED[args.command]
    try:
        return handler(argv[1:])
    except OSError as exc:  # a bad path the sub-command did not check: one line, no traceback
        print(f"arena {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"arena {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
