"""One ``search(...)`` over array trees: UCT or PUCT, random playouts or a network callback.

Why here and not per game: the tree walk, expansion and backup are the same for every
turn-based game; a game contributes six small ``@njit`` functions over its kernel arrays
(``envs/<game>/search_api.py``: copy a slot, apply an action, seat to move, legal actions,
random playout, "does this action win at once"). :func:`compiled` binds them into one compiled copy of the loops below per
game (:func:`agents.search.tree.specialize`).

Two evaluations, as in mctx:

* ``evaluate=None``: each new leaf is valued by random playouts inside the kernel
  (``rollouts`` of them, bounded by ``max_rollout_steps``), uniform priors; the whole
  search of all trees is one compiled call.
* ``evaluate=callable``: one simulation per tree per round; the leaves of all trees are
  gathered into one batch state and ``evaluate(state) -> (priors (k, A), values (k, P))``
  is called once per round (a network's forward pass on k <= T positions). ``values``
  are the expected returns per seat from that position on; ``priors`` non-negative
  weights over actions (renormalised over the legal ones).

Optional root filter (``safety_check``): root actions after which another seat can win
in one are dropped, unless all are (the anti-decisive filter of the old ``MCTSAgent``).
Optional deep filter (``safety_depth`` = d > 0): root actions after which the other seats
can force a loss of the root's seat within d decisions (the root action counted) are
dropped too, unless all are; an exhaustive AND-OR walk of at most ``safety_nodes``
actions per root action (one it does not settle stays). Why: a forced loss a few
decisions deep lies on one narrow line, which a search guided by priors and short
playouts can miss (docs/search.md, "Deep safety filter"). ``safety_max_depth`` = m > d
runs it again at d + 2, d + 4, ... and m, each pass over what the one before kept.
Optional Gumbel root selection (``gumbel=True``): Gumbel-top-k sampling of ``considered``
root actions and sequential halving of the budget among them (Danihelka et al. 2022).
Determinism: every tree draws only from its own key, so a tree's result depends on its
root, its key and its budget, never on the other trees of the call.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import numpy as np

from agents.search.tree import (
    PUCT,
    UCT,
    Trees,
    add_child,
    add_edges,
    backup,
    draw_returns,
    root_stats,
    select_edge,
    specialize,
)
from envs.core import loops as _loops
from envs.core import rng as _rng

rng_file = _rng.__file__
#: the shared kernel helpers the games' search functions compile in (with ``rng_file``)
core_files = (Path(str(_rng.__file__)), Path(str(_loops.__file__)))
Evaluate = Callable[[Any], tuple[np.ndarray, np.ndarray]]

# Placeholders of the game's functions; each game's compiled copy rebinds them.
g_copy: Any = None
g_apply: Any = None
g_to_play: Any = None
g_legal: Any = None
g_playout: Any = None
g_wins: Any = None
_simulate: Any = None
_descend: Any = None
_forced_loss: Any = None

#: state slots per tree: the root, the scratch slot of a simulation, one more for the filter
SLOTS = 3


@dataclass
class SearchConfig:
    """How to search; defaults are the old ``MCTSAgent``'s."""

    mode: str = "uct"  # "uct" (UCB1, every child once first) or "puct" (priors)
    c: float = 1.4  # exploration constant of the mode
    rollouts: int = 1  # playouts per new leaf (random-playout evaluation)
    max_rollout_steps: int | None = None  # playout cut-off: the game's playout scores it
    safety_check: bool = True  # drop root actions that let another seat win in one
    gumbel: bool = False  # Gumbel-top-k + sequential halving at the root
    considered: int = 16  # root actions kept by Gumbel-top-k
    rollout_mix: float = 0.0  # weight of a random playout in a callback-valued leaf
    contempt: float = 0.0  # a drawn ending: -contempt to the root's seat, + to the others
    safety_depth: int = 0  # drop root actions that lose by force within this many decisions
    safety_nodes: int = 5000  # actions the deep filter may apply per root action
    safety_max_depth: int = 0  # then again at safety_depth + 2, + 4, .. and at this depth

    def __post_init__(self) -> None:
        if self.mode not in ("uct", "puct"):
            raise ValueError(f"mode must be 'uct' or 'puct', got {self.mode!r}")
        if self.rollouts < 1:
            raise ValueError(f"rollouts must be >= 1, got {self.rollouts}")
        if self.considered < 1:
            raise ValueError(f"considered must be >= 1, got {self.considered}")
        if not 0.0 <= self.rollout_mix <= 1.0:
            raise ValueError(f"rollout_mix must be in [0, 1], got {self.rollout_mix}")
        if not 0.0 <= self.contempt <= 1.0:
            raise ValueError(f"contempt must be in [0, 1], got {self.contempt}")
        if self.safety_depth < 0:
            raise ValueError(f"safety_depth must be >= 0, got {self.safety_depth}")
        if self.safety_nodes < 1:
            raise ValueError(f"safety_nodes must be >= 1, got {self.safety_nodes}")
        if self.safety_max_depth and self.safety_max_depth < self.safety_depth:
            raise ValueError(
                f"safety_max_depth ({self.safety_max_depth}) must be 0 or >= safety_depth"
                f" ({self.safety_depth})"
            )


