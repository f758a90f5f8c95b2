"""The game registry: the one list of games, and what every consumer needs of each.

Each :class:`GameSpec` says, as lazy ``"module:attr"`` strings, where a game's pieces
live: its batch facade (``envs/core/batch.py`` protocol), AEC / parallel / Gymnasium
constructors, agents, training defaults and setup, ladder runner, benchmark rows, terminal
play and OpenSpiel game. Nothing is imported until a consumer asks (importing this module
imports neither Numba kernels nor torch). The CLI, ladder, training, evaluation,
benchmarks, OpenSpiel interop and the demo iterate over :func:`names` / :func:`specs`;
no module outside a game's own folder and this one lists the games.

Adding a game is a folder ``envs/<game>/`` plus one entry: call :func:`register` with a
:class:`GameSpec` (at import time of a plugin, or in a test). ``docs/adding_a_game.md``
walks through it, and ``tests/contract/`` says what a new facade is missing.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType, ModuleType
from typing import Any

#: a lazy reference: ``"package.module:attr"`` (or the object itself)
Ref = str | Callable[..., Any]


def load(ref: Ref) -> Any:
    """The object a ``"module:attr"`` reference names (a callable is returned as is)."""
    if not isinstance(ref, str):
        return ref
    module_name, sep, attr = ref.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"bad reference {ref!r}: write 'package.module:attr'")
    module = importlib.import_module(module_name)
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ValueError(f"bad reference {ref!r}: {module_name} has no {attr}") from None
    return obj


@dataclass(frozen=True)
class GameSpec:
    """Everything the layers above ``envs/`` need to know about one game.

    Fields holding ``Ref`` values are ``"module:attr"`` strings (or callables) resolved on
    use. ``batch_players_arg`` names the facade's player-count parameter (None: the
    facade has a fixed ``num_players``). ``train`` holds ``TrainConfig`` field defaults
    that differ from the common ones; ``trainer`` is the per-game training setup
    (``training.selfplay:setup`` for turn-based games by default).
    """

    name: str
    players: tuple[int, ...]
    default_players: int = 2
    title: str = ""
    batch: Ref | None = None
    batch_players_arg: str | None = "num_players"
    continuous: bool = False  # actions in [-1, 1]^k instead of Discrete
    aec: Ref | None = None
    parallel: Ref | None = None
    #: a Gymnasium env of its own; turn-based games with a facade also get the masked
    #: single-agent id that ``envs/core/single_agent.py`` registers (docs/single_agent.md)
    gym: Ref | None = None
    env_players_arg: str | None = "num_players"
    max_len_arg: str | None = None  # the AEC env's game-length option (RLlib --max-len)
    agents: Mapping[str, Ref] = field(default_factory=dict)
    search: bool = True  # the generic MCTS agent (``mcts:N``) plays it
    ladder_agents: tuple[str, ...] = ("random",)
    observations: Mapping[str, Ref] = field(default_factory=dict)  # extra --obs facades
    algos: tuple[str, ...] = ("maskable_ppo",)
    train: Mapping[str, Any] = field(default_factory=dict)
    trainer: Ref = "training.selfplay:setup"
    train_examples: tuple[str, ...] = ()  # shown by ``arena train --help``
    runner: Ref | None = None  # (players) -> Runner; None: TurnBasedRunner over ``batch``
    #: game-record hooks, an ``envs.core.records.RecordHooks`` subclass (usually
    #: ``envs/<game>/record.py``); None: the turn-based default (action ids as notation)
    record: Ref | None = None
    #: ``(record, animate) -> (scenes, animation data or None)`` for ``arena replay``
    #: (usually ``envs/<game>/svg.py:replay_scenes``); None: the game has no replay pictures
    replay_scenes: Ref | None = None
    bench: Ref | None = None  # (batch_sizes, seconds, threads) -> rows for ``arena bench``
    peer_config: str = ""  # the config label of its rows in ``benchmarks.peers``
    peer_facade: Ref | None = None  # () -> facade for the peers harness (default: batch)
    play: Ref | None = None  # ``arena play GAME`` entry point (argv) -> int
    openspiel: str | None = None  # module registering its pyspiel game on import
    demo: Mapping[str, Any] = field(default_factory=dict)
    evaluate: Ref | None = None  # (agent, args) -> exit code: ``training.evaluate``'s own path
    #: deprecated paths: "old.module" -> "new.module", "old.module:attr" -> "new.module:attr"
    aliases: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.name.isidentifier():
            raise ValueError(f"game name {self.name!r} must be a Python identifier")
        if not self.players or min(self.players) < 1:
            raise ValueError(f"{self.name}: players must list positive seat counts")
        if self.default_players not in self.players:
            raise ValueError(
                f"{self.name}: default_players {self.default_players} not in {self.players}"
            )
        for key in ("agents", "observations", "train", "demo", "aliases"):
            object.__setattr__(self, key, MappingProxyType(dict(getattr(self, key))))

    def check_players(self, players: int) -> None:
        """Raise ValueError unless ``players`` seats can play this game."""
        if players not in self.players:
            allowed = ", ".join(map(str, self.players))
            raise ValueError(f"{self.name} is played by {allowed} players, not {players}")


_GAMES: dict[str, GameSpec] = {}


def register(spec: GameSpec, replace: bool = False) -> GameSpec:
    """Add ``spec`` to the registry (``replace=True`` overwrites an entry of that name)."""
    if not isinstance(spec, GameSpec):
        raise TypeError(f"register() takes a GameSpec, got {type(spec).__name__}")
    if spec.name in _GAMES and not replace:
        raise ValueError(f"game {spec.name!r} is already registered (pass replace=True)")
    _GAMES[spec.name] = spec
    _AliasFinder.install()
    return spec


def unregister(name: str) -> None:
    """Remove a game (tests that register a toy game clean up with this)."""
    _GAMES.pop(name, None)


def names() -> tuple[str, ...]:
    """The registered game names, in registration order."""
    return tuple(_GAMES)


def specs() -> Iterator[GameSpec]:
    """Every registered game's entry, in registration order."""
    return iter(tuple(_GAMES.values()))


