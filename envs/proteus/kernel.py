"""Proteus rules kernel: pure Numba functions over a batch of games in plain numpy arrays.

Every rule of Proteus (``docs/proteus.md``, PR-1..PR-17) lives in this package's kernel
modules (rule numbers PR-n in comments); this module is their batch API.
A batch of ``B`` games is a :class:`KernelState`: a few arrays with a leading batch axis,
each game packed into a handful of 64-bit words (4-bit "nibbles" and 9-bit bitboards):

==============  ============  ==========================================================
array           dtype         per game
==============  ============  ==========================================================
``tiles``       int64         nibble ``sq`` = tile id + 1 on square ``sq`` (0 = empty);
                              tile id = 3*colour + shape, square = 3*row + col
``tsq``         int64         nibble ``t`` = square of tile ``t`` (15 = in the pool)
``pieces``      int64         nibble ``pc`` = square of piece ``pc`` = 3*player + shape
                              (15 = in hand)
``pat``         int64         nibble ``sq`` = piece id + 1 on square ``sq`` (0 = none)
``bb``          int64         bitboards: bits 0-8 squares with a tile, 9-17 squares with
                              a BLACK piece, 18-26 with a WHITE piece, 27-35 tile ids
                              with a piece on them, 36-44 tile ids on the board, 45-50
                              piece ids in hand
``act``         int64         2 bits per colour: face-up tile's shape + 1 (0 = none)
``player``      int8          seat to move (0 black, 1 white)
``turn``        int32         completed turns (PR-17: every turn counts, passes too)
``max_turns``   int32         PR-17 turn limit of the game
``hist``        (H,) uint64   packed positions since the last placement (PR-17),
                              H = max_turns + 1
``hist_len``    int32         used entries of ``hist``
``status``      int8          0 ongoing, 1 black won, 2 white won, 3 draw by repetition,
                              4 draw by the turn limit
``rng``         uint64        splitmix64 key (random legal actions)
==============  ============  ==========================================================

The words are redundant views of one board (square -> tile, tile -> square, ...), kept in
step by every transition, so no rule needs a scan over the squares. The pool, the hands
and the phase are functions of the board (not placed = in the pool / in hand; the
movement phase starts once everything is placed).

Repetition (PR-17) is exact: ``hist`` stores whole positions packed into 64 bits (not
hashes). A placement can never be undone (the count of placed things only grows), so a
position can only recur among the positions since the last placement; the history is
cleared on every placement and starts again with the position after it. The empty board
is the first entry of a new game's history. Packing:

* placement phase: ``tiles`` (bits 0-35) | ``pieces`` << 36 | player << 60; bit 63 = 0.
  Inside one window the face-up state cannot change, so it is implied.
* movement phase: ``tiles`` of squares 0-7 (bits 0-31; the 9th tile is the one left) |
  ``pieces`` << 32 | ``act`` << 56 | player << 62 | 1 << 63.

Random legal actions are drawn per game from its own key with exact (rejection-based)
uniform sampling, fused with the legality computation: the kernel counts the legal
actions of each kind and decodes the r-th one, without materialising the mask. PR-10
feasibility is one lookup in a precomputed bit table.

Modules: ``tables.py`` (lookup tables), ``state.py`` (:class:`KernelState`),
``legal.py`` (the one legal-move enumeration: mask, random, n-th action, validation),
``rules.py`` (transition, goal, PR-17 history), ``observe.py`` (planes), this module
(the batch loops, the fused self-play and the learner step). Serial or parallel
execution is chosen in ``envs/core/loops.py`` only.
"""

from __future__ import annotations

import threading

import numpy as np
from numba import njit, prange

