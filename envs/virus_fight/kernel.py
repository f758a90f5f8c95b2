"""Virus Fight rules kernel: Numba ``@njit`` functions over a batch of games.

All rules of Virus Fight (``docs/virus_fight.md``, VF-1..VF-18) live in this package's
kernel modules (rule numbers VF-n are cited next to the code implementing them); this
module is their batch API. A batch of games is held in plain numpy arrays with
a leading batch axis ``B``:

==========  =====================  ==========================================================
array       shape / dtype          meaning
==========  =====================  ==========================================================
``bb``      (B, 13) uint64         one bitboard per piece (kind, size) ``p = 3*kind + size-1``
                                   (kinds M, W, J, E = 0..3) and the occupancy at index 12
``cells``   (B, 64) int8           piece code at each cell, -1 when empty (mirror of ``bb``)
``marker``  (B, 4) int8            cell of each seat's instruction marker, -1 if none
``supply``  (B, 4, 12) int8        pieces of each (kind, size) in each seat's supply
``info``    (B, NINFO) int32       phase, seat to act, round, first player, alive bits, ...
``rng``     (B,) uint64            each game's own splitmix64 key (VF-12 tie-break, random
                                   actions, auto-reset keeps the key running)
``hist``    (B, H, 8) uint64       exact records of the positions that started each round
                                   (VF-17 repetition), ``H = max_rounds + 1``
==========  =====================  ==========================================================

Cells are numbered ``row * n + col`` with row 0 at the top (VF-4); the board side ``n``
is 5..8 so one uint64 holds a bitboard.

Action encoding (``N = n * n``, a fixed-size ``Discrete`` space per board size)::

    [0, 12N)              put piece p on cell c          p * N + c        (setup, WRITE)
    [12N, 12N + N^2)      MOVE from-cell f to cell t     12N + f * N + t
    [12N + N^2, 13N + N^2)  ERASE target cell c          12N + N^2 + c
    [13N + N^2, 14N + N^2)  marker to cell c             13N + N^2 + c   (setup end, JUMP,
                                                                          marker step)
    14N + N^2             pass

so ``num_actions = N^2 + 14N + 1`` (976 on 5x5, 4993 on 8x8).

Modules: ``constants.py`` (names, action encoding), ``params.py`` (static parameters:
:class:`~envs.virus_fight.params.VirusFightParams` and the ``cfg`` vector's ``C_*``
indices), ``board.py`` (bitboards, RNG draw), ``legal.py`` (the one legal-move
enumeration: mask, random, n-th action, validation), ``rules.py`` (effects, turn order,
rounds, end), ``observe.py`` (planes), ``state.py`` (:class:`VFState`), this module (the
batch loops, the fused self-play and the learner step). Serial or parallel execution is
chosen in ``envs/core/loops.py`` only.
"""

from __future__ import annotations

from numba import njit, prange

from envs.core.cache import guard_cache
from envs.core.loops import serial_and_parallel
from envs.virus_fight.board import (  # noqa: F401  (re-exported: agents, interop, tests)
    _bit,
    _flood,
    _kind_at,
    _markerbits,
    _nbrs,
    _nth_bit,
    _place,
    _popcount,
    _rand,
    _remove,
    _reset_game,
    _tz,
    seed_keys,
)
from envs.virus_fight.constants import (  # noqa: F401  (re-exported: the old import path)
    ERASE,
    HW,
    I_ALIVE,
    I_CUR,
    I_FIRST,
    I_HLEN,
    I_K,
    I_NSET,
    I_PHASE,
    I_REP,
    I_RES,
    I_RHI,
    I_RLO,
    I_ROUND,
    JUMP,
    KIND_LETTERS,
    MAX_PROGRAM,
    MOVE,
    NINFO,
    NPIECE,
    OCC,
    PH_EFFECT,
    PH_OVER,
    PH_SETUP,
    PH_STEP,
    U0,
    U1,
    U2,
    U4,
    WRITE,
    action_offsets,
    num_actions,
)
from envs.virus_fight.legal import (  # noqa: F401  (re-exported)
    _erase_targets,
    _fill_mask,
    _is_legal,
    _jump_targets,
    _legal_of,
    _legal_set,
    _move_sources,
    _nth_legal,
    _random_legal,
    _setup_cells,
    _setup_marks,
    _step_targets,
    _write_targets,
)
from envs.virus_fight.observe import _observe, _planes, decode, obs_channels, obs_scale  # noqa: F401
from envs.virus_fight.params import (  # noqa: F401  (re-exported)
    C_PLAYERS,
    VirusFightParams,
    make_geometry,
    segment_cells,
)
from envs.virus_fight.rules import (  # noqa: F401  (re-exported)
    _adjudicate,
    _advance,
    _apply,
    _eliminate,
    _first_of_game,
    _next_first,
    _record,
    _start_round,
)


