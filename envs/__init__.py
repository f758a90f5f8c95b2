"""Tabletop Arena environments.

Each game is a PettingZoo-classic style module: ``envs.proteus_v0``,
``envs.virus_fight_v0`` and ``envs.moon_shot_v0`` expose ``env()`` and ``raw_env``.
Importing this package does not import torch or pygame.
"""

__all__ = ["proteus_v0", "virus_fight_v0", "moon_shot_v0"]
