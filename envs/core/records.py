"""Game records: one JSON object per finished game, and bit-exact replay through the kernels.

A record holds what is needed to play a game again and to check that the replay is the
same game: the game and its static configuration, the series seed and the game index
(game ``i`` of a series starts from ``init(i + 1, seed)``'s game ``i``, as in the ladder),
the agent per seat, the move list (action ids and the rules' notation; a game with its
own turn loop adds per-move details such as noise seeds and resting poses in ``shots``),
the result, timestamps, and the package and library versions. Files are JSON lines
(``.jsonl``): one record per line.

What differs between games is a :class:`RecordHooks` object that the game's registry entry
names (``GameSpec.record``, ``envs/<game>/record.py``): the stored env name, the
notation, position texts, and for a game that is not a turn-based batch facade its own
record building and replay. A game without one gets :class:`RecordHooks` itself: action
ids as notation, the facade built from the entry's ``batch`` reference.

:func:`replay` plays a record again and raises :class:`ReplayMismatch` at the first
difference: an illegal move, another seat to move, other rewards, or another final-state
digest (and whatever else the game's hooks compare). :func:`replay_states` yields the
position after every move, which the replay page draws (docs/replay.md).
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
import platform
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from envs import registry

FORMAT = "tabletop-arena-record"
VERSION = 1


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
    actions: list[Any]  # int ids (turn-based games) or action vectors (continuous actions)
    seats: list[int]  # the seat that made each move
    moves: list[str]  # notation of each move
    rewards: list[float]
    ranks: list[int] = field(default_factory=list)
    length: int = 0
    digest: str = ""  # blake2b of the final state's arrays
    shots: list[dict[str, Any]] = field(default_factory=list)  # per-move details (own loops)
    outcome: str = ""
    source: str = ""  # "ladder", "play", "evaluate", ...
    start: str = ""  # position text the game started from ("" = the rules' start);
    # "key=K": the rules' start with RNG key K (tie-breaks, shot noise) when the
    # key is not derived from (seed, index), as in ``arena play``
    started: str = ""
    finished: str = ""
    versions: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> str:
        """One line of JSON (floats keep their exact value: Python's repr round-trips)."""
        d = {"format": FORMAT, "version": VERSION, **dataclasses.asdict(self)}
        d["env"] = hooks(self.game).env_name
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


def _check(cond: bool, what: str) -> None:
    if not cond:
        raise ReplayMismatch(what)


def _legal_step(game: Any, state: Any, t: int, action: Any) -> np.ndarray:
    """Play move ``t`` of a batch-of-one game (ReplayMismatch if illegal); its rewards."""
    a = int(action)
    mask = np.asarray(game.legal_mask(state))[0]
    _check(0 <= a < len(mask) and bool(mask[a]), f"move {t}: {action} is illegal")
    return np.asarray(game.step(state, np.array([a], np.int64))[0], np.float64)[0]


def check_result(record: GameRecord, over: bool, rewards: Any, state: Any, what: str) -> None:
    """How every replay ends: the game is over after its ``what`` (moves, shots), with the
    record's rewards and (when stored) its final-state digest; ReplayMismatch otherwise."""
    _check(over, f"the game is not over after its {what}")
    got = np.asarray(rewards, np.float64)
    _check(
        np.array_equal(got, np.asarray(record.rewards, np.float64)),
        f"rewards {got.tolist()} differ from the record's {record.rewards}",
    )
    if record.digest:
        _check(state_digest(state, 0) == record.digest, "final state differs (digest)")


@dataclass
class Replayed:
    """What replaying a record gives: the states after each move, and the summary."""

    states: list[Any]  # batch-of-one states: the start, then after each move
    rewards: np.ndarray  # (P,) summed rewards
    length: int
    facade: Any = None  # the batch facade (or the static config the game's hooks replay on)
    shots: list[Any] = field(default_factory=list)  # per-move results of a game's own loop


@dataclass
class Series:
    """A runner's finished games as the hooks' ``series_records`` receives them: games
    ``indices`` of the series ``seed``, ``agents`` per seat, one outcome per game."""

    runner: Any
    seed: int
    indices: Sequence[int]
    agents: Sequence[str]
    outcomes: Sequence[Any]  # envs.core.match.GameOutcome


@dataclass
class Played:
    """A finished ``arena play`` game as the hooks' ``from_play`` receives it."""

    config: dict[str, Any]
    agents: Sequence[str]
    moves: Sequence[tuple[int, Any]]  # (seat, action) per move
    start: str = ""  # a position text, or ``key=K`` for a game with its own turn loop
    started: str = ""  # when it started (ISO time); "" for now


class RecordHooks:
    """How one game's records are built and replayed; the default serves any turn-based
    game on a batch facade (``envs/core/batch.py``). A game overrides what differs in
    ``envs/<game>/record.py`` and names the class in its registry entry (``record``)."""

    #: the PettingZoo env name stored with the record ("": the game's name)
    env: str = ""
    #: replay asks for in-flight frames (physics trajectories) when drawing
    trajectories: bool = False

    def __init__(self, game: str) -> None:
        self.game = game

    @property
    def env_name(self) -> str:
        """The ``env`` field of this game's records."""
        return self.env or self.game

    # -- the game's pieces -------------------------------------------------------------
    def facade(self, config: dict[str, Any]) -> Any:
        """The batch facade a record was played on, from the registry entry's ``batch``
        (the config's ``players`` goes to its player-count argument; other keys the
        factory does not take are ignored)."""
        spec = registry.get(self.game)
        if spec.batch is None:
            raise ValueError(f"no batch facade for game {self.game!r}")
        factory = registry.load(spec.batch)
        kw = {k: v for k, v in config.items() if k != "players"}
        try:
            params = inspect.signature(factory).parameters.values()
        except (TypeError, ValueError):
            params = None
        if params is not None and not any(p.kind is p.VAR_KEYWORD for p in params):
            names = {p.name for p in params}
            kw = {k: v for k, v in kw.items() if k in names}
        if spec.batch_players_arg is not None:
            kw[spec.batch_players_arg] = int(config.get("players", spec.default_players))
        return factory(**kw)

    def notation(self, config: dict[str, Any]) -> Callable[[Any], str]:
        """``action -> str`` in the rules' notation (here: the action id)."""
        return lambda a: str(int(a))

    def position(self, facade: Any, text: str) -> Any:
        """The batch-of-one state of a position text (a game with position texts says)."""
        raise ValueError(f"game {self.game!r} has no position texts; cannot start from {text!r}")

    def start_state(self, facade: Any, text: str) -> Any:
        """The state a record's ``start`` names: ``key=K`` is the rules' start with RNG key
        K, anything else a position text."""
        if text.startswith("key="):
            state = facade.init(1, 0)
            state.rng[:] = np.uint64(int(text[4:]))
            return state
        return self.position(facade, text)

    # -- records -----------------------------------------------------------------------
    def from_outcomes(
        self,
        runner: Any,
        seed: int,
        indices: Sequence[int],
        agents: Sequence[str],
        outcomes: Sequence[Any],
        **common: Any,
    ) -> list[GameRecord]:
        """Records of a runner's outcomes (``envs.core.match.GameOutcome``); what a game
        stores per move is its :meth:`series_records`."""
        return self.series_records(Series(runner, int(seed), indices, agents, outcomes), common)

    def series_records(self, series: Series, common: dict[str, Any]) -> list[GameRecord]:
        """Turn-based games: each outcome's action and seat per move (``common``: the
        fields every record of the series shares, e.g. ``source`` and times)."""
        outs = series.outcomes
        return board_records(
            self.game, series.runner.game, series.seed, series.indices, series.agents,
            [o.moves for o in outs], [o.seats for o in outs], [o.rewards for o in outs],
            [o.digest for o in outs], **common,
        )  # fmt: skip

    def from_play(self, played: Played) -> GameRecord:
        """The record of an ``arena play`` game: its moves played through the facade."""
        moves = played.moves
        return from_moves(
            self.game, played.config, played.agents, [a for _, a in moves], [s for s, _ in moves],
            start=played.start, started=played.started,
        )  # fmt: skip

    def replay(self, record: GameRecord, keep_states: bool, frames: bool) -> Replayed:
        """Play ``record`` through the facade; ReplayMismatch at the first difference."""
        game = self.facade(record.config)
        i = int(record.game_index)
        state = game.take(game.init(i + 1, int(record.seed)), np.array([i]))
        if record.start:
            state = self.start_state(game, record.start)
        total = np.zeros(int(game.num_players))
        states = [game.copy(state)] if keep_states else []
        _check(len(record.actions) == len(record.seats), "actions and seats differ in length")
        for t, (a, seat) in enumerate(zip(record.actions, record.seats, strict=True)):
            cur = int(game.current_player(state)[0])
            _check(cur == int(seat), f"move {t}: seat {cur} to move, the record says {seat}")
            total += _legal_step(game, state, t, a)
            if keep_states:
                states.append(game.copy(state))
        over = bool(np.asarray(game.terminated(state))[0])
        check_result(record, over, total, state, "moves")
        return Replayed(states, total, len(record.actions), facade=game)


def hooks(game: str) -> RecordHooks:
    """The record hooks of ``game``: its registry entry's ``record``, else the turn-based
    default (also for a game played on a runner of its own without an entry: its records
    are written; replaying them needs the entry's facade)."""
    spec = registry.get(game) if game in registry.names() else None
    if spec is None or spec.record is None:
        return RecordHooks(game)
    return registry.load(spec.record)(game)


def make_facade(game: str, config: dict[str, Any]) -> Any:
    """The batch facade a record of ``game`` was played on."""
    return hooks(game).facade(config)


def notation(game: str, config: dict[str, Any]) -> Callable[[Any], str]:
    """``action -> str`` in the rules' notation (``str`` of the id for games without one)."""
    return hooks(game).notation(config)


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


# ----------------------------------------------------------------------------- replay


def replay(record: GameRecord, keep_states: bool = False, frames: bool = False) -> Replayed:
    """Play ``record`` again through the kernels; ReplayMismatch at the first difference.

    ``keep_states`` keeps the state after every move (for drawing); ``frames`` asks a
    game with physics for trajectories too (the replay page animates them).
    """
    return hooks(record.game).replay(record, keep_states, frames)


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
    """The record of a turn-based game given by its moves (``arena play``): the moves are
    played through the facade for the result and digest (ReplayMismatch if one is illegal)."""
    h = hooks(game_name)
    game = h.facade(config)
    state = game.init(1, int(seed)) if not start else h.start_state(game, start)
    total = np.zeros(int(game.num_players))
    for t, a in enumerate(actions):
        total += _legal_step(game, state, t, a)
    _check(bool(np.asarray(game.terminated(state))[0]), "the game is not over after its moves")
    rec = board_records(
        game_name, game, seed, [0], agents, [list(actions)], [list(seats)], [total.tolist()],
        [state_digest(state, 0)], source=source, started=started or now(), finished=now(),
        start=start,
    )[0]  # fmt: skip
    return rec


def save_play_record(
    path: str | Path | None,
    game_name: str,
    config: dict[str, Any],
    agents: Sequence[str],
    moves: Sequence[tuple[int, Any]],
    start: str = "",
    started: str = "",
) -> str:
    """Append the record of a finished ``arena play`` game ((seat, action) per move; a game
    with its own turn loop may need ``start`` to be ``key=K``) to ``path`` and say where
    it went (the line to print); "" when ``path`` is empty."""
    if not path:
        return ""
    try:
        rec = hooks(game_name).from_play(Played(config, agents, moves, start, started))
    except (ReplayMismatch, ValueError) as exc:
        return f"game not recorded: {exc}"
    p = write_records(path, [rec])
    n = sum(1 for line in p.read_text(encoding="utf-8").splitlines() if line.strip()) - 1
    return f"game record: {p} (watch it: arena replay {p} {n})"


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
    """Records of turn-based games played by a runner (one per index)."""
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


_deprecated = registry.deprecated_attrs(__name__)


def __getattr__(name: str) -> Any:
    """Old names: a game's record helpers now in ``envs/<game>/record.py`` (the registry's
    aliases), and the game lists ``BOARD_GAMES`` / ``ENV_NAMES`` now derived from it."""
    if name == "BOARD_GAMES":
        return tuple(s.name for s in registry.specs() if not s.continuous)
    if name == "ENV_NAMES":
        return {g: hooks(g).env_name for g in registry.names()}
    return _deprecated(name)
