"""Virus Fight heuristic agent: searches its whole turn on the batch facade, scores features.

A turn is one or two decisions (VF-18: the instruction's effect, then the marker step).
The agent plays every legal decision (``take`` + ``step`` on the batch of candidates)
and, while the same seat is still to act, every follow-up decision, so it compares
complete turns. Each resulting position is scored from the agent's seat:

- the game ended: +1000 for a win, -1000 for a loss, -2 for a shared adjudication (VF-17);
- -100 per opponent still in (so eliminating one beats everything but winning);
- own *next step* (VF-15): the unmarked instructions orthogonally next to our marker, the
  cells we must step to after our next instruction: none -30, one 0, two or more +10
  (on a JUMP, any unmarked instruction of the board counts; VF-14) - this is how it
  avoids moves that leave its marker without a next step;
- each opponent's next step: none +24, one +8 (they are about to be eliminated);
- supplies (VF-17 adjudication, ERASE captures, VF-14): +1 per own piece in supply,
  -0.5 per piece in the opponents' supplies (mean).

Setup (VF-10/VF-11) is rule-based and reads nothing hidden: write a program of
``program_length`` instructions (WRITE, ERASE and MOVE first, larger first, at a random
end of the run), then put the marker on an instruction with the most neighbours in the
run. Ties are broken by a tiny noise from the agent's own generator.
"""

from __future__ import annotations

import numpy as np

from envs.core.agent import ActContext
from envs.core.plies import LookaheadAgent, board_context, expand, first_best

WIN, DRAW, OPP_ALIVE = 1000.0, -2.0, 100.0


def _neighbours(n: int) -> np.ndarray:
    """(64, 4) orthogonal neighbour cells on an n x n board, -1 padded."""
    nb = -np.ones((64, 4), np.int64)
    for r in range(n):
        for c in range(n):
            k = 0
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                rr, cc = r + dr, c + dc
                if 0 <= rr < n and 0 <= cc < n:
                    nb[r * n + c, k] = rr * n + cc
                    k += 1
    return nb


def next_steps(cells: np.ndarray, marker: np.ndarray, seat: np.ndarray, nbr: np.ndarray):
    """(M,) unmarked instructions ``seat``'s marker could step to (VF-15; JUMP: any, VF-14).

    -1 where the seat has no marker (eliminated).
    """
    m = len(cells)
    rows = np.arange(m)
    occupied = cells >= 0
    marked = np.zeros_like(occupied)
    for s in range(marker.shape[1]):
        c = marker[:, s].astype(np.int64)
        ok = c >= 0
        marked[rows[ok], c[ok]] = True
    free = occupied & ~marked
    cell = marker[rows, seat].astype(np.int64)
    has = cell >= 0
    nb = nbr[np.maximum(cell, 0)]  # (M, 4)
    valid = nb >= 0
    adj = (valid & free[rows[:, None], np.maximum(nb, 0)]).sum(axis=1)
    kind = cells[rows, np.maximum(cell, 0)] // 3
    anywhere = free.sum(axis=1)
    out = np.where(kind == 2, anywhere, adj)  # JUMP (kind 2) may go anywhere allowed
    return np.where(has, out, -1)


