"""Virus Fight rules kernel: Numba ``@njit`` functions over a batch of games.

All rules of Virus Fight (``docs/virus_fight.md``, VF-1..VF-18) live in this package's
kernel modules (rule numbers VF-n are cited next to the code implementing them); this
module is their batch API. A batch of games is held in plain numpy arrays with
a leading batch axis ``B``:

==========  =====================  ==========================================================
array       shape / dtype          meaning
==========  =====================  ==========================================================
``bb``      (B, 14) uint64         one bitboard per piece (kind, size) ``p = 3*kind + size-1``
                                   (kinds M, W, J, E = 0..3), the occupancy at index 12 and,
                                   derived, at 13 the set the acting seat works on: the
                                   active block in the effect phase, the marker step's
                                   targets in the step phase, else 0 (``ACTIVE``,
                                   ``legal._refresh_active``)
``cells``   (B, 64) int8           piece code at each cell, -1 when empty (mirror of ``bb``)
``marker``  (B, 4) int8            cell of each seat's instruction marker, -1 if none
``supply``  (B, 4, 12) int8        pieces of each (kind, size) in each seat's supply
``info``    (B, NINFO) int32       phase, seat to act, round, first player, alive bits, ...
``rng``     (B,) uint64            each game's own splitmix64 key (VF-12 tie-break, random
                                   actions, auto-reset keeps the key running)
``hist``    (B, H, 8) uint64       exact records of the positions that started each round
                                   (VF-17 repetition), ``H <= max_rounds + 1``
==========  =====================  ==========================================================

Cells are numbered ``row * n + col`` with row 0 at the top (VF-4); the board side ``n``
is 5..8 so one uint64 holds a bitboard. The action encoding (a fixed-size ``Discrete``
space per board size, ``num_actions = N^2 + 14N + 1``) is described in ``constants.py``.

Modules: ``constants.py`` (names, action encoding), ``params.py`` (static parameters:
:class:`~envs.virus_fight.params.VirusFightParams` and the ``cfg`` vector's ``C_*``
indices), ``board.py`` (bitboards, RNG draw), ``legal.py`` (the one legal-move
enumeration: mask, random, n-th action, validation), ``rules.py`` (effects, turn order,
rounds, end), ``observe.py`` (planes and dense codes), ``undo.py`` (the validated steps'
undo rows), ``state.py`` (:class:`VFState`),
this module (the batch loops, the fused self-play and the learner step). Serial or
parallel execution is chosen in ``envs/core/loops.py`` only. The names of the sibling
modules stay readable here (``kernel.I_CUR``, ``kernel._legal_of``: the old import path).

The loops compile with ``_nrt=False`` as every per-game helper does (``constants.jit``:
Numba's reference counts on the arrays passed to helpers cost more than the rules).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from numba import njit, prange

from envs.core.cache import guard_cache
from envs.core.loops import serial_and_parallel
from envs.virus_fight import board, constants, legal, observe, params, rules, undo
from envs.virus_fight.board import (  # noqa: F401  (re-exported)
    _new_game,
    _reset_game,
    seed_keys,
)
from envs.virus_fight.constants import (  # noqa: F401
    I_CUR,
    I_PHASE,
    PH_OVER,
    action_offsets,
    jit,
    jit_inline,
    num_actions,
)
from envs.virus_fight.legal import (
    _bad_action,
    _fill_bits,
    _fill_mask,
    _illegal_games,
    _legal_set,
    _nth_legal,
    _random_legal,
    _refresh_active,
)
from envs.virus_fight.observe import _codes, _expand, _observe, code_length, decode  # noqa: F401
from envs.virus_fight.params import C_N, C_PLAYERS, make_geometry  # noqa: F401
from envs.virus_fight.rules import _apply, _record
from envs.virus_fight.undo import (  # noqa: F401
    APPLIED,
    BAD,
    ENDED,
    UNDO_WORDS,
    _check_and_save,
    _count_bad,
    _restore,
)

_SIBLINGS: tuple[ModuleType, ...] = (constants, params, board, legal, rules, observe, undo)
FAST: dict[str, Any] = {"error_model": "numpy", "_nrt": False}  # the batch loops' compile options


def __getattr__(name: str) -> Any:
    """A name of a sibling kernel module (PEP 562): ``kernel.X`` as before the split."""
    for module in _SIBLINGS:
        if hasattr(module, name):
            return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _init_loop(bb, cells, marker, supply, info, seg, cfg):
    """Reset every game of the batch to the start of setup (``seg``: every loop takes it)."""
    for g in prange(bb.shape[0]):
        _reset_game(g, bb, cells, marker, supply, info, cfg)


init_serial, init = serial_and_parallel(_init_loop, **FAST)


# --------------------------------------------------------------------------- batch API
# Each batch loop is written once with prange and compiled twice, serial (``*_serial``)
# and parallel (``envs.core.loops``, which also picks one by batch size for the facade).
def _legal_mask_loop(bb, cells, marker, supply, info, seg, cfg, out):
    """out[g] = legal actions of the seat to act in game g (all False when over)."""
    for g in prange(bb.shape[0]):
        _fill_mask(g, bb, cells, marker, supply, info, seg, cfg, out[g])


legal_mask_serial, legal_mask = serial_and_parallel(_legal_mask_loop, **FAST)


@njit(cache=True, parallel=True, **FAST)
def num_legal(bb, cells, marker, supply, info, seg, cfg, out):
    """out[g] = number of legal actions in game g."""
    for g in prange(bb.shape[0]):
        out[g] = _nth_legal(g, bb, cells, marker, supply, info, seg, cfg, -1)[0]


def _random_actions_loop(bb, cells, marker, supply, info, rng, seg, cfg, out):
    """out[g] = a uniformly random legal action drawn from game g's own key (-1 if over)."""
    for g in prange(bb.shape[0]):
        out[g] = _random_legal(g, bb, cells, marker, supply, info, rng, seg, cfg)


