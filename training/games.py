"""Which batch facade each trainable game uses, built lazily from its name.

``make_batch_game("proteus")`` imports ``envs.proteus.batch`` only when asked, so the
training CLI's help and errors stay fast. A ``"package.module:Class"`` spec builds any
other class that follows the protocol of ``envs/core/batch.py`` (tests use a tic-tac-toe
facade this way).
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

BOARD_GAMES = ("proteus", "virus_fight")
CONTINUOUS_GAMES = ("moon_shot",)
PLAYERS = {"proteus": (2,), "virus_fight": (2, 3, 4), "moon_shot": tuple(range(1, 9))}


def _construct(cls: Any, players: int) -> Any:
    params = inspect.signature(cls).parameters
    for key in ("num_players", "players", "n_players"):
        if key in params:
            return cls(**{key: players})
    if players != 2:
        raise ValueError(f"{cls.__name__} takes no player count; only 2 players supported")
    return cls()


def make_batch_game(name: str, players: int = 2, obs: str = "planes") -> Any:
    """The ``BatchGame`` facade of ``name`` for ``players`` seats (ValueError if unsupported).

    ``obs="lookahead"`` (Proteus only) gives the facade whose observations end in the
    per-action lookahead flags of ``envs.proteus.lookahead``.
    """
    if obs != "planes":
        if obs != "lookahead" or name != "proteus":
            raise ValueError(f"observation {obs!r} is not available for {name!r}")
        if players != 2:
            raise ValueError(f"proteus is played by 2 players, not {players}")
        from envs.proteus.lookahead import ProteusLookaheadBatch

        return ProteusLookaheadBatch()
    if ":" in name:
        module_name, _, attr = name.partition(":")
        try:
            cls = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"cannot load game facade {name!r}: {exc}") from None
        game = _construct(cls, players)
        if int(game.num_players) != players:
            raise ValueError(f"{name} has {game.num_players} players, not {players}")
        return game
    if name not in BOARD_GAMES:
        raise ValueError(
            f"unknown turn-based game {name!r}; choose one of {', '.join(BOARD_GAMES)}"
        )
    if players not in PLAYERS[name]:
        allowed = ", ".join(map(str, PLAYERS[name]))
        raise ValueError(f"{name} is played by {allowed} players, not {players}")
    from agents.games import load_batch_game

    try:
        game = load_batch_game(name, players if len(PLAYERS[name]) > 1 else None)
    except ModuleNotFoundError as exc:
        raise ValueError(f"{name} has no batch facade yet (envs/{name}/batch.py): {exc}") from None
    if int(game.num_players) != players:
        raise ValueError(f"{name}'s facade has {game.num_players} players, not {players}")
    return game