def get(name: str) -> GameSpec:
    """The entry of ``name`` (ValueError listing the registered games)."""
    try:
        return _GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; choose one of {', '.join(_GAMES)}") from None


def make_batch(name: str, players: int | None = None, obs: str = "planes") -> Any:
    """The batch facade of ``name`` for ``players`` seats (its default when None).

    ``obs`` picks an alternative observation facade listed in the entry's
    ``observations`` (e.g. a lookahead variant); ``"planes"`` is the plain facade.
    """
    spec = get(name)
    n = spec.default_players if players is None else int(players)
    spec.check_players(n)
    if obs != "planes":
        if obs not in spec.observations:
            raise ValueError(f"observation {obs!r} is not available for {name!r}")
        ref: Ref | None = spec.observations[obs]
    else:
        ref = spec.batch
    if ref is None:
        raise ValueError(f"{name} has no batch facade")
    factory = load(ref)
    if spec.batch_players_arg is None:
        game = factory()
    else:
        game = factory(**{spec.batch_players_arg: n})
    if int(game.num_players) != n:
        raise ValueError(f"{name}'s facade has {game.num_players} players, not {n}")
    return game


def make_env(name: str, kind: str = "aec", **kwargs: Any) -> Any:
    """One of the game's envs: ``kind`` is ``aec``, ``parallel`` or ``gym``."""
    spec = get(name)
    if kind not in ("aec", "parallel", "gym"):
        raise ValueError(f"env kind {kind!r}: choose aec, parallel or gym")
    ref = getattr(spec, kind)
    if ref is None:
        raise ValueError(f"{name} has no {kind} env")
    return load(ref)(**kwargs)


