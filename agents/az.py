"""AlphaZero-style agents: a policy-value network alone (``az-policy``) or guiding search (``az``).

Why one module for the network, its search evaluation and the agents: the trainer
(``training/alphazero``) and the ladder agents must build, feed and read the network in
exactly the same way, and the agents must load on an install without the training code.

The network (:class:`PolicyValueNet`) reads the facade's compact uint8 observation codes
(``learner_view`` / ``learner_step``) and decodes them to floats inside ``forward`` (the
facade's ``decode`` is one scale per code position); float planes of ``observe`` pass
through unchanged. It outputs action logits and one value per seat, ordered from the
seat to move on (index 0: the mover, 1: the next seat, ...), so 2, 3 and 4 players work
alike; :func:`net_evaluator` turns that into the search callback of
``agents.search.search`` (priors over the legal actions, values per absolute seat).
A network trained with ``--obs lookahead`` also reads the game's per-action lookahead
flags (:func:`build_net`); its weight file says so, and the agents compute them.
``az`` values each searched leaf half by the network, half by one random playout
(``AZ_DEFAULT_ROLLOUT_MIX``, AlphaGo's mixed evaluation; docs/results.md measures why),
searches 4,096 simulations a move (``AZ_DEFAULT_SIMULATIONS``, four times ``mcts:1000``'s
budget: docs/results.md measures 1,024, 2,048 and 4,096) and counts a drawn ending as -0.3
for its own seat (``AZ_DEFAULT_CONTEMPT``: a draw is no win, so its search
steers away from repetitions and turn limits it could play on from). Its playouts stop
where the game's search module says (``AZ_ROLLOUT_STEPS``, :func:`game_rollout_steps`:
a game that adjudicates stalled play cuts them after a few decisions and scores them by
a soft form of that rule) or run to the end, and where that module sets ``AZ_SAFETY_DEPTH``
(:func:`game_safety_depth`) its root drops the actions after which the opponents can
force its loss within that many decisions (``SearchConfig.safety_depth``).

Shipped weights live in ``agents/weights/<game>_<P>p.pt`` (package data); ``az`` and
``az-policy`` exist for a game when such a file does. Hidden information: during a
hidden setup ``az`` searches ``determinizations`` samples of what the seat has not seen
(sharing the budget, their root visits summed, as ``mcts:N``); the network only ever
reads the seat's own observation. Keys as for ``mcts:N``
(``agents.search.roots.decision_roots``): a game's draws depend on the seed and that
game's own state, so the games of a batch are searched with different draws, and a seed
plays the same moves whatever the batch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.base import ActContext, Agent
from agents.rollout import concat
from agents.search.roots import check_legal, decision_roots, open_decisions

#: where the shipped weights are (package data)
WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
#: simulations per move of the plain name ``az``
AZ_DEFAULT_SIMULATIONS = 4096
#: weight of a random playout in each leaf's value when ``az`` / ``az:N`` search
#: (``SearchConfig.rollout_mix``; measured in docs/results.md)
AZ_DEFAULT_ROLLOUT_MIX = 0.5
#: what a drawn ending costs ``az``'s seat in its search (SearchConfig.contempt)
AZ_DEFAULT_CONTEMPT = 0.3
#: ``AZAgent(rollout_steps=GAME_DEFAULT)``: the game's own cut-off of ``az``'s playouts,
#: ``AZ_ROLLOUT_STEPS`` of its ``envs/<game>/search_api.py`` (none: to the end)
GAME_DEFAULT = -1


def game_rollout_steps(game: Any) -> int | None:
    """The playout cut-off a game's search module sets for ``az`` (None: play to the end).

    Why per game: where a game adjudicates stalled play by a rule of its own, a playout cut
    after a few moves and scored by (a soft form of) that rule reads a position better than
    a random game to its end (the game's search module says so and why; docs/results.md
    measures it).
    """
    from agents.search.driver import search_api

    steps = getattr(search_api(game), "AZ_ROLLOUT_STEPS", None)
    return None if steps is None else int(steps)


def game_safety_depth(game: Any) -> int:
    """The depth of ``az``'s deep root filter for a game (0: none; ``AZ_SAFETY_DEPTH`` of
    its search module). Why per game: a game whose turns run over several decisions (and
    rounds that can give a seat two turns in a row) hides forced losses a few decisions
    deep on narrow lines; docs/results.md measures the one that is set."""
    from agents.search.driver import search_api

    return int(getattr(search_api(game), "AZ_SAFETY_DEPTH", 0))


def game_safety_deepening(game: Any) -> tuple[int, int]:
    """``(max_depth, nodes)`` of ``az``'s deep root filter for a game: after the pass at
    :func:`game_safety_depth` it runs again 2, 4, ... decisions deeper up to ``max_depth``
    (0: no deeper pass), each walk of at most ``nodes`` applied actions per root action
    (``AZ_SAFETY_MAX_DEPTH`` / ``AZ_SAFETY_NODES`` of its search module; defaults 0 and
    ``SearchConfig``'s 5,000)."""
    from agents.search.driver import SearchConfig, search_api

    api = search_api(game)
    nodes = getattr(api, "AZ_SAFETY_NODES", SearchConfig.safety_nodes)
    return int(getattr(api, "AZ_SAFETY_MAX_DEPTH", 0)), int(nodes)


#: logits per unit of a flag weight (as ``agents.networks.FLAG_SCALE``, without torch)
FLAG_SCALE = 10.0


def weights_path(game: str, players: int) -> Path:
    """The shipped weight file of ``game`` with ``players`` seats (may not exist)."""
    return WEIGHTS_DIR / f"{game}_{int(players)}p.pt"


def shipped_players(game: str) -> list[int]:
    """Seat counts with shipped weights for ``game`` (empty: no ``az`` agents)."""
    out = []
    for p in sorted(WEIGHTS_DIR.glob(f"{game}_*p.pt")):
        tail = p.stem[len(game) + 1 : -1]
        if tail.isdigit():
            out.append(int(tail))
    return out


def obs_scale(game: Any) -> np.ndarray:
    """float32 per-element scale of the compact codes (``decode`` is code times this)."""
    one = np.ones((1, *game.obs_shape), np.uint8)
    scale = np.asarray(game.decode(one), np.float32)[0]
    two = np.asarray(game.decode(one * 2), np.float32)[0]
    if not np.allclose(two, 2 * scale):
        raise ValueError(f"{game.name}: decode is not a per-code scale; the network needs one")
    return scale


def _torch() -> Any:
    try:
        import torch
    except ImportError as exc:  # the train extra
        raise ImportError("the az agents need torch: pip install 'tabletop-arena[train]'") from exc
    return torch


def build_net(
    obs_shape: tuple[int, ...],
    num_actions: int,
    num_players: int,
    hidden: list[int],
    scale: Any,
    n_flags: int = 0,
    obs: str = "planes",
) -> Any:
    """A fresh :class:`PolicyValueNet` (an MLP trunk, a policy and a value head).

    ``n_flags`` > 0: the network also reads ``n_flags`` facts per action (the game's
    ``obs`` variant's ``action_flags``, e.g. a ``lookahead`` variant's: wins / loses / draws at
    once, leaves the opponent a win): they enter the trunk with the codes, and each
    action's logit gets ``FLAG_SCALE * sum_f w_f * flag[f, a]`` with one learned weight
    per flag shared by all actions (zero at the start; as ``agents.networks``' head for
    MaskablePPO). Why: an MLP over the planes does not learn these one- and two-ply
    tactics from self-play (docs/results.md), and a shared weight per fact turns them
    into logits after a few updates.
    """
    torch = _torch()
    nn = torch.nn
    n_flags = int(n_flags)

    class PolicyValueNet(nn.Module):  # type: ignore[name-defined]
        """uint8 codes (or float planes) [+ flags] -> (logits (B, A), values (B, P) in [-1, 1])."""

        def __init__(self) -> None:
            super().__init__()
            self.meta = {
                "obs_shape": list(obs_shape),
                "num_actions": int(num_actions),
                "num_players": int(num_players),
                "hidden": [int(h) for h in hidden],
                "n_flags": n_flags,
                "obs": obs if n_flags else "planes",
            }
            self.register_buffer("scale", torch.as_tensor(np.asarray(scale, np.float32)))
            layers: list[Any] = []
            width = int(np.prod(obs_shape)) + n_flags * int(num_actions)
            for h in hidden:
                layers += [nn.Linear(width, h), nn.ReLU()]
                width = h
            self.trunk = nn.Sequential(*layers)
            self.policy = nn.Linear(width, num_actions)
            self.value = nn.Linear(width, num_players)
            if n_flags:
                self.flag_weight = nn.Parameter(torch.zeros(n_flags))

        def forward(self, x: Any, flags: Any = None) -> tuple[Any, Any]:
            if x.dtype == torch.uint8:
                x = x.float() * self.scale
            x = x.reshape(x.shape[0], -1).float()
            if n_flags:
                if flags is None:
                    raise ValueError(f"this network reads {n_flags} flags per action: pass flags")
                f = flags.float().reshape(x.shape[0], n_flags, int(num_actions))
                x = torch.cat([x, f.reshape(x.shape[0], -1)], dim=1)
            h = self.trunk(x)
            logits = self.policy(h)
            if n_flags:
                logits = logits + torch.matmul(FLAG_SCALE * self.flag_weight, f)  # (F,)@(B,F,A)
            return logits, torch.tanh(self.value(h))

    return PolicyValueNet()


def net_for(game: Any, hidden: list[int], obs: str = "planes") -> Any:
    """A fresh network shaped for ``game``'s facade; ``obs`` a variant with
    ``action_flags`` (e.g. ``lookahead``) adds its flags as a second input."""
    n_flags = 0 if obs == "planes" else int(flag_facade(game, obs).n_flags)
    return build_net(
        tuple(game.obs_shape),
        int(game.num_actions),
        int(game.num_players),
        hidden,
        obs_scale(game),
        n_flags=n_flags,
        obs=obs,
    )


_FLAG_FACADES: dict[tuple[str, int, str], Any] = {}


def flag_facade(game: Any, obs: str) -> Any:
    """The ``obs`` variant facade of ``game`` that computes its per-action flags."""
    from envs import registry

    key = (str(game.name), int(game.num_players), obs)
    if key not in _FLAG_FACADES:
        facade = registry.make_batch(key[0], key[1], obs=obs)
        if not callable(getattr(facade, "action_flags", None)):
            raise ValueError(f"{game.name}'s {obs!r} observation has no action_flags for az")
        _FLAG_FACADES[key] = facade
    return _FLAG_FACADES[key]


def action_flags(net: Any, game: Any, state: Any, seats: np.ndarray) -> np.ndarray | None:
    """The flags ``net`` reads for ``state``'s games (None for a network without them)."""
    if not net.meta.get("n_flags", 0):
        return None
    return np.asarray(flag_facade(game, net.meta["obs"]).action_flags(state, seats))


def save_weights(net: Any, path: Path, half: bool = True) -> None:
    """Write the network's shape and weights (float16 when ``half``: half the bytes)."""
    torch = _torch()
    sd = {
        k: (v.half() if half and v.is_floating_point() else v) for k, v in net.state_dict().items()
    }
    torch.save({"meta": dict(net.meta), "state_dict": sd}, path)


def load_weights(path: Path | str) -> Any:
    """The network stored in ``path`` (by :func:`save_weights`), in eval mode, float32."""
    torch = _torch()
    blob = torch.load(Path(path), map_location="cpu", weights_only=True)
    m = blob["meta"]
    sd = {k: v.float() if v.is_floating_point() else v for k, v in blob["state_dict"].items()}
    net = build_net(
        tuple(m["obs_shape"]),
        m["num_actions"],
        m["num_players"],
        m["hidden"],
        sd["scale"],
        n_flags=int(m.get("n_flags", 0)),
        obs=str(m.get("obs", "planes")),
    )
    net.load_state_dict(sd)
    net.eval()
    return net


def check_fits(net: Any, game: Any) -> None:
    """ValueError unless ``net`` was made for a game of ``game``'s shape."""
    m = net.meta
    want = (list(game.obs_shape), int(game.num_actions), int(game.num_players))
    have = (list(m["obs_shape"]), m["num_actions"], m["num_players"])
    if want != have:
        raise ValueError(
            f"network for obs {have[0]}, {have[1]} actions, {have[2]} players does not fit "
            f"{game.name} (obs {want[0]}, {want[1]} actions, {want[2]} players)"
        )


def absolute_values(rel: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """Values per absolute seat from values ordered from each row's mover on."""
    k, p = rel.shape
    out = np.empty_like(rel)
    cols = (seats[:, None] + np.arange(p)[None, :]) % p
    out[np.arange(k)[:, None], cols] = rel
    return out


def relative_values(ret: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """Returns per absolute seat reordered from each row's mover on (training targets)."""
    k, p = ret.shape
    cols = (seats[:, None] + np.arange(p)[None, :]) % p
    return ret[np.arange(k)[:, None], cols]


def policy_values(
    net: Any, codes: np.ndarray, mask: np.ndarray, flags: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(priors over the legal actions (k, A), mover-relative values (k, P)) for uint8 codes
    (and the network's per-action ``flags``, if it reads them)."""
    torch = _torch()
    with torch.inference_mode():
        f = None if flags is None else torch.from_numpy(np.ascontiguousarray(flags))
        logits, v = net(torch.from_numpy(np.ascontiguousarray(codes)), f)
        logits = logits.masked_fill(~torch.from_numpy(np.ascontiguousarray(mask)), -1e9)
        p = torch.softmax(logits, dim=1)
    return p.numpy(), v.numpy().astype(np.float64)


def net_evaluator(
    net: Any, game: Any, noise: Any = None, roots: Any = None, prior_mix: float = 0.0
) -> Any:
    """The search callback: the leaves' compact views through ``net`` in one call.

    ``prior_mix`` blends every leaf's priors with the uniform distribution over its legal
    actions (``(1 - prior_mix) p + prior_mix / n_legal``): where the network's priors are
    weak, PUCT otherwise rarely looks at the moves they rule out (docs/results.md).

    ``noise`` (optional) is called once with the first call's priors and seats (the
    roots: every tree's first simulation expands its root) and returns new priors:
    AlphaZero's Dirichlet exploration noise in self-play. ``roots`` (optional, a dict)
    receives that first call's network output before any noise: ``priors`` (T, A) and
    mover-relative ``values`` (T, P), so a caller needing the roots' evaluation does not
    run the network on them again.
    """
    bufs: dict[int, Any] = {}
    state = {"first": noise is not None, "roots": roots is not None}

    def evaluate(leaves: Any) -> tuple[np.ndarray, np.ndarray]:
        k = len(game.terminated(leaves))
        out = bufs.get(k)
        if out is None:
            out = bufs[k] = game.learner_buffers(k)
        game.learner_view(leaves, out)
        flags = action_flags(net, game, leaves, out.seat)
        priors, rel = policy_values(net, out.obs, out.mask, flags)
        if prior_mix > 0.0:
            legal = out.mask.astype(np.float32)
            uniform = legal / np.maximum(legal.sum(axis=1, keepdims=True), 1.0)
            priors = (1.0 - prior_mix) * priors + prior_mix * uniform
        if state["roots"]:
            state["roots"] = False
            roots.update(priors=priors, values=rel)
        if state["first"]:
            state["first"] = False
            priors = noise(priors, out.mask)
        return priors, absolute_values(rel, out.seat)

    return evaluate


def search_roots(
    game: Any, state: Any, index: np.ndarray, seats: np.ndarray, keys: list[int]
) -> Any:
    """The roots to search for games ``index``: determinized where the facade hides a setup.

    Each game's sample draws from its own key (what its seat has seen), never from the batch.
    """
    det = getattr(game, "determinize", None)
    if det is None:
        return game.take(state, np.asarray(index))
    parts = [
        det(game.take(state, np.array([i])), int(s), np.random.default_rng(k))
        for i, s, k in zip(index, seats, keys, strict=True)
    ]
    return concat(game, parts)


def root_visits(
    game: Any,
    roots: Any,
    seats: np.ndarray,
    net: Any,
    simulations: int | np.ndarray,
    keys: np.ndarray,
    c_puct: float = 1.25,
    noise: Any = None,
    rollout_mix: float = 0.0,
    contempt: float = 0.0,
    prior_mix: float = 0.0,
    rollout_steps: int | None = None,
    safety_depth: int = 0,
    safety_max_depth: int = 0,
    safety_nodes: int = 5000,
) -> np.ndarray:
    """(T, A) root visit counts of a PUCT search guided by ``net`` (self-play and ``az``);
    ``rollout_mix``: weight of a random playout in each leaf's value, ``contempt``: what a
    drawn ending costs the root's seat, ``rollout_steps``: the playouts' cut-off,
    ``safety_depth`` / ``safety_max_depth`` / ``safety_nodes``: the deep root filter (all
    ``SearchConfig``), ``prior_mix``: the uniform share of the priors
    (:func:`net_evaluator`)."""
    from agents.search.driver import SearchConfig

    cfg = SearchConfig(
        mode="puct",
        c=c_puct,
        safety_check=True,
        rollout_mix=rollout_mix,
        contempt=contempt,
        max_rollout_steps=rollout_steps,
        safety_depth=safety_depth,
        safety_max_depth=safety_max_depth,
        safety_nodes=safety_nodes,
    )
    return _net_search(
        game, roots, seats, net, simulations, keys, cfg, noise, prior_mix=prior_mix
    ).visits


def _net_search(
    game: Any,
    roots: Any,
    seats: np.ndarray,
    net: Any,
    simulations: int | np.ndarray,
    keys: np.ndarray,
    cfg: Any,
    noise: Any = None,
    root_eval: dict[str, np.ndarray] | None = None,
    prior_mix: float = 0.0,
) -> Any:
    """The array search (``agents.search``) of ``simulations`` per tree under ``cfg``,
    evaluated by ``net``: the one call behind :func:`root_visits` and :func:`gumbel_search`
    (``root_eval``: see :func:`net_evaluator`'s ``roots``)."""
    from agents.search.driver import search

    budgets = np.broadcast_to(np.asarray(simulations, np.int64), (len(seats),)).copy()
    ev = net_evaluator(net, game, noise, root_eval, prior_mix)
    return search(game, roots, np.asarray(seats), budgets, np.asarray(keys, np.uint64), cfg, ev)


def gumbel_search(
    game: Any,
    roots: Any,
    seats: np.ndarray,
    net: Any,
    simulations: int,
    keys: np.ndarray,
    c_puct: float = 1.25,
    considered: int = 16,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Gumbel root search guided by ``net`` (Danihelka et al. 2022): (visits, qsum, root
    actions) per tree, each (T, A), the root actions those the safety filter kept; then
    the network's priors (T, A) and mover-relative values (T, P) of the roots, from the
    search's first evaluation (the target of :func:`improved_policy` needs them: one
    forward pass of the roots, not two).

    Why beside :func:`root_visits`: with a few dozen simulations PUCT's visit counts stay
    close to the priors (measured at 32 simulations: mean target entropy 1.76 nats over
    25 legal actions, docs/training.md), so the policy learns little from them; Gumbel-top-k with
    sequential halving spends the budget on a few sampled actions and
    :func:`improved_policy` turns their values into the target."""
    from agents.search.driver import SearchConfig

    cfg = SearchConfig(
        mode="puct", c=c_puct, safety_check=True, gumbel=True, considered=int(considered)
    )
    root_eval: dict[str, np.ndarray] = {}
    res = _net_search(game, roots, seats, net, simulations, keys, cfg, root_eval=root_eval)
    tr = res.trees
    allowed = np.zeros(res.visits.shape, np.bool_)
    for t in range(len(seats)):
        e0, k = int(tr.edge0[t, 0]), int(tr.nedge[t, 0])
        allowed[t, tr.action[t, e0 : e0 + max(k, 0)].astype(np.int64)] = True
    return res.visits, res.qsum, allowed, root_eval["priors"], root_eval["values"]


def improved_policy(
    priors: np.ndarray,
    value: np.ndarray,
    visits: np.ndarray,
    qsum: np.ndarray,
    allowed: np.ndarray,
    c_visit: float = 50.0,
    c_scale: float = 0.1,
) -> np.ndarray:
    """Gumbel MuZero's policy target ``softmax(log prior + sigma(completed Q))`` (T, A).

    ``priors`` the network's (T, A), ``value`` its value of each root for the mover (T,),
    ``visits``/``qsum`` the root statistics (returns of the root's seat, in [-1, 1]),
    ``allowed`` the root actions searched. An unvisited action's Q is completed with the
    mixed value ``v_mix`` (the network's value and the visited actions' Q weighted by
    their priors); Q is mapped to [0, 1] before ``sigma(q) = (c_visit + max N) c_scale q``.
    """
    n = visits
    q = np.where(n > 0, qsum / np.maximum(n, 1), 0.0)
    pri = np.where(allowed, priors, 0.0)
    pri = pri / np.maximum(pri.sum(axis=1, keepdims=True), 1e-12)
    seen = n > 0
    pi_seen = (pri * seen).sum(axis=1)
    q_seen = (pri * q * seen).sum(axis=1) / np.maximum(pi_seen, 1e-12)
    total = n.sum(axis=1)
    v_mix = np.where(pi_seen > 0, (value + total * q_seen) / (1 + total), value)
    completed = np.where(seen, q, v_mix[:, None])
    sigma = (c_visit + n.max(axis=1, keepdims=True)) * c_scale * (completed + 1.0) / 2.0
    logits = np.where(allowed, np.log(np.maximum(pri, 1e-30)) + sigma, -np.inf)
    logits -= logits.max(axis=1, keepdims=True)
    out = np.exp(logits)
    return out / out.sum(axis=1, keepdims=True)


class AZAgent(Agent):
    """The network's greedy move (``simulations=0``), or the most visited root action of a
    PUCT search of ``simulations`` per move guided by it (module docstring), each leaf
    valued ``(1 - rollout_mix)`` by the network and ``rollout_mix`` by a random playout,
    its priors blended with uniform ones by ``prior_mix`` (:func:`net_evaluator`).
    ``rollout_steps``: the playouts' cut-off (``SearchConfig.max_rollout_steps``; None: to
    the end; the default :data:`GAME_DEFAULT`: the game's own, :func:`game_rollout_steps`).
    ``safety_depth``: the deep root filter (``SearchConfig.safety_depth``; 0: none; the
    default :data:`GAME_DEFAULT`: the game's own, :func:`game_safety_depth`);
    ``safety_max_depth`` / ``safety_nodes``: its deeper passes and walk budget
    (``SearchConfig``; :data:`GAME_DEFAULT`: the game's own,
    :func:`game_safety_deepening`)."""

    needs_context = True

    def __init__(
        self,
        simulations: int = AZ_DEFAULT_SIMULATIONS,
        weights: str | Path | None = None,
        seed: int | None = 0,
        c_puct: float = 1.25,
        rollout_mix: float = AZ_DEFAULT_ROLLOUT_MIX,
        contempt: float = AZ_DEFAULT_CONTEMPT,
        determinizations: int = 4,
        prior_mix: float = 0.0,
        rollout_steps: int | None = GAME_DEFAULT,
        safety_depth: int = GAME_DEFAULT,
        safety_max_depth: int = GAME_DEFAULT,
        safety_nodes: int = GAME_DEFAULT,
    ) -> None:
        if simulations < 0:
            raise ValueError(f"simulations must be >= 0, got {simulations}")
        if not 0.0 <= rollout_mix <= 1.0:
            raise ValueError(f"rollout_mix must be in [0, 1], got {rollout_mix}")
        if not 0.0 <= contempt <= 1.0:
            raise ValueError(f"contempt must be in [0, 1], got {contempt}")
        if not 0.0 <= prior_mix <= 1.0:
            raise ValueError(f"prior_mix must be in [0, 1], got {prior_mix}")
        if determinizations < 1:
            raise ValueError(f"determinizations must be >= 1, got {determinizations}")
        if rollout_steps is not None and rollout_steps != GAME_DEFAULT and rollout_steps < 0:
            raise ValueError(
                f"rollout_steps must be >= 0, None (to the end) or GAME_DEFAULT, got {rollout_steps}"
            )
        if safety_depth != GAME_DEFAULT and safety_depth < 0:
            raise ValueError(f"safety_depth must be >= 0 or GAME_DEFAULT, got {safety_depth}")
        if safety_max_depth != GAME_DEFAULT and safety_max_depth < 0:
            raise ValueError(
                f"safety_max_depth must be >= 0 or GAME_DEFAULT, got {safety_max_depth}"
            )
        if safety_nodes != GAME_DEFAULT and safety_nodes < 1:
            raise ValueError(f"safety_nodes must be >= 1 or GAME_DEFAULT, got {safety_nodes}")
        self.safety_max_depth = int(safety_max_depth)
        self.safety_nodes = int(safety_nodes)
        self.rollout_steps = rollout_steps
        self.safety_depth = int(safety_depth)
        self.determinizations = int(determinizations)
        self.contempt = float(contempt)
        self.prior_mix = float(prior_mix)
        self.rollout_mix = float(rollout_mix)
        self.simulations = int(simulations)
        self.weights = None if weights is None else Path(weights)
        self.seed = 0 if seed is None else int(seed)
        self.c_puct = c_puct
        self.name = "az-policy" if simulations == 0 else f"az:{simulations}"
        self._net: Any = None
        self._bufs: dict[int, Any] = {}

    def reset(self, seed: int | None = None) -> None:
        self.seed = 0 if seed is None else int(seed)

    def _network(self, game: Any) -> Any:
        if self._net is None:
            path = self.weights or weights_path(game.name, game.num_players)
            if not Path(path).exists():
                have = shipped_players(game.name)
                raise ValueError(
                    f"no az weights for {game.name} with {game.num_players} players "
                    f"({path} missing; shipped: {have or 'none'})"
                )
            from envs.core.threads import safe_threads

            self._net = load_weights(path)  # imports torch: safe_threads acts only after
            safe_threads("AZAgent")  # torch beside the Numba search: one torch thread
            check_fits(self._net, game)
        return self._net

    def act(
        self, obs: np.ndarray, mask: np.ndarray | None, context: ActContext | None = None
    ) -> np.ndarray:
        if context is None or mask is None:
            raise ValueError("AZAgent needs the turn-based game's ActContext and legal mask")
        game, state = context.game, context.state
        net = self._network(game)
        mask = np.asarray(mask, bool)
        if self.simulations == 0:
            torch = _torch()
            flags = action_flags(net, game, state, np.asarray(context.seats, np.int64))
            with torch.inference_mode():
                logits, _ = net(
                    torch.from_numpy(np.ascontiguousarray(obs, np.float32)),
                    None if flags is None else torch.from_numpy(flags),
                )
            scores = np.where(mask, logits.numpy(), -np.inf)
            return scores.argmax(axis=1).astype(np.int64)
        if not mask.any(axis=1).all():
            raise ValueError(f"no legal action in game {int(np.flatnonzero(~mask.any(axis=1))[0])}")
        out, idx = open_decisions(mask)
        if len(idx):
            seats = np.asarray(context.seats, np.int64)
            roots, own, keys, budgets = decision_roots(
                game,
                state,
                obs,
                mask,
                seats,
                idx,
                self.seed,
                self.determinizations,
                self.simulations,
            )
            max_depth, nodes = game_safety_deepening(game)  # the game's own, looked up once
            visits = root_visits(
                game,
                concat(game, roots),
                seats[own],
                net,
                budgets,
                keys,
                self.c_puct,
                rollout_mix=self.rollout_mix,
                contempt=self.contempt,
                prior_mix=self.prior_mix,
                rollout_steps=(
                    game_rollout_steps(game)
                    if self.rollout_steps == GAME_DEFAULT
                    else self.rollout_steps
                ),
                safety_depth=(
                    game_safety_depth(game)
                    if self.safety_depth == GAME_DEFAULT
                    else self.safety_depth
                ),
                safety_max_depth=(
                    max_depth if self.safety_max_depth == GAME_DEFAULT else self.safety_max_depth
                ),
                safety_nodes=nodes if self.safety_nodes == GAME_DEFAULT else self.safety_nodes,
            )
            total = np.zeros(mask.shape)
            np.add.at(total, own, visits)  # a hidden setup's samples vote together
            total = np.where(mask, total, -1.0)
            out[idx] = total[idx].argmax(axis=1)
        return check_legal("AZAgent", mask, out)