@dataclass
class SearchResult:
    """Per tree and root action: child visits and the summed return of the root's seat."""

    visits: np.ndarray  # (T, A) float64
    qsum: np.ndarray  # (T, A) float64
    trees: Trees
    simulations: int  # simulations done, all trees together


# ----------------------------------------------------------------------------- compiled loops
# Written once over the placeholder names above; ``compiled`` makes one njit copy per game.


def _simulate_py(
    G, NS, TR, t, mode, c, max_steps, rollouts, acts, rew, ret, total, allowed, noallow, noprior
):  # noqa: E501
    """One simulation of tree ``t`` with playout evaluation; returns the visits it added.

    ``total`` (P,) is scratch for the summed playout returns (compiled without the
    runtime, ``tree.NO_REFCOUNT``, so it allocates nothing)."""
    key = TR[14]
    s = 3 * t + 1
    node = _descend(G, NS, TR, t, mode, c, rew, ret)
    if node < 0:  # the game is over there: a zero-value visit, already backed up
        return 1
    # a new leaf (its state in slot s): expand, then value it by playouts
    k = g_legal(G, NS, s, acts)
    add_edges(TR, t, node, acts, k, noprior, allowed[t] if node == 0 else noallow)
    for p in range(total.shape[0]):
        total[p] = 0.0
    for _ in range(rollouts):
        src = s
        if rollouts > 1:
            g_copy(G, NS, s, s + 1)
            src = s + 1
        key[t] = g_playout(G, NS, src, key[t], max_steps, ret, rew)
        draw_returns(TR, t, ret)
        for p in range(total.shape[0]):
            total[p] += ret[p]
    backup(TR, t, node, total, rollouts)
    return rollouts


def _run_playouts_py(G, NS, TR, mode, c, max_steps, rollouts, A, allowed, noallow, noprior):
    """Run every tree to its budget; False if some tree needs more edge room first."""
    sims, budget, count = TR[12], TR[13], TR[11]
    cap = TR[8].shape[1]
    acts = np.zeros(A, np.int64)
    rew = np.zeros((NS[0].shape[0], TR[1].shape[2]), np.float64)
    ret = np.zeros(TR[1].shape[2], np.float64)
    total = np.zeros(TR[1].shape[2], np.float64)
    for t in range(sims.shape[0]):
        while sims[t] < budget[t]:
            if cap - count[t, 1] < A:
                return False
            sims[t] += _simulate(
                G,
                NS,
                TR,
                t,
                mode,
                c,
                max_steps,
                rollouts,
                acts,
                rew,
                ret,
                total,
                allowed,
                noallow,
                noprior,
            )
    return True


def _root_filter_py(G, NS, seats, allowed):
    """allowed[t] = root actions after which no other seat can win in one (all if none)."""
    A = allowed.shape[1]
    acts = np.zeros(A, np.int64)
    acts2 = np.zeros(A, np.int64)
    P = 4
    rew = np.zeros((NS[0].shape[0], P), np.float64)
    for t in range(allowed.shape[0]):
        root = 3 * t
        s1 = root + 1
        s2 = root + 2
        seat = seats[t]
        k = g_legal(G, NS, root, acts)
        nsafe = 0
        for j in range(k):
            g_copy(G, NS, root, s1)
            g_apply(G, NS, s1, acts[j], rew)
            q = g_to_play(G, NS, s1)
            losing = False
            if q >= 0 and q != seat:
                k2 = g_legal(G, NS, s1, acts2)
                for j2 in range(k2):
                    if g_wins(G, NS, s1, s2, acts2[j2], rew):
                        losing = True
                        break
            if not losing:
                allowed[t, acts[j]] = True
                nsafe += 1
        if nsafe == 0:
            for j in range(k):
                allowed[t, acts[j]] = True


