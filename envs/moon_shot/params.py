"""Moon Shot physical constants (MS-1..MS-8), all SI units (metres, kilograms, seconds).

Every constant of the rules file is a field with its normative default, so a variant or a
calibration run changes a parameter instead of code. ``PhysicsParams.to_array()`` packs the
fields (plus a few derived quantities) into one float64 vector that the Numba kernels read
through the ``I_*`` index constants below; no Python object ever enters njit code.

Piece index convention everywhere in Moon Shot: 0 = small, 1 = medium, 2 = large.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

SMALL, MEDIUM, LARGE = 0, 1, 2
PIECE_NAMES = ("small", "medium", "large")


@dataclass(frozen=True)
class PhysicsParams:
    """Every Moon Shot constant (MS-1..MS-8) with its default; SI units."""

    # MS-1 piece sizes (base width b, height h) and masses.
    b_small: float = 0.0143
    h_small: float = 0.0254
    b_medium: float = 0.0198
    h_medium: float = 0.0349
    b_large: float = 0.0254
    h_large: float = 0.0445
    m_small: float = 0.0010
    m_medium: float = 0.0019
    m_large: float = 0.0031
    # MS-2 tree: heights of each piece's base above the table; band tops.
    z_base_large: float = 0.0
    z_base_medium: float = 0.0098
    z_base_small: float = 0.0195
    z_top: float = 0.0449
    # MS-3 tube.
    tube_length: float = 0.160
    tube_inner_diameter: float = 0.040
    tube_wall: float = 0.002
    tube_distance: float = 0.160
    # MS-5 action ranges.
    theta_max_deg: float = 20.0
    v_min: float = 0.1
    v_max: float = 2.0
    z_min: float = 0.0
    z_max: float = 0.0449
    o_max: float = 1.0
    # MS-6 execution noise (sigmas) and the global noise scale.
    sigma_theta_deg: float = 1.0
    sigma_v_rel: float = 0.03
    sigma_z: float = 0.002
    sigma_o: float = 0.05
    noise: float = 1.0
    # MS-7 launch map.
    c_hit: float = 1.0
    c_ride: float = 0.7
    c_below: float = 0.1
    v_topple: float = 0.15
    omega_max: float = 40.0
    sigma_delta_hit_deg: float = 2.0
    sigma_delta_ride_deg: float = 8.0
    sigma_spin: float = 5.0
    # MS-8 motion.
    mu: float = 0.30
    g: float = 9.81
    restitution_piece: float = 0.6
    restitution_tube: float = 0.5
    contact_friction: float = 0.2
    dt: float = 0.001
    max_shot_seconds: float = 5.0
    # Numerical (not rules) parameters, documented in docs/moon_shot_physics.md.
    max_substep_travel: float = (
        1.0e-4  # no point of a piece moves more than this per substep near contacts
    )
    contact_slop: float = 1.0e-6  # separation left after pushing overlapping footprints apart
    bounce_threshold: float = 1.0e-3  # normal approach speed below which restitution is 0

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, (int, float)) or not math.isfinite(float(value)):
                raise ValueError(f"PhysicsParams.{f.name} must be a finite number, got {value!r}")
        positive = (
            "b_small h_small b_medium h_medium b_large h_large m_small m_medium m_large "
            "tube_length tube_inner_diameter tube_wall dt max_shot_seconds g max_substep_travel"
        ).split()
        for name in positive:
            if getattr(self, name) <= 0.0:
                raise ValueError(f"PhysicsParams.{name} must be > 0, got {getattr(self, name)}")
        nonneg = (
            "sigma_theta_deg sigma_v_rel sigma_z sigma_o noise sigma_delta_hit_deg "
            "sigma_delta_ride_deg sigma_spin mu contact_friction restitution_piece "
            "restitution_tube v_topple contact_slop bounce_threshold tube_distance"
        ).split()
        for name in nonneg:
            if getattr(self, name) < 0.0:
                raise ValueError(f"PhysicsParams.{name} must be >= 0, got {getattr(self, name)}")
        if not (self.v_min < self.v_max and self.z_min <= self.z_max):
            raise ValueError("PhysicsParams: need v_min < v_max and z_min <= z_max")
        if not (self.z_base_large < self.z_base_medium < self.z_base_small):
            raise ValueError("PhysicsParams: tree bands must increase large < medium < small")
        if self.restitution_piece > 1.0 or self.restitution_tube > 1.0:
            raise ValueError("PhysicsParams: restitution must be <= 1")

    # ------------------------------------------------------------------ derived geometry
    def sizes(self) -> np.ndarray:
        """(3, 2) array of (b, h) per piece (small, medium, large), MS-1."""
        return np.array(
            [
                [self.b_small, self.h_small],
                [self.b_medium, self.h_medium],
                [self.b_large, self.h_large],
            ]
        )

    def masses(self) -> np.ndarray:
        """(3,) masses (small, medium, large), MS-1."""
        return np.array([self.m_small, self.m_medium, self.m_large])

    def z_bases(self) -> np.ndarray:
        """(3,) height of each piece's base in the tree (MS-2/MS-7)."""
        return np.array([self.z_base_small, self.z_base_medium, self.z_base_large])

    def to_array(self) -> np.ndarray:
        """Pack all fields and derived per-piece quantities into a float64 vector (I_* indices).

        Built once per (frozen) instance; every shot asks for it, so a copy is returned."""
        packed = self.__dict__.get("_packed")
        if packed is None:
            packed = self._pack()
            object.__setattr__(self, "_packed", packed)  # frozen: fields only, not caches
        return packed.copy()

    def _pack(self) -> np.ndarray:
        out = np.zeros(N_PARAMS, dtype=np.float64)
        for name, idx in _FIELD_INDEX.items():
            out[idx] = float(getattr(self, name))
        bh = self.sizes()
        m = self.masses()
        for k in range(3):
            b, h = bh[k]
            s = math.sqrt(h * h + b * b / 4.0)  # MS-4 slant length
            d = b * b / (2.0 * s)
            # [decision] inertia about the vertical axis: the uniform triangular contact face
            # (the same lamina whose centroid is the centre of mass, MS-4):
            # I = m (a^2 + b^2 + c^2) / 36 with sides b, and twice sqrt(s^2 + b^2/4).
            inertia = m[k] * (1.5 * b * b + 2.0 * s * s) / 36.0
            base = I_PIECE0 + k * PIECE_STRIDE
            out[base + PK_B] = b
            out[base + PK_H] = h
            out[base + PK_S] = s
            out[base + PK_D] = d
            out[base + PK_M] = m[k]
            out[base + PK_I] = inertia
            out[base + PK_RHO] = math.sqrt(inertia / m[k])
            # bounding radius about the centre of mass (apex at 2s/3, base corners at s/3)
            out[base + PK_R] = max(2.0 * s / 3.0, math.hypot(s / 3.0, b / 2.0))
            out[base + PK_ZBASE] = self.z_bases()[k]
            out[base + PK_SQRTM] = math.sqrt(m[k])
            out[base + PK_SQRTI] = math.sqrt(inertia)
        return out


