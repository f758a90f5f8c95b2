"""Random streams of a shot (MS-6): its standard normals from its own seed.

Every random number of a shot comes from the shot's uint64 seed through the shared
splitmix64 (``envs.core.rng``) and Box-Muller, a fixed count (``N_NORMALS``) per shot
whatever happens, so a shot's outcome depends only on (action, seed, params, tube
distance): the same whatever the batch size, position in the batch or thread count.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from envs.core.rng import splitmix64
from envs.moon_shot.physics.core import STAMP, drop_stale

N_NORMALS = 10  # Gaussian draws per shot (fixed count, always drawn, see _launch)


@njit(cache=True)
def shot_normals(seed: np.uint64, out: np.ndarray) -> None:
    """Fill ``out`` with standard normals from the shot seed (Box-Muller, cosine branch)."""
    st = np.uint64(seed)
    for i in range(out.shape[0]):
        st, a = splitmix64(st)
        st, b = splitmix64(st)
        u1 = (float(a >> np.uint64(11)) + 1.0) * (1.0 / 9007199254740992.0)  # (0, 1]
        u2 = float(b >> np.uint64(11)) * (1.0 / 9007199254740992.0)  # [0, 1)
        out[i] = math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


@njit(cache=True)
def _stamp_probe() -> int:
    return STAMP


drop_stale(globals(), _stamp_probe)