random_actions_serial, random_actions = serial_and_parallel(_random_actions_loop, **FAST)

#: bad[g] = running game g's action is not legal; returns how many (serial: it is cheap)
validate = _illegal_games


def _step_loop(bb, cells, marker, supply, info, rng, hist, seg, cfg, actions, check, auto_reset,
               rew, done, flags, undo):  # fmt: skip
    """Apply one action per game in place; rew (B, P) and done (B,) are outputs.

    With ``check`` each game's action is checked right before it is applied, and the game's
    undo row saved (``undo.py``: one read of its state instead of a check pass and an
    apply pass); if any is illegal (``flags`` marks them BAD) every applied game is put
    back and the count is returned. Games already over are left alone (done stays True,
    no reward; their action must still be an id in range or -1). With auto_reset a game
    that ends is re-initialised after its rewards are recorded (its key keeps running),
    with ``check`` once the whole batch has passed: the second pass reads only the
    one-byte flags of the games that passed (a game's undo row is read only to put it
    back).
    """
    o_pass = action_offsets(cfg[C_N])[4]
    for g in prange(bb.shape[0]):
        for s in range(cfg[C_PLAYERS]):
            rew[g, s] = 0.0
        a = actions[g]
        if check and _check_and_save(g, a, o_pass, bb, cells, marker, supply, info, rng, seg,
                                     cfg, flags, undo):  # fmt: skip
            continue
        if info[g, I_PHASE] == PH_OVER:
            done[g] = True
            continue
        _apply(g, a, bb, cells, marker, supply, info, rng, hist, seg, cfg, rew)
        done[g] = info[g, I_PHASE] == PH_OVER
        if done[g] and auto_reset:
            if check:
                flags[g] |= ENDED
            else:
                _new_game(g, bb, cells, marker, supply, info, hist, cfg)
    nbad = _count_bad(flags) if check else 0
    if nbad:  # put every applied game back
        for g in prange(bb.shape[0]):
            if flags[g] & APPLIED:
                _restore(g, actions[g], bb, cells, marker, supply, info, rng, hist, cfg, undo)
    elif check and auto_reset:  # start the new games
        for g in prange(bb.shape[0]):
            if flags[g] & ENDED:
                _new_game(g, bb, cells, marker, supply, info, hist, cfg)
    return nbad


step_serial, step = serial_and_parallel(_step_loop, **FAST)


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
                _new_game(g, bb, cells, marker, supply, info, hist, cfg)


selfplay_serial, selfplay = serial_and_parallel(_selfplay_loop, **FAST)


def _observe_loop(bb, cells, marker, supply, info, seg, cfg, seats, out):
    """out[g] = observation planes of game g from seat seats[g]'s point of view."""
    for g in prange(bb.shape[0]):
        _observe(g, seats[g], bb, cells, marker, supply, info, cfg, out[g])


observe_serial, observe = serial_and_parallel(_observe_loop, error_model="numpy")  # allocates


# --------------------------------------------------------------------------- learner step
# The step a learner sees (as Pgx's ``Env.step``): validate, apply, auto-reset, then the
# next observation and legal mask of the seat to act, plus rewards and done flags, all
# into caller-owned buffers in one kernel call. The observation rows ``obs`` (B, K) are a
# dense code row per game (``dense``) or the uint8 planes expanded from one (``observe.py``;
# ``codes`` is then the (B, code_length) scratch).
@jit
def _write_obs(g, seat, cells, marker, supply, info, cfg, obs, codes, dense):
    """Game g's learner observation from ``seat``'s point of view into the row obs[g]."""
    if dense:
        _codes(g, seat, cells, marker, supply, info, cfg, obs[g])
    else:
        _codes(g, seat, cells, marker, supply, info, cfg, codes[g])
        _expand(codes[g], cfg[C_N], cfg[C_PLAYERS], obs[g], True)


