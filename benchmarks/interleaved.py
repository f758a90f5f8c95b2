"""Two source trees timed turn about, in two warm processes: a fine A/B of a few calls.

Why: ``arena bench`` run once per tree and round measures each row in a different minute,
and on a shared 2-core machine a row's rate moves by a quarter between minutes (the same
pure-Python peer row read 0.72x "against itself"). Here one worker process per tree
imports its own ``envs`` (``PYTHONPATH`` = the tree), sets up the cases once, compiles
them, and then the two workers take turns: each case is timed in one tree, then at once
in the other, alternating which goes first, for ``--rounds`` rounds. Rates are per
CPU-second of the worker; the table gives both medians and the median of the per-round
ratios.

    python -m benchmarks.interleaved --base /tmp/base --head . --rounds 12 \\
        --setup "from envs.GAME import kernel as K; st = K.new_state(1024, seed=0)" \\
        --case "fused16=K.random_step(st, 16)@16*1024" --json ab.json

(``docs/benchmarks.md`` gives the command of the recorded run.)

``--setup`` runs once per worker; each ``--case NAME=EXPR@UNITS`` (NAME without "=") is timed
in bursts of ``--seconds`` and the number of units one evaluation does.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

_WORKER = r"""
import json, resource, sys, time
import numba
def _cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
spec = json.loads(sys.argv[1])
numba.set_num_threads(spec["threads"])
env = {}
exec(spec["setup"], env)
cases = {}
for name, (expr, units) in spec["cases"].items():
    fn = eval("lambda: " + expr, env)
    fn()  # compile or load the cache before any timing
    cases[name] = (fn, eval(units, env))
print("ready", flush=True)
for line in sys.stdin:
    fn, units = cases[line.strip()]
    n, c0, t0 = 0, _cpu(), time.perf_counter()
    while time.perf_counter() - t0 < spec["seconds"]:
        fn()
        n += units
    print(n / max(_cpu() - c0, 1e-9), flush=True)
"""


def _parse_case(text: str) -> tuple[str, tuple[str, str]]:
    name, sep, rest = text.partition("=")
    expr, at, units = rest.rpartition("@")
    if not sep or not at or not name.strip() or not expr.strip():
        raise SystemExit(f"--case {text!r}: expected NAME=EXPR@UNITS")
    return name.strip(), (expr.strip(), units.strip())


def main(argv: list[str] | None = None) -> int:
    """Run the A/B and print the table (and write ``--json``)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="source tree A")
    ap.add_argument("--head", default=".", help="source tree B (default: here)")
    ap.add_argument("--setup", required=True, help="statements run once per worker")
    ap.add_argument("--case", action="append", required=True, help="NAME=EXPR@UNITS")
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--seconds", type=float, default=0.3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    cases = dict(_parse_case(c) for c in args.case)
    spec = json.dumps({"setup": args.setup, "cases": cases, "seconds": args.seconds,
                       "threads": args.threads})  # fmt: skip
    workers = {}
    for side, tree in (("base", args.base), ("head", args.head)):
        root = str(Path(tree).resolve())
        env = {**os.environ, "PYTHONPATH": root}
        workers[side] = subprocess.Popen(
            [sys.executable, "-c", _WORKER, spec], cwd=root, env=env, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        )  # fmt: skip
    for side, proc in workers.items():
        assert proc.stdout is not None
        if proc.stdout.readline().strip() != "ready":
            raise SystemExit(f"the {side} worker failed during its setup")
    rates: dict[str, dict[str, list[float]]] = {s: {c: [] for c in cases} for s in workers}
    for r in range(args.rounds):
        for case in cases:
            for side in ("base", "head") if r % 2 == 0 else ("head", "base"):
                proc = workers[side]
                assert proc.stdin is not None and proc.stdout is not None
                proc.stdin.write(case + "\n")
                proc.stdin.flush()
                rates[side][case].append(float(proc.stdout.readline()))
    for proc in workers.values():
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait()
    print("| case | base median | head median | head/base | median of round ratios |")
    print("|---|---:|---:|---:|---:|")
    summary = {}
    for case in cases:
        b, h = rates["base"][case], rates["head"][case]
        paired = statistics.median(y / x for x, y in zip(b, h, strict=True))
        ratio = statistics.median(h) / statistics.median(b)
        summary[case] = {"base_median": statistics.median(b), "head_median": statistics.median(h),
                         "ratio": ratio, "paired_ratio": paired}  # fmt: skip
        print(f"| {case} | {statistics.median(b):,.0f} | {statistics.median(h):,.0f} | "
              f"{ratio:.3f} | {paired:.3f} |")  # fmt: skip
    if args.json:
        record = {"args": vars(args), "rates_per_cpu_s": rates, "summary": summary}
        Path(args.json).write_text(json.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