from envs.core.batch import LearnerBuffers, as_actions, raise_illegal
from envs.core.cache import guard_cache
from envs.core.loops import (  # noqa: F401  (thresholds re-exported for old callers)
    PARALLEL_MIN_BATCH,
    SINGLE_THREAD_MIN_BATCH,
    run_loop,
    serial_and_parallel,
)
from envs.proteus.constants import A_PASS, DEFAULT_MAX_TURNS, NUM_ACTIONS
from envs.proteus.legal import (  # noqa: F401  (re-exported: lookahead, tests)
    _bad_action,
    _bad_unless_pass,
    _feasible,
    _fill_bits,
    _fill_from,
    _fill_mask,
    _legal_of,
    _legal_set,
    _need,
    _nth,
    _nth_legal,
    _piece_squares,
    _rand_key,
    _random_action,
    _sample,
    _swap_pair,
)
from envs.proteus.observe import (  # noqa: F401  (re-exported: the facade, tests)
    COMPACT,
    DENSE,
    DENSE_BYTES,
    FLOAT,
    OBS_SCALE,
    _observe_one,
    _planes,
    decode,
    decode_dense,
)
from envs.proteus.rules import (  # noqa: F401  (re-exported: lookahead, tests)
    _activated,
    _apply_one,
    _count_key,
    _end_turn,
    _goal_winner,
    _initial,
    _is_new_active,
    _key,
    _key_w,
    _load,
    _outcome,
    _play,
    _reset_game,
    _rewards_of,
    _store,
    _transition,
    _turn,
    _turn_status,
)
from envs.proteus.state import KernelState, _alloc, from_board, key_of, seed_keys  # noqa: F401
from envs.proteus.tables import (  # noqa: F401  (re-exported)
    BROWN_T,
    EMPTY_PIECES,
    EMPTY_TSQ,
    FEAS,
    HAND_ALL,
    IS_LINE,
    LOWBIT,
    N_PLANES,
    POPC,
)

# ----------------------------------------------------------------------------- batch API

#: the batch loops' compile options: without Numba's reference counts (``_nrt=False``).
#: Why: every per-game body unpacks the state's 13-array tuple, and with the counts each
#: unpacked array cost an atomic increment and decrement per game: 36 of the 48 ns of the
#: action check per game (measured 2026-12-02 against the same body called with the arrays
#: themselves). The loops allocate nothing, so they need no runtime.
FAST = {"_nrt": False}

_F32 = np.dtype(np.float32)
_I64 = np.dtype(np.int64)
#
# Every batch operation is one prange loop over a per-game body, compiled serial and
# parallel; ``envs.core.loops.run_loop`` picks one by batch size. Results never depend on
# the choice: each game only touches its own rows and its own RNG key.


def _run(par_fn, ser_fn, st: KernelState, parallel: bool | None, *args, many_steps=False):
    """Run an operation's loop over ``st`` (``parallel``: None = by batch size, or forced).

    A batch below ``SINGLE_THREAD_MIN_BATCH`` (the AEC env's one game, a search's few
    candidates) calls the serial compile here: the first rule of ``envs.core.loops.choose``
    without the two extra Python calls, a fifth of a call's cost at B = 1 (issue 10).
    """
    S = st.arrays()
    n = len(S[0])
    if parallel is None and n < SINGLE_THREAD_MIN_BATCH:
        return ser_fn(S, *args)
    return run_loop(ser_fn, par_fn, n, S, *args, many_steps=many_steps, force=parallel)


def _reset_loop(S):
    for b in prange(S[0].shape[0]):
        _reset_game(S, b)


_reset_ser, _reset_par = serial_and_parallel(_reset_loop, **FAST)


def _mask_loop(S, out):
    tiles, tsq, pieces, pat, bb, act, player, turn, max_turns, hist, hist_len, status, rng = S
    for b in prange(tiles.shape[0]):
        _fill_mask(tiles, tsq, pieces, bb, act, player, status, b, out[b])


_mask_ser, _mask_par = serial_and_parallel(_mask_loop, **FAST)


@njit(cache=True, inline="always")
def _random_one(S, out, b):
    tiles, tsq, pieces, pat, bb, act, player, turn, max_turns, hist, hist_len, status, rng = S
    if status[b] != 0:
        out[b] = -1
    else:
        out[b] = _random_action(tsq, pieces, bb, act, player, S[12], b)  # S[12]: see _store


def _random_loop(S, out):
    for b in prange(S[0].shape[0]):
        _random_one(S, out, b)


_random_ser, _random_par = serial_and_parallel(_random_loop, **FAST)


@njit(cache=True, inline="always")
def _step_one(S, b, action, auto_reset, rewards, done):
    tiles, tsq, pieces, pat, bb, act, player, turn, max_turns, hist, hist_len, status, rng = S
    rewards[b, 0] = 0.0
    rewards[b, 1] = 0.0
    if status[b] != 0:
        done[b] = True
        return
    _apply_one(S, b, action)
    if status[b] != 0:
        done[b] = True
        _rewards_of(status, b, rewards)
        if auto_reset:
            _reset_game(S, b)
    else:
        done[b] = False