def _forced_loss_py(G, NS, base, seat, depth, budget, acts, k, idx, mover, rew):
    """Whether the other seats can force a loss of ``seat`` within ``depth`` decisions
    from the position in slot ``base`` (slots ``base + 1 ..`` are overwritten): 1 yes,
    0 no, -1 not settled in ``budget`` applied actions.

    An AND-OR depth-first walk: at ``seat``'s decisions one action that does not lose
    suffices, at the others' one action that makes ``seat`` lose suffices; a step that
    gives ``seat`` a negative reward is its loss, a finished game or the depth limit is
    not. Iterative (an explicit stack in ``acts`` / ``k`` / ``idx`` / ``mover``, one
    row per level) so that each game's compiled copy needs no recursion.
    """
    if g_to_play(G, NS, base) < 0 or depth < 1:
        return 0
    nodes = 0
    lv = 0
    k[0] = g_legal(G, NS, base, acts[0])
    mover[0] = g_to_play(G, NS, base)
    idx[0] = 0
    while True:
        if idx[lv] >= k[lv]:  # every action tried: the seat's node lost, another's not
            v = mover[lv] == seat
            lv -= 1
            if lv < 0:
                return 1 if v else 0
        else:
            a = acts[lv, idx[lv]]
            idx[lv] += 1
            nodes += 1
            if nodes > budget:
                return -1
            d = base + lv + 1
            g_copy(G, NS, base + lv, d)
            g_apply(G, NS, d, a, rew)
            if rew[d, seat] < 0:
                v = True
            else:
                q = g_to_play(G, NS, d)
                if q < 0 or lv + 1 >= depth:
                    v = False
                else:
                    lv += 1
                    k[lv] = g_legal(G, NS, d, acts[lv])
                    mover[lv] = q
                    idx[lv] = 0
                    continue
        # v: the value of a child of level lv; settle lv (and its parents) if it decides
        while (mover[lv] == seat and not v) or (mover[lv] != seat and v):
            lv -= 1
            if lv < 0:
                return 1 if v else 0


def _deep_filter_py(G, NS, seats, stride, depth, budget, allowed):
    """Clear ``allowed[t, a]`` for root actions ``a`` after which the other seats can force
    a loss of the root's seat within ``depth`` decisions (``_forced_loss``; one not
    settled within ``budget`` actions stays), unless that would clear them all.

    Tree ``t`` owns slots ``stride * t ..`` (``stride >= depth + 1``): the root, then one
    per level.
    """
    A = allowed.shape[1]
    D = stride
    acts = np.zeros((D, A), np.int64)
    k = np.zeros(D, np.int64)
    idx = np.zeros(D, np.int64)
    mover = np.zeros(D, np.int64)
    rew = np.zeros((NS[0].shape[0], 4), np.float64)
    lost = np.zeros(A, np.bool_)
    for t in range(allowed.shape[0]):
        root = D * t
        seat = seats[t]
        n_ok = 0
        for a in range(A):
            lost[a] = False
            if not allowed[t, a]:
                continue
            g_copy(G, NS, root, root + 1)
            g_apply(G, NS, root + 1, a, rew)
            if rew[root + 1, seat] < 0:
                lost[a] = True
            elif depth > 1:
                r = _forced_loss(G, NS, root + 1, seat, depth - 1, budget, acts, k, idx, mover, rew)
                lost[a] = r == 1
            if not lost[a]:
                n_ok += 1
        if n_ok > 0:
            for a in range(A):
                if lost[a]:
                    allowed[t, a] = False


