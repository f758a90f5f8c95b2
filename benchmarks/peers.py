"""Random self-play throughput of our games beside the peers, one harness, one run.

What is measured (every rate is *moves applied per second*, ``steps/s``; random legal moves
on both sides; finished games restart at once):

==============================  =============================================================
measure                         loop
==============================  =============================================================
``kernel self-play``            ours: the batch facade (``envs.<game>.batch``),
                                ``random_actions`` + ``step(auto_reset=True)``, B games/call;
                                continuous actions: physics + scoring + turn, B shots/call
``AEC env()``                   ours: ``envs.<game>_v0.env()``, ``last``/``step`` per move
``peer pettingzoo env()``       PettingZoo classic ``tictactoe_v3`` / ``connect_four_v3``
                                ``env()``, the same AEC loop as ours
``peer openspiel C++ loop``     ``pyspiel.evaluate_bots`` with two C++ uniform-random bots:
                                a whole game per Python call, moves counted from the history
``peer openspiel python loop``  ``state.legal_actions()`` / ``apply_action`` from Python
``peer pgx jit(vmap(step))``    Pgx on CPU: one jitted call per batch step that draws random
                                legal actions and applies ``auto_reset(step)``; B games/call
                                (Pgx's step also writes the next observation and mask)
``learner step``                ours, like for like with Pgx's step: ``random_actions`` +
                                the facade's fused ``learner_step`` (validate, apply,
                                auto-reset, next compact observation + legal mask of the
                                seat to move, rewards, done) into buffers allocated once;
                                every player count; ``bytes_per_step`` beside the rate
``learner step (dense)``        the same step into ``learner_buffers(B, dense=True)``: one
                                code row per game instead of uint8 planes (facades with a
                                ``code_shape``), decoded to the same planes by ``decode``
``learner step (dense, bits)``  the same with ``mask_bits=True``: the legal mask packed
                                into uint64 words (an eighth of the bool mask's bytes)
``... bits, unpacked``          the same plus ``unpack_mask`` on our side every step: the
                                consumer's bool mask, as Pgx hands it (what a learner
                                that unpacks on its own device does not pay here)
``memory bandwidth``            a 256 MiB ``numpy`` copy, bytes read + written per second:
                                the physical limit of a step bound by the bytes it writes
==============================  =============================================================

``kernel self-play`` computes no observation; compare it with Pgx only as raw rules speed.
The like-for-like learner comparison is ``learner step`` vs ``peer pgx``.

Batched measures (ours, Pgx) run at every ``--batch`` size. ``--threads`` sets Numba's
threads; XLA uses every core unless ``--threads 1`` (then one thread, set before jax loads). The one-game loops
(AEC, PettingZoo, OpenSpiel) cannot batch: they step ``B`` independent games round-robin
(capped at ``--loop-games``), so their rate does not grow with B; the row's ``batch`` says
how many games were live. Compile time (Numba, XLA) is measured on the first call and
reported in ``compile_s``, never inside a rate. A peer that is not installed gives a row
with ``rate: null`` and ``skipped: <reason>``.

    python -m benchmarks.peers                       # default batches 1 1024 16384, 1 s each
    python -m benchmarks.peers --batch 1 256 --seconds 0.5 --threads 2 --json out.json
    python -m benchmarks.peers --rounds 3 --game GAME --peer tic_tac_toe --batch 1024 16384
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import write_report
from envs import registry
from envs.core import cli_text
from envs.core.bench import timed

Row = dict[str, Any]

KERNEL = "kernel self-play"
AEC = "AEC env()"
PZ = "peer pettingzoo env()"
OS_CPP = "peer openspiel C++ loop"
OS_PY = "peer openspiel python loop"
PGX = "peer pgx jit(vmap(step))"
LEARNER = "learner step"
LEARNER_DENSE = "learner step (dense)"
LEARNER_BITS = "learner step (dense, bits)"
LEARNER_UNPACKED = "learner step (dense, bits, unpacked)"
#: the learner measures: (name, dense observation codes, packed mask, unpacked each step)
LEARNER_KINDS = (
    (LEARNER, False, False, False),
    (LEARNER_DENSE, True, False, False),
    (LEARNER_BITS, True, True, False),
    (LEARNER_UNPACKED, True, True, True),
)
MEMCPY = "memory bandwidth (numpy copy)"


#: (peer measure, our measure it is compared with) for the ratio table.
COMPARISONS = (
    (PGX, KERNEL),
    (PGX, LEARNER),
    (PGX, LEARNER_DENSE),
    (PGX, LEARNER_BITS),
    (PGX, LEARNER_UNPACKED),
    (OS_CPP, KERNEL),
    (OS_PY, AEC),
    (PZ, AEC),
)

#: short column names of the ratio table
SHORT = {PGX: "pgx", OS_CPP: "openspiel C++", OS_PY: "openspiel py", PZ: "pettingzoo"}

#: peer games: (label, pettingzoo module, openspiel name, pgx name)
PEER_GAMES = (
    ("tic_tac_toe", "pettingzoo.classic.tictactoe_v3", "tic_tac_toe", "tic_tac_toe"),
    ("connect_four", "pettingzoo.classic.connect_four_v3", "connect_four", "connect_four"),
)


def _row(
    game: str,
    config: str,
    measure: str,
    batch: int,
    threads: int,
    rate: float | None,
    compile_s: float | None = None,
    **extra: Any,
) -> Row:
    row: Row = {
        "game": game,
        "config": config,
        "measure": measure,
        "batch": batch,
        "threads": threads,
        "rate": None if rate is None else float(rate),
        "unit": "steps/s",
        "compile_s": compile_s,
    }
    row.update(extra)
    return row


def _timed(fn: Callable[[], int], seconds: float, sync: Callable[[], None] | None = None) -> float:
    """Call ``fn`` (returns moves done) until ``seconds`` pass; moves per second."""
    moves = 0
    start = time.perf_counter()
    while True:
        moves += fn()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    if sync is not None:
        sync()
        elapsed = time.perf_counter() - start
    return moves / elapsed


# --------------------------------------------------------------------------- our games
@dataclass
class OurGame:
    """One of our games as the harness sees it (constructors resolved lazily)."""

    game: str
    config: str
    facade: Callable[[], Any] | None  # -> BatchGame; None when the game has no batch facade
    aec: Callable[[], Any]  # -> PettingZoo AEC env()


def _facade_class(module: Any) -> Any:
    """Deprecated: the BatchGame class a ``batch`` module defines (the registry names it)."""
    for value in vars(module).values():
        if (
            isinstance(value, type)
            and value.__module__ == module.__name__
            and all(hasattr(value, m) for m in ("init", "step", "random_actions", "legal_mask"))
        ):
            return value
    raise ImportError(f"{module.__name__} defines no batch facade class")


def our_game(name: str) -> OurGame:
    """The harness's view of registered game ``name`` (its entry's facade and AEC env)."""
    spec = registry.get(name)
    facade: Callable[[], Any] | None = None
    if spec.peer_facade is not None:
        facade = registry.load(spec.peer_facade)
    elif spec.batch is not None:

        def facade() -> Any:
            return registry.make_batch(name, 2 if 2 in spec.players else None)

    def aec() -> Any:
        kwargs = {spec.env_players_arg: 2} if spec.env_players_arg and 2 in spec.players else {}
        return registry.make_env(name, "aec", **kwargs)

    return OurGame(name, spec.peer_config or f"{spec.default_players}p", facade, aec)


def __getattr__(name: str) -> Any:
    """``OUR_GAMES``: every registered game, as the harness sees it; deprecated names."""
    if name == "OUR_GAMES":
        return tuple(our_game(g) for g in registry.names())
    if name == "NO_RATIOS":
        return tuple(s.name for s in registry.specs() if s.continuous)
    # old names the registry's aliases keep (a game's former harness class: its facade)
    return registry.deprecated_attrs(__name__)(name)


def _our_games() -> tuple[OurGame, ...]:
    """OUR_GAMES as set on the module (tests narrow it), else from the registry."""
    games = globals().get("OUR_GAMES")
    return tuple(games) if games is not None else __getattr__("OUR_GAMES")


def _aec(module: str, **kwargs: Any) -> Callable[[], Any]:
    def make() -> Any:
        return importlib.import_module(module).env(**kwargs)

    return make


def bench_facade(facade: Any, batch: int, seconds: float) -> tuple[float, float]:
    """(steps/s, compile seconds) of random self-play through a BatchGame facade."""
    t0 = time.perf_counter()
    state = facade.init(batch, 0)
    facade.step(state, facade.random_actions(state), auto_reset=True)  # compiles
    compile_s = time.perf_counter() - t0

    def one() -> int:
        facade.step(state, facade.random_actions(state), auto_reset=True)
        return batch

    return _timed(one, seconds), compile_s


def _random_action(env: Any, agent: str, obs: Any, rng: np.random.Generator) -> Any:
    """A uniformly random legal action (masked discrete) or a random box action."""
    if isinstance(obs, dict) and "action_mask" in obs:
        legal = np.flatnonzero(obs["action_mask"])
        return int(legal[rng.integers(len(legal))])
    space = env.action_space(agent)
    if hasattr(space, "n"):
        return int(rng.integers(space.n))
    low = np.maximum(space.low, -1.0)
    high = np.minimum(space.high, 1.0)
    return rng.uniform(low, high).astype(space.dtype)


def bench_aec(make: Callable[[], Any], games: int, seconds: float) -> tuple[float, float]:
    """(steps/s, first-game seconds) of random play through AEC envs, round-robin."""
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    envs = [make() for _ in range(games)]
    for i, env in enumerate(envs):
        env.reset(seed=i)
    first = envs[0]
    # one full game on the first env (warms Numba caches) before timing
    while first.agents:
        obs, _, term, trunc, _ = first.last()
        agent = first.agent_selection
        first.step(None if term or trunc else _random_action(first, agent, obs, rng))
    first.reset(seed=0)
    compile_s = time.perf_counter() - t0

    def one_round() -> int:
        moves = 0
        for env in envs:
            if not env.agents:
                env.reset()
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(_random_action(env, env.agent_selection, obs, rng))
            moves += 1
        return moves

    return _timed(one_round, seconds), compile_s


# --------------------------------------------------------------------------- peers
def bench_openspiel_cpp(name: str, seconds: float) -> float:
    """OpenSpiel's C++ game loop: evaluate_bots with C++ uniform random bots."""
    import pyspiel

    game = pyspiel.load_game(name)
    bots = [pyspiel.make_uniform_random_bot(p, 1234 + p) for p in range(game.num_players())]
    seed = [0]

    def one_game() -> int:
        state = game.new_initial_state()
        seed[0] += 1
        pyspiel.evaluate_bots(state, bots, seed[0])  # plays in place, in C++
        return len(state.history())

    return _timed(one_game, seconds)


