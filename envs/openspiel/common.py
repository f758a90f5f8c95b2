"""What every game's pyspiel module declares the same way: its ``GameType`` and parameters.

Why shared: our games are all sequential, terminal-reward games whose states provide the
information-state string and the observation string and tensor (the kernel's planes);
they differ in name, chance, information, utility and seat counts. Spelling the other
seven ``GameType`` fields once keeps the games' declarations from drifting apart.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyspiel


def board_game_type(
    short_name: str,
    long_name: str,
    *,
    chance_mode: Any,
    information: Any,
    utility: Any,
    players: tuple[int, int],
    params: Mapping[str, Any],
) -> pyspiel.GameType:
    """The ``GameType`` of one of our turn-based games (``players`` = (min, max) seats)."""
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=chance_mode,
        information=information,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=players[1],
        min_num_players=players[0],
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(params),
    )


def merged_params(
    short_name: str, defaults: Mapping[str, Any], params: Mapping[str, Any] | None
) -> dict[str, Any]:
    """``defaults`` updated by ``params``; ValueError naming any parameter the game lacks."""
    merged = {**defaults, **(params or {})}
    unknown = set(merged) - set(defaults)
    if unknown:
        raise ValueError(f"unknown {short_name} parameter(s): {sorted(unknown)}")
    return merged
