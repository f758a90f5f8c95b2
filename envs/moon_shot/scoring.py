"""Moon Shot shot scoring (MS-10..MS-13, MS-20) as pure functions over a batch of shots.

The physics kernel decides *where* the pieces rest and which footprints overlap the tube
interior (MS-10, positive area / whole footprint); this module turns those flags and the
resting poses into the value of each shot. Everything is vectorised over any leading batch
shape ``(...)`` (``(N,)`` for turn-based games, ``(N, P)`` for the realtime variant), so
the same function scores one shot, a batch of games, or all players of a realtime step.

Piece indices follow the physics: 0 small, 1 medium, 2 large. A pose is ``(x, y, heading)``
with ``(x, y)`` the piece's centre of mass in metres and ``heading`` the base-to-apex
direction in radians (MS-4).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SMALL, MEDIUM, LARGE = 0, 1, 2

#: Shot outcome codes (``ShotScore.kind``), most important first.
NOTHING, CRASH, CONTROLLED, COLONY, CRACK = 0, 1, 2, 3, 4
KIND_NAMES = ("nothing", "crash landing", "controlled landing", "colony", "crack")


@dataclass(frozen=True)
class ShotScore:
    """The value of each shot; arrays share the batch shape of the inputs."""

    points: np.ndarray  # int64: 0, 1 or 2 (MS-13); 0 on a crack (MS-11)
    crack: np.ndarray  # bool: large in the tube (MS-11) -> the game ends (MS-15)
    colony: np.ndarray  # bool: small and medium in the tube, no crack (MS-12) -> MS-14
    landed: np.ndarray  # bool: the shot scored a landing (MS-13, also on a colony)
    controlled: np.ndarray  # bool: the landing was controlled (2 points)
    kind: np.ndarray  # int8: NOTHING / CRASH / CONTROLLED / COLONY / CRACK


def heading_points_home(poses: np.ndarray) -> np.ndarray:
    """MS-13 controlled-landing test for the small: angle(heading, CoM->origin) < 90 deg.

    The angle is strictly below 90 degrees exactly when the dot product of the heading
    unit vector with the vector from the centre of mass to the origin is positive.
    ``poses`` has shape ``(..., 3)`` (one piece); returns bool ``(...)``.
    """
    x = poses[..., 0]
    y = poses[..., 1]
    h = poses[..., 2]
    return np.cos(h) * (-x) + np.sin(h) * (-y) > 0.0


def score_shots(
    in_tube: np.ndarray,
    fully_in_tube: np.ndarray,
    poses: np.ndarray,
    toppled: np.ndarray | None = None,
    full_landing: bool = False,
    full_colony: bool = False,
) -> ShotScore:
    """Score shots from the physics' resting state (MS-10..MS-13 with variants MS-20).

    ``in_tube`` / ``fully_in_tube`` / ``toppled`` are bool ``(..., 3)`` per piece,
    ``poses`` float ``(..., 3, 3)``. A piece that stayed standing never scores (MS-7),
    so the flags are masked with ``toppled`` when it is given.

    Variants (MS-10, MS-20): *full landing* requires the whole footprint of the small
    for it to count as in the tube; *full colony* requires the whole footprints of the
    small and the medium for a colony. The large cracks the Moon with any positive-area
    overlap in every variant.
    """
    in_tube = np.asarray(in_tube, dtype=bool)
    fully = np.asarray(fully_in_tube, dtype=bool)
    poses = np.asarray(poses, dtype=np.float64)
    if in_tube.shape[-1:] != (3,) or fully.shape != in_tube.shape:
        raise ValueError(
            f"in_tube/fully_in_tube must have the same shape (..., 3), got "
            f"{in_tube.shape} and {fully.shape}"
        )
    if poses.shape != in_tube.shape + (3,):
        raise ValueError(f"poses must have shape {in_tube.shape + (3,)}, got {poses.shape}")
    fully = fully & in_tube  # a whole footprint inside overlaps with positive area
    if toppled is not None:
        top = np.asarray(toppled, dtype=bool)
        if top.shape != in_tube.shape:
            raise ValueError(f"toppled must have shape {in_tube.shape}, got {top.shape}")
        in_tube = in_tube & top
        fully = fully & top

    crack = in_tube[..., LARGE]  # MS-11
    small_in = fully[..., SMALL] if full_landing else in_tube[..., SMALL]  # MS-10/MS-20
    if full_colony:
        colony_pieces = fully[..., SMALL] & fully[..., MEDIUM]
    else:
        colony_pieces = small_in & in_tube[..., MEDIUM]
    colony = colony_pieces & ~crack  # MS-12
    landed = small_in & ~crack  # MS-13 (a colony scores as a landing)
    controlled = landed & heading_points_home(poses[..., SMALL, :])
    points = np.where(landed, np.where(controlled, 2, 1), 0).astype(np.int64)
    kind = np.where(
        crack,
        CRACK,
        np.where(colony, COLONY, np.where(controlled, CONTROLLED, np.where(landed, CRASH, 0))),
    ).astype(np.int8)
    return ShotScore(
        points=points,
        crack=np.asarray(crack),
        colony=np.asarray(colony),
        landed=np.asarray(landed),
        controlled=np.asarray(controlled),
        kind=kind,
    )
