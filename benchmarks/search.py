"""Tree-search throughput: the array search beside the old Python-tree MCTS and OpenSpiel's.

Simulations per second of ``mcts:N`` decisions (one ``act`` call over B games, N
simulations each, the root safety check on as in the agent) for:

* ``array``: ``MCTSAgent`` on the compiled array trees (``agents/search``);
* ``python-tree``: the previous ``MCTSAgent``, kept as ``agents.mcts_python``;
* ``openspiel``: OpenSpiel's Python ``MCTSBot`` + ``RandomRolloutEvaluator`` on our
  registered pyspiel game (one game at a time, so B = 1 only).

Positions: B running games after 0-11 random moves (seeded), the same for every searcher.
Compile time of the array search is reported apart (``compile s``), never in the rates.

    python -m benchmarks.search                        # every searched game, B = 1 and 256
    python -m benchmarks.search --games GAME --batch 1 --simulations 200 --seconds 2
    arena bench --search                               # these rows after the throughput rows
    python -m benchmarks.search --breakdown            # microseconds per simulation, by part

The games are the registered ones the array search plays (:func:`search_games`: their
entry's ``search`` and an ``envs/<game>/search_api.py``), each at its default seat count;
the OpenSpiel rows only for a game with an OpenSpiel module (its entry's ``openspiel``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import write_report
from envs import registry
from envs.core import cli_text


def search_games() -> tuple[str, ...]:
    """The registered games with a compiled array search, in registration order."""
    from agents.search.driver import has_search_api

    return tuple(s.name for s in registry.specs() if s.search and has_search_api(s.name))


def __getattr__(name: str) -> Any:
    """``GAMES`` of old callers: :func:`search_games` now."""
    if name == "GAMES":
        return search_games()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def positions(game: Any, batch: int, seed: int = 0, max_moves: int = 12) -> Any:
    """``batch`` running games, game i after ``i % max_moves`` random legal moves."""
    st = game.init(batch, seed)
    depth = np.arange(batch) % max_moves
    for k in range(max_moves):
        live = np.flatnonzero(depth > k)
        if len(live) == 0:
            break
        sub = game.take(st, live)
        trial = game.take(sub, np.arange(len(live)))
        _, done = game.step(trial, game.random_actions(sub))
        ok = ~np.asarray(done, bool)  # a move that would end the game is not played
        keep = live[ok]
        moved = game.take(trial, np.flatnonzero(ok))
        for name, arr in zip(list(st.__dataclass_fields__), moved.arrays(), strict=True):
            getattr(st, name)[keep] = arr
    return st


def _rate(agent: Any, game: Any, st: Any, simulations: int, seconds: float) -> tuple[float, int]:
    """(simulations/s, act calls) over repeated ``act`` calls for at least ``seconds``."""
    from agents.base import ActContext

    seats = game.current_player(st)
    obs = game.observe(st, seats)
    mask = np.asarray(game.legal_mask(st), bool)
    searched = int((mask.sum(axis=1) > 1).sum())  # a lone legal move is played unsearched
    calls = 0
    t0 = time.perf_counter()
    while True:
        agent.act(obs, mask, ActContext(game, st, seats))
        calls += 1
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            return calls * searched * simulations / elapsed, calls


def rows(
    games: list[str] | tuple[str, ...] | None = None,
    batches: list[int] | tuple[int, ...] = (1, 256),
    simulations: int = 200,
    seconds: float = 2.0,
    openspiel: bool = True,
    python_tree: bool = True,
) -> list[dict[str, Any]]:
    """One row per (game, searcher, batch): simulations per second of ``mcts:N`` decisions."""
    from agents.mcts import MCTSAgent
    from agents.mcts_python import PythonTreeMCTSAgent

    out: list[dict[str, Any]] = []
    for name in search_games() if games is None else games:
        spec = registry.get(name)
        game = registry.make_batch(name)
        config = spec.peer_config or f"{spec.default_players}p"
        warm = positions(game, 2, seed=99)
        t0 = time.perf_counter()
        _rate(MCTSAgent(simulations=4, seed=0), game, warm, 4, 0.0)  # compile (or load cache)
        compile_s = time.perf_counter() - t0
        searchers: list[tuple[str, Any, list[int]]] = [
            ("array", lambda: MCTSAgent(simulations=simulations, seed=0), list(batches))
        ]
        if python_tree:
            searchers.append(
                (
                    "python-tree",
                    lambda: PythonTreeMCTSAgent(simulations=simulations, seed=0),
                    list(batches),
                )  # fmt: skip
            )
        if openspiel and spec.openspiel is not None:
            from agents.openspiel_mcts import OpenSpielMCTSAgent

            searchers.append(
                ("openspiel", lambda: OpenSpielMCTSAgent(simulations=simulations, seed=0), [1])
            )
        for label, make, bs in searchers:
            _rate(make(), game, warm, simulations, 0.0)  # first call: imports, caches, pools
            for b in bs:
                st = positions(game, b, seed=1)
                rate, calls = _rate(make(), game, st, simulations, seconds)
                out.append(
                    {
                        "game": name,
                        "config": config,
                        "measure": f"search {label} mcts:{simulations}",
                        "batch": b,
                        "threads": 1,
                        "rate": rate,
                        "unit": "simulations/s",
                        "calls": calls,
                        "compile_s": compile_s if label == "array" and b == bs[0] else None,
                    }
                )
    return out


def breakdown(
    games: list[str] | tuple[str, ...] | None = None,
    simulations: int = 200,
    seconds: float = 2.0,
) -> list[dict[str, Any]]:
    """Where an ``mcts:N`` decision's time goes at B = 1, in microseconds per simulation.

    Why: the old agent expands every child of a leaf at once and plays one playout from
    each, so its Python work is shared by a node's ~10-80 playouts, while the kernel
    playout both pay is the same; what bounds the array search's lead over it is this
    split. Parts, over repeated ``act`` calls on ``rows``' B = 1 position:

    * ``act``: the whole call; ``search()``: the time inside ``agents.search.search``
      (the tree loops, the root filter and the arrays' setup), the rest of ``act``
      being the agent's Python (roots, keys, the choice);
    * ``search() without playouts``: the same agent with playouts cut at 0 steps (the
      same number of nodes; a tree of another shape, as the leaves' values are 0);
    * ``playouts``: ``search()`` less that (an estimate);
    * ``python-tree act``: the old agent's whole call, for scale.
    """
    import agents.mcts as mcts_module
    from agents.mcts import MCTSAgent
    from agents.mcts_python import PythonTreeMCTSAgent

    inside = [0.0]  # seconds spent in search() since the last reset
    real_search = mcts_module.search

    def timed(*args: Any, **kw: Any) -> Any:
        t0 = time.perf_counter()
        res = real_search(*args, **kw)
        inside[0] += time.perf_counter() - t0
        return res

    out: list[dict[str, Any]] = []
    for name in search_games() if games is None else games:
        game = registry.make_batch(name)
        spec = registry.get(name)
        st = positions(game, 1, seed=1)
        us: dict[str, float] = {}
        for label, agent in (
            ("full", MCTSAgent(simulations=simulations, seed=0)),
            ("cut", MCTSAgent(simulations=simulations, max_rollout_steps=0, seed=0)),
        ):
            _rate(agent, game, st, simulations, 0.0)  # warm: compile or load the cache
            inside[0] = 0.0
            mcts_module.search = timed  # type: ignore[assignment]
            try:
                t0 = time.perf_counter()
                rate, calls = _rate(agent, game, st, simulations, seconds)
                wall = time.perf_counter() - t0
            finally:
                mcts_module.search = real_search  # type: ignore[assignment]
            sims = rate * wall  # simulations done in the timed calls
            us[f"{label} act"] = 1e6 / rate
            us[f"{label} search"] = 1e6 * inside[0] / sims
        old = PythonTreeMCTSAgent(simulations=simulations, seed=0)
        _rate(old, game, st, simulations, 0.0)
        us["old act"] = 1e6 / _rate(old, game, st, simulations, seconds)[0]
        parts = [
            ("act (whole call)", us["full act"]),
            ("  search()", us["full search"]),
            ("    search() without playouts", us["cut search"]),
            ("    playouts (difference)", us["full search"] - us["cut search"]),
            ("  act outside search()", us["full act"] - us["full search"]),
            ("python-tree act (whole call)", us["old act"]),
        ]
        config = spec.peer_config or f"{spec.default_players}p"
        for part, value in parts:
            out.append(
                {
                    "game": name,
                    "config": config,
                    "measure": f"mcts:{simulations} {part}",
                    "batch": 1,
                    "threads": 1,
                    "rate": value,
                    "unit": "us/simulation",
                }
            )
    return out


def ratios(table: list[dict[str, Any]]) -> list[str]:
    """Lines 'game B: array / python-tree = x, array / openspiel = y'."""
    lines = []
    by = {(r["game"], r["measure"].split()[1], r["batch"]): r["rate"] for r in table}
    for game, label, b in sorted(k for k in by if k[1] == "array"):
        parts = [
            f"array / {other} = {by[(game, label, b)] / by[(game, other, b)]:.1f}x"
            for other in ("python-tree", "openspiel")
            if (game, other, b) in by
        ]
        if parts:
            lines.append(f"{game} B={b}: " + ", ".join(parts))
    return lines


def _args(args: Any) -> dict[str, Any]:
    return {k: v for k, v in vars(args).items() if k not in ("json", "breakdown")}


def main(argv: list[str] | None = None) -> int:
    """Print the table and the speed-ups, write the JSON report."""
    parser = cli_text.ArgumentParser(prog="python -m benchmarks.search", description=__doc__)
    games = list(search_games())
    parser.add_argument("--games", nargs="+", choices=games, default=games)
    parser.add_argument("--batch", nargs="+", type=int, default=[1, 256])
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--no-openspiel", action="store_true", help="skip OpenSpiel's MCTSBot")
    parser.add_argument("--no-python-tree", action="store_true", help="skip the old MCTSAgent")
    parser.add_argument(
        "--breakdown", action="store_true", help="where a B = 1 decision's time goes instead"
    )
    parser.add_argument("--json", type=Path, default=Path("results/search.json"))
    args = parser.parse_args(argv)
    if any(b < 1 for b in args.batch) or args.simulations < 1:
        parser.error("--batch sizes and --simulations must be positive")
    from benchmarks import print_table

    started = time.time()
    if args.breakdown:
        parts = breakdown(args.games, args.simulations, args.seconds)
        print_table(parts)
        write_report(args.json, parts, started, {"args": {"breakdown": True, **_args(args)}})
        return 0
    table = rows(
        args.games,
        args.batch,
        args.simulations,
        args.seconds,
        not args.no_openspiel,
        not args.no_python_tree,
    )
    print_table(table)
    for line in ratios(table):
        print(line)
    extra = {"args": _args(args), "ratios": ratios(table)}
    write_report(args.json, table, started, extra)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
