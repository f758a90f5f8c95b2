"""Self-play throughput of every game, side by side with peers, in one run.

Every registered game (``envs/registry.py``) gives its rows: its entry's ``bench``
function when it has one (random self-play steps through the batched kernel, auto-reset
on; mask + observation encoding separately; the AEC ``env()`` playing random legal
moves; plus the peers it is compared with, e.g. PettingZoo's ``tictactoe_v3`` ``env()``
or a physics engine), else the generic rows of ``benchmarks.peers`` (kernel self-play
through its batch facade and the AEC loop). Numba compile time is reported, never hidden
in the rates.

    arena bench                                  # all games, default batches, table + JSON
    arena bench --games GAME --batch 1 1024 16384 --threads 2 --seconds 1.0
    python -m benchmarks.throughput --quick      # a few seconds per game
    arena bench --search                         # plus tree-search simulations/s (benchmarks/search.py)
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks import print_table, write_report
from envs import registry
from envs.core import cli_text

__all__ = ["main", "print_table", "run", "write_report"]


def __getattr__(name: str) -> Any:
    """``GAMES`` of old callers: the registered games."""
    if name == "GAMES":
        return registry.names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run(
    games: list[str], batch_sizes: list[int], seconds: float, threads: int
) -> list[dict[str, Any]]:
    """Run each game's benchmark (its entry's ``bench``, else the generic rows)."""
    rows: list[dict[str, Any]] = []
    for game in games:
        spec = registry.get(game)
        if spec.bench is not None:
            bench = registry.load(spec.bench)
            rows.extend(bench(batch_sizes=batch_sizes, seconds=seconds, threads=threads))
            continue
        from benchmarks import peers

        loops = sorted({min(b, 64) for b in batch_sizes})
        rows.extend(peers.our_rows(peers.our_game(game), batch_sizes, seconds, threads, loops))
    return rows


def main(argv: list[str] | None = None) -> int:
    """``arena bench``: print the table and write the JSON report."""
    parser = cli_text.ArgumentParser(prog="arena bench", description=__doc__.split("\n\n")[0])
    games = list(registry.names())
    parser.add_argument("--games", nargs="+", choices=games, default=games)
    parser.add_argument("--batch", nargs="+", type=int, default=[1, 1024, 16384])
    parser.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    parser.add_argument("--quick", action="store_true", help="batch 1 and 1024, 0.3 s each")
    parser.add_argument(
        "--search",
        action="store_true",
        help="also the tree-search rows (benchmarks/search.py: mcts:200 simulations/s at"
        " batch 1 and 256, array search beside the old Python-tree MCTS and OpenSpiel's)",
    )
    parser.add_argument("--json", type=Path, default=Path("results/throughput.json"))
    args = parser.parse_args(argv)
    if any(b < 1 for b in args.batch):
        parser.error("--batch sizes must be positive")
    if args.threads < 1:
        parser.error("--threads must be positive")
    from envs.core.cli_text import check_finite, check_output_dir

    try:  # one line before any measurement: nan seconds never finished, a bad --json
        check_finite(args.seconds, "--seconds", 0.0, 3600.0)  # path failed after the run
        check_output_dir(args.json.parent, "--json", shown=args.json)
    except ValueError as exc:
        print(f"arena bench: error: {exc}", file=sys.stderr)
        return 2
    if args.quick:
        args.batch, args.seconds = [1, 1024], 0.3
    started = time.time()
    rows = run(args.games, args.batch, args.seconds, args.threads)
    if args.search:
        from benchmarks import search

        names = [g for g in args.games if g in search.search_games()]
        rows.extend(search.rows(names, seconds=max(args.seconds, 1.0)))
    print_table(rows)
    extra = {"args": {k: v for k, v in vars(args).items() if k != "json"}}
    write_report(args.json, rows, started, extra)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
