"""The one agent interface (``Agent``, ``ActContext``), defined in ``envs/core/agent.py``.

Kept as the import path agents and users have always used; the definitions moved below
``agents/`` so that a game's own agents (in its ``envs/<game>/`` folder) and the match
protocol (``envs/core/match.py``) can use them without importing upward.
"""

from __future__ import annotations

from envs.core.agent import ActContext, Agent

__all__ = ["ActContext", "Agent"]