# -- deprecated paths ----------------------------------------------------------------------
def _alias(old: str) -> str | None:
    for spec in _GAMES.values():
        if old in spec.aliases:
            return spec.aliases[old]
    return None


def deprecated_attrs(module: str) -> Callable[[str], Any]:
    """A module ``__getattr__`` serving the old names of ``module`` the entries list.

    A game-specific function that moved into its game's folder stays reachable under its
    old ``module:attr`` path without the old module naming the game.
    """

    def __getattr__(name: str) -> Any:
        target = _alias(f"{module}:{name}")
        if target is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        return load(target)

    return __getattr__


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Keeps a game module importable under the path it had before it moved into its
    game's folder: ``import old.path`` gives the module at the entry's new path."""

    _installed = False

    @classmethod
    def install(cls) -> None:
        if not cls._installed:
            sys.meta_path.append(cls())
            cls._installed = True

    @staticmethod
    def _target(fullname: str) -> str | None:
        return _alias(fullname)

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        target = self._target(fullname)
        if target is None:
            return None
        found = importlib.util.find_spec(target)
        origin = found.origin if found is not None else None
        return importlib.machinery.ModuleSpec(fullname, self, origin=origin)

    def create_module(self, spec: Any) -> ModuleType:
        target = self._target(spec.name)
        assert target is not None
        return importlib.import_module(target)

    def exec_module(self, module: ModuleType) -> None:
        """The target module is already executed."""

    def get_code(self, fullname: str) -> Any:
        """The target's code, so that ``python -m old.path`` runs the moved module."""
        target = self._target(fullname)
        assert target is not None
        found = importlib.util.find_spec(target)
        if found is None or found.loader is None:
            raise ImportError(f"{fullname}: its new path {target} is missing")
        return found.loader.get_code(target)  # type: ignore[attr-defined]


# -- the games ----------------------------------------------------------------------------
def _folder(game: str) -> dict[str, Any]:
    """The references every game folder holds under the same names: its AEC module
    ``envs/<game>_v0.py``, ``bench.py:run``, ``svg.py:replay_scenes`` and ``play.py:main``."""
    return {
        "aec": f"envs.{game}_v0:env",
        "bench": f"envs.{game}.bench:run",
        "replay_scenes": f"envs.{game}.svg:replay_scenes",
        "play": f"envs.{game}.play:main",
    }


def _board_folder(game: str) -> dict[str, Any]:
    """A board game's folder: :func:`_folder`, its OpenSpiel game ``openspiel.py``, and its
    heuristic, benchmark and OpenSpiel modules at the paths they had before they moved in."""
    aliases = {
        f"agents.{game}_heuristic": f"envs.{game}.heuristic",
        f"benchmarks.{game}": f"envs.{game}.bench",
        f"envs.openspiel.{game}": f"envs.{game}.openspiel",
    }
    return {**_folder(game), "openspiel": f"envs.{game}.openspiel", "aliases": aliases}


#: the board games' ladder entrants and demo tournament
_BOARD_LADDER = ("random", "heuristic", "mcts:50")
_BOARD_DEMO = {"agents": ("random", "heuristic", "mcts:16"), "games_per_pair": 24}


register(
    GameSpec(
        name="proteus",
        **_board_folder("proteus"),
        title="Proteus",
        players=(2,),
        batch="envs.proteus.batch:ProteusBatch",
        batch_players_arg=None,
        env_players_arg=None,
        max_len_arg="max_turns",
        agents={"heuristic": "envs.proteus.heuristic:ProteusHeuristicAgent"},
        ladder_agents=_BOARD_LADDER,
        algos=("maskable_ppo", "alphazero"),
        observations={"lookahead": "envs.proteus.lookahead:ProteusLookaheadBatch"},
        train_examples=(
            "arena train proteus --obs lookahead --time-limit 30 "
            "--opponents self:0.4,random:0.1,heuristic:0.5",
        ),
        record="envs.proteus.record:ProteusRecords",
        peer_config="2p 3x3",
        demo={**_BOARD_DEMO, "steps": 300_000, "obs": "lookahead"},
    )
)