class VirusFightHeuristicAgent(LookaheadAgent):
    """Whole-turn lookahead with the feature score of the module docstring."""

    def __init__(self, seed: int | None = 0, program_length: int = 4, noise: float = 1e-3) -> None:
        super().__init__(seed, noise)
        self.program_length = program_length
        self._nbr: dict[int, np.ndarray] = {}

    # -- evaluation --------------------------------------------------------------------
    def evaluate(self, game, state, me: np.ndarray) -> np.ndarray:
        """Feature score of each position from seat ``me`` (module docstring)."""
        from envs.virus_fight import kernel as K

        n = game.board_size
        if n not in self._nbr:
            self._nbr[n] = _neighbours(n)
        nbr = self._nbr[n]
        p = game.num_players
        alive = (state.info[:, K.I_ALIVE][:, None] >> np.arange(p)[None, :]) & 1
        rows = np.arange(len(me))
        opp = alive.astype(bool).copy()
        opp[rows, me] = False
        score = -OPP_ALIVE * opp.sum(axis=1)
        mine = next_steps(state.cells, state.marker, me, nbr)
        score += np.select([mine == 0, mine == 1], [-30.0, 0.0], 10.0)
        for s in range(p):
            theirs = next_steps(state.cells, state.marker, np.full(len(me), s), nbr)
            bonus = np.select([theirs == 0, theirs == 1], [24.0, 8.0], 0.0)
            score += np.where(opp[:, s], bonus, 0.0)
        supply = state.supply[:, :p, :].sum(axis=2).astype(np.float64)
        own = supply[rows, me]
        n_opp = np.maximum(opp.sum(axis=1), 1)
        score += own - 0.5 * (supply * opp).sum(axis=1) / n_opp
        return score

    # -- acting ------------------------------------------------------------------------
    def act(
        self, obs: np.ndarray, mask: np.ndarray | None, context: ActContext | None = None
    ) -> np.ndarray:
        from envs.virus_fight import kernel as K

        game, state, mask, seats = board_context("VirusFightHeuristicAgent", mask, context)
        out = np.zeros(len(mask), np.int64)
        setup = state.info[:, K.I_PHASE] == K.PH_SETUP
        for i in np.flatnonzero(setup):
            out[i] = self._setup_action(game, state, int(i), mask[i])
        play = np.flatnonzero(~setup)
        if len(play):
            sub = game.take(state, play)
            out[play] = self._search(game, sub, mask[play], seats[play])
        return out

    def _setup_action(self, game, state, i: int, legal: np.ndarray) -> int:
        from envs.virus_fight import kernel as K

        n = game.board_size
        cells_n = n * n
        put0, _, _, mark0, _ = K.action_offsets(n)
        acts = np.flatnonzero(legal)
        puts = acts[(acts >= put0) & (acts < put0 + 12 * cells_n)]
        marks = acts[(acts >= mark0) & (acts < mark0 + cells_n)]
        placed = int(state.info[i, K.I_NSET])
        if len(puts) and (placed < self.program_length or len(marks) == 0):
            piece = puts // cells_n
            kind, size = piece // 3, piece % 3
            pref = np.array([2.0, 3.0, 0.0, 2.5])[kind] + 0.3 * size  # WRITE, ERASE, MOVE
            pref = pref + self.noise * 100 * self.rng.random(len(puts))
            return int(puts[np.argmax(pref)])
        if len(marks):
            nbr = _neighbours(n)
            c = marks - mark0  # our own program's cells: count neighbours within it only
            own = set(c.tolist())
            deg = np.array([sum(int(y) in own for y in nbr[x]) for x in c], np.float64)
            return int(marks[np.argmax(deg + 0.1 * self.rng.random(len(c)))])
        return int(self.rng.choice(acts))

    def _search(self, game, state, mask: np.ndarray, me: np.ndarray) -> np.ndarray:
        one = expand(game, state, mask, me)
        value = self._leaf_values(game, one.states, one.seats, one.reward, one.done)
        again = np.flatnonzero(
            ~one.done
            & (np.asarray(game.current_player(one.states)) == one.seats)
            & (one.reward == 0)
        )
        if len(again):  # the marker step of the same turn (VF-18): take our best one
            sub = game.take(one.states, again)
            two = expand(game, sub, game.legal_mask(sub), one.seats[again])
            v2 = self._leaf_values(game, two.states, two.seats, two.reward, two.done)
            best2 = np.full(len(again), -np.inf)
            np.maximum.at(best2, two.rows, v2)
            value[again] = best2
        return first_best(value, one, len(mask), self.rng, self.noise)

    def _leaf_values(self, game, st, me: np.ndarray, reward: np.ndarray, done: np.ndarray):
        value = self.evaluate(game, st, me)
        ended = done | (reward != 0)
        end_value = np.where(reward > 0, WIN, np.where(reward < 0, -WIN, DRAW))
        return np.where(ended, end_value, value)
