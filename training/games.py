"""Which batch facade a trainable game uses, built lazily from its name.

``make_batch_game(name)`` asks the game registry (``envs/registry.py``), which
imports the facade's module only when asked, so the training CLI's help and errors stay
fast. A ``"package.module:Class"`` spec builds any other class that follows the protocol
of ``envs/core/batch.py`` (tests use a tic-tac-toe facade this way).
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from envs import registry


def __getattr__(name: str) -> Any:
    """The old tables, computed from the game registry (deprecated)."""
    if name == "BOARD_GAMES":
        return tuple(s.name for s in registry.specs() if not s.continuous)
    if name == "CONTINUOUS_GAMES":
        return tuple(s.name for s in registry.specs() if s.continuous)
    if name == "PLAYERS":
        return {s.name: s.players for s in registry.specs()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def construct(cls: Any, players: int) -> Any:
    """An instance of facade class ``cls`` for ``players`` seats, whatever it calls them."""
    params = inspect.signature(cls).parameters
    for key in ("num_players", "players", "n_players"):
        if key in params:
            return cls(**{key: players})
    if players != 2:
        raise ValueError(f"{cls.__name__} takes no player count; only 2 players supported")
    return cls()


_construct = construct  # deprecated alias


def make_batch_game(name: str, players: int = 2, obs: str = "planes") -> Any:
    """The ``BatchGame`` facade of ``name`` for ``players`` seats (ValueError if unsupported).

    ``obs`` other than ``"planes"`` gives an observation variant the game's registry entry
    lists (e.g. ``lookahead``: planes plus per-action lookahead flags).
    """
    if ":" in name:
        if obs != "planes":
            raise ValueError(f"observation {obs!r} is not available for {name!r}")
        module_name, _, attr = name.partition(":")
        try:
            cls = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"cannot load game facade {name!r}: {exc}") from None
        game = construct(cls, players)
        if int(game.num_players) != players:
            raise ValueError(f"{name} has {game.num_players} players, not {players}")
        return game
    spec = registry.get(name)
    if spec.continuous:
        raise ValueError(f"{name} has continuous actions: it trains through its own trainer")
    try:
        return registry.make_batch(name, players, obs=obs)
    except ModuleNotFoundError as exc:
        raise ValueError(f"{name} has no batch facade yet: {exc}") from None