def _step_loop(S, actions, auto_reset, rewards, done, check, bad):
    """One action per game; with ``check`` every action (its range and, while its game
    runs, its legality; ``bad`` names the failures) is checked in a pass before any game
    changes, and a failure returns the count with the batch untouched.

    Why a pass first: since the check tests only the action's own group it costs less
    than saving an undo row per game as the step applies it, at B = 1024 and at B = 16384
    (measured 2026-12-02, one thread, ns per game, random actions + step unchecked / pass
    first / undo rows: 126 / 146 / 157); since 0.5.5 the pass is a branch-free vector loop
    (``legal._action_core``, 5.7 ns per game on one thread instead of 12) and a second loop
    for the passes (:func:`_bad_pass`).
    """
    if check:
        for b in prange(S[0].shape[0]):
            bad[b] = _bad_of(S, b, np.int64(actions[b]))
        for b in prange(S[0].shape[0]):
            bad[b] |= _bad_pass(S, b, np.int64(actions[b]))
        nbad = _n_true(bad)
        if nbad:
            return nbad
    for b in prange(S[0].shape[0]):
        _step_one(S, b, np.int64(actions[b]), auto_reset, rewards, done)
    return 0


_step_ser, _step_par = serial_and_parallel(_step_loop, **FAST)


@njit(cache=True, inline="always")
def _selfplay_one(S, b, n_steps):
    """n_steps random legal actions of game ``b`` (auto-reset), its words kept in registers."""
    hist = S[9]
    tw, ts, pcs, pw, w, a, p, t, mt, n, st = _load(S, b)
    key = S[12][b]
    finished = 0
    for _ in range(n_steps):
        if st != 0:  # auto-reset (PR-8)
            tw, ts, pcs, pw, w, a, p, t, st, n = _initial(hist, b)
        action, key = _sample(ts, pcs, w, a, p, key)
        tw, ts, pcs, pw, w, a, p, t, n, st = _play(
            hist, b, action, p, tw, ts, pcs, pw, w, a, t, n, mt
        )
        if st != 0:
            finished += 1
    _store(S, b, tw, ts, pcs, pw, w, a, p, t, n, st)
    S[12][b] = key  # the RNG key (written as S[k]: see _store)
    return finished


def _selfplay_loop(S, n_steps, finished):
    """Per-game counts of finished games into ``finished`` (summed by the caller: a prange
    sum needs Numba's runtime, and with it each game's call cost the tuple's reference
    counts, 2-3x the one-step self-play's time, measured 2026-12-06)."""
    for b in prange(S[0].shape[0]):
        finished[b] = _selfplay_one(S, b, n_steps)


_selfplay_ser, _selfplay_par = serial_and_parallel(_selfplay_loop, **FAST)


def _observe_loop(S, seats, out):
    flat = out.reshape((out.shape[0], 9 * N_PLANES))  # checked contiguous by ``observe``
    for b in prange(S[0].shape[0]):
        _observe_one(S, seats, flat, b)


_observe_ser, _observe_par = serial_and_parallel(_observe_loop, **FAST)


def new_state(
    batch_size: int, seed: int = 0, max_turns: int = DEFAULT_MAX_TURNS, history: int | None = None
) -> KernelState:
    """Allocate ``batch_size`` new games (empty board, BLACK to move, PR-4/PR-8)."""
    st = _alloc(int(batch_size), max_turns, history, seed)
    reset_all(st)
    return st


def reset_all(st: KernelState, parallel: bool | None = None) -> None:
    """Start every game of the batch anew (PR-8; the RNG keys and max_turns are kept)."""
    _run(_reset_par, _reset_ser, st, parallel)


def legal_mask(
    st: KernelState, out: np.ndarray | None = None, parallel: bool | None = None
) -> np.ndarray:
    """(B, NUM_ACTIONS) bool legal actions of the player to move (all False once over)."""
    if out is None:
        out = np.zeros((st.batch_size, NUM_ACTIONS), dtype=np.bool_)
    _run(_mask_par, _mask_ser, st, parallel, out)
    return out


def random_actions(
    st: KernelState, out: np.ndarray | None = None, parallel: bool | None = None
) -> np.ndarray:
    """(B,) uniformly random legal actions from each game's own key (-1 where over)."""
    if out is None:
        out = np.zeros(st.batch_size, dtype=np.int64)
    _run(_random_par, _random_ser, st, parallel, out)
    return out


