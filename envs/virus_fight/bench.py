"""Virus Fight throughput: kernel self-play, mask+obs, AEC env() (and the tictactoe peer).

Rows (``rate`` in steps/s = decisions applied per second; random legal moves, finished
games restart at once):

=============================  ==================================================================
measure                        loop
=============================  ==================================================================
``kernel self-play``           batch facade ``random_actions`` + ``step(auto_reset=True)``
``kernel self-play (fused)``   ``VirusFightBatch.selfplay``: draw + apply + auto-reset for many
                               steps in one Numba call (no Python between steps)
``mask+obs``                   ``legal_mask`` + ``observe`` for the whole batch (positions/s)
``learner step``               ``random_actions`` + the fused ``learner_step`` (validate, apply,
                               auto-reset, compact observation + mask of the seat to act,
                               rewards, done): the step a learner sees, like Pgx's ``step``
``AEC env()``                  ``virus_fight_v0.env()``: ``last`` / ``step`` per move (batch 1)
``peer tictactoe_v3 env()``    PettingZoo classic tictactoe_v3 ``env()``, same loop (batch 1)
=============================  ==================================================================

The facade runs the serial kernels below 64 games; with more threads, ``selfplay`` runs
the ``prange`` kernel on all of them from 4096 games and the one-step calls from 131072
games, one thread in between (``envs.core.loops``, the one place that chooses).
``compile_s`` is the first call's time (Numba compiles, or loads its on-disk cache); it is
never inside a rate. ``cpu_rate`` is the same rate computed from process CPU time instead
of wall time: on a machine shared with other jobs it shows what the kernel does when it has
the cores to itself.

    python -m envs.virus_fight.bench [--batch 1 1024 16384] [--seconds 1] [--threads 2]
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from envs.core import bench

CONFIGS = ((2, 5), (3, 6), (4, 7))


def _row(config: str, measure: str, batch: int, threads: int, rates: tuple[float, float],
         compile_s: float | None) -> dict[str, Any]:  # fmt: skip
    return bench.row("virus_fight", config, measure, batch, threads, rates, "steps/s", compile_s)


def run(batch_sizes: list[int], seconds: float, threads: int) -> list[dict[str, Any]]:
    """Benchmark rows for every player count (default boards) and batch size."""
    import numba

    from envs import virus_fight_v0
    from envs.virus_fight.batch import VirusFightBatch

    numba.set_num_threads(max(1, min(threads, getattr(numba.config, "NUMBA_NUM_THREADS", 1))))
    rows: list[dict[str, Any]] = []
    for players, size in CONFIGS:
        config = f"{players}p {size}x{size}"
        game = VirusFightBatch(players, size)
        for batch in batch_sizes:
            st = game.init(batch, seed=batch)
            t0 = time.perf_counter()
            acts = game.random_actions(st)
            game.step(st, acts, auto_reset=True)
            compile_s = time.perf_counter() - t0
            for _ in range(50):  # leave the setup phase: a steady mix of positions
                game.step(st, game.random_actions(st), auto_reset=True)

            def facade(st: Any = st, batch: int = batch, game: Any = game) -> int:
                game.step(st, game.random_actions(st), auto_reset=True)
                return batch

            rates = bench.timed(facade, seconds)
            rows.append(_row(config, "kernel self-play", batch, threads, rates, compile_s))

            t0 = time.perf_counter()
            game.selfplay(st, 1)
            compile_s = time.perf_counter() - t0
            steps = max(1, 200_000 // batch)

            def fused(
                st: Any = st, batch: int = batch, steps: int = steps, game: Any = game
            ) -> int:
                game.selfplay(st, steps)
                return batch * steps

            rates = bench.timed(fused, seconds)
            rows.append(_row(config, "kernel self-play (fused)", batch, threads, rates, compile_s))

            t0 = time.perf_counter()
            seats = np.maximum(game.current_player(st), 0)
            game.legal_mask(st)
            game.observe(st, seats)
            compile_s = time.perf_counter() - t0

            def mask_obs(
                st: Any = st, batch: int = batch, seats: Any = seats, game: Any = game
            ) -> int:
                game.legal_mask(st)
                game.observe(st, seats)
                return batch

            rates = bench.timed(mask_obs, seconds)
            rows.append(_row(config, "mask+obs", batch, threads, rates, compile_s))

            out = game.learner_buffers(batch)
            t0 = time.perf_counter()
            game.learner_step(st, game.random_actions(st), out)
            compile_s = time.perf_counter() - t0

            def learner(st: Any = st, batch: int = batch, game: Any = game, out: Any = out) -> int:
                game.learner_step(st, game.random_actions(st), out)
                return batch

            rates = bench.timed(learner, seconds)
            rows.append(_row(config, "learner step", batch, threads, rates, compile_s))
            rows[-1]["bytes_per_step"] = out.bytes_per_step()
        t0 = time.perf_counter()
        env = virus_fight_v0.env(num_players=players)
        env.reset(seed=0)  # the first reset compiles (or loads) the batch-of-one kernels
        compile_s = time.perf_counter() - t0
        rows.append(_row(config, "AEC env()", 1, threads, bench.aec_rate(env, seconds), compile_s))
    try:
        from pettingzoo.classic import tictactoe_v3

        rates = bench.aec_rate(tictactoe_v3.env(), seconds)
        rows.append(_row("tictactoe", "peer tictactoe_v3 env()", 1, 1, rates, None))
    except ImportError:  # pragma: no cover - optional peer
        pass
    return rows


def main(argv: list[str] | None = None) -> int:
    """Print the rows (``envs.core.bench.main``: ``--batch``, ``--seconds``, ``--threads``)."""
    bench.main(run, __doc__.splitlines()[0], argv, seconds=1.0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
