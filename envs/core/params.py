"""Checks of a game's static parameters, shared by the games' facades, envs and parsers.

Why here: every game has a length limit (a turn or round count the kernel keeps in an
int32) that the facade, the AEC env and the position parser all accept from users; one
check gives one message for a bad value, whichever game and entry point it reached.
"""

from __future__ import annotations

import numpy as np


def bounded_int(value: object, name: str, limit: int, rule: str) -> int:
    """``value`` as an int in 1..``limit``; ValueError naming ``name`` and ``rule`` (e.g.
    ``"PR-17"``) otherwise. Booleans and floats are refused, numpy integers accepted."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be a positive integer ({rule}), got {value!r}")
    if not 1 <= value <= limit:
        raise ValueError(f"{name} must be in 1..{limit} ({rule}), got {value!r}")
    return int(value)
