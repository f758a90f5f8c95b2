"""Virus Fight's game-record hooks (``envs.core.records``): moves in the rules' notation
for the record's board size (docs/virus_fight.md) and games from a position text."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from envs.core.records import RecordHooks


class VirusFightRecords(RecordHooks):
    """Turn-based records over ``VirusFightBatch``, with VF-n notation and position texts."""

    env = "virus_fight_v0"

    def notation(self, config: dict[str, Any]) -> Callable[[Any], str]:
        """The rules' notation on the record's board (the players' default board if unset)."""
        from envs.virus_fight import notation as vn
        from envs.virus_fight.batch import DEFAULT_BOARD

        n = int(config.get("board_size", DEFAULT_BOARD[int(config.get("players", 2))]))
        return lambda a: vn.action_to_str(int(a), n)

    def position(self, facade: Any, text: str) -> Any:
        """The state of a position text (``envs.virus_fight.position``)."""
        from envs.virus_fight.position import from_text

        return from_text(facade, text)
