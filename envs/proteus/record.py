"""Proteus's game-record hooks (``envs.core.records``): moves in the rules' notation
(docs/proteus.md) and games that start from a position text."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from envs.core.records import RecordHooks


class ProteusRecords(RecordHooks):
    """Turn-based records over ``ProteusBatch``, with PR-n notation and position texts."""

    env = "proteus_v0"

    def notation(self, config: dict[str, Any]) -> Callable[[Any], str]:
        """The rules' move notation (``envs.proteus.notation``)."""
        from envs.proteus.notation import action_to_str

        return action_to_str

    def position(self, facade: Any, text: str) -> Any:
        """The state of a position text (``envs.proteus.batch.text_of`` writes them)."""
        from envs.proteus.batch import state_from_text

        return state_from_text(text)
