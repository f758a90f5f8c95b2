"""Optional extras in tests: skip a test module where an extra is not installed, fail in CI.

CI installs every extra, so a missing package there is a failure, not a skip.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

import pytest


def need(module: str, extra: str) -> Any:
    """``module`` imported, or the calling test module skipped (raised again under CI)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        if os.environ.get("CI"):
            raise  # CI installs the extra: a missing package is a failure there
        pytest.skip(f"{module} not installed ({extra} extra)", allow_module_level=True)
