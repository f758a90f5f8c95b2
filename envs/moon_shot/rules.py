"""Moon Shot game flow (MS-14..MS-19, MS-21) as pure functions over a batch of games.

The step kernels are ``@njit`` loops that update a :class:`~envs.moon_shot.state.GameState`
in place from the scored shots (:func:`envs.moon_shot.scoring.score_shots`). Rules here
only need the shot values, not the physics, so every ending and tie-break is testable with
hand-chosen shot outcomes. The batch facade (``batch.MoonShotBatch``) chains shots and
these rules; rules reference: docs/moon_shot.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from envs.moon_shot.state import (
    COLONY_END,
    CRACK_END,
    MAX_ROUNDS_END,
    ONGOING,
    TARGET_END,
    GameState,
    SoloState,
)


@njit(cache=True)
def _final_rewards(win: np.ndarray, out: np.ndarray) -> None:
    """MS-17: a single winner +1, the rest -1; several winners draw at 0, the rest -1."""
    k = 0
    for p in range(win.shape[0]):
        if win[p]:
            k += 1
    for p in range(win.shape[0]):
        if win[p]:
            out[p] = 1.0 if k == 1 else 0.0
        else:
            out[p] = -1.0


@njit(cache=True)
def _rank(scores: np.ndarray, last: np.ndarray, causers: np.ndarray, sign: int) -> np.ndarray:
    """Who wins or draws an ending ranked by points: the most (``sign`` +1) or the fewest
    (-1) points; among those, who caused the ending; else the most recent (+1) or least
    recent (-1) last landing (never landed, -1, is the least recent; several equal: a
    draw among them [decision])."""
    key = sign * scores
    top = key == key.max()
    win = top & causers
    if not win.any():
        ref = np.iinfo(np.int64).min
        for p in range(scores.shape[0]):
            if top[p] and sign * last[p] > ref:
                ref = sign * last[p]
        win = top & (sign * last == ref)
    return win


@njit(cache=True)
def _rank_colony(scores: np.ndarray, last: np.ndarray, colonists: np.ndarray) -> np.ndarray:
    """MS-14 (also MS-16 with no colonist, MS-18 with several): most points, the colonist
    first, then the most recent last landing (same step: draw, MS-18)."""
    return _rank(scores, last, colonists, 1)


@njit(cache=True)
def _rank_crack(scores: np.ndarray, last: np.ndarray, crackers: np.ndarray) -> np.ndarray:
    """MS-15: fewest points wins; cracker first, then least recent last landing."""
    return _rank(scores, last, crackers, -1)


@njit(cache=True)
def _rank_target(scores: np.ndarray, target: int) -> np.ndarray:
    """MS-19: who reached the target wins; several at once (MS-18): most points, ties draw."""
    reached = scores >= target
    best = -1
    for p in range(scores.shape[0]):
        if reached[p] and scores[p] > best:
            best = scores[p]
    return reached & (scores == best)


@njit(cache=True)
def _ending(
    scores: np.ndarray,
    last_landing: np.ndarray,
    crackers: np.ndarray,
    colonists: np.ndarray,
    target_winners: np.ndarray,
    last_round: bool,
) -> tuple[int, np.ndarray]:
    """(outcome, winners) of one game after a step; ONGOING while it goes on.

    The endings in order of precedence: a crack (MS-15), a colony (MS-14), the target
    score (MS-19), the last round (MS-16, ranked as after a colony by nobody). ``crackers``,
    ``colonists`` and ``target_winners`` mark the players who caused each (none: no such
    ending this step).
    """
    if crackers.any():
        return CRACK_END, _rank_crack(scores, last_landing, crackers)
    if colonists.any():
        return COLONY_END, _rank_colony(scores, last_landing, colonists)
    if target_winners.any():
        return TARGET_END, target_winners
    if last_round:
        nobody = np.zeros(scores.shape[0], dtype=np.bool_)
        return MAX_ROUNDS_END, _rank_colony(scores, last_landing, nobody)
    return ONGOING, target_winners


@njit(cache=True)
def _end_game(
    game: tuple,
    i: int,
    crackers: np.ndarray,
    colonists: np.ndarray,
    target_winners: np.ndarray,
    max_rounds: int,
) -> None:
    """After game ``i``'s step: if it ended (:func:`_ending`), record why and pay the
    MS-17 final rewards."""
    scores, last_landing, turn, rnd, seat, done, rewards, outcome = game
    end, win = _ending(
        scores[i], last_landing[i], crackers, colonists, target_winners, rnd[i] >= max_rounds
    )
    if end != ONGOING:
        outcome[i] = end
        done[i] = True
        _final_rewards(win, rewards[i])


@njit(cache=True)
def _turn_shot(game: tuple, shot: tuple, i: int, target_score: int) -> tuple:
    """MS-14, MS-19: the seat to shoot in game ``i`` took its shot (column 0 of ``shot``);
    returns who cracked, who made a colony and who reached the target (that seat or none)."""
    scores, last_landing, turn, rnd, seat, done, rewards, outcome = game
    points, crack, colony, landed = shot
    P = scores.shape[1]
    s = seat[i]
    scores[i, s] += points[i, 0]
    if landed[i, 0]:
        last_landing[i, s] = turn[i]
    turn[i] += 1
    if s + 1 == P:  # MS-14: seat order, one shot per turn; a round is P turns
        seat[i] = 0
        rnd[i] += 1
    else:
        seat[i] = s + 1
    me = np.zeros(P, dtype=np.bool_)
    me[s] = True
    nobody = np.zeros(P, dtype=np.bool_)
    reached = target_score > 0 and scores[i, s] >= target_score  # MS-19: the shooter wins
    return (
        me if crack[i, 0] else nobody,  # MS-11 / MS-15
        me if colony[i, 0] else nobody,  # MS-12 / MS-14
        me if reached else nobody,
    )


@njit(cache=True)
def _realtime_shots(game: tuple, shot: tuple, i: int, target_score: int) -> tuple:
    """MS-18: every seat of game ``i`` shot at once (a step is a round) and every shot is
    scored; every cracker counts as "the cracker" (MS-15), every colonist as "the
    colonist" (MS-14), and several may reach the target together (MS-19)."""
    scores, last_landing, turn, rnd, seat, done, rewards, outcome = game
    points, crack, colony, landed = shot
    P = scores.shape[1]
    for p in range(P):
        scores[i, p] += points[i, p]
        if landed[i, p]:
            last_landing[i, p] = turn[i]  # same step: equally recent
    turn[i] += 1
    rnd[i] += 1
    by_target = np.zeros(P, dtype=np.bool_)
    if target_score > 0:
        by_target = _rank_target(scores[i], target_score)
    return crack[i], colony[i], by_target