_FIELD_NAMES = [f.name for f in fields(PhysicsParams)]
_FIELD_INDEX = {name: i for i, name in enumerate(_FIELD_NAMES)}

# Index constants for njit code (kept explicit so that Numba sees plain ints).
I_B_SMALL = _FIELD_INDEX["b_small"]
I_Z_BASE_LARGE = _FIELD_INDEX["z_base_large"]
I_Z_BASE_MEDIUM = _FIELD_INDEX["z_base_medium"]
I_Z_BASE_SMALL = _FIELD_INDEX["z_base_small"]
I_Z_TOP = _FIELD_INDEX["z_top"]
I_TUBE_LENGTH = _FIELD_INDEX["tube_length"]
I_TUBE_INNER = _FIELD_INDEX["tube_inner_diameter"]
I_TUBE_WALL = _FIELD_INDEX["tube_wall"]
I_TUBE_DISTANCE = _FIELD_INDEX["tube_distance"]
I_THETA_MAX_DEG = _FIELD_INDEX["theta_max_deg"]
I_V_MIN = _FIELD_INDEX["v_min"]
I_V_MAX = _FIELD_INDEX["v_max"]
I_Z_MIN = _FIELD_INDEX["z_min"]
I_Z_MAX = _FIELD_INDEX["z_max"]
I_O_MAX = _FIELD_INDEX["o_max"]
I_SIGMA_THETA_DEG = _FIELD_INDEX["sigma_theta_deg"]
I_SIGMA_V_REL = _FIELD_INDEX["sigma_v_rel"]
I_SIGMA_Z = _FIELD_INDEX["sigma_z"]
I_SIGMA_O = _FIELD_INDEX["sigma_o"]
I_NOISE = _FIELD_INDEX["noise"]
I_C_HIT = _FIELD_INDEX["c_hit"]
I_C_RIDE = _FIELD_INDEX["c_ride"]
I_C_BELOW = _FIELD_INDEX["c_below"]
I_V_TOPPLE = _FIELD_INDEX["v_topple"]
I_OMEGA_MAX = _FIELD_INDEX["omega_max"]
I_SIGMA_DELTA_HIT_DEG = _FIELD_INDEX["sigma_delta_hit_deg"]
I_SIGMA_DELTA_RIDE_DEG = _FIELD_INDEX["sigma_delta_ride_deg"]
I_SIGMA_SPIN = _FIELD_INDEX["sigma_spin"]
I_MU = _FIELD_INDEX["mu"]
I_G = _FIELD_INDEX["g"]
I_E_PIECE = _FIELD_INDEX["restitution_piece"]
I_E_TUBE = _FIELD_INDEX["restitution_tube"]
I_MU_CONTACT = _FIELD_INDEX["contact_friction"]
I_DT = _FIELD_INDEX["dt"]
I_MAX_SECONDS = _FIELD_INDEX["max_shot_seconds"]
I_SUBSTEP_TRAVEL = _FIELD_INDEX["max_substep_travel"]
I_SLOP = _FIELD_INDEX["contact_slop"]
I_BOUNCE_THRESHOLD = _FIELD_INDEX["bounce_threshold"]