@jit_inline
def _write_next(g, bb, cells, marker, supply, info, seg, cfg, obs, mask, bits, seat, codes,
                dense):  # fmt: skip
    """Game g's seat to act, its observation and its legal mask into the learner rows: the
    packed words when the caller's buffers hold them (``bits`` has words per row), else
    the bool row ``mask[g]``."""
    me = info[g, I_CUR]
    seat[g] = me
    _write_obs(g, max(me, 0), cells, marker, supply, info, cfg, obs, codes, dense)
    if bits.shape[1]:
        _fill_bits(_legal_set(g, bb, cells, marker, supply, info, seg, cfg), cfg, bits[g])
    else:
        _fill_mask(g, bb, cells, marker, supply, info, seg, cfg, mask[g])


@jit_inline
def _learn_one(g, a, bb, cells, marker, supply, info, rng, hist, seg, cfg, obs, mask, bits, rew,
               done, seat, codes, dense):  # fmt: skip
    """Apply, auto-reset (a game that ended now, or was over before the step: a state
    from elsewhere), then write game g's next observation and mask (seat to act)."""
    for s in range(cfg[C_PLAYERS]):
        rew[g, s] = 0.0
    done[g] = False
    if info[g, I_PHASE] != PH_OVER:
        _apply(g, a, bb, cells, marker, supply, info, rng, hist, seg, cfg, rew)
        done[g] = info[g, I_PHASE] == PH_OVER
    if info[g, I_PHASE] == PH_OVER:
        _new_game(g, bb, cells, marker, supply, info, hist, cfg)
    _write_next(g, bb, cells, marker, supply, info, seg, cfg, obs, mask, bits, seat, codes, dense)


def _learner_loop(bb, cells, marker, supply, info, rng, hist, seg, cfg, actions, check, obs,
                  mask, bits, rew, done, seat, bad, codes, dense):  # fmt: skip
    """The fused learner step over the batch; returns the number of illegal actions.

    With ``check`` every action is checked in a pass of its own first, and nothing changes
    if one fails. Why not as :func:`_step_loop` (checked as applied, with undo rows): the
    learner step writes a game's observation and mask besides its state, and the undo
    rows' traffic cost more than the second read of each game at every batch size
    measured (B = 64 to 16384, 2 and 4 players; ``docs/benchmarks.md``, "The learner
    step's check").
    """
    o_pass = action_offsets(cfg[C_N])[4]
    if check:
        for g in prange(bb.shape[0]):
            bad[g] = _bad_action(g, actions[g], o_pass, bb, cells, marker, supply, info, seg,
                                 cfg)  # fmt: skip
        nbad = _count_bad(bad)
        if nbad:
            return nbad
    for g in prange(bb.shape[0]):
        _learn_one(g, actions[g], bb, cells, marker, supply, info, rng, hist, seg, cfg, obs,
                   mask, bits, rew, done, seat, codes, dense)  # fmt: skip
    return 0


learner_step_serial, learner_step = serial_and_parallel(_learner_loop, **FAST)


def _view_loop(bb, cells, marker, supply, info, seg, cfg, obs, mask, bits, seat, codes, dense):
    """Observation and mask of every game for its seat to act (no step): the first ones."""
    for g in prange(bb.shape[0]):
        _write_next(g, bb, cells, marker, supply, info, seg, cfg, obs, mask, bits, seat, codes,
                    dense)  # fmt: skip


learner_view_serial, learner_view = serial_and_parallel(_view_loop, **FAST)


# --------------------------------------------------------------------------- batch of one
# Serial twins of the batch kernels for the AEC adapter (no thread-pool start per call).
@jit
def legal_mask_one(bb, cells, marker, supply, info, seg, cfg, row):
    """Legal actions of game 0 into the bool row."""
    _fill_mask(0, bb, cells, marker, supply, info, seg, cfg, row)


@jit
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


@jit
def refresh_active(bb, marker, info, cfg):
    """Every game's derived word ``constants.ACTIVE``, for a state written from
    outside the kernels (a loaded position)."""
    for g in range(bb.shape[0]):
        _refresh_active(g, bb, marker, info, cfg)


@jit
def record_one(bb, cells, marker, supply, info, cfg, out):
    """Exact VF-17 record of game 0's position (as if a round started now)."""
    _record(0, bb, cells, marker, supply, info, cfg, out)


guard_cache(globals())  # recompile if a sibling kernel file changed (envs/core/cache.py)
