"""Gymnasium ids of the single-agent masked envs, registered on ``import envs``.

One id per turn-based game with a Discrete batch facade in the game registry: the game's
title without spaces plus ``-v0`` (``envs.registry`` has the titles). The env class lives
in ``agents/single_agent.py`` (its opponents come from the agent registry, a layer above
``envs``), so the entry point is a string, resolved only by ``gymnasium.make``; nothing
here imports ``agents``. ``docs/single_agent.md`` shows the use.
"""

from __future__ import annotations

import gymnasium

from envs import registry

#: the env class every id builds (``game=<name>`` is passed as a keyword)
ENTRY_POINT = "agents.single_agent:MaskedSingleAgentEnv"


def gym_id(game: str) -> str:
    """The Gymnasium id of ``game``'s single-agent env: its title without spaces + ``-v0``."""
    spec = registry.get(game)
    title = spec.title or spec.name.replace("_", " ").title()
    return title.replace(" ", "") + "-v0"


def register_single_agent_envs() -> list[str]:
    """Register (once) the id of every turn-based game with a batch facade; the ids."""
    ids = []
    for spec in registry.specs():
        if spec.continuous or spec.batch is None:
            continue
        env_id = gym_id(spec.name)
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=ENTRY_POINT, kwargs={"game": spec.name})
        ids.append(env_id)
    return ids