def bench_openspiel_python(name: str, games: int, seconds: float) -> float:
    """OpenSpiel driven from Python: legal_actions / apply_action per move."""
    import pyspiel

    game = pyspiel.load_game(name)
    rng = np.random.default_rng(0)
    states = [game.new_initial_state() for _ in range(games)]

    def one_round() -> int:
        for i, state in enumerate(states):
            if state.is_terminal():
                state = states[i] = game.new_initial_state()
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
        return len(states)

    return _timed(one_round, seconds)


def bench_pgx(name: str, batch: int, seconds: float) -> tuple[float, float]:
    """Pgx on CPU: jit(vmap) of init/step with random legal actions and auto-reset."""
    one, sync, compile_s = pgx_stepper(name, batch)
    return _timed(one, seconds, sync=sync), compile_s


def pgx_stepper(name: str, batch: int) -> tuple[Callable[[], int], Callable[[], None], float]:
    """(one batch step, sync, compile s) of Pgx's ``jit(vmap(auto_reset(step)))`` with
    ``act_randomly``, compiled once (so rounds can alternate with ours in one process)."""
    import jax
    import pgx
    from pgx.experimental import act_randomly, auto_reset

    env = pgx.make(name)
    step = jax.vmap(auto_reset(env.step, env.init))

    @jax.jit
    def body(state: Any, key: Any) -> tuple[Any, Any]:
        key, k_act, k_step = jax.random.split(key, 3)
        action = act_randomly(k_act, state.legal_action_mask)
        state = step(state, action, jax.random.split(k_step, batch))
        return state, key

    t0 = time.perf_counter()
    key = jax.random.PRNGKey(0)
    key, sub = jax.random.split(key)
    state = jax.jit(jax.vmap(env.init))(jax.random.split(sub, batch))
    state, key = body(state, key)
    jax.block_until_ready(state)
    compile_s = time.perf_counter() - t0
    holder = [state, key]

    def one() -> int:
        holder[0], holder[1] = body(holder[0], holder[1])
        return batch

    return one, lambda: jax.block_until_ready(holder[0]), compile_s


