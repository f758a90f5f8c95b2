"""Moon Shot's static configuration (gymnax's ``EnvParams``): named fields, no state.

Why its own module: the facade, the observation, the envs and the ladder all read it,
and it sits apart from the dynamic :class:`~envs.moon_shot.state.GameState` and from the
physics constants (:class:`~envs.moon_shot.params.PhysicsParams`, which the compiled
kernels read). Variants: MS-3 (tube distance), MS-6 (noise), MS-16 (rounds), MS-19
(target score), MS-20 (close tube, full landing, full colony); docs/moon_shot.md.
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from envs.moon_shot.params import PhysicsParams


@dataclass(frozen=True)
class MoonShotConfig:
    """Static configuration of a Moon Shot game (MS-3, MS-6, MS-16, MS-19, MS-20)."""

    num_players: int = 2
    noise: float = 1.0
    close_tube: bool = False
    full_landing: bool = False
    full_colony: bool = False
    target_score: int | None = None
    max_rounds: int = 30
    tube_distance: float | None = None  # None: the variant's minimum (MS-3)
    params: PhysicsParams = dataclasses.field(default_factory=PhysicsParams)

    def __post_init__(self) -> None:
        if not isinstance(self.params, PhysicsParams):
            raise ValueError(f"params must be a PhysicsParams, got {type(self.params).__name__}")
        if not np.isfinite(self.noise) or self.noise < 0:
            raise ValueError(f"noise must be a finite number >= 0, got {self.noise}")
        if int(self.max_rounds) != self.max_rounds or self.max_rounds < 1:
            raise ValueError(f"max_rounds must be an integer >= 1, got {self.max_rounds}")
        if self.target_score is not None and (
            int(self.target_score) != self.target_score or self.target_score < 1
        ):
            raise ValueError(
                f"target_score must be an integer >= 1 or None, got {self.target_score}"
            )
        if self.tube_distance is not None:
            if not np.isfinite(self.tube_distance) or self.tube_distance < self.min_tube_distance:
                raise ValueError(
                    f"tube_distance must be >= {self.min_tube_distance:g} m "
                    f"({'half' if self.close_tube else 'one'} tube length, MS-3), "
                    f"got {self.tube_distance}"
                )

    @property
    def min_tube_distance(self) -> float:
        """MS-3 / MS-20: one tube length, half of it with *close tube*."""
        length = self.params.tube_length
        return 0.5 * length if self.close_tube else length

    @property
    def distance(self) -> float:
        """The tube distance in play (defaults to the variant's minimum)."""
        return self.min_tube_distance if self.tube_distance is None else float(self.tube_distance)

    def physics_params(self) -> PhysicsParams:
        """The physics parameters with this game's noise scale and tube distance (built
        once per config: every shot asks for them)."""
        built = self.__dict__.get("_physics")
        if built is None:
            built = dataclasses.replace(
                self.params, noise=float(self.noise), tube_distance=self.distance
            )
            object.__setattr__(self, "_physics", built)  # frozen: fields only, not caches
        return built

    def check_players(self, low: int = 2, high: int = 8) -> None:
        """ValueError unless ``num_players`` is an integer in ``low..high``."""
        if int(self.num_players) != self.num_players or not low <= self.num_players <= high:
            raise ValueError(
                f"num_players must be an integer in {low}..{high}, got {self.num_players}"
            )


#: The positional order of the env constructors before 0.4.0 (keyword-only since).
TURN_ORDER = (
    "num_players", "noise", "close_tube", "full_landing", "full_colony", "target_score",
    "max_rounds", "tube_distance", "params",
)  # fmt: skip
SOLO_ORDER = (
    "noise", "close_tube", "full_landing", "full_colony", "tube_distance", "max_shots", "params",
)  # fmt: skip


def positional_rules(
    owner: str, args: tuple[Any, ...], order: tuple[str, ...], kwargs: dict[str, Any]
) -> dict[str, Any]:
    """``kwargs`` plus the deprecated positional ``args`` named by ``order``.

    Why: the env constructors took their rules positionally until 0.3.0; a call that still
    does keeps working (with a DeprecationWarning) instead of failing with a TypeError.
    """
    if not args:
        return kwargs
    if len(args) > len(order):
        raise TypeError(
            f"{owner}() takes at most {len(order)} positional arguments, got {len(args)}"
        )
    names = order[: len(args)]
    warnings.warn(
        f"{owner}: positional arguments are deprecated since 0.4.0; pass "
        + ", ".join(f"{n}=" for n in names)
        + " by keyword",
        DeprecationWarning,
        stacklevel=3,
    )
    for name, value in zip(names, args, strict=True):
        if name in kwargs:
            raise TypeError(f"{owner}() got multiple values for argument {name!r}")
        kwargs[name] = value
    return kwargs
