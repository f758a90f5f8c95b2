"""The Moon Shot observation: a seat-relative vector of scores, recency and the config.

Why apart from the facade: as ``observe.py`` is in Proteus and Virus Fight, the
observation is the layer the facade, the envs and the docs share. The layout is
:func:`observation_layout` (also the env's reference page); values are clipped to the
bounds of :func:`observation_space`. Rules: docs/moon_shot.md.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envs.moon_shot.config import MoonShotConfig
from envs.moon_shot.state import GameState

OBS_EXTRA = 10  # entries after the 2P seat-relative block (see observation_layout)


def observation_layout(num_players: int) -> list[tuple[str, str]]:
    """(index range, meaning) rows of the observation vector, for docs and tests."""
    P = num_players
    return [
        (f"0..{P - 1}", "points per seat, own seat first, then the following seats in order"),
        (
            f"{P}..{2 * P - 1}",
            "last-landing recency per seat (same order): 1/(1 + turns since it), 0 = never",
        ),
        (f"{2 * P}", "completed rounds"),
        (f"{2 * P + 1}", "rounds left (max_rounds - completed rounds)"),
        (f"{2 * P + 2}", "seats until the observer shoots: (seat to shoot - own seat) mod P"),
        (f"{2 * P + 3}", "own seat index (0 shoots first in a round)"),
        (f"{2 * P + 4}", "tube distance in metres (MS-3)"),
        (f"{2 * P + 5}", "close tube variant (0/1)"),
        (f"{2 * P + 6}", "full landing variant (0/1)"),
        (f"{2 * P + 7}", "full colony variant (0/1)"),
        (f"{2 * P + 8}", "target score (0 = none)"),
        (f"{2 * P + 9}", "noise scale (MS-6)"),
    ]


def observation_space(config: MoonShotConfig) -> spaces.Box:
    """The AEC/Parallel observation Box for ``config`` (layout: :func:`observation_layout`)."""
    P = config.num_players
    high_pts = 2.0 * config.max_rounds
    low = np.zeros(2 * P + OBS_EXTRA, dtype=np.float32)
    high = np.concatenate(
        [
            np.full(P, high_pts),
            np.ones(P),
            [config.max_rounds, config.max_rounds, P - 1, P - 1, max(config.distance, 1.0)],
            [1, 1, 1, max(config.target_score or 0, 1), max(config.noise, 1.0)],
        ]
    ).astype(np.float32)
    return spaces.Box(low=low, high=high, dtype=np.float32)


def observe(state: GameState, seats: np.ndarray, config: MoonShotConfig) -> np.ndarray:
    """(N, 2P+10) float32 observations of each game from seat ``seats[i]``'s point of view."""
    N, P = state.scores.shape
    seats = np.asarray(seats, dtype=np.int64).reshape(N)
    order = (seats[:, None] + np.arange(P)[None, :]) % P  # own seat first
    rows = np.arange(N)[:, None]
    scores = state.scores[rows, order].astype(np.float64)
    last = state.last_landing[rows, order]
    since = state.turn[:, None] - 1 - last
    recency = np.where(last >= 0, 1.0 / (1.0 + since), 0.0)
    rnd = state.round.astype(np.float64)
    extra = np.stack(
        [
            rnd,
            config.max_rounds - rnd,
            ((state.seat - seats) % P).astype(np.float64),
            seats.astype(np.float64),
            np.full(N, config.distance),
            np.full(N, float(config.close_tube)),
            np.full(N, float(config.full_landing)),
            np.full(N, float(config.full_colony)),
            np.full(N, float(config.target_score or 0)),
            np.full(N, float(config.noise)),
        ],
        axis=1,
    )
    high = config.__dict__.get("_obs_high")  # built once per (frozen) config
    if high is None:
        high = observation_space(config).high
        object.__setattr__(config, "_obs_high", high)
    obs = np.concatenate([scores, recency, extra], axis=1).astype(np.float32)
    return np.minimum(obs, high[None, :])
