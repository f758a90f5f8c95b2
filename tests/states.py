"""Comparing two batch states field by field (every facade's state is a plain object of arrays).

Why here: the learner-step, fused self-play and bad-action tests of every game compare
whole states after two paths; one helper names the field that differs.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def state_fields(state: Any) -> dict[str, Any]:
    """The state's fields (arrays and any scalars), by name."""
    return dict(vars(state))


def assert_same_state(a: Any, b: Any) -> None:
    """AssertionError naming the first field whose dtype or values differ."""
    x, y = state_fields(a), state_fields(b)
    assert x.keys() == y.keys(), (sorted(x), sorted(y))
    for name, u in x.items():
        v = y[name]
        if isinstance(u, np.ndarray):
            assert u.dtype == v.dtype, name
            np.testing.assert_array_equal(u, v, err_msg=name)
        else:
            assert u == v, name


def same_state(a: Any, b: Any) -> bool:
    """True when :func:`assert_same_state` passes."""
    try:
        assert_same_state(a, b)
    except AssertionError:
        return False
    return True