def pgx_bytes_per_step(name: str) -> int:
    """Bytes of what Pgx's step hands a learner per game: observation, mask, rewards, flags."""
    import jax
    import pgx

    state = jax.jit(pgx.make(name).init)(jax.random.PRNGKey(0))
    parts = ("observation", "legal_action_mask", "rewards", "terminated", "current_player")
    return int(sum(np.asarray(getattr(state, k)).nbytes for k in parts))


# --------------------------------------------------------------------------- learner step
def bench_learner(
    facade: Any, batch: int, seconds: float, dense: bool = False, bits: bool = False,
    unpack: bool = False,
) -> tuple[float, float, int]:  # fmt: skip
    """(steps/s, compile s, bytes per step) of the fused learner step with random legal
    actions: validate, apply, auto-reset, next compact observation + mask, rewards, done
    (what Pgx's ``step`` hands a learner), into buffers allocated once (``dense``: the
    facade's dense code rows instead of the planes; ``bits``: the packed mask; ``unpack``:
    and the bool mask unpacked from it every step)."""
    one, compile_s, nbytes = learner_stepper(facade, batch, dense, bits, unpack)
    return _timed(one, seconds), compile_s, nbytes


def learner_stepper(
    facade: Any, batch: int, dense: bool = False, bits: bool = False, unpack: bool = False
) -> tuple[Callable[[], int], float, int]:
    """(one batch step, compile s, bytes per step) of the learner step (:func:`bench_learner`)."""
    from envs.core.batch import unpack_mask

    t0 = time.perf_counter()
    state = facade.init(batch, 0)
    out = facade.learner_buffers(batch, dense=True, mask_bits=bits) if dense else (
        facade.learner_buffers(batch)
    )  # fmt: skip
    facade.learner_view(state, out)
    facade.learner_step(state, facade.random_actions(state), out)  # compiles
    compile_s = time.perf_counter() - t0
    n_actions = facade.num_actions

    def one() -> int:
        facade.learner_step(state, facade.random_actions(state), out)
        if unpack:
            unpack_mask(out.mask, n_actions)
        return batch

    return one, compile_s, out.bytes_per_step()


