"""Proteus heuristic agent: a two-ply minimax over the batch facade with a goal-progress score.

Search (PR-16 wins are read from the facade's rewards, never re-implemented): every legal
action is played (``take`` + ``step`` on the whole batch of candidates), then every legal
reply of the opponent; a candidate is worth the *worst* of its replies for us. A move that
wins at once scores +1000 (so it is always taken), a reply that makes the opponent win
-1000 (so the agent blocks an immediate win whenever some move does), a draw -2 (a draw
against a weaker player is a missed win). Otherwise the position after the reply is scored
by :func:`progress` difference (ours minus theirs) on the active GOLD goal (PR-15):

- THREE-IN-LINE: the most of a player's pieces on one row, column or diagonal free of
  opponent pieces (a blocked line is worth nothing);
- COLOUR / SHAPE: the most of a player's pieces standing on tiles of one colour / shape;
- no GOLD tile active yet: the mean of the three.

Ties are broken by a tiny noise from the agent's own generator (so it does not cycle into
PR-17 repetition draws). Everything is vectorised over all games, candidates and replies.
"""

from __future__ import annotations

import numpy as np

from envs.core.agent import ActContext
from envs.core.plies import LookaheadAgent, board_context, expand, first_best

LINES = np.array(
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]]
)
WIN, DRAW = 1000.0, -2.0


def progress(tile_at: np.ndarray, piece_at: np.ndarray, active: np.ndarray, seat: np.ndarray):
    """(N,) how close ``seat``'s pieces are to the active GOLD goal, in [0, 3] (see module)."""
    owner = np.where(piece_at >= 0, piece_at // 3, -1)
    mine = owner == seat[:, None]
    theirs = (owner >= 0) & ~mine
    on_line = mine[:, LINES].sum(axis=2)
    blocked = theirs[:, LINES].any(axis=2)
    line = np.where(blocked, 0, on_line).max(axis=1)
    colour = np.where(tile_at >= 0, tile_at // 3, -1)
    shape = np.where(tile_at >= 0, tile_at % 3, -1)
    by_colour = np.stack([(mine & (colour == k)).sum(axis=1) for k in range(3)], 1).max(axis=1)
    by_shape = np.stack([(mine & (shape == k)).sum(axis=1) for k in range(3)], 1).max(axis=1)
    goal = active[:, 2]
    mean = (line + by_colour + by_shape) / 3.0
    return np.select([goal == 0, goal == 1, goal == 2], [line, by_colour, by_shape], mean).astype(
        np.float64
    )


class ProteusHeuristicAgent(LookaheadAgent):
    """Two-ply minimax with the goal-progress evaluation (module docstring); ``seed`` and
    ``noise`` (the tie-break) as in :class:`envs.core.plies.LookaheadAgent`."""

    def act(
        self, obs: np.ndarray, mask: np.ndarray | None, context: ActContext | None = None
    ) -> np.ndarray:
        game, state, mask, seats = board_context("ProteusHeuristicAgent", mask, context)
        one = expand(game, state, mask, seats)  # our candidates
        value = np.where(one.done, np.where(one.reward != 0, WIN * one.reward, DRAW), 0.0)
        # replies of whoever moves next, for candidates that did not end the game
        live = np.flatnonzero(~one.done)
        if len(live):
            sub = game.take(one.states, live)
            two = expand(game, sub, game.legal_mask(sub), one.seats[live])
            grand, me2 = two.states, two.seats
            ev = progress(grand.tile_at, grand.piece_at, grand.active, me2) - progress(
                grand.tile_at, grand.piece_at, grand.active, 1 - me2
            )
            v2 = np.where(two.done, np.where(two.reward != 0, WIN * two.reward, DRAW), ev)
            worst = np.full(len(live), np.inf)
            np.minimum.at(worst, two.rows, v2)
            # a candidate with no reply recorded cannot happen (pass is always there)
            value[live] = np.where(np.isfinite(worst), worst, 0.0)
        return first_best(value, one, len(mask), self.rng, self.noise)