def _descend_py(G, NS, TR, t, mode, c, rew, ret):
    """Walk tree ``t`` to a new leaf (its state left in the scratch slot): the leaf, or -1.

    A path that ends in a finished game is backed up here as a zero-value visit (-1:
    nothing to evaluate); ``ret`` (P,) is the scratch of that zero value.
    """
    player, nedge, action, child = TR[4], TR[6], TR[8], TR[10]
    root = 3 * t
    s = root + 1
    g_copy(G, NS, root, s)
    node = 0
    while True:
        if player[t, node] < 0:
            ret[:] = 0.0
            backup(TR, t, node, ret, 1)
            return -1
        if nedge[t, node] < 0:
            return node
        e = select_edge(TR, t, node, mode, c)
        g_apply(G, NS, s, action[t, e], rew)
        ch = child[t, e]
        if ch < 0:
            ch = add_child(TR, t, node, e, g_to_play(G, NS, s), rew[s])
        node = ch


def _descend_all_py(G, NS, TR, mode, c, A, leaf):
    """One descent per tree with budget left: leaf[t] = node to evaluate, -1 none, -2 done."""
    sims, budget, count = TR[12], TR[13], TR[11]
    cap = TR[8].shape[1]
    rew = np.zeros((NS[0].shape[0], TR[1].shape[2]), np.float64)
    ret = np.zeros(TR[1].shape[2], np.float64)
    for t in range(sims.shape[0]):
        leaf[t] = -2
        if sims[t] >= budget[t]:
            continue
        if cap - count[t, 1] < A:
            return False
        leaf[t] = _descend(G, NS, TR, t, mode, c, rew, ret)
        if leaf[t] == -1:
            sims[t] += 1
    return True


def _expand_all_py(G, NS, TR, leaf, priors, values, allowed, noallow, mix, max_steps):
    """Expand every leaf[t] >= 0 with its priors and back up its value (one visit each).

    ``mix`` > 0: the value backed up is ``(1 - mix) * values[t] + mix * z``, ``z`` the
    returns of one random playout from the leaf (AlphaGo's mixed leaf evaluation).
    """
    acts = np.zeros(priors.shape[1], np.int64)
    key = TR[14]
    rew = np.zeros((NS[0].shape[0], TR[1].shape[2]), np.float64)
    ret = np.zeros(TR[1].shape[2], np.float64)
    for t in range(leaf.shape[0]):
        node = leaf[t]
        if node < 0:
            continue
        s = 3 * t + 1
        k = g_legal(G, NS, s, acts)
        add_edges(TR, t, node, acts, k, priors[t], allowed[t] if node == 0 else noallow)
        v = values[t].astype(np.float64)
        if mix > 0.0:  # the playout runs on the spare slot: the leaf's own stays intact
            g_copy(G, NS, s, s + 1)
            key[t] = g_playout(G, NS, s + 1, key[t], max_steps, ret, rew)
            draw_returns(TR, t, ret)
            v = (1.0 - mix) * v + mix * ret
        backup(TR, t, node, v, 1)
        TR[12][t] += 1


_COMPILED: dict[str, SimpleNamespace] = {}


def _api_module(name: Any) -> str:
    return f"envs.{name}.search_api"


def has_search_api(name: str) -> bool:
    """Whether game ``name`` has ``envs/<name>/search_api.py`` (without importing it)."""
    try:
        return importlib.util.find_spec(_api_module(name)) is not None
    except (ImportError, ValueError):  # no package envs.<name> at all
        return False


def search_api(game: Any) -> ModuleType:
    """The game's single-game search functions (``envs/<game>/search_api.py``)."""
    name = getattr(game, "name", None)
    try:
        return importlib.import_module(_api_module(name))
    except ModuleNotFoundError:
        raise ValueError(
            f"game {name!r} has no envs/{name}/search_api.py for the array search"
        ) from None


def supports(game: Any) -> bool:
    """Whether ``game`` (a batch facade) has the compiled search functions."""
    try:
        search_api(game)
    except ValueError:
        return False
    return True