def learner_rounds(
    facade: Any, peer: str, batch_sizes: list[int], seconds: float, rounds: int, threads: int
) -> list[Row]:
    """Our learner step (planes, and dense codes where the facade has them) and Pgx game
    ``peer``'s step, alternating in this one process, ``rounds`` times: rates per wall- and
    per CPU-second of the process (``cpu_rate``; all threads), the fair figure on a
    shared machine, where runs minutes apart see different loads."""
    kinds = LEARNER_KINDS if hasattr(facade, "code_shape") else LEARNER_KINDS[:1]
    rows: list[Row] = []
    for b in batch_sizes:
        steppers = {m: learner_stepper(facade, b, d, bits, un) for m, d, bits, un in kinds}
        pgx_one, pgx_sync, _ = pgx_stepper(peer, b)
        for r in range(rounds):
            for m, (one, _, nbytes) in steppers.items():
                wall, cpu = timed(one, seconds)
                config = f"{facade.num_players}p"
                rows.append(_row(facade.name, config, m, b, threads, wall, cpu_rate=cpu, round=r,
                                 bytes_per_step=nbytes))  # fmt: skip
            step = lambda f=pgx_one, done=pgx_sync: (f(), done())[0]  # noqa: E731 (waits)
            wall, cpu = timed(step, seconds)
            rows.append(_row(peer, "2p", PGX, b, threads, wall, cpu_rate=cpu, round=r))
    return rows


def memory_bandwidth(seconds: float, nbytes: int = 1 << 28) -> float:
    """Bytes/s moved by a large numpy copy (read + write), the step's physical limit."""
    src = np.ones(nbytes, np.uint8)
    dst = np.empty_like(src)

    def one() -> int:
        np.copyto(dst, src)
        return 2 * nbytes

    one()
    return _timed(one, seconds)


