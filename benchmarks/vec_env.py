"""SB3 self-play VecEnv throughput, one tree beside another in the same run.

What a learner's environment costs per step with no learning at all: a
``training.vec_env.SelfPlayVecEnv`` of ``--n-envs`` games (the training default) against
a random opponent pool; the loop asks ``action_masks()``, draws a uniformly random legal
action per game and calls ``step``. The rate is learner steps per second of the time
inside ``action_masks`` + ``step`` (the action draw is not timed; opponents' moves happen
inside ``step`` and are included), by wall clock and by the process's CPU time (steadier
when other work loads the machine; at these batch sizes the kernels run single-threaded).
Each tree runs in its own process (its own Numba cache), the trees alternate for
``--rounds`` rounds so that a load change slows both, and the best round of each (by CPU
rate) is reported.

    python -m benchmarks.vec_env                       # this tree, every turn-based game
    python -m benchmarks.vec_env --base /path/to/other/checkout --seconds 3 --rounds 3
    python -m benchmarks.vec_env --players 2 3 4 --json results/vec_env.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent  # this tree's root


def measure(game_name: str, players: int, n_envs: int, seconds: float, seed: int) -> dict:
    """Learner steps/s of one VecEnv in the tree on ``sys.path`` (the worker's side).

    Only names both this tree and older checkouts have are used: ``make_batch_game``,
    ``OpponentPool``, ``RandomAgent``, ``SelfPlayVecEnv``.
    """
    import numpy as np

    from agents.random_agent import RandomAgent
    from training.games import make_batch_game
    from training.opponents import OpponentPool
    from training.vec_env import SelfPlayVecEnv

    pool = OpponentPool()
    pool.add_baseline("random", RandomAgent(seed=seed), 1.0)
    env = SelfPlayVecEnv(make_batch_game(game_name, players), n_envs, pool, seed=seed)
    rng = np.random.default_rng(seed)
    env.reset()

    def draw(mask: np.ndarray) -> np.ndarray:
        scores = rng.random(mask.shape)
        scores[~mask] = -1.0
        return scores.argmax(axis=1)

    t_compile = time.perf_counter()
    for _ in range(20):  # warm-up: compiles or loads every kernel the loop calls
        env.step(draw(env.action_masks()))
    compile_s = time.perf_counter() - t_compile
    steps = 0
    timed = cpu = 0.0
    t_end = time.perf_counter() + seconds
    while time.perf_counter() < t_end:
        t0, c0 = time.perf_counter(), time.process_time()
        mask = env.action_masks()
        t1, c1 = time.perf_counter(), time.process_time()
        actions = draw(mask)
        t2, c2 = time.perf_counter(), time.process_time()
        env.step(actions)
        timed += (t1 - t0) + (time.perf_counter() - t2)
        cpu += (c1 - c0) + (time.process_time() - c2)
        steps += n_envs
    return {
        "learner_steps_per_s": steps / timed,
        "learner_steps_per_cpu_s": steps / cpu,
        "opponent_decisions": int(env.opponent_decisions),
        "learner_steps": steps,
        "warmup_s": round(compile_s, 2),
    }


def _games(players: list[int] | None) -> list[tuple[str, int]]:
    """(name, players) of every turn-based game with a batch facade: its default seat
    count, or each of ``players`` that the game supports."""
    from envs import registry

    out = []
    for s in registry.specs():
        if s.continuous or s.batch is None:
            continue
        counts = [int(s.default_players)] if not players else players
        for n in counts:
            try:
                s.check_players(n)
            except ValueError:
                continue
            out.append((s.name, n))
    return out


def _run_worker(tree: Path, args: list[str], timeout: float) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_NUM_THREADS=os.environ.get(
        "NUMBA_NUM_THREADS", "2"))  # fmt: skip
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", *args]
    done = subprocess.run(
        cmd, cwd=tree, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1]}
    result: dict = json.loads(done.stdout.strip().splitlines()[-1])
    return result


#: the rate rounds are ranked by: CPU time of the process, steadier than wall time on a
#: machine others load (the env is single-threaded at these batch sizes)
KEY = "learner_steps_per_cpu_s"


def _table(rows: list[dict[str, Any]], n_envs: int) -> str:
    lines = [
        "| game | players | n_envs | tree | learner steps/s (wall) | per CPU s | vs base (CPU) |",
        "|---|---:|---:|---|---:|---:|---:|",
    ]
    for r in rows:
        base = next(
            (
                b
                for b in rows
                if (b["game"], b["players"], b["tree"]) == (r["game"], r["players"], "base")
            ),
            {},
        ).get(KEY)
        cpu = r.get(KEY)
        ratio = f"{cpu / base:.2f}x" if cpu and base else ""
        shown = f"{r['learner_steps_per_s']:,.0f} | {cpu:,.0f}" if cpu else f"{r.get('error')} |"
        lines.append(
            f"| {r['game']} | {r['players']} | {n_envs} | {r['tree']} | {shown} | {ratio} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print a markdown table (and write JSON) of learner steps/s per tree and game."""
    p = argparse.ArgumentParser(prog="python -m benchmarks.vec_env", description=__doc__)
    p.add_argument("--base", type=Path, help="another checkout to measure beside this one")
    p.add_argument("--n-envs", type=int, default=64, help="games per VecEnv (training default)")
    p.add_argument("--seconds", type=float, default=2.0, help="timed window per measurement")
    p.add_argument("--rounds", type=int, default=3, help="alternations of the trees")
    p.add_argument("--players", type=int, nargs="+", help="seat counts (default: each game's own)")
    p.add_argument("--json", type=Path, default=None)
    p.add_argument("--worker", nargs=4, metavar=("GAME", "PLAYERS", "N_ENVS", "SECONDS"))
    a = p.parse_args(argv)
    if a.worker:
        game, players, n_envs, seconds = a.worker
        out = measure(game, int(players), int(n_envs), float(seconds), seed=0)
        print(json.dumps(out))
        return 0
    if a.n_envs < 1 or a.seconds <= 0 or a.rounds < 1:
        p.error("--n-envs, --seconds and --rounds must be positive")
    trees = [("now", HERE)] + ([("base", a.base.resolve())] if a.base else [])
    rows: list[dict[str, Any]] = []
    for game, players in _games(a.players):
        best: dict[str, dict] = {}
        for _ in range(a.rounds):  # the trees alternate: a load change slows both
            for label, tree in trees:
                r = _run_worker(tree, [game, str(players), str(a.n_envs), str(a.seconds)], 600.0)
                if r.get(KEY, 0) > best.get(label, {}).get(KEY, -1):
                    best[label] = r
        for label, _tree in trees:
            rows.append({"game": game, "players": players, "tree": label, **best[label]})
    print(_table(rows, a.n_envs))
    if a.json:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps({"n_envs": a.n_envs, "seconds": a.seconds, "rows": rows}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
