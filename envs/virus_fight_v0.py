"""Virus Fight (``virus_fight_v0``): see ``envs/virus_fight/env.py`` for the reference page."""

from envs.virus_fight.env import __doc__ as _doc
from envs.virus_fight.env import env, raw_env

__doc__ = _doc
__all__ = ["env", "raw_env"]