def learner_rows(batch_sizes: list[int], seconds: float, threads: int) -> list[Row]:
    """The learner-step rows of every board game with a fused step, every player count,
    plus the machine's memory bandwidth (kept apart from the self-play rows)."""
    rows: list[Row] = []
    ours = {g.game for g in _our_games()}
    for spec in registry.specs():
        if spec.continuous or spec.batch is None or spec.name not in ours:
            continue
        for players in spec.players:
            try:
                facade = registry.make_batch(spec.name, players)
            except Exception as exc:
                rows.append(
                    _row(spec.name, f"{players}p", LEARNER, 0, threads, None, skipped=_skip(exc))
                )
                continue
            if not hasattr(facade, "learner_step"):
                continue
            size = getattr(facade, "board_size", None)
            config = f"{players}p" + (f" {size}x{size}" if size else "")
            kinds = LEARNER_KINDS if hasattr(facade, "code_shape") else LEARNER_KINDS[:1]
            for b in batch_sizes:
                for measure, dense, bits, unpack in kinds:
                    rate, comp, nbytes = bench_learner(facade, b, seconds, dense, bits, unpack)
                    row = _row(spec.name, config, measure, b, threads, rate, round(comp, 2))
                    rows.append({**row, "bytes_per_step": nbytes})
    rows.append(_row("machine", "", MEMCPY, 1, 1, memory_bandwidth(seconds), unit="bytes/s"))
    return rows


def _skip(reason: BaseException | str) -> str:
    if isinstance(reason, BaseException):
        return f"{type(reason).__name__}: {reason}".splitlines()[0][:160]
    return reason


def _installed(module: str) -> str | None:
    """None if ``module`` imports, else the reason it does not."""
    try:
        importlib.import_module(module)
    except Exception as exc:  # any import failure means the peer is not usable here
        return f"not installed ({_skip(exc)})"
    return None


def our_rows(
    g: OurGame, batch_sizes: list[int], seconds: float, threads: int, loop_sizes: list[int]
) -> list[Row]:
    """The kernel self-play rows (every batch size) and AEC rows (every loop size) of ``g``."""
    rows: list[Row] = []
    for b in batch_sizes:
        if g.facade is None:
            rows.append(_row(g.game, g.config, KERNEL, b, threads, None, skipped="no batch facade"))
            continue
        try:
            rate, comp = bench_facade(g.facade(), b, seconds)
            rows.append(_row(g.game, g.config, KERNEL, b, threads, rate, round(comp, 2)))
        except Exception as exc:  # a game not landed yet is reported, not fatal
            rows.append(_row(g.game, g.config, KERNEL, b, threads, None, skipped=_skip(exc)))
    for b in loop_sizes:
        try:
            rate, comp = bench_aec(g.aec, b, seconds)
            rows.append(_row(g.game, g.config, AEC, b, 1, rate, round(comp, 2)))
        except Exception as exc:
            rows.append(_row(g.game, g.config, AEC, b, 1, None, skipped=_skip(exc)))
    return rows


