"""Moon Shot: Icehouse dexterity game as RL environments (rules: MS-1..MS-21).

Importing this package registers the Gymnasium id ``MoonShotSolo-v0`` (single env and
``make_vec`` vector entry point). It imports neither the physics kernels, pygame nor torch:
the entry points are strings, resolved on ``gymnasium.make``.
"""

from __future__ import annotations

import gymnasium

SOLO_ID = "MoonShotSolo-v0"

if SOLO_ID not in gymnasium.registry:
    gymnasium.register(
        id=SOLO_ID,
        entry_point="envs.moon_shot.solo:MoonShotSoloEnv",
        vector_entry_point="envs.moon_shot.vector:MoonShotSoloVectorEnv",
    )