def _init_loop(bb, cells, marker, supply, info, cfg):
    """Reset every game of the batch to the start of setup."""
    for g in prange(bb.shape[0]):
        _reset_game(g, bb, cells, marker, supply, info, cfg)


init_serial, init = serial_and_parallel(_init_loop, error_model="numpy")


# --------------------------------------------------------------------------- batch API
# Each batch loop is written once with prange and compiled twice, serial (``*_serial``)
# and parallel (``envs.core.loops``, which also picks one by batch size for the facade).
def _legal_mask_loop(bb, cells, marker, supply, info, seg, cfg, out):
    """out[g] = legal actions of the seat to act in game g (all False when over)."""
    for g in prange(bb.shape[0]):
        _fill_mask(g, bb, cells, marker, supply, info, seg, cfg, out[g])


legal_mask_serial, legal_mask = serial_and_parallel(_legal_mask_loop, error_model="numpy")


@njit(cache=True, parallel=True, error_model="numpy")
def num_legal(bb, cells, marker, supply, info, seg, cfg, out):
    """out[g] = number of legal actions in game g."""
    for g in prange(bb.shape[0]):
        out[g] = _nth_legal(g, bb, cells, marker, supply, info, seg, cfg, -1)[0]


def _random_actions_loop(bb, cells, marker, supply, info, rng, seg, cfg, out):
    """out[g] = a uniformly random legal action drawn from game g's own key (-1 if over)."""
    for g in prange(bb.shape[0]):
        out[g] = _random_legal(g, bb, cells, marker, supply, info, rng, seg, cfg)


random_actions_serial, random_actions = serial_and_parallel(
    _random_actions_loop, error_model="numpy"
)


def _step_loop(
    bb, cells, marker, supply, info, rng, hist, seg, cfg, actions, auto_reset, rew, done
):
    """Apply one legal action per game in place; rew (B, P) and done (B,) are outputs.

    Games already over are left alone (done stays True, no reward). With auto_reset a game
    that ends is re-initialised after its rewards are recorded (its key keeps running).
    """
    P = cfg[C_PLAYERS]
    for g in prange(bb.shape[0]):
        for s in range(P):
            rew[g, s] = 0.0
        if info[g, I_PHASE] == PH_OVER:
            done[g] = True
            continue
        _apply(g, actions[g], bb, cells, marker, supply, info, rng, hist, seg, cfg, rew)
        done[g] = info[g, I_PHASE] == PH_OVER
        if done[g] and auto_reset:
            _reset_game(g, bb, cells, marker, supply, info, cfg)


step_serial, step = serial_and_parallel(_step_loop, error_model="numpy")


def _selfplay_loop(bb, cells, marker, supply, info, rng, hist, seg, cfg, steps, rew, stats):
    """Random self-play with auto-reset, ``steps`` decisions per game, all in one kernel.

    stats[g] = [games finished, sum of seat-0 rewards] (for benchmarks and sanity)."""
    for g in prange(bb.shape[0]):
        for _ in range(steps):
            a = _random_legal(g, bb, cells, marker, supply, info, rng, seg, cfg)
            _apply(g, a, bb, cells, marker, supply, info, rng, hist, seg, cfg, rew)
            # seat 0's reward counts in the step it is given (VF-15 elimination or the end),
            # so a game spanning two calls (each with a fresh rew buffer) counts it once
            if rew[g, 0] != 0.0:
                stats[g, 1] += rew[g, 0]
                rew[g, 0] = 0.0
            if info[g, I_PHASE] == PH_OVER:
                stats[g, 0] += 1
                for s in range(cfg[C_PLAYERS]):
                    rew[g, s] = 0.0
                _reset_game(g, bb, cells, marker, supply, info, cfg)


selfplay_serial, selfplay = serial_and_parallel(_selfplay_loop, error_model="numpy")


def _observe_loop(bb, cells, marker, supply, info, cfg, seats, out):
    """out[g] = observation planes of game g from seat seats[g]'s point of view."""
    for g in prange(bb.shape[0]):
        _observe(g, seats[g], bb, cells, marker, supply, info, cfg, out[g])


observe_serial, observe = serial_and_parallel(_observe_loop, error_model="numpy")