def run(
    batch_sizes: list[int],
    seconds: float,
    threads: int,
    loop_games: int = 64,
    learner: bool = False,
) -> list[Row]:
    """All rows: our games then the peers, at every batch size (``learner``: also the
    learner-step rows and the memory bandwidth, as the command line reports them)."""
    try:
        import numba

        numba.set_num_threads(min(threads, int(numba.config.NUMBA_NUM_THREADS)))  # type: ignore[attr-defined]
    except ImportError:  # pragma: no cover - numba is a core dependency
        pass
    rows: list[Row] = []
    loop_sizes = sorted({min(b, loop_games) for b in batch_sizes})
    for g in _our_games():
        rows.extend(our_rows(g, batch_sizes, seconds, threads, loop_sizes))
    if learner:
        rows.extend(learner_rows(batch_sizes, seconds, threads))

    import sys

    if threads == 1 and "jax" not in sys.modules:  # XLA reads its flags once, at start
        os.environ["XLA_FLAGS"] = (
            os.environ.get("XLA_FLAGS", "")
            + " --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
        ).strip()
        xla_threads = 1
    else:
        xla_threads = threads if "XLA_FLAGS" in os.environ else (os.cpu_count() or 1)
    missing = {m: _installed(m) for m in ("pettingzoo.classic", "pyspiel", "pgx")}
    for label, pz_module, os_name, pgx_name in PEER_GAMES:
        config = "2p"
        for b in loop_sizes:
            if missing["pettingzoo.classic"]:
                rows.append(
                    _row(label, config, PZ, b, 1, None, skipped=missing["pettingzoo.classic"])
                )
            else:
                rate, comp = bench_aec(_aec(pz_module), b, seconds)
                rows.append(_row(label, config, PZ, b, 1, rate, None))
            if missing["pyspiel"]:
                rows.append(_row(label, config, OS_PY, b, 1, None, skipped=missing["pyspiel"]))
            else:
                rate = bench_openspiel_python(os_name, b, seconds)
                rows.append(_row(label, config, OS_PY, b, 1, rate, None))
        if missing["pyspiel"]:
            rows.append(_row(label, config, OS_CPP, 1, 1, None, skipped=missing["pyspiel"]))
        else:
            rate = bench_openspiel_cpp(os_name, seconds)
            rows.append(_row(label, config, OS_CPP, 1, 1, rate, None))
        for b in batch_sizes:
            if missing["pgx"]:
                rows.append(_row(label, config, PGX, b, xla_threads, None, skipped=missing["pgx"]))
                continue
            try:
                rate, comp = bench_pgx(pgx_name, b, seconds)
                rows.append(_row(label, config, PGX, b, xla_threads, rate, round(comp, 2)))
                rows[-1]["bytes_per_step"] = pgx_bytes_per_step(pgx_name)
            except Exception as exc:
                rows.append(_row(label, config, PGX, b, xla_threads, None, skipped=_skip(exc)))
    return rows


def _no_ratios(game: str) -> bool:
    """Left out of the ratio table: a continuous-action (physics) game has no like-for-like
    board-game peer (its peer, e.g. pymunk, is in its own benchmark module)."""
    return game in registry.names() and registry.get(game).continuous


def _peer_rate(rows: list[Row], game: str, measure: str, batch: int) -> float | None:
    """The peer's rate at ``batch``; one-game loops use their largest measured batch <= it."""
    cands = [
        r for r in rows if r["game"] == game and r["measure"] == measure and r["rate"] is not None
    ]
    exact = [r for r in cands if r["batch"] == batch]
    if exact:
        return float(exact[0]["rate"])
    below = [r for r in cands if r["batch"] <= batch]
    if measure in (PGX,) or not below:
        return None
    return float(max(below, key=lambda r: r["batch"])["rate"])


def ratios(rows: list[Row]) -> list[Row]:
    """Ours / peer for each like-for-like pair: (our measure, peer measure, batch)."""
    out: list[Row] = []
    for ours in rows:
        if ours["rate"] is None or not any(ours["measure"] == m for _, m in COMPARISONS):
            continue
        if ours["game"] in {p[0] for p in PEER_GAMES} or _no_ratios(ours["game"]):
            continue
        entry: Row = {
            "game": ours["game"],
            "config": ours["config"],
            "measure": ours["measure"],
            "batch": ours["batch"],
            "rate": ours["rate"],
        }
        for peer_measure, our_measure in COMPARISONS:
            if our_measure != ours["measure"]:
                continue
            for label, *_ in PEER_GAMES:
                peer = _peer_rate(rows, label, peer_measure, ours["batch"])
                key = f"vs {SHORT[peer_measure]} {label}"
                entry[key] = None if peer is None else ours["rate"] / peer
        out.append(entry)
    return out


def _fmt(rate: float | None) -> str:
    if rate is None:
        return "skipped"
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if rate >= scale:
            return f"{rate / scale:.2f} {suffix}"
    return f"{rate:.1f}"