def step(
    st: KernelState,
    actions: np.ndarray,
    auto_reset: bool = False,
    rewards: np.ndarray | None = None,
    done: np.ndarray | None = None,
    parallel: bool | None = None,
    *,
    validate: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Apply one legal action per running game; returns (rewards (B, 2), done (B,)).

    ``done[b]`` is True when game b is over after the step (it ended now, or it was
    already over: a finished game ignores its action, ``-1`` is fine there). With
    ``auto_reset`` a game that ended in this step is re-initialised after its rewards
    are recorded. With ``validate`` (default) a NaN, fraction, wrong length or illegal
    id raises ValueError naming the games and actions, and no game changes;
    ``validate=False`` is for actions drawn from the legal mask.
    """
    b = st.batch_size
    if rewards is None:
        rewards = np.zeros((b, 2), dtype=np.float32)
    if done is None:
        done = np.zeros(b, dtype=np.bool_)
    plain = (
        isinstance(actions, np.ndarray)
        and actions.dtype == _I64
        and actions.shape == (b,)
        and actions.flags.c_contiguous
    )
    if plain:  # the kernel checks the range of int64 ids itself: no numpy pass
        acts = actions
    elif validate:
        acts = as_actions(actions, b, NUM_ACTIONS, "proteus")
    else:  # the caller vouches for the ids; the length is still checked (memory safety)
        acts = np.ascontiguousarray(actions, dtype=np.int64)
        if acts.shape != (b,):
            raise ValueError(f"proteus: actions must have shape ({b},), got {acts.shape}")
    bad = _bad_row(b)
    if _run(_step_par, _step_ser, st, parallel, acts, bool(auto_reset), rewards, done,
            bool(validate), bad):  # fmt: skip
        as_actions(acts, b, NUM_ACTIONS, "proteus")  # an id out of range: say so
        raise_illegal("proteus", bad, acts)
    return rewards, done


_BAD_ROWS: dict[int, np.ndarray] = {}


def _bad_row(batch: int) -> np.ndarray:
    """This thread's bad-action flags for a validated step of ``batch`` games (kept between
    calls: at B = 16384 a new row per call costs its page faults; per thread: one module
    serves every thread that steps a batch)."""
    key = threading.get_ident()
    row = _BAD_ROWS.get(key)
    if row is None or row.shape[0] != batch:
        row = _BAD_ROWS[key] = np.zeros(batch, np.bool_)
    return row


def random_step(st: KernelState, n_steps: int = 1, parallel: bool | None = None) -> int:
    """Self-play: every game applies ``n_steps`` uniformly random legal actions (auto-reset).

    Returns the number of games that finished (for benchmarks and rollouts).
    """
    finished = np.empty(st.batch_size, np.int64)
    _run(_selfplay_par, _selfplay_ser, st, parallel, int(n_steps), finished, many_steps=True)
    return int(finished.sum())


def observe(
    st: KernelState, seats: np.ndarray, out: np.ndarray | None = None, parallel: bool | None = None
) -> np.ndarray:
    """(B, 3, 3, N_PLANES) float32 planes from ``seats[b]``'s point of view.

    Planes: 0-8 tile id k on the square; 9 the tile is face up; 10-12 observer's pieces
    by shape; 13-15 opponent's pieces by shape; 16-24 tile k in the pool (constant
    plane); 25-27 observer's pieces in hand; 28-30 opponent's pieces in hand; 31 movement
    phase; 32 observer is to move; 33 turn / max_turns; 34 (occurrences of the position
    - 1) / 2 (PR-17 repetition count).
    """
    b = len(st.tiles)
    if out is None:
        out = np.zeros((b, 3, 3, N_PLANES), dtype=np.float32)
    elif (
        out.shape != (b, 3, 3, N_PLANES)
        or (out.dtype is not _F32 and out.dtype != _F32)
        or not out.flags.c_contiguous
    ):
        raise ValueError(
            f"observe: out is {out.dtype}{out.shape}, expected a contiguous float32"
            f"{(b, 3, 3, N_PLANES)}"
        )
    # an int64 (B,) array passes as it is (the cheap test first: issue 10's B = 1 cost)
    if seats.__class__ is not np.ndarray or seats.dtype is not _I64 or seats.shape != (b,):
        seats = np.ascontiguousarray(seats, dtype=np.int64)
        if seats.shape != (b,):
            raise ValueError(f"observe: seats has shape {seats.shape}, expected ({b},)")
    _run(_observe_par, _observe_ser, st, parallel, seats, out)
    return out


# ----------------------------------------------------------------------------- learner step
#
# The step a learner sees (as Pgx's ``Env.step``): validate, apply, auto-reset, then the
# next observation (compact uint8, ``observe.py``) and legal mask for the seat to move,
# plus rewards and done flags, all into caller-owned buffers in one kernel call.


@njit(cache=True, inline="always")
def _bad_of(S, b, action):
    """``legal._bad_unless_pass`` of game ``b`` (the range is checked there: a plain int64
    array skips the facade's numpy pass)."""
    tiles, tsq, pieces, pat, bb, act, player, turn, max_turns, hist, hist_len, status, rng = S
    return _bad_unless_pass(tiles, bb, act, player, status, b, action) == 1


@njit(cache=True, inline="always")
def _bad_pass(S, b, action):
    """Whether game ``b``'s ``action`` is a pass it may not make (PR-11, PR-14: legal only
    alone, the whole set); other ids False (:func:`_bad_of` tested them)."""
    tiles, tsq, pieces, pat, bb, act, player, turn, max_turns, hist, hist_len, status, rng = S
    if action != A_PASS:
        return False
    return _bad_action(tiles, tsq, pieces, bb, act, player, status, b, action) == 1


@njit(cache=True, inline="always")
def _n_true(flags):
    n = 0
    for i in range(flags.shape[0]):
        n += flags[i]
    return n


def _validate_loop(S, actions, bad):
    """bad[b] = out of range, or not legal while game b runs; returns how many are bad.

    Two loops: every game without a branch (``_bad_of``, a vector loop), then the
    passes (:func:`_bad_pass`, a branch seldom taken)."""
    for b in prange(S[0].shape[0]):
        bad[b] = _bad_of(S, b, np.int64(actions[b]))
    for b in prange(S[0].shape[0]):
        bad[b] |= _bad_pass(S, b, np.int64(actions[b]))
    return _n_true(bad)


_validate_ser, _validate_par = serial_and_parallel(_validate_loop, **FAST)


@njit(cache=True, inline="always")
def _learn_one(S, b, action, obs, code, mask, bits, rewards, done, seat):
    """Apply, auto-reset, then write game ``b``'s next observation and mask (seat to move).

    The words stay in registers from load to store, and the PR-17 count of the new
    position comes from the turn's own history scan (one scan per step, not two).
    """
    hist = S[9]
    tw, ts, pcs, pw, w, a, p, t, mt, n, st = _load(S, b)
    over = False
    count = 1
    r0, r1 = 0.0, 0.0
    if st == 0:
        tw, ts, pcs, pw, w, a, p, t, n, st, count = _turn(
            hist, b, action, p, tw, ts, pcs, pw, w, a, t, n, mt
        )
        over = st != 0
        r0, r1 = _outcome(st)
    if st != 0:  # ended now, or over before the step (a state from elsewhere): PR-8 anew
        tw, ts, pcs, pw, w, a, p, t, st, n = _initial(hist, b)
        count = 1
    _store(S, b, tw, ts, pcs, pw, w, a, p, t, n, st)
    rewards[b, 0] = r0
    rewards[b, 1] = r1
    done[b] = over
    seat[b] = p
    _planes(S, b, p, count, obs[b], code)
    _write_mask(_legal_set(ts, pcs, w, a, p), p, ts, pcs, mask, bits, b)


@njit(cache=True, inline="always")
def _write_mask(L, p, ts, pcs, mask, bits, b):
    """Game ``b``'s legal set into the learner's mask: packed words when the caller's
    buffers hold them (``bits`` has words per row), else the bool row ``mask[b]``."""
    if bits.shape[1]:
        _fill_bits(L, p, ts, pcs, bits[b])
    else:
        _fill_from(L, p, ts, pcs, mask[b])


def _learner_loop(S, actions, validate, obs, code, mask, bits, rewards, done, seat, bad):
    """The fused learner step over the batch; returns the number of illegal actions."""
    if validate:  # _validate_loop's body (a prange loop cannot call another)
        for b in prange(S[0].shape[0]):
            bad[b] = _bad_of(S, b, np.int64(actions[b]))
        for b in prange(S[0].shape[0]):
            bad[b] |= _bad_pass(S, b, np.int64(actions[b]))
        nbad = _n_true(bad)
        if nbad:
            return nbad
    for b in prange(S[0].shape[0]):
        _learn_one(S, b, np.int64(actions[b]), obs, code, mask, bits, rewards, done, seat)
    return 0


_learner_ser, _learner_par = serial_and_parallel(_learner_loop, **FAST)


def _view_loop(S, obs, code, mask, bits, seat):
    """Observation and mask of every game for its seat to move (no step): the first ones."""
    tiles, tsq, pieces, pat, bb, act, player, turn, max_turns, hist, hist_len, status, rng = S
    for b in prange(tiles.shape[0]):
        me = np.int64(player[b])
        seat[b] = me
        _planes(S, b, me, -1, obs[b], code)
        if status[b] != 0:  # over: no legal action (an empty set, not the pass)
            for k in range(mask.shape[1]):
                mask[b, k] = False
            for k in range(bits.shape[1]):
                bits[b, k] = 0
        else:
            ts = tsq[b]
            pcs = pieces[b]
            _write_mask(_legal_set(ts, pcs, bb[b], act[b], me), me, ts, pcs, mask, bits, b)


_view_ser, _view_par = serial_and_parallel(_view_loop, **FAST)


def learner_step(
    st: KernelState,
    actions: np.ndarray,
    out: LearnerBuffers,
    validate: bool = True,
    parallel: bool | None = None,
) -> LearnerBuffers:
    """One fused learner step into ``out`` (see ``LearnerBuffers``); auto-reset always on.

    ``out`` from ``learner_buffers(B)`` gets the compact planes, from
    ``learner_buffers(B, dense=True)`` the dense 24-byte codes (``observe.py``). With
    ``validate`` (default) an illegal action raises ValueError naming the games and
    actions, and no game changes; ``validate=False`` is for actions drawn from the mask.
    """
    acts = as_actions(actions, st.batch_size, NUM_ACTIONS, "proteus")
    obs, code = _obs_rows(st, out)
    mask, bits = out.kernel_masks()
    nbad = _run(
        _learner_par, _learner_ser, st, parallel, acts, bool(validate),
        obs, code, mask, bits, out.rewards, out.done, out.seat, out.bad, many_steps=True,
    )  # fmt: skip
    if nbad:
        raise_illegal("proteus", out.bad, acts)
    return out


def learner_view(st: KernelState, out: LearnerBuffers, parallel: bool | None = None) -> None:
    """Write the observation and mask of every game's seat to move into ``out`` (no step)."""
    obs, code = _obs_rows(st, out)
    mask, bits = out.kernel_masks()
    _run(_view_par, _view_ser, st, parallel, obs, code, mask, bits, out.seat, many_steps=True)
    out.rewards[:] = 0.0
    out.done[:] = False


def _obs_rows(st: KernelState, out: LearnerBuffers) -> tuple[np.ndarray, int]:
    """(B, row) view of ``out.obs`` and its encoding, once ``out`` is checked to fit ``st``."""
    b = st.batch_size
    if out.obs.ndim == 2:  # learner_buffers(B, dense=True)
        out.check(b, (DENSE_BYTES,), NUM_ACTIONS)
        return out.obs, DENSE
    out.check(b, (3, 3, N_PLANES), NUM_ACTIONS)
    return out.obs.reshape(b, 9 * N_PLANES), COMPACT  # a view: checked contiguous


def check_legal(st: KernelState, actions: np.ndarray, parallel: bool | None = None) -> np.ndarray:
    """``actions`` as int64 if every running game's action is legal, else ValueError."""
    acts = as_actions(actions, st.batch_size, NUM_ACTIONS, "proteus")
    bad = np.zeros(st.batch_size, np.bool_)
    if _run(_validate_par, _validate_ser, st, parallel, acts, bad):
        raise_illegal("proteus", bad, acts)
    return acts


# ----------------------------------------------------------------------------- env fast path


@njit(cache=True)
def _env_refresh(S, mask, obs, seats):
    """Mask of game 0 and its planes for both seats, in one dispatch (the AEC env's path)."""
    tiles, tsq, pieces, pat, bb, act, player, turn, max_turns, hist, hist_len, status, rng = S
    _fill_mask(tiles, tsq, pieces, bb, act, player, status, 0, mask[0])
    flat = obs.reshape((2, 9 * N_PLANES))
    for seat in range(2):
        seats[0] = seat
        _planes(S, 0, seat, -1, flat[seat], FLOAT)


@njit(cache=True)
def _env_step(S, action, mask, obs, seats):
    _apply_one(S, 0, action)
    _env_refresh(S, mask, obs, seats)


def env_refresh(st: KernelState, mask: np.ndarray, obs: np.ndarray, seats: np.ndarray) -> None:
    """Batch-of-one helper for the AEC env: mask (1, 226) bool and obs (2, 3, 3, 35)."""
    _env_refresh(st.arrays(), mask, obs, seats)


guard_cache(globals())  # recompile if a sibling kernel file changed (envs/core/cache.py)