# --------------------------------------------------------------------------- learner step
# The step a learner sees (as Pgx's ``Env.step``): validate, apply, auto-reset, then the
# next observation (compact uint8, ``observe.py``) and legal mask of the seat to act, plus
# rewards and done flags, all into caller-owned buffers in one kernel call.
def _validate_loop(bb, cells, marker, supply, info, seg, cfg, actions, bad):
    """bad[g] = the action of running game g is not legal; returns how many are bad."""
    for g in prange(bb.shape[0]):
        bad[g] = not _legal_of(g, bb, cells, marker, supply, info, seg, cfg, actions[g]) and (
            info[g, I_PHASE] != PH_OVER
        )
    nbad = 0
    for g in range(bb.shape[0]):
        nbad += bad[g]
    return nbad


validate_serial, validate = serial_and_parallel(_validate_loop, error_model="numpy")


@njit(cache=True, error_model="numpy")
def _learn_one(g, a, bb, cells, marker, supply, info, rng, hist, seg, cfg, obs, mask, rew, done,
               seat):  # fmt: skip
    """Apply, auto-reset, then write game g's next observation and mask (seat to act)."""
    for s in range(cfg[C_PLAYERS]):
        rew[g, s] = 0.0
    done[g] = False
    if info[g, I_PHASE] == PH_OVER:  # over before the step (a state from elsewhere)
        _reset_game(g, bb, cells, marker, supply, info, cfg)
    else:
        _apply(g, a, bb, cells, marker, supply, info, rng, hist, seg, cfg, rew)
        if info[g, I_PHASE] == PH_OVER:
            done[g] = True
            _reset_game(g, bb, cells, marker, supply, info, cfg)
    me = info[g, I_CUR]
    seat[g] = me
    _planes(g, me, bb, cells, marker, supply, info, cfg, obs[g], True)
    _fill_mask(g, bb, cells, marker, supply, info, seg, cfg, mask[g])


def _learner_loop(bb, cells, marker, supply, info, rng, hist, seg, cfg, actions, check, obs,
                  mask, rew, done, seat, bad):  # fmt: skip
    """The fused learner step over the batch; returns the number of illegal actions."""
    if check:  # the body of _validate_loop (a prange loop cannot call another)
        for g in prange(bb.shape[0]):
            bad[g] = not _legal_of(g, bb, cells, marker, supply, info, seg, cfg, actions[g]) and (
                info[g, I_PHASE] != PH_OVER
            )
        nbad = 0
        for g in range(bb.shape[0]):
            nbad += bad[g]
        if nbad:
            return nbad
    for g in prange(bb.shape[0]):
        _learn_one(g, actions[g], bb, cells, marker, supply, info, rng, hist, seg, cfg, obs, mask,
                   rew, done, seat)  # fmt: skip
    return 0


learner_step_serial, learner_step = serial_and_parallel(_learner_loop, error_model="numpy")


def _view_loop(bb, cells, marker, supply, info, seg, cfg, obs, mask, seat):
    """Observation and mask of every game for its seat to act (no step): the first ones."""
    for g in prange(bb.shape[0]):
        me = info[g, I_CUR]
        seat[g] = me
        _planes(g, max(me, 0), bb, cells, marker, supply, info, cfg, obs[g], True)
        _fill_mask(g, bb, cells, marker, supply, info, seg, cfg, mask[g])


learner_view_serial, learner_view = serial_and_parallel(_view_loop, error_model="numpy")


# --------------------------------------------------------------------------- batch of one
# Serial twins of the batch kernels for the AEC adapter (no thread-pool start per call).
@njit(cache=True, error_model="numpy")
def legal_mask_one(bb, cells, marker, supply, info, seg, cfg, row):
    """Legal actions of game 0 into the bool row."""
    _fill_mask(0, bb, cells, marker, supply, info, seg, cfg, row)


@njit(cache=True, error_model="numpy")
def step_one(bb, cells, marker, supply, info, rng, hist, seg, cfg, action, rew):
    """Apply one legal action to game 0; rew (1, P) receives the rewards of this step."""
    for s in range(cfg[C_PLAYERS]):
        rew[0, s] = 0.0
    if info[0, I_PHASE] != PH_OVER:
        _apply(0, action, bb, cells, marker, supply, info, rng, hist, seg, cfg, rew)


@njit(cache=True, error_model="numpy")
def observe_one(bb, cells, marker, supply, info, cfg, seat, out):
    """Observation planes of game 0 from ``seat``'s point of view into out."""
    _observe(0, seat, bb, cells, marker, supply, info, cfg, out)


@njit(cache=True, error_model="numpy")
def record_one(bb, cells, marker, supply, info, cfg, out):
    """Exact VF-17 record of game 0's position (as if a round started now)."""
    _record(0, bb, cells, marker, supply, info, cfg, out)


guard_cache(globals())  # recompile if a sibling kernel file changed (envs/core/cache.py)