def markdown(rows: list[Row], table: list[Row]) -> str:
    """Both tables as Markdown (what docs/benchmarks.md shows)."""
    lines = [
        "| game | config | measure | batch | threads | steps/s | compile s |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        comp = "" if r.get("compile_s") is None else f"{r['compile_s']:.1f}"
        lines.append(
            f"| {r['game']} | {r['config']} | {r['measure']} | {r['batch']} | {r['threads']} "
            f"| {_fmt(r['rate'])} | {comp} |"
        )
    keys = sorted({k for e in table for k in e if k.startswith("vs ")})
    if table:
        lines += ["", "| ours | measure | batch | " + " | ".join(keys) + " |"]
        lines.append("|---|---|---:|" + "---:|" * len(keys))
        for e in table:
            cells = [
                "" if k not in e else ("n/a" if e[k] is None else f"{e[k]:.2f}x") for k in keys
            ]
            lines.append(
                f"| {e['game']} | {e['measure']} | {e['batch']} | " + " | ".join(cells) + " |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``python -m benchmarks.peers``: print the rows and ratios, write the JSON report."""
    parser = cli_text.ArgumentParser(
        prog="python -m benchmarks.peers", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--batch", nargs="+", type=int, default=[1, 1024, 16384])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    parser.add_argument("--threads", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument(
        "--loop-games", type=int, default=64, help="most live games for the one-game loops"
    )
    parser.add_argument("--json", type=Path, default=Path("results/peers.json"))
    parser.add_argument(
        "--rounds",
        type=int,
        default=0,
        help="only the learner step of --game beside Pgx's --peer, alternating this many "
        "rounds in one process (rates per CPU-second too)",
    )
    parser.add_argument("--game", default=None, help="our game of --rounds (a registry name)")
    parser.add_argument("--peer", default="tic_tac_toe", help="the Pgx game of --rounds")
    parser.add_argument(
        "--players", type=int, default=None, help="player count of --game (its default if unset)"
    )
    args = parser.parse_args(argv)
    if args.rounds:
        return _main_rounds(args)
    if any(b < 1 for b in args.batch):
        parser.error("--batch sizes must be positive")
    if args.threads < 1 or args.loop_games < 1 or args.seconds <= 0:
        parser.error("--threads, --loop-games and --seconds must be positive")
    started = time.time()
    rows = run(args.batch, args.seconds, args.threads, args.loop_games, learner=True)
    table = ratios(rows)
    print(markdown(rows, table))
    for r in rows:
        if r.get("skipped"):
            print(f"skipped: {r['game']} {r['measure']} B={r['batch']}: {r['skipped']}")
    versions: dict[str, str | None] = {}
    for dist in ("numba", "pettingzoo", "open-spiel", "pgx", "jax"):
        try:
            from importlib.metadata import version

            versions[dist] = version(dist)
        except Exception:
            versions[dist] = None
    extra = {
        "versions": versions,
        "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "ratios": table,
    }
    write_report(args.json, rows, started, extra)
    return 0


def _main_rounds(args: Any) -> int:
    """``--rounds``: the alternating learner-vs-Pgx rounds, printed and written as JSON."""
    if args.game not in registry.names():
        raise SystemExit(f"--rounds needs --game, one of {', '.join(registry.names())}")
    import numba

    numba.set_num_threads(min(args.threads, int(numba.config.NUMBA_NUM_THREADS)))  # type: ignore[attr-defined]
    started = time.time()
    try:
        facade = (
            registry.make_batch(args.game)
            if args.players is None
            else registry.make_batch(args.game, args.players)
        )
    except ValueError as exc:
        raise SystemExit(f"--players: {exc}") from None
    rows = learner_rounds(facade, args.peer, args.batch, args.seconds, args.rounds, args.threads)
    for r in rows:
        nbytes = f"  {r['bytes_per_step']} B/step" if r.get("bytes_per_step") else ""
        print(f"round {r['round']} B={r['batch']:>6} {r['game']:>12} {r['measure']:<36} "
              f"{_fmt(r['rate'])}/s  {_fmt(r['cpu_rate'])}/CPU-s{nbytes}")  # fmt: skip
    bandwidth = memory_bandwidth(args.seconds)
    rows.append(_row("machine", "", MEMCPY, 1, 1, bandwidth, unit="bytes/s"))
    print(f"memory bandwidth (numpy copy, bytes read + written): {bandwidth / 1e9:.1f} GB/s")
    write_report(args.json, rows, started, {"args": {k: str(v) for k, v in vars(args).items()}})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