def _source_stamp(api: ModuleType) -> str:
    """Hash of the sources the compiled loops are built from (the game's folder, this
    package, the shared ``envs/core`` helpers).

    Why: Numba's on-disk cache of a function is checked against its own source file
    only, not against the functions it calls, so a fixed rule in the game's kernel would
    leave a stale cached search. The stamp is part of the compiled copies' names: a
    change of any of these files compiles (and caches) them afresh.
    """
    h = hashlib.blake2b(digest_size=4)
    for folder in (Path(str(api.__file__)).parent, Path(__file__).parent, *core_files):
        files = sorted(folder.glob("*.py")) if folder.is_dir() else [folder]
        for f in files:
            h.update(f.name.encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def compiled(game: Any) -> SimpleNamespace:
    """The search loops compiled for ``game`` (once per process; cached on disk)."""
    api = search_api(game)
    name = api.__name__.split(".")[1]
    if name not in _COMPILED:
        suffix = f"{name}_{_source_stamp(api)}"
        ops = {
            "g_copy": api.copy_slot,
            "g_apply": api.apply_action,
            "g_to_play": api.to_play,
            "g_legal": api.legal_actions,
            "g_playout": api.playout,
            "g_wins": api.wins_now,
        }
        # the per-simulation functions without reference counts (tree.NO_REFCOUNT);
        # the entry loops below allocate their scratch and keep the runtime
        desc = specialize(_descend_py, suffix, refcount=False, **ops)
        sim = specialize(_simulate_py, suffix, refcount=False, _descend=desc, **ops)
        _COMPILED[name] = SimpleNamespace(
            api=api,
            run=specialize(_run_playouts_py, suffix, _simulate=sim, **ops),
            root_filter=specialize(_root_filter_py, suffix, **ops),
            deep_filter=specialize(
                _deep_filter_py,
                suffix,
                _forced_loss=specialize(_forced_loss_py, suffix, refcount=False, **ops),
                **ops,
            ),
            descend_all=specialize(_descend_all_py, suffix, _descend=desc, **ops),
            expand_all=specialize(_expand_all_py, suffix, **ops),
        )
    return _COMPILED[name]


# ----------------------------------------------------------------------------- Python driver


def search(
    game: Any,
    roots: Any,
    seats: np.ndarray,
    budgets: np.ndarray,
    keys: np.ndarray,
    config: SearchConfig | None = None,
    evaluate: Evaluate | None = None,
) -> SearchResult:
    """Search ``T`` root positions together (module docstring).

    ``roots`` is a batch state of ``game`` holding the T roots (none finished), ``seats``
    the seat to move at each, ``budgets`` (T,) simulations per tree, ``keys`` (T,) uint64
    each tree's own RNG key.
    """
    cfg = config or SearchConfig()
    T = len(budgets)
    if T == 0:
        raise ValueError("search needs at least one root")
    if len(seats) != T or len(keys) != T:
        raise ValueError(f"seats ({len(seats)}) and keys ({len(keys)}) must match budgets ({T})")
    if np.any(np.asarray(budgets) < 1):
        raise ValueError("every budget must be >= 1 simulation")
    if np.any(np.asarray(game.terminated(roots), bool)):
        raise ValueError("cannot search from a finished game")
    fns = compiled(game)
    A = int(game.num_actions)
    P = int(game.num_players)
    slots = game.take(roots, np.repeat(np.arange(T), SLOTS))
    NS = fns.api.arrays(slots)
    G = fns.api.static(game)
    mode = PUCT if cfg.mode == "puct" else UCT
    seats = np.asarray(seats, np.int64)
    allowed = np.zeros((T, A), np.bool_)
    if cfg.safety_check:
        fns.root_filter(G, NS, seats, allowed)
    else:
        allowed[:] = np.asarray(game.legal_mask(roots), np.bool_)
    if cfg.safety_depth > 0:  # one root and one slot per level for each tree
        top = max(cfg.safety_depth, cfg.safety_max_depth)
        deep = fns.api.arrays(game.take(roots, np.repeat(np.arange(T), top + 1)))
        # deeper passes judge only what the shallower kept (docs/search.md, "Deepening")
        for depth in sorted({*range(cfg.safety_depth, top, 2), top}):
            fns.deep_filter(G, deep, seats, top + 1, depth, cfg.safety_nodes, allowed)
    noallow = np.zeros(0, np.bool_)
    noprior = np.zeros(0, np.float32)
    # edge room: about the root's branching factor per node (grown on demand)
    width = min(A, int(allowed.sum(axis=1).max()) + 8)
    edges = max(2 * A, (int(np.max(budgets)) + 1) * width)
    # contempt: a drawn ending costs the root's seat, the others share the gain (zero-sum)
    draw = np.full((T, P), cfg.contempt / max(P - 1, 1))
    draw[np.arange(T), seats] = -cfg.contempt
    trees = Trees.allocate(np.asarray(budgets), P, seats, edges, np.asarray(keys, np.uint64), draw)
    if cfg.gumbel:
        _gumbel_root(
            fns, G, NS, trees, cfg, mode, A, allowed, noallow, noprior, evaluate, game, slots
        )
    else:
        _phase(fns, G, NS, trees, cfg, mode, A, allowed, noallow, noprior, evaluate, game, slots)
    visits = np.zeros((T, A), np.float64)
    qsum = np.zeros((T, A), np.float64)
    root_stats(trees.arrays(), A, visits, qsum)
    return SearchResult(visits, qsum, trees, int(trees.sims.sum()))


def _callback_rounds(fns, G, NS, trees, cfg, mode, A, allowed, noallow, evaluate, game, slots):  # type: ignore[no-untyped-def]
    """Rounds of one simulation per tree, the leaves evaluated by one ``evaluate`` call
    (mixed with a random playout's returns when ``cfg.rollout_mix`` > 0)."""
    c = cfg.c
    mix = float(cfg.rollout_mix)
    max_steps = np.int64(2**62 if cfg.max_rollout_steps is None else cfg.max_rollout_steps)
    T = trees.n.shape[0]
    leaf = np.zeros(T, np.int32)
    priors = np.zeros((T, A), np.float32)
    values = np.zeros((T, int(game.num_players)), np.float64)
    while True:
        if not fns.descend_all(G, NS, trees.arrays(), mode, c, A, leaf):
            trees.grow(A)
            continue
        if (leaf == -2).all():
            return
        todo = np.flatnonzero(leaf >= 0)
        if len(todo):
            p, v = evaluate(game.take(slots, SLOTS * todo + 1))
            p = np.asarray(p, np.float32)
            v = np.asarray(v, np.float64)
            if p.shape != (len(todo), A) or v.shape != (len(todo), values.shape[1]):
                raise ValueError(
                    f"evaluate must return priors ({len(todo)}, {A}) and values"
                    f" ({len(todo)}, {values.shape[1]}), got {p.shape} and {v.shape}"
                )
            priors[todo] = p
            values[todo] = v
            fns.expand_all(
                G, NS, trees.arrays(), leaf, priors, values, allowed, noallow, mix, max_steps
            )


def _gumbel_root(fns, G, NS, trees, cfg, mode, A, allowed, noallow, noprior, evaluate, game, slots):  # type: ignore[no-untyped-def]
    """Gumbel-top-k root sampling with sequential halving (Danihelka et al., 2022).

    The root is expanded first (with the callback's priors, or uniform ones); then
    ``considered`` actions are drawn without replacement by Gumbel-top-k on the prior
    logits, and the remaining budget is split over ``ceil(log2 m)`` phases: each phase
    visits every surviving action equally and keeps the better half by
    ``g + logit + sigma(q)``. Below the root the configured mode (UCT or PUCT) selects.
    The root's edge list is rewritten at each phase to hold only the survivors, so the
    ordinary loops search under them; the visits of dropped actions stay in the result.
    """
    T = trees.n.shape[0]
    budgets = trees.budget.copy()
    trees.budget[:] = 1  # the first simulation expands the root
    _phase(fns, G, NS, trees, cfg, mode, A, allowed, noallow, noprior, evaluate, game, slots)
    logits = np.full((T, A), -np.inf)
    gumbel = np.zeros((T, A))
    survivors: list[np.ndarray] = []
    for t in range(T):
        e0, k = int(trees.edge0[t, 0]), int(trees.nedge[t, 0])
        acts = trees.action[t, e0 : e0 + k].astype(np.int64)
        logits[t, acts] = np.log(np.maximum(trees.prior[t, e0 : e0 + k], 1e-30))
        draws = np.random.default_rng(int(trees.key[t])).gumbel(size=k)  # the tree's own key
        gumbel[t, acts] = draws
        m = min(cfg.considered, k)
        order = acts[np.argsort(-(gumbel[t, acts] + logits[t, acts]), kind="stable")]
        survivors.append(order[:m])
    full = [(trees.edge0[t, 0], trees.nedge[t, 0]) for t in range(T)]
    left = budgets - trees.sims
    phases = [max(1, math.ceil(math.log2(max(len(s), 2)))) for s in survivors]
    done_phase = [0] * T
    while any(len(s) > 1 and left[t] > 0 for t, s in enumerate(survivors)):
        for t in range(T):
            s = survivors[t]
            if len(s) <= 1 or left[t] <= 0:
                trees.budget[t] = trees.sims[t]
                continue
            if left[t] < len(s):  # one visit each would overrun the budget (and the
                # tree's node arrays, sized for it): keep the best ``left`` (s is best-first)
                s = survivors[t] = s[: int(left[t])]
            per = max(1, int(left[t] // (max(phases[t] - done_phase[t], 1) * len(s))))
            trees.budget[t] = trees.sims[t] + per * len(s)
            left[t] -= per * len(s)
            _root_subset(trees, t, full[t], s)
        _phase(fns, G, NS, trees, cfg, mode, A, allowed, noallow, noprior, evaluate, game, slots)
        for t in range(T):
            s = survivors[t]
            if len(s) <= 1:
                continue
            visits = np.zeros((1, A))
            qsum = np.zeros((1, A))
            root_stats(_one_tree(trees, t), A, visits, qsum)
            q = np.where(visits[0, s] > 0, qsum[0, s] / np.maximum(visits[0, s], 1), 0.0)
            sigma = (50.0 + visits[0].max()) * 0.1 * q
            score = gumbel[t, s] + logits[t, s] + sigma
            keep = max(1, len(s) // 2)
            survivors[t] = s[np.argsort(-score, kind="stable")[:keep]]
            done_phase[t] += 1
    for t in range(T):  # the rest of the budget, if any, on the winner
        _root_subset(trees, t, full[t], survivors[t])
        trees.budget[t] = trees.sims[t] + max(int(left[t]), 0)
    _phase(fns, G, NS, trees, cfg, mode, A, allowed, noallow, noprior, evaluate, game, slots)
    for t in range(T):  # restore the root's whole edge list for the statistics
        trees.edge0[t, 0], trees.nedge[t, 0] = full[t]
        trees.win[t, 0] = -1


def _root_subset(trees: Trees, t: int, full: tuple[int, int], keep: np.ndarray) -> None:
    """Point the root of tree ``t`` at a copy of the edges of the actions ``keep``."""
    e0, k = int(full[0]), int(full[1])
    acts = trees.action[t, e0 : e0 + k]
    idx = e0 + np.flatnonzero(np.isin(acts, keep))
    if trees.action.shape[1] - int(trees.count[t, 1]) < len(idx):
        trees.grow(len(idx))
    n0 = int(trees.count[t, 1])
    sl = slice(n0, n0 + len(idx))
    trees.action[t, sl] = trees.action[t, idx]
    trees.prior[t, sl] = trees.prior[t, idx]
    trees.child[t, sl] = trees.child[t, idx]
    trees.count[t, 1] = n0 + len(idx)
    trees.edge0[t, 0], trees.nedge[t, 0] = n0, len(idx)
    trees.win[t, 0] = -1
    # the copies point at the same children: write them back after the phase
    trees._links = getattr(trees, "_links", {})  # type: ignore[attr-defined]
    trees._links[t] = (idx, sl)  # type: ignore[attr-defined]


def _one_tree(trees: Trees, t: int) -> tuple[np.ndarray, ...]:
    return tuple(a[t : t + 1] for a in trees.arrays())


def _phase(fns, G, NS, trees, cfg, mode, A, allowed, noallow, noprior, evaluate, game, slots):  # type: ignore[no-untyped-def]
    """Run every tree up to its budget with the configured evaluation."""
    max_steps = np.int64(2**62 if cfg.max_rollout_steps is None else cfg.max_rollout_steps)
    if evaluate is None:
        while not fns.run(
            G,
            NS,
            trees.arrays(),
            mode,
            cfg.c,
            max_steps,
            cfg.rollouts,
            A,
            allowed,
            noallow,
            noprior,
        ):
            trees.grow(A)
    else:
        _callback_rounds(fns, G, NS, trees, cfg, mode, A, allowed, noallow, evaluate, game, slots)
    links = getattr(trees, "_links", {})
    for t, (idx, sl) in links.items():  # children created under the copies
        trees.child[t, idx] = trees.child[t, sl]
    links.clear()
