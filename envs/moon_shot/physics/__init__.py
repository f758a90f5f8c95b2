"""Moon Shot physics (MS-4..MS-10): launch map, table friction, contacts, until rest.

Batched and Numba-compiled: :func:`simulate` runs N independent shots, each with its own
loop, so a settled shot costs nothing more. Everything is float64 and every random number
comes from the shot's own seed, so a shot's outcome depends only on (action, seed, params,
tube_distance): the same whatever the batch size, the position in the batch or the thread
count. Model, derivations and checks: docs/moon_shot_physics.md.

One module per concern (like pooltool's ``physics/resolve``: one protocol per
interaction, one file per model):

| module | concern | rules |
|---|---|---|
| :mod:`.streams` | the shot's random normals (splitmix64 + Box-Muller) | MS-6 |
| :mod:`.launch` | action map, noise and clip, the launch map | MS-5, MS-6, MS-7 |
| :mod:`.friction` | table friction: tabulated wrench, the friction move | MS-8 |
| :mod:`.contacts` | the contact protocol (``core``), the impulse model (``impulse``), piece-piece launch overlaps (``piece_piece``), piece-wall gaps (``piece_wall``), resolution (``resolve``) | MS-3, MS-7, MS-8 |
| :mod:`.stepping` | 1 ms steps, conservative advancement, far-field fast path | MS-8 |
| :mod:`.batching` | one shot end to end, batches over threads, where pieces lie | MS-9, MS-10, MS-20 |
| :mod:`.api` | input checks, :class:`ShotResult`, ``simulate*``, ``launch_states`` | |

This package re-exports the public names of the former single ``physics`` module.
"""

from __future__ import annotations

from envs.core.rng import splitmix64
from envs.moon_shot.physics.api import (
    ShotResult,
    launch_states,
    n_frames,
    seed_normals,
    simulate,
    simulate_recorded,
    simulate_states,
)
from envs.moon_shot.physics.batching import SERIAL_BELOW
from envs.moon_shot.physics.core import DEG, SOM, SPHI, SVX, SVY, SX, SY
from envs.moon_shot.physics.friction import TAB_NA, TAB_NB, TAB_NQ, friction_table
from envs.moon_shot.physics.launch import action_to_physical, struck_piece
from envs.moon_shot.physics.stepping import run_shot
from envs.moon_shot.physics.streams import N_NORMALS, shot_normals

__all__ = [
    "DEG",
    "N_NORMALS",
    "SERIAL_BELOW",
    "SOM",
    "SPHI",
    "SVX",
    "SVY",
    "SX",
    "SY",
    "TAB_NA",
    "TAB_NB",
    "TAB_NQ",
    "ShotResult",
    "action_to_physical",
    "friction_table",
    "launch_states",
    "n_frames",
    "run_shot",
    "seed_normals",
    "shot_normals",
    "simulate",
    "simulate_recorded",
    "simulate_states",
    "splitmix64",
    "struck_piece",
]
