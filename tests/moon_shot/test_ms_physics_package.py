"""The physics package's layout (issue: one concern per module) and its cache stamp.

Each module compiles a probe returning the stamp of the sources it was compiled from;
on import a module whose probe disagrees with the current sources drops its Numba caches
(kernels inline code from sibling modules, which Numba's per-file cache cannot see).
"""

from __future__ import annotations

import importlib
from pathlib import Path

import envs.moon_shot.physics as physics
from envs.moon_shot.physics import core

MODULES = [
    "streams",
    "launch",
    "friction",
    "contacts.core",
    "contacts.impulse",
    "contacts.piece_piece",
    "contacts.piece_wall",
    "contacts.resolve",
    "stepping",
    "batching",
]


def test_every_kernel_module_was_compiled_from_the_current_sources() -> None:
    assert core.STAMP != 0
    for name in MODULES:
        mod = importlib.import_module(f"envs.moon_shot.physics.{name}")
        assert mod._stamp_probe() == core.STAMP, name


def test_files_stay_small_and_cite_rules() -> None:
    root = Path(physics.__file__).parent
    for path in root.rglob("*.py"):
        text = path.read_text()
        assert len(text.splitlines()) <= 700, path.name
        if path.name not in ("__init__.py", "core.py", "api.py") or path.parent.name == "contacts":
            assert "MS-" in text, f"{path.name} cites no rule"


def test_old_single_module_names_still_import() -> None:
    for name in (
        "simulate", "simulate_recorded", "simulate_states", "launch_states", "seed_normals",
        "friction_table", "action_to_physical", "N_NORMALS", "SERIAL_BELOW", "ShotResult",
        "splitmix64", "shot_normals", "run_shot", "n_frames",
    ):  # fmt: skip
        assert hasattr(physics, name), name
