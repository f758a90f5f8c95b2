"""Moon Shot's former single game-flow module, kept as the old import path.

Its contents now live in :mod:`envs.moon_shot.state` (the batch state, outcome codes and
per-game keys) and :mod:`envs.moon_shot.rules` (the MS-14..MS-19 and MS-21 steps), the
file names every game in ``envs/`` uses for the same layers.
"""

from __future__ import annotations

from envs.moon_shot.rules import (
    _ending,
    _final_rewards,
    _rank_colony,
    _rank_crack,
    _rank_target,
    _step,
    realtime_step,
    solo_step,
    turn_step,
)
from envs.moon_shot.state import (
    COLONY_END,
    CRACK_END,
    MAX_ROUNDS_END,
    ONGOING,
    OUTCOME_NAMES,
    TARGET_END,
    GameState,
    SoloState,
    derive_keys,
    new_games,
    new_solo,
    shot_seeds,
)

__all__ = [
    "COLONY_END",
    "CRACK_END",
    "MAX_ROUNDS_END",
    "ONGOING",
    "OUTCOME_NAMES",
    "TARGET_END",
    "GameState",
    "SoloState",
    "_ending",
    "_final_rewards",
    "_rank_colony",
    "_rank_crack",
    "_rank_target",
    "_step",
    "derive_keys",
    "new_games",
    "new_solo",
    "realtime_step",
    "shot_seeds",
    "solo_step",
    "turn_step",
]
