"""The Moon Shot env constructors took their rules positionally until 0.3.0: such calls
keep working with a DeprecationWarning (issue #10: nothing a user calls disappears
without a deprecation path), and give the same env as the keyword call."""

from __future__ import annotations

import numpy as np
import pytest

from envs.moon_shot.env import MoonShotEnv, MoonShotParallelEnv
from envs.moon_shot.solo import MoonShotSoloEnv
from envs.moon_shot.vector import MoonShotSoloVectorEnv


def test_turn_env_positional_rules_warn_and_match_keywords() -> None:
    with pytest.warns(DeprecationWarning, match="num_players=, noise="):
        old = MoonShotEnv(3, 0.5)
    new = MoonShotEnv(num_players=3, noise=0.5)
    assert old.config == new.config
    with pytest.warns(DeprecationWarning):
        par = MoonShotParallelEnv(2, 0.0, True)
    assert par.config.close_tube and par.config.noise == 0.0


def test_solo_envs_positional_rules_warn_and_match_keywords() -> None:
    with pytest.warns(DeprecationWarning, match="noise="):
        old = MoonShotSoloEnv(0.25)
    new = MoonShotSoloEnv(noise=0.25)
    o1, _ = old.reset(seed=3)
    o2, _ = new.reset(seed=3)
    np.testing.assert_array_equal(o1, o2)
    with pytest.warns(DeprecationWarning, match="max_shots="):
        vec = MoonShotSoloVectorEnv(2, 1.0, False, False, False, None, 7)
    assert vec.config.max_shots == 7


def test_positional_rules_errors_name_the_problem() -> None:
    with pytest.raises(TypeError, match="multiple values for argument 'noise'"):
        with pytest.warns(DeprecationWarning):
            MoonShotSoloEnv(0.5, noise=0.5)
    with pytest.raises(TypeError, match="at most 9 positional"):
        MoonShotEnv(*range(10))
