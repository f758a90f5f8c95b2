"""Tabletop Arena environments.

Each game is a PettingZoo-classic style module ``envs.<game>_v0`` exposing ``env()`` and
``raw_env`` (and ``parallel_env()`` where players act at once); the game registry
(``envs.registry``) lists the games and where each one's pieces live. Importing this
package does not import torch or pygame.
"""

from envs.core.single_agent import register_single_agent_envs as _register_gym
from envs.registry import names as _names

__all__ = [f"{_name}_v0" for _name in _names()]

_register_gym()  # Gymnasium ids of the single-agent masked envs (docs/single_agent.md)
