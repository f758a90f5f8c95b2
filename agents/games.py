"""Find a game's batch facade (envs/<game>/batch.py) without hard-coding its class name."""

from __future__ import annotations

import importlib
import inspect
from typing import Any


def load_batch_game(game: str, players: int | None = None, **params: Any) -> Any:
    """An instance of the BatchGame facade of ``game`` (``num_players=players`` if given)."""
    module = importlib.import_module(f"envs.{game}.batch")
    for _, cls in inspect.getmembers(module, inspect.isclass):
        if (
            cls.__module__ == module.__name__
            and getattr(cls, "name", None) == game
            and callable(getattr(cls, "legal_mask", None))
        ):
            accepts = "num_players" in inspect.signature(cls).parameters
            if players is not None and accepts:
                params["num_players"] = players
            fixed = getattr(cls, "num_players", players)
            if players is not None and not accepts and players != fixed:
                raise ValueError(f"{game} is played by {fixed} players, not {players}")
            return cls(**params)
    raise ValueError(f"envs.{game}.batch has no BatchGame facade class named {game!r}")