@njit(cache=True)
def _step(game: tuple, shot: tuple, max_rounds: int, target_score: int, realtime: bool) -> None:
    """One step of every running game: its shots scored (``_turn_shot`` or
    ``_realtime_shots``), then the ending they cause, if any (``_end_game``).

    ``game``: ``GameState.arrays()``; ``shot``: (points, crack, colony, landed) as (N, 1)
    arrays (turn-based) or (N, P) (realtime)."""
    done = game[5]  # GameState.arrays() order
    for i in range(done.shape[0]):
        if done[i]:  # finished games are left untouched
            continue
        if realtime:
            crackers, colonists, target = _realtime_shots(game, shot, i, target_score)
        else:
            crackers, colonists, target = _turn_shot(game, shot, i, target_score)
        _end_game(game, i, crackers, colonists, target, max_rounds)


def _check_rules(max_rounds: int, target_score: int | None) -> tuple[int, int]:
    if int(max_rounds) < 1:
        raise ValueError(f"max_rounds must be >= 1, got {max_rounds}")
    t = 0 if target_score is None else int(target_score)
    if t < 0:
        raise ValueError(f"target_score must be positive or None, got {target_score}")
    return int(max_rounds), t


def _apply(
    state: GameState,
    shape: tuple[int, ...],
    shot: tuple[Any, Any, Any, Any],
    max_rounds: int,
    target_score: int | None,
    realtime: bool,
) -> None:
    """Run :func:`_step` over ``state`` with the shot values as contiguous arrays of
    ``shape`` (points int64; crack, colony, landed bool)."""
    mr, ts = _check_rules(max_rounds, target_score)
    points, crack, colony, landed = shot
    values = (
        np.ascontiguousarray(points, dtype=np.int64).reshape(shape),
        np.ascontiguousarray(crack, dtype=bool).reshape(shape),
        np.ascontiguousarray(colony, dtype=bool).reshape(shape),
        np.ascontiguousarray(landed, dtype=bool).reshape(shape),
    )
    _step(state.arrays(), values, mr, ts, realtime)


def turn_step(
    state: GameState,
    points: np.ndarray,
    crack: np.ndarray,
    colony: np.ndarray,
    landed: np.ndarray,
    max_rounds: int = 30,
    target_score: int | None = None,
) -> None:
    """Turn-based play (MS-14..MS-17, MS-19): the seat to shoot in each game took one shot.

    Shot values are ``(N,)`` arrays from :func:`score_shots`. Finished games are left
    untouched. Updates ``state`` in place; final rewards appear in ``state.rewards``.
    """
    shot = (points, crack, colony, landed)
    _apply(state, (state.scores.shape[0], 1), shot, max_rounds, target_score, realtime=False)


def realtime_step(
    state: GameState,
    points: np.ndarray,
    crack: np.ndarray,
    colony: np.ndarray,
    landed: np.ndarray,
    max_rounds: int = 30,
    target_score: int | None = None,
) -> None:
    """Realtime play (MS-18): every seat of each game took one shot this step.

    Shot values are ``(N, P)`` arrays. A step is a round for MS-16.
    """
    shot = (points, crack, colony, landed)
    _apply(state, state.scores.shape, shot, max_rounds, target_score, realtime=True)


def solo_step(
    state: SoloState,
    points: np.ndarray,
    crack: np.ndarray,
    colony: np.ndarray,
    max_shots: int = 20,
) -> np.ndarray:
    """MS-21: apply one shot per running episode; returns the (N,) float64 rewards.

    Reward = the shot's points; a colony ends the episode; a crack ends it with reward
    -(points so far); after ``max_shots`` shots the episode ends (a termination).
    Episodes already done get reward 0 and are left untouched.
    """
    if int(max_shots) < 1:
        raise ValueError(f"max_shots must be >= 1, got {max_shots}")
    live = ~state.done
    pts = np.asarray(points, dtype=np.int64).reshape(live.shape)
    crk = np.asarray(crack, dtype=bool).reshape(live.shape) & live
    col = np.asarray(colony, dtype=bool).reshape(live.shape) & live & ~crk
    reward = np.where(crk, -state.points, np.where(live, pts, 0)).astype(np.float64)
    state.points = np.where(live & ~crk, state.points + pts, state.points)
    state.shots = state.shots + live
    full = live & (state.shots >= max_shots)
    state.outcome = np.where(
        crk,
        CRACK_END,
        np.where(col, COLONY_END, np.where(full, MAX_ROUNDS_END, state.outcome)),
    ).astype(np.int8)
    state.done = state.done | crk | col | full
    return reward