register(
    GameSpec(
        name="virus_fight",
        **_board_folder("virus_fight"),
        title="Virus Fight",
        players=(2, 3, 4),
        batch="envs.virus_fight.batch:VirusFightBatch",
        max_len_arg="max_rounds",
        agents={"heuristic": "envs.virus_fight.heuristic:VirusFightHeuristicAgent"},
        ladder_agents=_BOARD_LADDER,
        algos=("maskable_ppo", "alphazero"),
        train_examples=(
            "arena train virus_fight --players 3 --opponents self:0.7,random:0.1,heuristic:0.2",
        ),
        record="envs.virus_fight.record:VirusFightRecords",
        peer_config="2p 5x5",
        demo={**_BOARD_DEMO, "steps": 100_000},
    )
)

register(
    GameSpec(
        name="moon_shot",
        **_folder("moon_shot"),
        title="Moon Shot",
        players=tuple(range(1, 9)),  # 1: solo shots (MS-21); 2..8 the turn game (MS-14)
        default_players=2,
        batch="envs.moon_shot.batch:MoonShotBatch",
        continuous=True,
        parallel="envs.moon_shot_v0:parallel_env",
        gym="envs.moon_shot.solo:MoonShotSoloEnv",  # solo shots (MS-21)
        agents={
            "aim": "envs.moon_shot.agents:CalibratedAimAgent",
            "planner": "envs.moon_shot.agents:PlannerAgent",
        },
        search=False,
        ladder_agents=("random", "aim", "planner"),
        algos=("ppo", "sac"),
        train={
            "algo": "ppo",
            "players": 1,  # solo shots (MS-21); 2..8: against pool opponents
            "n_steps": 32,
            "batch_size": 256,
            "n_epochs": 10,
            "net": "64,64",
            "ent_coef": 0.0,
            "n_envs": 16,
            "opponents": "self:0.5,random:0.2,aim:0.3",
            "snapshot_every": 10_000,
            "checkpoint_every": 20_000,
        },
        trainer="training.moon_shot:setup",
        evaluate="training.moon_shot:evaluate",
        train_examples=("arena train moon_shot --steps 300000",),
        runner="envs.moon_shot.runner:MoonShotRunner",
        record="envs.moon_shot.record:MoonShotRecords",
        peer_config="2p",
        aliases={
            "training.evaluate:moon_shot_returns": "training.moon_shot:solo_returns",
            "agents.moon_shot_agents": "envs.moon_shot.agents",
            "benchmarks.moon_shot": "envs.moon_shot.bench",
            "benchmarks.moon_shot_calibrate": "envs.moon_shot.calibrate",
            "training.ladder_moon_shot": "envs.moon_shot.runner",
            # the record helpers moved into the game's folder (envs/moon_shot/record.py)
            **{
                f"envs.core.records:{name}": f"envs.moon_shot.record:{name}"
                for name in (
                    "moon_shot_config",
                    "moon_shot_config_dict",
                    "moon_shot_from_moves",
                    "moon_shot_record",
                    "realised_launches",
                    "record_shots",
                    "shot_notation",
                )
            },
            # the peers harness steps the batch facade itself
            "benchmarks.peers:MoonShotSelfPlay": "envs.moon_shot.batch:MoonShotBatch",
        },
        demo={
            "steps": 20_000,
            "agents": ("random", "aim"),
            "games_per_pair": 24,
            # the ladder plays 2-player games: train against opponents in that game
            "train": {
                "players": 2,
                "algo": "ppo",
                "net": "64,64",
                "n_envs": 16,
                "n_steps": 32,
                "batch_size": 256,
                "n_epochs": 10,
                "ent_coef": 0.0,
                "opponents": "self:0.5,random:0.5",
                "snapshot_every": 5000,
            },
        },
    )
)
