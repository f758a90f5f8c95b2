"""Reproducible fuzzing of the batch facades' actions: a bad action is refused, cleanly.

Every registered batch facade (each player count of a game with several, and the default
count of a continuous game) gets seeded *cases*: a batch of games taken from a pool of
positions (fresh, mid-game, some games finished), a legal action per game, then one
corruption of a kind below, sent through ``step`` and ``learner_step`` (a continuous
game: ``shoot``, ``step`` and ``learner_step`` where it has one).

=================  ====================================================================
kind               what the actions hold
=================  ====================================================================
``nan``            NaN at 1..B games (float array)
``inf``            +inf or -inf at 1..B games
``fraction``       a legal id plus 0.5, 1e-6, 0.999 or -0.25 (discrete games)
``out-of-range``   ids >= num_actions up to 2**63 (int, uint64, float); |x| > 1 (continuous)
``negative``       ids below -1 down to -2**63; x < -1 (continuous)
``masked-out``     an id in range that the mask forbids in a running game (discrete games)
``wrong-length``   0, 1, B - 1, B + 1 or 2B actions (rows) for B games
``wrong-shape``    (B, 1), (1, B), a scalar, (B, 2); (B, 3), (B, 5), (4, B) (continuous)
``wrong-dtype``    bool, str, bytes, object (ints or None), datetime64, a list with None
``complex``        legal values + 0j, + 1j, or NaN + 0j
``control``        legal actions as int64 / int32 / whole floats / a list (one case in 25
                   gets one, after its bad case): these must be accepted
=================  ====================================================================

Outcomes: ``rejected-clean`` (ValueError or TypeError whose message names the game, and
for a per-game kind one of the games at fault as ``game i``; every state array equal to
before, a history that only grew by zero rows included), ``rejected-unclear`` (refused,
batch unchanged, but another exception type or a message that does not name the game and
games), ``accepted-legal`` (a control accepted, and the batch equals the same call with
``validate=False`` on a copy), ``accepted-bad`` (a bad case accepted), ``corrupted`` (a
refused call changed the batch, or an accepted control differs from that reference),
``crash`` (the worker process died: segfault, abort) and ``hang`` (no case finished for
``--hang-seconds``). Cases run in worker subprocesses that report each case as it starts
and ends, so a crash or a hang is counted at its case and the next worker goes on after it.

Run: ``python -m tests.fuzz_actions --n 100000 --seed 0`` (counts per facade and outcome;
``--by-kind`` adds the counts per kind). ``tests/contract/test_fuzz_actions.py`` runs a
small version in the suite.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

KINDS = (
    "nan",
    "inf",
    "fraction",
    "out-of-range",
    "negative",
    "masked-out",
    "wrong-length",
    "wrong-shape",
    "wrong-dtype",
    "complex",
    "control",
)
PER_GAME = {"nan", "inf", "fraction", "out-of-range", "negative", "masked-out"}
OUTCOMES = (
    "rejected-clean",
    "rejected-unclear",
    "accepted-legal",
    "accepted-bad",
    "corrupted",
    "crash",
    "hang",
)
FAILURES = ("rejected-unclear", "accepted-bad", "corrupted", "crash", "hang")
_KIND_CODE = {k: chr(ord("a") + i) for i, k in enumerate(KINDS)}
_CODE_KIND = {v: k for k, v in _KIND_CODE.items()}
_OUT_CODE = dict(zip(OUTCOMES[:5], "RUABC", strict=True))
_CODE_OUT = {v: k for k, v in _OUT_CODE.items()}
CONTROL_EVERY = 25
BATCH_SIZES = (1, 2, 5, 16)
#: for tests: the worker kills itself with SIGSEGV (hangs) at this case: the accounting
CRASH_AT_ENV = "FUZZ_ACTIONS_CRASH_AT"
HANG_AT_ENV = "FUZZ_ACTIONS_HANG_AT"


def facades() -> list[str]:
    """``game:players`` of every registered batch facade under fuzz."""
    from envs import registry

    out = []
    for spec in registry.specs():
        if spec.batch is None:
            continue
        counts = (spec.default_players,) if spec.continuous else spec.players
        out += [f"{spec.name}:{p}" for p in counts]
    return out


# ----------------------------------------------------------------------------- one case
@dataclass
class Case:
    """A batch of games, the call to make, the actions, and what the actions are."""

    kind: str
    method: str
    state: Any
    actions: Any
    legal: np.ndarray | None  # the actions a control stands for (None: a bad case)
    culprits: tuple[int, ...]  # games at fault for a per-game kind
    auto_reset: bool


class Target:
    """One facade under fuzz: its pool of positions and its calls."""

    def __init__(self, key: str, seed: int) -> None:
        from envs import registry

        game, _, players = key.partition(":")
        self.key = key
        self.game = game
        self.facade = registry.make_batch(game, int(players))
        self.continuous = bool(getattr(self.facade, "continuous", False))
        self.words = (game.lower(), game.replace("_", " ").lower())
        methods = ["step"]
        if self.continuous:
            methods.insert(0, "shoot")
        if hasattr(self.facade, "learner_step"):
            methods.append("learner_step")
        self.methods = tuple(methods)
        self.pool = self._pool(seed)
        self._buffers: dict[int, Any] = {}

    def _pool(self, seed: int) -> list[tuple[Any, np.ndarray | None, np.ndarray]]:
        """(state, mask, running) of batches at several depths; some games finished."""
        f = self.facade
        rng = np.random.default_rng([seed, 7])
        pool = []
        depths = (0, 1, 3, 8) if self.continuous else (0, 1, 4, 12, 40, 120)
        for i, batch in enumerate(BATCH_SIZES):
            for depth in depths:
                st = f.init(batch, seed * 1000 + i * 17 + depth)
                for _ in range(depth):
                    if f.terminated(st).all():
                        break
                    f.step(st, self._random_legal(st, rng)[0])
                mask = None if self.continuous else np.asarray(f.legal_mask(st))
                pool.append((st, mask, ~np.asarray(f.terminated(st))))
        return pool

    def _random_legal(
        self, st: Any, rng: np.random.Generator, mask: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Legal actions (-1 in finished games) drawn from ``rng``, and the running games."""
        running = ~np.asarray(self.facade.terminated(st))
        batch = len(running)
        if self.continuous:
            return rng.uniform(-1.0, 1.0, (batch, 4)), running
        mask = np.asarray(self.facade.legal_mask(st)) if mask is None else mask
        acts = np.full(batch, -1, np.int64)
        for g in np.flatnonzero(running):
            acts[g] = rng.choice(np.flatnonzero(mask[g]))
        return acts, running

    def buffers(self, batch: int) -> Any:
        if batch not in self._buffers:
            self._buffers[batch] = self.facade.learner_buffers(batch)
        return self._buffers[batch]

    # -- making cases ------------------------------------------------------------------
    def case(self, rng: np.random.Generator, kind: str) -> Case:
        """A case of ``kind`` on a copy of a pool position."""
        st, mask, running = self.pool[int(rng.integers(len(self.pool)))]
        legal, _ = self._random_legal(st, rng, mask)
        if self.continuous:  # kind may fall back (see the kinds table)
            actions, culprits, kind = self._continuous(rng, kind, legal)
        else:
            actions, culprits, kind = self._discrete(rng, kind, legal, mask, running)
        is_control = kind == "control"
        return Case(
            kind=kind,
            method=self.methods[int(rng.integers(len(self.methods)))],
            state=self.facade.copy(st),
            actions=actions,
            # a control stands for its own values (a float32 copy rounds them)
            legal=np.asarray(actions, dtype=legal.dtype) if is_control else None,
            culprits=culprits,
            auto_reset=bool(rng.integers(2)),
        )

    def _discrete(
        self,
        rng: np.random.Generator,
        kind: str,
        legal: np.ndarray,
        mask: np.ndarray | None,
        running: np.ndarray,
    ) -> tuple[Any, tuple[int, ...], str]:
        batch, n_act = len(legal), int(self.facade.num_actions)
        where = _culprits(rng, batch)
        a: Any
        if kind == "masked-out":
            assert mask is not None
            games = [g for g in np.flatnonzero(running) if not mask[g].all()]
            if not games:  # every game over (or all legal): out of range instead
                kind = "out-of-range"
            else:
                where = tuple(sorted(set(rng.choice(games, size=1 + len(games) // 3))))
                a = legal.copy()
                for g in where:
                    a[g] = rng.choice(np.flatnonzero(~mask[g]))
                return a, where, kind
        if kind in ("nan", "inf", "fraction"):
            a = legal.astype(np.float64)
            if kind == "nan":
                a[list(where)] = np.nan
            elif kind == "inf":
                a[list(where)] = rng.choice([np.inf, -np.inf], size=len(where))
            else:
                a[list(where)] += rng.choice([0.5, 1e-6, 0.999, -0.25], size=len(where))
            return a, where, kind
        if kind == "out-of-range":
            choice = int(rng.integers(4))
            if choice == 0:
                a = legal.copy()
                a[list(where)] = n_act + rng.integers(0, 3 * n_act, size=len(where))
            elif choice == 1:
                a = legal.copy()
                big = np.array([2**31 - 1, 2**31, 2**62, 2**63 - 1], np.int64)
                a[list(where)] = rng.choice(big, len(where))
            elif choice == 2:
                a = np.where(legal < 0, 0, legal).astype(np.uint64)
                huge = np.array([n_act, 2**32, 2**63, 2**64 - 1], np.uint64)
                a[list(where)] = rng.choice(huge, len(where))
            else:
                a = legal.astype(np.float64)
                a[list(where)] = rng.choice([float(n_act), 1e10, 1e30, 1e300], len(where))
            return a, where, kind
        if kind == "negative":
            if rng.integers(2):
                a = legal.copy()
                low = np.array([-2, -3, -n_act, -(2**31), -(2**63)], np.int64)
                a[list(where)] = rng.choice(low, len(where))
            else:
                a = legal.astype(np.float64)
                a[list(where)] = rng.choice([-2.0, -1e10, -1e300], len(where))
            return a, where, kind
        if kind == "control":
            return _as_control(rng, legal), (), kind
        return _whole_array(rng, kind, legal, continuous=False), (), kind

    def _continuous(
        self, rng: np.random.Generator, kind: str, legal: np.ndarray
    ) -> tuple[Any, tuple[int, ...], str]:
        batch = len(legal)
        where = _culprits(rng, batch)
        a = legal.copy()
        col = rng.integers(0, 4, size=len(where))
        rows = list(where)
        if kind in ("fraction", "masked-out"):  # every fraction in [-1, 1] is legal
            kind = "out-of-range"
        if kind == "nan":
            a[rows, col] = np.nan
        elif kind == "inf":
            a[rows, col] = rng.choice([np.inf, -np.inf], size=len(where))
        elif kind == "out-of-range":
            a[rows, col] = rng.choice([1.0001, 1.5, 2.0, 1e30, 1e300], size=len(where))
        elif kind == "negative":
            a[rows, col] = rng.choice([-1.0001, -1.5, -2.0, -1e30], size=len(where))
        elif kind == "control":
            return _as_control(rng, legal), (), kind
        else:
            return _whole_array(rng, kind, legal, continuous=True), (), kind
        return a, where, kind

    # -- running a case ----------------------------------------------------------------
    def call(self, method: str, st: Any, actions: Any, auto_reset: bool, **kw: Any) -> Any:
        """The facade call; returns the outputs to compare (copies)."""
        f = self.facade
        if method == "learner_step":
            out = self.buffers(len(np.asarray(f.terminated(st))))
            f.learner_step(st, actions, out, **kw)
            return (out.rewards.copy(), out.done.copy(), out.obs.copy(), out.seat.copy())
        if method == "shoot":
            shots = f.shoot(st, actions)
            return (np.asarray(shots.poses).copy(), np.asarray(shots.score.points).copy())
        rewards, done = f.step(st, actions, auto_reset=auto_reset, **kw)
        return (np.asarray(rewards).copy(), np.asarray(done).copy())

    def run(self, case: Case) -> str:
        """The outcome of one case (one of ``OUTCOMES[:5]``)."""
        before = self.facade.copy(case.state)
        try:
            got = self.call(case.method, case.state, case.actions, case.auto_reset)
        except Exception as exc:  # noqa: BLE001 - every exception is classified
            if not same_state(before, case.state):
                return "corrupted"
            return "rejected-clean" if self.clear(exc, case) else "rejected-unclear"
        if case.legal is None:
            return "accepted-bad"
        ref = self.facade.copy(before)
        kw = {} if self.continuous else {"validate": False}
        want = self.call(case.method, ref, case.legal, case.auto_reset, **kw)
        same_out = all(np.array_equal(x, y, equal_nan=True) for x, y in zip(got, want, strict=True))
        return "accepted-legal" if same_out and same_state(ref, case.state) else "corrupted"

    def clear(self, exc: BaseException, case: Case) -> bool:
        """ValueError/TypeError naming the game (and, per game, a game at fault)."""
        if not isinstance(exc, (ValueError, TypeError)):
            return False
        text = str(exc).lower()
        if not any(w in text for w in self.words):
            return False
        return not case.culprits or any(f"game {g}" in text for g in case.culprits)


def _culprits(rng: np.random.Generator, batch: int) -> tuple[int, ...]:
    """1 game, several, or all of them."""
    n = int(rng.choice([1, 1, 1, 2, batch])) if batch > 1 else 1
    return tuple(sorted(int(g) for g in rng.choice(batch, size=min(n, batch), replace=False)))


def _as_control(rng: np.random.Generator, legal: np.ndarray) -> Any:
    """Legal actions in a form the facade must accept."""
    choice = int(rng.integers(4))
    if choice == 0:
        return legal.copy()
    if choice == 1:
        return legal.astype(np.float32 if legal.dtype.kind == "f" else np.int32)
    if choice == 2:
        return legal.astype(np.float64)
    return legal.tolist()


def _whole_array(rng: np.random.Generator, kind: str, legal: np.ndarray, continuous: bool) -> Any:
    """A kind that spoils the whole array: its length, shape, dtype or number field."""
    batch = len(legal)
    if kind == "wrong-length":
        n = int(rng.choice([0, 1, batch - 1, batch + 1, 2 * batch]))
        n = batch + 1 if n == batch else n
        return np.resize(legal, (n, *legal.shape[1:]))
    if kind == "wrong-shape":
        if continuous:
            shapes = [(batch, 3), (batch, 5), (batch, 4, 2)] + ([(4, batch)] if batch > 1 else [])
            shape = shapes[int(rng.integers(len(shapes)))]
            if shape == (4, batch):
                return np.ascontiguousarray(legal.T)
            return np.resize(legal, shape)
        forms = [legal[:, None], legal[None, :], np.stack([legal, legal], 1), legal[0]]
        if batch == 1:  # (1, 1) and a scalar hold one action: still not shape (1,)
            forms = [legal[:, None], np.stack([legal, legal], 1), np.int64(legal[0])]
        return forms[int(rng.integers(len(forms)))]
    if kind == "wrong-dtype":
        forms = [
            lambda: legal.astype(str),
            lambda: legal.astype(bytes),
            lambda: legal.astype(object),
            lambda: np.array([None] * batch if legal.ndim == 1 else [[None] * 4] * batch),
            lambda: legal.astype(np.int64).astype("datetime64[s]"),
            lambda: [None] + legal.tolist()[1:],
            lambda: (legal != 0) if legal.ndim == 1 else (legal > 0),
        ]
        return forms[int(rng.integers(len(forms)))]()
    assert kind == "complex", kind
    shift = [0j, 1j, complex(np.nan, 0)][int(rng.integers(3))]
    return legal.astype(np.complex128) + shift


def state_arrays(state: Any) -> dict[str, Any]:
    """Every field of a facade state (arrays and scalars)."""
    return dict(vars(state))


def same_state(a: Any, b: Any) -> bool:
    """Equal states; a history that only grew by zero rows (reserved room) counts as equal."""
    x, y = state_arrays(a), state_arrays(b)
    if x.keys() != y.keys():
        return False
    for name, u in x.items():
        v = y[name]
        if not isinstance(u, np.ndarray):
            if u != v:
                return False
            continue
        if u.shape != v.shape:
            grown = (
                u.ndim == v.ndim >= 2 and u.shape[0] == v.shape[0] and u.shape[2:] == v.shape[2:]
            )
            if not grown or u.shape[1] > v.shape[1] or v[:, u.shape[1] :].any():
                return False
            v = v[:, : u.shape[1]]
        if u.dtype != v.dtype or not np.array_equal(u, v, equal_nan=u.dtype.kind in "fc"):
            return False
    return True


def case_rng(seed: int, key: str, index: int) -> np.random.Generator:
    """The RNG of one case: depends on (seed, facade, index) only."""
    return np.random.default_rng([seed, sum(map(ord, key)), len(key), index])


def bad_kind(rng: np.random.Generator) -> str:
    """One of the bad kinds (every kind but ``control``), uniformly."""
    return KINDS[int(rng.integers(len(KINDS) - 1))]


# ----------------------------------------------------------------------------- worker
def worker(key: str, seed: int, start: int, stop: int, write: Callable[[bytes], Any]) -> None:
    """Cases ``start..stop-1`` of ``key``: writes kind code, then outcome code, per case."""
    import warnings

    warnings.simplefilter("ignore")  # ComplexWarning and the like: the outcome is what counts
    target = Target(key, seed)
    crash_at = int(os.environ.get(CRASH_AT_ENV, "-1"))
    hang_at = int(os.environ.get(HANG_AT_ENV, "-1"))
    write(b"!")  # ready: pool built, kernels loaded
    for index in range(start, stop):
        rng = case_rng(seed, key, index)
        kinds = [bad_kind(rng)]
        if index % CONTROL_EVERY == CONTROL_EVERY - 1:
            kinds.append("control")
        for kind in kinds:
            case = target.case(rng, kind)
            write(_KIND_CODE[case.kind].encode())
            if index == crash_at:
                os.kill(os.getpid(), signal.SIGSEGV)
            if index == hang_at:
                time.sleep(3600)
            write(_OUT_CODE[target.run(case)].encode())


def run_in_process(key: str, n: int, seed: int) -> Counter[tuple[str, str]]:
    """(kind, outcome) counts of cases 0..n-1 in this process (the pytest smoke run)."""
    buf = bytearray()
    worker(key, seed, 0, n, buf.extend)
    return _parse(bytes(buf[1:]))[0]


def _parse(stream: bytes) -> tuple[Counter[tuple[str, str]], str | None]:
    """Counts of finished cases, and the kind of a case that started but did not end."""
    counts: Counter[tuple[str, str]] = Counter()
    pending = None
    for ch in stream.decode():
        if ch in _CODE_KIND:
            pending = _CODE_KIND[ch]
        elif ch in _CODE_OUT and pending is not None:
            counts[(pending, _CODE_OUT[ch])] += 1
            pending = None
    return counts, pending


def run(key: str, n: int, seed: int, hang_seconds: float = 60.0, warmup: float = 600.0) -> dict:
    """Cases 0..n-1 of ``key`` in worker subprocesses; a crash or hang ends a worker and the
    next one starts after its case."""
    t0 = time.time()
    counts: Counter[tuple[str, str]] = Counter()
    incidents: list[dict[str, Any]] = []  # each crash or hang: its case index, to replay it
    start, workers = 0, 0
    while start < n:
        workers += 1
        cmd = [sys.executable, "-m", "tests.fuzz_actions", "--worker", key]
        cmd += ["--seed", str(seed), "--start", str(start), "--stop", str(n)]
        # stderr to a file: a worker that writes much there must not block on a full pipe
        log = tempfile.TemporaryFile()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log)
        assert proc.stdout is not None
        stream = bytearray()
        ready, hung = False, False
        while True:
            limit = hang_seconds if ready else warmup
            got, _, _ = select.select([proc.stdout], [], [], limit)
            if not got:
                hung = True
                proc.kill()
                break
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            stream.extend(chunk)
            if not ready and b"!" in stream:  # anything printed before it is not a case
                ready = True
                del stream[: stream.index(b"!") + 1]
        proc.wait()
        log.seek(0)
        err = log.read().decode(errors="replace")
        log.close()
        done, pending = _parse(bytes(stream))
        counts += done
        finished = sum(done.values())
        controls = sum(c for (k, _), c in done.items() if k == "control")
        start += finished - controls  # the index of the case in progress (bad cases count)
        if hung or proc.returncode != 0:
            if not ready:
                raise RuntimeError(f"{key}: worker failed before its first case:\n{err[-2000:]}")
            what = "hang" if hung else "crash"
            counts[(pending or "?", what)] += 1
            incidents.append({"case": start, "kind": pending, "outcome": what,
                              "returncode": proc.returncode, "stderr": err[-1500:]})  # fmt: skip
            if pending != "control":  # a control runs after its index's bad case
                start += 1
        elif start < n:
            raise RuntimeError(f"{key}: worker stopped at case {start} of {n}:\n{err[-2000:]}")
    by_outcome: Counter[str] = Counter()
    for (_, outcome), c in counts.items():
        by_outcome[outcome] += c
    return {
        "facade": key,
        "bad_cases": n,
        "cases": sum(counts.values()),
        "counts": {o: by_outcome[o] for o in OUTCOMES},
        "by_kind": {f"{k}/{o}": c for (k, o), c in sorted(counts.items())},
        "workers": workers,
        "incidents": incidents,
        "seconds": round(time.time() - t0, 1),
    }


def table(results: list[dict], by_kind: bool = False) -> str:
    """The markdown table of a run (and per kind on request)."""
    head = "| facade | cases | " + " | ".join(OUTCOMES) + " | seconds |"
    lines = [head, "|" + "---|" * (len(OUTCOMES) + 3)]
    for r in results:
        cells = [r["facade"], str(r["cases"])] + [str(r["counts"][o]) for o in OUTCOMES]
        lines.append("| " + " | ".join(cells + [str(r["seconds"])]) + " |")
    if by_kind:
        lines += ["", "| facade | kind | outcome | cases |", "|---|---|---|---|"]
        for r in results:
            for name, c in r["by_kind"].items():
                kind, _, outcome = name.partition("/")
                lines.append(f"| {r['facade']} | {kind} | {outcome} | {c} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=100_000, help="bad cases per facade")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--facade", action="append", help="game:players (default: all)")
    ap.add_argument("--hang-seconds", type=float, default=60.0)
    ap.add_argument("--by-kind", action="store_true", help="also the counts per kind")
    ap.add_argument("--json", help="write the results to this file")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--stop", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.n < 1 or not np.isfinite(args.hang_seconds) or args.hang_seconds <= 0:
        ap.error("--n must be >= 1 and --hang-seconds a positive number")
    if args.worker:
        worker(args.worker, args.seed, args.start, args.stop, _unbuffered_write)
        return 0
    known = facades()
    chosen = args.facade or known
    unknown = sorted(set(chosen) - set(known))
    if unknown:
        ap.error(f"unknown facade(s) {unknown}; choose from {known}")
    if args.json:  # its folder now, not after the run
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    results = []
    for key in chosen:
        res = run(key, args.n, args.seed, args.hang_seconds)
        results.append(res)
        print(json.dumps({k: v for k, v in res.items() if k not in ("by_kind", "incidents")}))
        for inc in res["incidents"]:
            print(f"  {inc['outcome']} at case {inc['case']} ({inc['kind']})", flush=True)
    print(table(results, args.by_kind))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    failed = any(r["counts"][o] for r in results for o in FAILURES)
    return 1 if failed else 0


def _unbuffered_write(data: bytes) -> None:
    os.write(1, data)


if __name__ == "__main__":
    sys.exit(main())
