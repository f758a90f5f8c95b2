"""Agent names per game, resolved through the game registry (``envs/registry.py``).

Names are the ladder's agent keys (stored in the match database), so they are stable
strings. Every game has ``random``; its registry entry adds its own agents (``agents``)
and whether the generic MCTS plays it (``search``). Parametrised names are parsed:
``mcts:N`` is MCTS with N playouts per move, ``az`` / ``az:N`` the shipped
AlphaZero network guiding a search of 4,096 / N simulations and ``az-policy`` the network
alone (where ``agents/weights`` holds weights for the game), ``openspiel-mcts:N`` OpenSpiel's own
``MCTSBot`` with N simulations (an outside anchor), ``mcts-python:N`` the previous
Python-tree MCTS (for comparisons), ``policy:PATH`` loads a trained checkpoint
through ``agents.policy.PolicyAgent`` (its most likely legal action; ``policy-sampled:PATH``
samples from its distribution instead: a deterministic policy against a deterministic
opponent replays the same game, so measurements against it want the sampled form). Factories take a seed and return a fresh agent;
agent modules are imported lazily.

``GAMES``, ``REGISTRY`` and ``DEFAULT_AGENTS`` are kept for old callers; they are
computed from the game registry on each access, so a game registered at run time appears.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.base import Agent
from envs import registry as games

Factory = Callable[[int], Agent]

#: MCTS playouts of the plain name ``mcts``
MCTS_DEFAULT = 200


def _random(seed: int) -> Agent:
    from agents.random_agent import RandomAgent

    return RandomAgent(seed)


def _lazy(ref: games.Ref, **kwargs: object) -> Factory:
    def make(seed: int) -> Agent:
        return games.load(ref)(seed=seed, **kwargs)

    return make


def _mcts(simulations: int) -> Factory:
    def make(seed: int) -> Agent:
        from agents.mcts import MCTSAgent

        return MCTSAgent(simulations=simulations, seed=seed)

    return make


#: other searchers by simulations (``KIND:N``): OpenSpiel's MCTSBot as an outside anchor
#: (agents/openspiel_mcts.py), the previous Python-tree MCTS for comparisons
_SEARCHERS = {
    "openspiel-mcts": ("agents.openspiel_mcts", "OpenSpielMCTSAgent"),
    "mcts-python": ("agents.mcts_python", "PythonTreeMCTSAgent"),
}


def _searcher(kind: str, simulations: int) -> Factory:
    def make(seed: int) -> Agent:
        import importlib

        module, cls = _SEARCHERS[kind]
        return getattr(importlib.import_module(module), cls)(simulations=simulations, seed=seed)

    return make


def _az(simulations: int) -> Factory:
    def make(seed: int) -> Agent:
        from agents.az import AZAgent

        return AZAgent(simulations=simulations, seed=seed)

    return make


def _has_az(game: str) -> bool:
    """Whether shipped AlphaZero weights exist for ``game`` (``agents/weights``)."""
    from agents.az import shipped_players

    return bool(shipped_players(game))


def _table(game: str) -> dict[str, Factory]:
    spec = games.get(game)
    table: dict[str, Factory] = {"random": _random}
    for name, ref in spec.agents.items():
        table[name] = _lazy(ref)
    if spec.search:
        table.setdefault("mcts", _mcts(MCTS_DEFAULT))
        if _has_az(game):  # network + search at the default budget, the network alone
            from agents.az import AZ_DEFAULT_SIMULATIONS

            table.setdefault("az", _az(AZ_DEFAULT_SIMULATIONS))
            table.setdefault("az-policy", _az(0))
    return table


def _count(name: str, kind: str, arg: str) -> int:
    """N of ``KIND:N`` (ValueError naming the agent unless N is an integer >= 1)."""
    try:
        n = int(arg)
    except ValueError:
        raise ValueError(f"bad agent {name!r}: {kind}:N needs an integer N") from None
    if n < 1:
        raise ValueError(f"bad agent {name!r}: {kind}:N needs N >= 1")
    return n


def agent_names(game: str) -> list[str]:
    """Registered plain names for ``game`` (parametrised forms: ``mcts:N``, ``policy:PATH``)."""
    return sorted(_table(game))


def default_agents(game: str) -> list[str]:
    """The ladder's default entrants for ``game`` (quick enough for a default run)."""
    return list(games.get(game).ladder_agents)


def resolve(game: str, name: str) -> Factory:
    """The factory for agent ``name`` in ``game`` (``ValueError`` naming the problem)."""
    table = _table(game)
    if name in table:
        return table[name]
    search = games.get(game).search
    kind, _, arg = name.partition(":")
    if kind == "mcts" and arg and search:
        return _mcts(_count(name, kind, arg))
    if kind == "az" and arg and "az" in table:
        return _az(_count(name, kind, arg))
    if kind in _SEARCHERS and arg and search:
        if kind == "openspiel-mcts" and games.get(game).openspiel is None:
            raise ValueError(f"bad agent {name!r}: {game} has no OpenSpiel game")
        return _searcher(kind, _count(name, kind, arg))
    if kind in ("policy", "policy-sampled") and arg:
        path, greedy = arg, kind == "policy"

        def make(seed: int) -> Agent:
            from agents import policy

            return policy.PolicyAgent.load(path, game=game, seed=seed, deterministic=greedy)

        return make
    known = ", ".join(
        sorted(table)
        + ([f"{k}:N" for k in ("mcts", *_SEARCHERS)] if search else [])
        + (["az:N"] if "az" in table else [])
        + ["policy:PATH", "policy-sampled:PATH"]
    )
    raise ValueError(f"unknown agent {name!r} for {game}; known: {known}")


def make_agent(game: str, name: str, seed: int = 0) -> Agent:
    """A fresh agent ``name`` for ``game``, seeded, with ``agent.name`` set to ``name``."""
    agent = resolve(game, name)(seed)
    agent.name = name
    return agent


def __getattr__(name: str) -> Any:
    """The old module-level tables, computed from the game registry (deprecated)."""
    if name == "GAMES":
        return games.names()
    if name == "REGISTRY":
        return {g: _table(g) for g in games.names()}
    if name == "DEFAULT_AGENTS":
        return {g: default_agents(g) for g in games.names()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