# Derived per-piece block: I_PIECE0 + piece * PIECE_STRIDE + PK_*.
I_PIECE0 = len(_FIELD_NAMES)
PK_B, PK_H, PK_S, PK_D, PK_M, PK_I, PK_RHO, PK_R, PK_ZBASE, PK_SQRTM, PK_SQRTI = range(11)
PIECE_STRIDE = 11
N_PARAMS = I_PIECE0 + 3 * PIECE_STRIDE

LAYOUT = (len(_FIELD_NAMES), I_PIECE0, PIECE_STRIDE, N_PARAMS, PK_S, PK_ZBASE, PK_SQRTI)
DEFAULT_PARAMS = PhysicsParams()


def drop_stale_caches(module_globals: dict, probe: object) -> None:
    """Numba's on-disk cache of a module is keyed on that module's own source only; if the
    packed layout above changed since it was written, its kernels still use the old indices.
    ``probe`` is an njit function of the module returning LAYOUT as compiled; on a mismatch
    every dispatcher of the module forgets its cache and recompiles on first use."""
    from numba.core.registry import CPUDispatcher

    if tuple(probe()) == LAYOUT:  # type: ignore[operator]
        return
    for obj in list(module_globals.values()):
        if isinstance(obj, CPUDispatcher):
            cache = getattr(obj, "_cache", None)
            if cache is not None:
                cache.flush()
            obj.overloads.clear()
