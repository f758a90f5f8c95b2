"""Game records: one JSON object per finished game, and bit-exact replay through the kernels.

A record holds what is needed to play a game again and to check that the replay is the
same game: the game and its static configuration, the series seed and the game index
(game ``i`` of a series starts from ``init(i + 1, seed)``'s game ``i``, as in the ladder),
the agent per seat, the move list (action ids and the rules' notation: PR-n / VF-n
notation for the board games; for Moon Shot the MS-5 actions with their noise seeds,
realised MS-6/MS-7 launches, resting poses and points), the result, timestamps, and the
package and library versions. Files are JSON lines (``.jsonl``): one record per line.

:func:`replay` plays a record through the game's batch facade (board games) or the
Moon Shot game flow and raises :class:`ReplayMismatch` at the first difference: an
illegal move, another seat to move, other rewards, other shot seeds, launches or poses
(compared as float64 bits), or another final-state digest. :func:`replay_states` yields
the position after every move, which the replay page draws (docs/replay.md).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import platform
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = "tabletop-arena-record"
VERSION = 1
BOARD_GAMES = ("proteus", "virus_fight")
ENV_NAMES = {"proteus": "proteus_v0", "virus_fight": "virus_fight_v0", "moon_shot": "moon_shot_v0"}


class ReplayMismatch(AssertionError):
    """A record does not replay to the game it describes."""


@dataclass
class GameRecord:
    """One finished game (see the module docstring for the meaning of each field)."""

    game: str
    config: dict[str, Any]
    seed: int
    game_index: int
    agents: list[str]
    actions: list[Any]  # int ids (board games) or [a0, a1, a2, a3] (Moon Shot)
    seats: list[int]  # the seat that made each move
    moves: list[str]  # notation of each move
    rewards: list[float]
    ranks: list[int] = field(default_factory=list)
    length: int = 0
    digest: str = ""  # blake2b of the final state's arrays (board games)
    shots: list[dict[str, Any]] = field(default_factory=list)  # Moon Shot only
    outcome: str = ""
    source: str = ""  # "ladder", "play", "evaluate", ...
    start: str = ""  # position text the game started from ("" = the rules' start);
    # "key=K": the rules' start with RNG key K (VF-12 tie-breaks, Moon Shot noise) when the
    # key is not derived from (seed, index), as in ``arena play``
    started: str = ""
    finished: str = ""
    versions: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> str:
        """One line of JSON (floats keep their exact value: Python's repr round-trips)."""
        d = {"format": FORMAT, "version": VERSION, **dataclasses.asdict(self)}
        d["env"] = ENV_NAMES.get(self.game, self.game)
        return json.dumps(d, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        """Parse one record; ValueError naming the problem for anything else."""
        try:
            d = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not a game record (bad JSON: {exc})") from None
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise ValueError(f"not a game record: expected format {FORMAT!r}")
        if int(d.get("version", 0)) > VERSION:
            raise ValueError(
                f"game record version {d['version']} is newer than this package reads ({VERSION})"
            )
        names = {f.name for f in dataclasses.fields(cls)}
        missing = [k for k in ("game", "seed", "game_index", "agents", "actions") if k not in d]
        if missing:
            raise ValueError(f"game record lacks {', '.join(missing)}")
        return cls(**{k: v for k, v in d.items() if k in names})


def versions() -> dict[str, str]:
    """Package and library versions stored with every record."""
    from importlib import metadata

    out = {"python": platform.python_version()}
    for dist in ("tabletop-arena", "numpy", "numba"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "unknown"
    return out


def now() -> str:
    """UTC timestamp, ISO 8601 with seconds."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def write_records(path: str | Path, records: Iterable[GameRecord], append: bool = True) -> Path:
    """Write records as JSON lines (appending by default); returns the path."""
    p = Path(path)
    if p.parent and not p.parent.exists():
        p.parent.mkdir(parents=True, exist_ok=True)
    with p.open("a" if append else "w", encoding="utf-8") as f:
        for r in records:
            f.write(r.to_json() + "\n")
    return p


def read_records(path: str | Path) -> list[GameRecord]:
    """Every record of a JSON-lines file; ValueError naming the line of a bad one."""
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"no game-record file {p}")
    out = []
    for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                out.append(GameRecord.from_json(line))
            except ValueError as exc:
                raise ValueError(f"{p}:{n}: {exc}") from None
    return out


# ----------------------------------------------------------------------------- configuration


def facade_config(game: Any) -> dict[str, Any]:
    """The static configuration of a batch facade, as stored in its records."""
    out: dict[str, Any] = {"players": int(game.num_players)}
    for key in ("board_size", "max_rounds", "max_turns"):
        if hasattr(game, key):
            out[key] = int(getattr(game, key))
    return out


def make_facade(game: str, config: dict[str, Any]) -> Any:
    """The batch facade a record of a board game was played on."""
    if game == "proteus":
        from envs.proteus.batch import ProteusBatch

        return ProteusBatch(**{k: v for k, v in config.items() if k == "max_turns"})
    if game == "virus_fight":
        from envs.virus_fight.batch import VirusFightBatch

        keys = ("board_size", "max_rounds")
        return VirusFightBatch(
            num_players=int(config.get("players", 2)),
            **{k: v for k, v in config.items() if k in keys},
        )
    raise ValueError(f"no batch facade for game {game!r}; records replay {', '.join(ENV_NAMES)}")


def moon_shot_config(config: dict[str, Any]) -> Any:
    """The ``MoonShotConfig`` of a Moon Shot record (default physics unless stored)."""
    from envs.moon_shot.batch import MoonShotConfig
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


def notation(game: str, config: dict[str, Any]) -> Any:
    """``action -> str`` in the rules' notation (``str`` of the id for other games)."""
    if game == "proteus":
        from envs.proteus.notation import action_to_str

        return action_to_str
    if game == "virus_fight":
        from envs.virus_fight import notation as vn
        from envs.virus_fight.batch import DEFAULT_BOARD

        n = int(config.get("board_size", DEFAULT_BOARD[int(config.get("players", 2))]))
        return lambda a: vn.action_to_str(int(a), n)
    return lambda a: str(int(a))


def shot_notation(action: Sequence[float]) -> str:
    """A Moon Shot action (MS-5, each entry in [-1, 1]) as text."""
    return "shot " + " ".join(f"{k}{float(v):+.2f}" for k, v in zip("tvzo", action, strict=True))


# ----------------------------------------------------------------------------- digests


def _arrays(state: Any) -> list[tuple[str, np.ndarray]]:
    if isinstance(state, np.ndarray):
        return [("state", state)]
    if isinstance(state, tuple):
        return [(str(k), a) for k, a in enumerate(state) if isinstance(a, np.ndarray)]
    if dataclasses.is_dataclass(state):
        items = [(f.name, getattr(state, f.name)) for f in dataclasses.fields(state)]
    else:
        items = sorted(vars(state).items())
    return [(k, v) for k, v in items if isinstance(v, np.ndarray)]


def state_digest(state: Any, index: int) -> str:
    """blake2b (16 bytes, hex) of game ``index``'s row of every array of a batch state but
    the random movers' key (``rng``): the rules never draw from it, random agents do."""
    h = hashlib.blake2b(digest_size=16)
    for name, a in _arrays(state):
        if name == "rng":
            continue
        row = np.ascontiguousarray(a[index])
        h.update(name.encode())
        h.update(str(row.dtype).encode())
        h.update(row.tobytes())
    return h.hexdigest()


def split_trace(
    trace: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]], n: int
) -> tuple[list[list[int]], list[list[int]]]:
    """Per-game (actions, seats) lists from a runner's per-step (games, actions, seats)."""
    actions: list[list[int]] = [[] for _ in range(n)]
    seats: list[list[int]] = [[] for _ in range(n)]
    for games, acts, who in trace:
        for g, a, s in zip(games.tolist(), acts.tolist(), who.tolist(), strict=True):
            actions[g].append(int(a))
            seats[g].append(int(s))
    return actions, seats


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
    """Append one turn of Moon Shot shots (``Shots`` of games ``games``, in that order) to
    the per-game lists of a runner."""
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


# ----------------------------------------------------------------------------- replay


@dataclass
class Replayed:
    """What replaying a record gives: the states after each move, and the summary."""

    states: list[Any]  # batch-of-one states: the start, then after each move
    rewards: np.ndarray  # (P,) summed rewards
    length: int
    facade: Any = None  # the batch facade (board games) or MoonShotConfig
    shots: list[Any] = field(default_factory=list)  # Moon Shot: run_shots result per shot


def _check(cond: bool, what: str) -> None:
    if not cond:
        raise ReplayMismatch(what)


def replay(record: GameRecord, keep_states: bool = False, frames: bool = False) -> Replayed:
    """Play ``record`` again through the kernels; ReplayMismatch at the first difference.

    ``keep_states`` keeps the state after every move (for drawing); ``frames`` asks the
    Moon Shot physics for trajectories too (the replay page animates them).
    """
    if record.game == "moon_shot":
        return _replay_moon_shot(record, keep_states, frames)
    game = make_facade(record.game, record.config)
    i = int(record.game_index)
    state = game.take(game.init(i + 1, int(record.seed)), np.array([i]))
    if record.start:
        state = _from_text(record.game, game, record.start)
    p = int(game.num_players)
    total = np.zeros(p)
    states = [game.copy(state)] if keep_states else []
    _check(len(record.actions) == len(record.seats), "actions and seats differ in length")
    for t, (a, seat) in enumerate(zip(record.actions, record.seats, strict=True)):
        cur = int(game.current_player(state)[0])
        _check(cur == int(seat), f"move {t}: seat {cur} to move, the record says {seat}")
        mask = np.asarray(game.legal_mask(state))[0]
        _check(0 <= int(a) < len(mask) and bool(mask[int(a)]), f"move {t}: {a} is illegal")
        rewards, _ = game.step(state, np.array([int(a)], np.int64))
        total += np.asarray(rewards, np.float64)[0]
        if keep_states:
            states.append(game.copy(state))
    _check(bool(np.asarray(game.terminated(state))[0]), "the game is not over after its moves")
    _check(
        np.array_equal(total, np.asarray(record.rewards, np.float64)),
        f"rewards {total.tolist()} differ from the record's {record.rewards}",
    )
    if record.digest:
        _check(state_digest(state, 0) == record.digest, "final state differs (digest)")
    return Replayed(states, total, len(record.actions), facade=game)


def _from_text(game_name: str, game: Any, text: str) -> Any:
    if text.startswith("key="):  # the rules' start with this RNG key
        state = game.init(1, 0)
        state.rng[:] = np.uint64(int(text[4:]))
        return state
    if game_name == "proteus":
        from envs.proteus.batch import state_from_text

        return state_from_text(text)
    from envs.virus_fight.position import from_text

    return from_text(game, text)


def from_moves(
    game_name: str,
    config: dict[str, Any],
    agents: Sequence[str],
    actions: Sequence[int],
    seats: Sequence[int],
    seed: int = 0,
    start: str = "",
    source: str = "play",
    started: str = "",
) -> GameRecord:
    """The record of a board game given by its moves (``arena play``): the moves are played
    through the facade for the result and digest (ReplayMismatch if one is illegal)."""
    game = make_facade(game_name, config)
    state = game.init(1, int(seed)) if not start else _from_text(game_name, game, start)
    total = np.zeros(int(game.num_players))
    for t, a in enumerate(actions):
        mask = np.asarray(game.legal_mask(state))[0]
        _check(0 <= int(a) < len(mask) and bool(mask[int(a)]), f"move {t}: {a} is illegal")
        total += np.asarray(game.step(state, np.array([int(a)], np.int64))[0], np.float64)[0]
    _check(bool(np.asarray(game.terminated(state))[0]), "the game is not over after its moves")
    rec = board_records(
        game_name, game, seed, [0], agents, [list(actions)], [list(seats)], [total.tolist()],
        [state_digest(state, 0)], source=source, started=started or now(), finished=now(),
        start=start,
    )[0]  # fmt: skip
    return rec


def moon_shot_from_moves(
    cfg: Any,
    key: int,
    agents: Sequence[str],
    moves: Sequence[tuple[int, Sequence[float]]],
    source: str = "play",
    started: str = "",
) -> GameRecord:
    """The record of a Moon Shot game with noise key ``key`` given by its (seat, action)
    shots: they are shot again through ``MoonShotBatch.shoot`` for seeds, poses, points."""
    from envs.moon_shot import game as G
    from envs.moon_shot.batch import MoonShotBatch

    fac = MoonShotBatch(cfg)
    state = fac.new_games(np.array([key], np.uint64))
    shots: list[list[dict[str, Any]]] = [[]]
    for t, (seat, a) in enumerate(moves):
        _check(
            not bool(state.done[0]) and int(state.seat[0]) == int(seat), f"shot {t}: out of turn"
        )
        act = np.asarray([a], np.float64)
        seeds = G.shot_seeds(state.key, state.turn)
        record_shots(shots, np.array([0]), np.array([seat]), act, seeds, fac.shoot(state, act))
    _check(bool(state.done[0]), "the game is not over after its shots")
    return moon_shot_record(
        cfg, 0, 0, agents, shots[0], state.rewards[0], state_digest(state, 0), source=source,
        started=started or now(), finished=now(), start=f"key={int(key)}",
    )  # fmt: skip


def save_play_record(
    path: str | Path | None,
    game_name: str,
    config: dict[str, Any],
    agents: Sequence[str],
    moves: Sequence[tuple[int, Any]],
    start: str = "",
    started: str = "",
) -> str:
    """Append the record of a finished ``arena play`` game ((seat, action) per move; for
    Moon Shot the action is the MS-5 vector and ``start`` is ``key=K``) to
    ``path`` and say where it went (the line to print); "" when ``path`` is empty."""
    if not path:
        return ""
    try:
        if game_name == "moon_shot":
            cfg = moon_shot_config(config)
            rec = moon_shot_from_moves(cfg, int(start[4:]), agents, moves, started=started)
        else:
            rec = from_moves(
                game_name, config, agents, [a for _, a in moves], [s for s, _ in moves],
                start=start, started=started,
            )  # fmt: skip
    except (ReplayMismatch, ValueError) as exc:
        return f"game not recorded: {exc}"
    p = write_records(path, [rec])
    n = sum(1 for line in p.read_text(encoding="utf-8").splitlines() if line.strip()) - 1
    return f"game record: {p} (watch it: arena replay {p} {n})"


def _bits_equal(a: Any, b: Any) -> bool:
    x, y = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return x.shape == y.shape and x.tobytes() == y.tobytes()


def _replay_moon_shot(record: GameRecord, keep_states: bool, frames: bool) -> Replayed:
    """Through the facade's one turn loop (``MoonShotBatch.shoot``: physics, MS-14..MS-17)."""
    from envs.moon_shot import game as G
    from envs.moon_shot.batch import MoonShotBatch

    cfg = moon_shot_config(record.config)
    fac = MoonShotBatch(cfg)
    i = int(record.game_index)
    if record.start.startswith("key="):
        key = np.array([int(record.start[4:])], np.uint64)
    else:
        key = G.derive_keys(int(record.seed), i + 1)[i : i + 1]
    state = fac.new_games(key)
    states = [state.copy()] if keep_states else []
    shots = []
    _check(len(record.shots) == len(record.actions), "actions and shots differ in length")
    for t, (a, shot) in enumerate(zip(record.actions, record.shots, strict=True)):
        _check(not bool(state.done[0]), f"shot {t}: the game was already over")
        _check(int(state.seat[0]) == int(record.seats[t]), f"shot {t}: another seat shoots")
        seed = G.shot_seeds(state.key, state.turn)
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
    _check(bool(state.done[0]), "the game is not over after its shots")
    _check(
        np.array_equal(state.rewards[0], np.asarray(record.rewards, np.float64)),
        f"rewards {state.rewards[0].tolist()} differ from the record's {record.rewards}",
    )
    if record.digest:
        _check(state_digest(state, 0) == record.digest, "final state differs (digest)")
    return Replayed(states, state.rewards[0].copy(), len(record.actions), facade=cfg, shots=shots)


def replay_states(record: GameRecord) -> Iterator[Any]:
    """The position before the first move, then after each move (batch-of-one states)."""
    yield from replay(record, keep_states=True).states


# ----------------------------------------------------------------------------- building


def board_records(
    game_name: str,
    game: Any,
    seed: int,
    indices: Sequence[int],
    agents: Sequence[str],
    actions: Sequence[Sequence[int]],
    seats: Sequence[Sequence[int]],
    rewards: Sequence[Sequence[float]],
    digests: Sequence[str],
    **common: Any,
) -> list[GameRecord]:
    """Records of board games played by a runner (one per index)."""
    cfg = facade_config(game)
    to_str = notation(game_name, cfg)
    ver = versions()
    return [
        GameRecord(
            game=game_name,
            config=dict(cfg),
            seed=int(seed),
            game_index=int(i),
            agents=list(agents),
            actions=[int(a) for a in actions[k]],
            seats=[int(s) for s in seats[k]],
            moves=[to_str(a) for a in actions[k]],
            rewards=[float(x) for x in rewards[k]],
            length=len(actions[k]),
            digest=digests[k],
            versions=ver,
            **common,
        )
        for k, i in enumerate(indices)
    ]


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
    """A Moon Shot record from its shots (dicts with seat, action, seed, poses, points,
    kind); the realised launches are added here (MS-6/MS-7, from the action and seed)."""
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
