"""OpenSpiel interop: our games registered as pyspiel Python games.

``import envs.openspiel`` imports the OpenSpiel module of every registered game that has
one (its registry entry's ``openspiel``, e.g. ``envs/<game>/openspiel.py``), which
registers ``python_<game>`` with pyspiel (requires the ``openspiel`` extra); then
``pyspiel.load_game("python_<game>")`` (with the game's parameters, e.g.
``python_<game>(players=3)``) works, and OpenSpiel's algorithms (MCTS, AlphaZero,
IS-MCTS, ...) run on them. State transitions go through the games' own Numba kernels at
batch size 1 (no third copy of the rules). See ``docs/openspiel.md``. Importing ``envs``
does not import this package.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from envs import registry

#: game name -> its OpenSpiel module (imported, so its pyspiel game is registered)
GAMES: dict[str, ModuleType] = {
    spec.name: importlib.import_module(spec.openspiel)
    for spec in registry.specs()
    if spec.openspiel is not None
}


def short_name(game: str) -> str:
    """The pyspiel short name of registered game ``game``."""
    if game not in GAMES:
        raise ValueError(f"{game} has no OpenSpiel game; these do: {', '.join(GAMES)}")
    return str(GAMES[game].SHORT_NAME)


def __getattr__(name: str) -> ModuleType:
    """``envs.openspiel.<game>``: the game's OpenSpiel module (old attribute access)."""
    if name in GAMES:
        return GAMES[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["GAMES", "short_name"]
