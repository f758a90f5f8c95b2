"""Agent registry: a name -> factory table per game, used by the ladder, the demo and tests.

Names are the ladder's agent keys (stored in the match database), so they are stable
strings. Parametrised names are parsed: ``mcts:N`` is MCTS with N playouts per move,
``policy:PATH`` loads a trained checkpoint through ``agents.policy.PolicyAgent``.
Factories take a seed and return a fresh agent; game modules are imported lazily.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from agents.base import Agent

Factory = Callable[[int], Agent]
GAMES = ("proteus", "virus_fight", "moon_shot")


def _random(seed: int) -> Agent:
    from agents.random_agent import RandomAgent

    return RandomAgent(seed)


def _lazy(module: str, cls: str, **kwargs: object) -> Factory:
    def make(seed: int) -> Agent:
        agent_cls = getattr(importlib.import_module(module), cls)
        return agent_cls(seed=seed, **kwargs)

    return make


def _mcts(simulations: int) -> Factory:
    def make(seed: int) -> Agent:
        from agents.mcts import MCTSAgent

        return MCTSAgent(simulations=simulations, seed=seed)

    return make


REGISTRY: dict[str, dict[str, Factory]] = {
    "proteus": {
        "random": _random,
        "heuristic": _lazy("agents.proteus_heuristic", "ProteusHeuristicAgent"),
        "mcts": _mcts(200),
    },
    "virus_fight": {
        "random": _random,
        "heuristic": _lazy("agents.virus_fight_heuristic", "VirusFightHeuristicAgent"),
        "mcts": _mcts(200),
    },
    "moon_shot": {
        "random": _random,
        "aim": _lazy("agents.moon_shot_agents", "CalibratedAimAgent"),
        "planner": _lazy("agents.moon_shot_agents", "PlannerAgent"),
    },
}

#: The ladder's default entrants per game (quick enough for a default run).
DEFAULT_AGENTS: dict[str, list[str]] = {
    "proteus": ["random", "heuristic", "mcts:50"],
    "virus_fight": ["random", "heuristic", "mcts:50"],
    "moon_shot": ["random", "aim", "planner"],
}


def agent_names(game: str) -> list[str]:
    """Registered plain names for ``game`` (parametrised forms: ``mcts:N``, ``policy:PATH``)."""
    return sorted(_table(game))


def _table(game: str) -> dict[str, Factory]:
    if game not in REGISTRY:
        raise ValueError(f"unknown game {game!r}; choose one of {', '.join(GAMES)}")
    return REGISTRY[game]


def resolve(game: str, name: str) -> Factory:
    """The factory for agent ``name`` in ``game`` (``ValueError`` naming the problem)."""
    table = _table(game)
    if name in table:
        return table[name]
    kind, _, arg = name.partition(":")
    if kind == "mcts" and arg and game != "moon_shot":
        try:
            sims = int(arg)
        except ValueError:
            raise ValueError(f"bad agent {name!r}: mcts:N needs an integer N") from None
        if sims < 1:
            raise ValueError(f"bad agent {name!r}: mcts:N needs N >= 1")
        return _mcts(sims)
    if kind == "policy" and arg:
        path = arg

        def make(seed: int) -> Agent:
            from agents import policy  # type: ignore[attr-defined]

            return policy.PolicyAgent.load(path, game=game, seed=seed)

        return make
    known = ", ".join(sorted(table) + (["mcts:N"] if game != "moon_shot" else []) + ["policy:PATH"])
    raise ValueError(f"unknown agent {name!r} for {game}; known: {known}")


def make_agent(game: str, name: str, seed: int = 0) -> Agent:
    """A fresh agent ``name`` for ``game``, seeded, with ``agent.name`` set to ``name``."""
    agent = resolve(game, name)(seed)
    agent.name = name
    return agent
