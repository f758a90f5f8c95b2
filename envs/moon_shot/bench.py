"""Moon Shot physics throughput: the batched Numba kernel vs pymunk on comparable shots.

Rows (``run``): shots/s and body-substeps/s of ``envs.moon_shot.physics.simulate`` at each
batch size (random actions uniform in [-1, 1]^4, default noise, tube at one tube length),
then pymunk 7 simulating the same launches (same MS-7 launch states) with the table
friction emulated as in pymunk's tank example (a pivot and a gear joint to the static body,
``max_force`` = mu m g and the uniform-pressure spin torque), tube walls as static boxes,
fixed 1 ms steps, pieces not colliding with each other (the launch overlap rule has no
pymunk equivalent), until every body is slower than 1 mm/s and 0.01 rad/s or 5 s.
A body-substep is one body advanced over one (sub)step; pymunk steps all three bodies.
Last, the learner step of the turn game's facade (``MoonShotBatch.learner_step``, two
players: validated random actions, one physics call, auto-reset, observation of the seat
to move), in learner steps/s and the bytes it writes per game.

    python -m envs.moon_shot.bench            # default batches 1, 1024, 16384
    python -m benchmarks.moon_shot            # the old path, still served
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from envs.core import bench

GAME = "moon_shot"


def _kernel_rows(batch_sizes: list[int], seconds: float, threads: int) -> list[dict[str, Any]]:
    import numba

    from envs.moon_shot.params import DEFAULT_PARAMS
    from envs.moon_shot.physics import friction_table, simulate

    numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))  # type: ignore[attr-defined]
    t0 = time.perf_counter()
    friction_table(DEFAULT_PARAMS)
    simulate(np.zeros((2, 4)), np.arange(2, dtype=np.uint64))
    compile_s = time.perf_counter() - t0
    rng = np.random.default_rng(12345)
    rows: list[dict[str, Any]] = []
    for batch in batch_sizes:
        shots = 0
        substeps = 0
        elapsed = 0.0
        cpu = 0.0
        calls = 0
        while elapsed < seconds or calls == 0:
            a = rng.uniform(-1.0, 1.0, (batch, 4))
            seeds = rng.integers(0, 2**63, batch, dtype=np.uint64)
            t = time.perf_counter()
            c = time.process_time()
            res = simulate(a, seeds)
            cpu += time.process_time() - c
            elapsed += time.perf_counter() - t
            shots += batch
            substeps += int(res.substeps.sum())
            calls += 1
        for count, unit in ((shots, "shots/s"), (substeps, "body-substeps/s")):
            rows.append(
                {
                    "game": GAME,
                    "config": "3 pieces, tube 160 mm, noise 1",
                    "measure": "physics kernel simulate()",
                    "batch": batch,
                    "threads": threads,
                    "rate": count / elapsed,
                    "unit": unit,
                    "compile_s": compile_s,
                    # per CPU-second of this process (all threads): robust on a busy machine
                    "cpu_rate": count / cpu if cpu > 0 else None,
                }
            )
    return rows


def pymunk_shots(n: int, seed: int = 0, dt: float = 1e-3) -> tuple[int, int, float, float]:
    """Simulate n comparable shots in pymunk; returns (shots, body-steps, wall s, CPU s)."""
    import pymunk

    from envs.moon_shot.geometry import local_footprint, tube_walls
    from envs.moon_shot.params import DEFAULT_PARAMS as p
    from envs.moon_shot.params import I_PIECE0, PIECE_STRIDE, PK_I, PK_RHO
    from envs.moon_shot.physics import action_to_physical, friction_table, launch_states

    P = p.to_array()
    tab = friction_table(p)
    rng = np.random.default_rng(seed)
    walls = tube_walls(p.tube_distance, p)
    body_steps = 0
    elapsed = 0.0
    cpu = 0.0
    max_steps = int(round(p.max_shot_seconds / dt))
    for _ in range(n):
        a = rng.uniform(-1.0, 1.0, 4)
        th, v, z, o = action_to_physical(P, a)
        st, act, _, _ = launch_states(th, v, z, o, rng.standard_normal(10), p)
        t = time.perf_counter()
        c = time.process_time()
        space = pymunk.Space()
        space.iterations = 10
        for w in walls:
            box = pymunk.Poly(space.static_body, [tuple(c) for c in w])
            box.elasticity = p.restitution_tube
            box.friction = p.contact_friction
            space.add(box)
        bodies = []
        for k in range(3):
            if not act[k]:
                continue
            m = float(p.masses()[k])
            inertia = float(P[I_PIECE0 + k * PIECE_STRIDE + PK_I])
            rho = float(P[I_PIECE0 + k * PIECE_STRIDE + PK_RHO])
            body = pymunk.Body(m, inertia)
            body.position = (st[k, 0], st[k, 1])
            body.angle = st[k, 2]
            body.velocity = (st[k, 3], st[k, 4])
            body.angular_velocity = st[k, 5]
            shape = pymunk.Poly(body, [tuple(c) for c in local_footprint(k, p)])
            shape.elasticity = p.restitution_piece
            shape.friction = 1.0
            shape.filter = pymunk.ShapeFilter(group=1)  # pieces ignore each other
            pivot = pymunk.PivotJoint(space.static_body, body, (0, 0), (0, 0))
            pivot.max_bias = 0
            pivot.max_force = p.mu * m * p.g
            gear = pymunk.GearJoint(space.static_body, body, 0.0, 1.0)
            gear.max_bias = 0
            gear.max_force = p.mu * m * p.g * rho * abs(float(tab[k, -1, 0, 2]))
            space.add(body, shape, pivot, gear)
            bodies.append(body)
        steps = 0
        while steps < max_steps and bodies:
            space.step(dt)
            steps += 1
            if all(b.velocity.length < 1e-3 and abs(b.angular_velocity) < 1e-2 for b in bodies):
                break
        elapsed += time.perf_counter() - t
        cpu += time.process_time() - c
        body_steps += steps * len(bodies)
    return n, body_steps, elapsed, cpu


def _pymunk_rows(seconds: float) -> list[dict[str, Any]]:
    try:
        import pymunk  # noqa: F401
    except ImportError:
        return [
            {
                "game": GAME,
                "config": "pymunk not installed",
                "measure": "peer pymunk",
                "batch": 1,
                "threads": 1,
                "rate": None,
                "unit": "shots/s",
                "compile_s": None,
            }
        ]
    shots = 0
    steps = 0
    elapsed = 0.0
    cpu = 0.0
    seed = 0
    pymunk_shots(1, seed=10**6)  # warm-up (imports, launch kernel)
    while elapsed < seconds or shots == 0:
        n, s, e, c = pymunk_shots(8, seed=seed)
        shots += n
        steps += s
        elapsed += e
        cpu += c
        seed += 1
    rows = []
    for count, unit in ((shots, "shots/s"), (steps, "body-substeps/s")):
        rows.append(
            {
                "game": GAME,
                "config": "3 pieces, tube 160 mm, 1 ms steps",
                "measure": "peer pymunk (joint friction)",
                "batch": 1,
                "threads": 1,
                "rate": count / elapsed,
                "unit": unit,
                "compile_s": None,
                "cpu_rate": count / cpu if cpu > 0 else None,
            }
        )
    return rows


def _learner_rows(batch_sizes: list[int], seconds: float, threads: int) -> list[dict[str, Any]]:
    """learner steps/s of ``MoonShotBatch.learner_step`` (random actions, auto-reset)."""
    from envs.moon_shot.batch import MoonShotBatch

    game = MoonShotBatch(num_players=2)
    rows = []
    for batch in batch_sizes:
        st, out = game.init(batch, seed=12345), game.learner_buffers(batch)
        t0 = time.perf_counter()
        game.learner_step(st, game.random_actions(st), out)
        compile_s = time.perf_counter() - t0
        steps, elapsed, cpu = 0, 0.0, 0.0
        while elapsed < seconds or steps == 0:
            t, c = time.perf_counter(), time.process_time()
            game.learner_step(st, game.random_actions(st), out)
            elapsed += time.perf_counter() - t
            cpu += time.process_time() - c
            steps += batch
        rows.append(
            {
                "game": GAME,
                "config": "2 players, tube 160 mm, noise 1",
                "measure": "learner step",
                "batch": batch,
                "threads": threads,
                "rate": steps / elapsed,
                "unit": "learner steps/s",
                "compile_s": compile_s,
                "cpu_rate": steps / cpu if cpu > 0 else None,
                "bytes_per_step": out.bytes_per_step(),
            }
        )
    return rows


def run(batch_sizes: list[int], seconds: float, threads: int) -> list[dict[str, Any]]:
    """Benchmark rows for the lead's throughput table (see module docstring)."""
    rows = _kernel_rows(batch_sizes, seconds, threads)
    rows.extend(_pymunk_rows(max(seconds, 1.0)))
    rows.extend(_learner_rows(batch_sizes, seconds, threads))
    return rows


def main(argv: list[str] | None = None) -> int:
    """Print the rows as a small table."""
    rows = bench.main(run, __doc__.splitlines()[0], argv)  # --batch, --seconds, --threads
    for unit in ("shots/s", "body-substeps/s"):
        ours = [
            r["cpu_rate"]
            for r in rows
            if r["unit"] == unit and r["measure"].startswith("physics") and r.get("cpu_rate")
        ]
        peer = [r["cpu_rate"] for r in rows if r["unit"] == unit and "pymunk" in r["measure"]]
        if ours and peer and peer[0]:
            print(f"kernel / pymunk {unit} per CPU-second: {max(ours) / peer[0]:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
