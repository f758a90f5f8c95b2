"""Deprecated: ``load_batch_game`` is ``envs.registry.make_batch`` (the game registry)."""

from __future__ import annotations

from typing import Any

from envs import registry


def load_batch_game(game: str, players: int | None = None, **params: Any) -> Any:
    """An instance of the batch facade of ``game`` (deprecated alias of the registry's).

    Extra ``params`` go to the facade class of the entry (e.g. a board size).
    """
    if not params:
        return registry.make_batch(game, players)
    spec = registry.get(game)
    if spec.batch is None:
        raise ValueError(f"{game} has no batch facade")
    if players is not None and spec.batch_players_arg is not None:
        params[spec.batch_players_arg] = players
    return registry.load(spec.batch)(**params)
