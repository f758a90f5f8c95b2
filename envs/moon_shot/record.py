"""Moon Shot's game-record hooks (``envs.core.records``): a record's moves are shots.

Each shot keeps its MS-5 action, its noise seed, the realised MS-6/MS-7 launch, the
resting poses and the points it scored. Replay shoots every shot again through the
facade's one turn loop (``MoonShotBatch.shoot``: physics, then MS-14..MS-17) and compares
seeds, launches and poses as float64 bits, the points and the MS-17 result.
Rules: docs/moon_shot.md.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from envs.core.records import (
    GameRecord,
    Played,
    RecordHooks,
    Replayed,
    Series,
    _check,
    check_result,
    now,
    state_digest,
    versions,
)


def moon_shot_config(config: dict[str, Any]) -> Any:
    """The ``MoonShotConfig`` of a record (default physics unless stored)."""
    from envs.moon_shot.config import MoonShotConfig
    from envs.moon_shot.params import PhysicsParams

    kw = {k: v for k, v in config.items() if k not in ("players", "params")}
    params = PhysicsParams(**config["params"]) if config.get("params") else PhysicsParams()
    return MoonShotConfig(num_players=int(config.get("players", 2)), params=params, **kw)


def moon_shot_config_dict(cfg: Any) -> dict[str, Any]:
    """What :func:`moon_shot_config` reads back (physics only when not the default)."""
    from envs.moon_shot.params import PhysicsParams

    out: dict[str, Any] = {"players": int(cfg.num_players)}
    for f in dataclasses.fields(cfg):
        if f.name in ("num_players", "params"):
            continue
        out[f.name] = getattr(cfg, f.name)
    if cfg.params != PhysicsParams():
        out["params"] = dataclasses.asdict(cfg.params)
    return out


def shot_notation(action: Sequence[float]) -> str:
    """An MS-5 action (each entry in [-1, 1]) as text."""
    return "shot " + " ".join(f"{k}{float(v):+.2f}" for k, v in zip("tvzo", action, strict=True))


def realised_launches(actions: np.ndarray, seeds: np.ndarray, cfg: Any) -> np.ndarray:
    """(M, 4) realised [theta rad, v m/s, z m, o] of M shots after noise (MS-5..MS-7)."""
    from envs.moon_shot import physics

    params = cfg.physics_params()
    p_arr = params.to_array()
    out = np.zeros((len(actions), 4))
    for m, (a, s) in enumerate(zip(np.asarray(actions, np.float64), seeds, strict=True)):
        theta, v, z, o = physics.action_to_physical(p_arr, np.ascontiguousarray(a))
        out[m] = physics.launch_states(theta, v, z, o, physics.seed_normals(int(s)), params)[3]
    return out


def record_shots(
    shots: list[list[dict[str, Any]]],
    games: np.ndarray,
    seats: np.ndarray,
    actions: np.ndarray,
    seeds: np.ndarray,
    result: Any,
) -> None:
    """Append one turn of shots (``Shots`` of games ``games``, in that order) to the
    per-game lists of a runner."""
    from envs.moon_shot.scoring import KIND_NAMES

    sc = result.score
    for j, g in enumerate(np.asarray(games).tolist()):
        shots[g].append(
            {
                "seat": int(seats[j]),
                "action": [float(x) for x in actions[j]],
                "seed": int(seeds[j]),
                "poses": np.asarray(result.poses[j], np.float64).tolist(),
                "toppled": [bool(x) for x in result.toppled[j]],
                "points": int(sc.points[j]),
                "kind": KIND_NAMES[int(sc.kind[j])],
            }
        )


def moon_shot_record(
    cfg: Any,
    seed: int,
    index: int,
    agents: Sequence[str],
    shots: Sequence[dict[str, Any]],
    rewards: Sequence[float],
    digest: str = "",
    **common: Any,
) -> GameRecord:
    """A record from its shots (dicts with seat, action, seed, poses, points, kind); the
    realised launches are added here (MS-6/MS-7, from the action and seed)."""
    shots = [dict(s) for s in shots]
    if shots:
        acts = np.array([s["action"] for s in shots], np.float64)
        seeds = np.array([int(s["seed"]) for s in shots], np.uint64)
        for s, launch in zip(shots, realised_launches(acts, seeds, cfg), strict=True):
            s["launch"] = [float(x) for x in launch]
    return GameRecord(
        game="moon_shot",
        config=moon_shot_config_dict(cfg),
        seed=int(seed),
        game_index=int(index),
        agents=list(agents),
        actions=[[float(x) for x in s["action"]] for s in shots],
        seats=[int(s["seat"]) for s in shots],
        moves=[shot_notation(s["action"]) for s in shots],
        rewards=[float(x) for x in rewards],
        length=len(shots),
        digest=digest,
        shots=shots,
        versions=versions(),
        **common,
    )


def moon_shot_from_moves(
    cfg: Any,
    key: int,
    agents: Sequence[str],
    moves: Sequence[tuple[int, Sequence[float]]],
    source: str = "play",
    started: str = "",
) -> GameRecord:
    """The record of a game with noise key ``key`` given by its (seat, action) shots: they
    are shot again through ``MoonShotBatch.shoot`` for seeds, poses, points."""
    from envs.moon_shot.batch import MoonShotBatch
    from envs.moon_shot.state import shot_seeds

    fac = MoonShotBatch(cfg)
    state = fac.new_games(np.array([key], np.uint64))
    shots: list[list[dict[str, Any]]] = [[]]
    for t, (seat, a) in enumerate(moves):
        _check(
            not bool(state.done[0]) and int(state.seat[0]) == int(seat), f"shot {t}: out of turn"
        )
        act = np.asarray([a], np.float64)
        seeds = shot_seeds(state.key, state.turn)
        record_shots(shots, np.array([0]), np.array([seat]), act, seeds, fac.shoot(state, act))
    _check(bool(state.done[0]), "the game is not over after its shots")
    return moon_shot_record(
        cfg, 0, 0, agents, shots[0], state.rewards[0], state_digest(state, 0), source=source,
        started=started or now(), finished=now(), start=f"key={int(key)}",
    )  # fmt: skip


def _bits_equal(a: Any, b: Any) -> bool:
    x, y = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return x.shape == y.shape and x.tobytes() == y.tobytes()


class MoonShotRecords(RecordHooks):
    """Records of shots (module docstring); the "facade" of a replay is the MoonShotConfig."""

    env = "moon_shot_v0"
    trajectories = True

    def facade(self, config: dict[str, Any]) -> Any:
        """The ``MoonShotBatch`` of a record's config."""
        from envs.moon_shot.batch import MoonShotBatch

        return MoonShotBatch(moon_shot_config(config))

    def notation(self, config: dict[str, Any]) -> Callable[[Any], str]:
        """An action vector as text (:func:`shot_notation`)."""
        return shot_notation

    def series_records(self, series: Series, common: dict[str, Any]) -> list[GameRecord]:
        """Records of a ``MoonShotRunner``'s outcomes (their shots)."""
        cfg = series.runner.facade.config
        return [
            moon_shot_record(
                cfg, series.seed, i, series.agents, o.shots, o.rewards, o.digest, **common
            )
            for i, o in zip(series.indices, series.outcomes, strict=True)
        ]

    def from_play(self, played: Played) -> GameRecord:
        """The record of an ``arena play`` game; ``start`` is ``key=K`` (its noise key)."""
        if not played.start.startswith("key="):
            raise ValueError(f"a played game's start must be 'key=K', got {played.start!r}")
        cfg = moon_shot_config(played.config)
        key = int(played.start[4:])
        return moon_shot_from_moves(cfg, key, played.agents, played.moves, started=played.started)

    def replay(self, record: GameRecord, keep_states: bool, frames: bool) -> Replayed:
        """Through the facade's one turn loop (``MoonShotBatch.shoot``: physics, MS-14..MS-17)."""
        from envs.moon_shot.batch import MoonShotBatch
        from envs.moon_shot.state import derive_keys, shot_seeds

        cfg = moon_shot_config(record.config)
        fac = MoonShotBatch(cfg)
        i = int(record.game_index)
        if record.start.startswith("key="):
            key = np.array([int(record.start[4:])], np.uint64)
        else:
            key = derive_keys(int(record.seed), i + 1)[i : i + 1]
        state = fac.new_games(key)
        states = [state.copy()] if keep_states else []
        shots = []
        _check(len(record.shots) == len(record.actions), "actions and shots differ in length")
        for t, (a, shot) in enumerate(zip(record.actions, record.shots, strict=True)):
            _check(not bool(state.done[0]), f"shot {t}: the game was already over")
            _check(int(state.seat[0]) == int(record.seats[t]), f"shot {t}: another seat shoots")
            seed = shot_seeds(state.key, state.turn)
            _check(int(seed[0]) == int(shot["seed"]), f"shot {t}: noise seed differs")
            act = np.asarray([a], np.float64)
            sh = fac.shoot(state, act, record=frames)
            _check(_bits_equal(sh.poses[0], shot["poses"]), f"shot {t}: resting poses differ")
            if "launch" in shot:
                got = realised_launches(act, seed, cfg)[0]
                _check(_bits_equal(got, shot["launch"]), f"shot {t}: realised launch differs")
            _check(int(sh.score.points[0]) == int(shot["points"]), f"shot {t}: points differ")
            shots.append(sh)
            if keep_states:
                states.append(state.copy())
        check_result(record, bool(state.done[0]), state.rewards[0], state, "shots")
        return Replayed(
            states, state.rewards[0].copy(), len(record.actions), facade=cfg, shots=shots
        )
