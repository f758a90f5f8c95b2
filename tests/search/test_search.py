"""The batched array-tree search (agents/search): adapters against the facades, budgets,
determinism, decisive and anti-decisive moves, the evaluation callback, Gumbel root, errors.

The per-game search functions (envs/<game>/search_api.py) are checked against the batch
facades on positions reached by random play: the same legal actions, the same transition
and rewards (PR-16/PR-17 for Proteus, VF-16/VF-17 for Virus Fight).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from agents.base import ActContext
from agents.mcts import MCTSAgent
from agents.mcts_python import safe_actions
from agents.search import SearchConfig, search
from agents.search.driver import SLOTS, compiled, supports
from envs.proteus.batch import ProteusBatch
from envs.virus_fight.batch import VirusFightBatch
from tests.tictactoe import TicTacToe

GAMES: dict[str, Callable[[], Any]] = {
    "proteus": lambda: ProteusBatch(),
    "vf2": lambda: VirusFightBatch(2),
    "vf3": lambda: VirusFightBatch(3),
}


def positions(game: Any, n: int, seed: int, max_steps: int = 60) -> Any:
    """``n`` running positions reached by 0..max_steps random moves (seeded)."""
    rng = np.random.default_rng(seed)
    st = game.init(n, seed)
    depth = rng.integers(0, max_steps, n)
    for k in range(max_steps):
        live = np.flatnonzero((depth > k) & ~np.asarray(game.terminated(st), bool))
        if len(live) == 0:
            break
        sub = game.take(st, live)
        acts = game.random_actions(sub)
        before = game.take(sub, np.arange(len(live)))
        _, done = game.step(sub, acts)
        # keep positions where the game is still running
        keep = np.where(done, 0, 1).astype(bool)
        for name, arr in zip(
            [f for f in st.__dataclass_fields__],
            game.take(sub, np.arange(len(live))).arrays(),
            strict=True,
        ):
            full = getattr(st, name)
            old = getattr(before, name)
            full[live] = np.where(keep.reshape((-1,) + (1,) * (arr.ndim - 1)), arr, old)
        depth[live[~keep]] = k  # stop there
    assert not np.asarray(game.terminated(st), bool).any()
    return st


def slot_batch(key: str, n: int, seed: int, **kw: Any) -> tuple[Any, ...]:
    """(game, positions, compiled search functions, slot batch, its arrays, static params)
    for ``n`` positions of game ``key`` (each repeated SLOTS times)."""
    game = GAMES[key]()
    st = positions(game, n, seed=seed, **kw)
    fns = compiled(game)
    slots = game.take(st, np.repeat(np.arange(st.batch_size), SLOTS))
    return game, st, fns, slots, fns.api.arrays(slots), fns.api.static(game)


@pytest.mark.parametrize("key", sorted(GAMES))
def test_adapter_legal_actions_and_steps_match_the_facade(key: str) -> None:
    game, st, fns, slots, NS, G = slot_batch(key, 24, seed=1)
    mask = np.asarray(game.legal_mask(st), bool)
    acts = np.zeros(game.num_actions, np.int64)
    rew = np.zeros((slots.batch_size, game.num_players))
    rng = np.random.default_rng(0)
    for b in range(st.batch_size):
        k = fns.api.legal_actions(G, NS, SLOTS * b, acts)
        assert sorted(acts[:k].tolist()) == np.flatnonzero(mask[b]).tolist()
        a = int(rng.choice(np.flatnonzero(mask[b])))
        fns.api.copy_slot(G, NS, SLOTS * b, SLOTS * b + 1)
        fns.api.apply_action(G, NS, SLOTS * b + 1, a, rew)
        ref = game.take(st, np.array([b]))
        r_ref, _ = game.step(ref, np.array([a]))
        mine = game.take(slots, np.array([SLOTS * b + 1]))
        assert np.allclose(rew[SLOTS * b + 1], r_ref[0])
        assert int(fns.api.to_play(G, NS, SLOTS * b + 1)) == int(game.current_player(ref)[0])
        assert np.array_equal(game.legal_mask(mine), game.legal_mask(ref))
        assert np.array_equal(game.observe(mine, np.array([0])), game.observe(ref, np.array([0])))


@pytest.mark.parametrize("key", sorted(GAMES))
def test_playout_ends_the_game_and_returns_its_rewards(key: str) -> None:
    game, st, fns, slots, NS, G = slot_batch(key, 8, seed=2)
    ret = np.zeros(game.num_players)
    rew = np.zeros((slots.batch_size, game.num_players))
    for b in range(st.batch_size):
        fns.api.copy_slot(G, NS, SLOTS * b, SLOTS * b + 1)
        fns.api.playout(G, NS, SLOTS * b + 1, np.uint64(b), np.int64(2**62), ret, rew)
        assert fns.api.to_play(G, NS, SLOTS * b + 1) == -1
        assert np.all(np.abs(ret) <= 1.0)
        if game.num_players == 2:
            assert ret.sum() == 0.0  # zero-sum outcome of a finished two-player game


@pytest.mark.parametrize("key", sorted(GAMES))
def test_root_filter_matches_the_python_safety_check(key: str) -> None:
    game, st, fns, slots, NS, G = slot_batch(key, 16, seed=3, max_steps=80)
    seats = np.asarray(game.current_player(st), np.int64)
    allowed = np.zeros((st.batch_size, game.num_actions), bool)
    fns.root_filter(G, NS, seats, allowed)
    for b in range(st.batch_size):
        ref = safe_actions(game, game.take(st, np.array([b])), int(seats[b]))
        assert np.array_equal(allowed[b], ref)


@pytest.mark.parametrize("key", ["proteus", "vf2"])
def test_budgets_are_spent_and_results_do_not_depend_on_the_batch(key: str) -> None:
    game = GAMES[key]()
    st = positions(game, 4, seed=4)
    seats = game.current_player(st)
    keys = np.arange(4, dtype=np.uint64) + 7
    budgets = np.array([30, 5, 17, 1])
    res = search(game, st, seats, budgets, keys)
    assert res.trees.sims.tolist() == budgets.tolist()
    assert res.visits.sum(axis=1).tolist() == (budgets - 1).tolist()  # one expands the root
    for b in range(4):  # each tree alone: identical statistics (same key, same budget)
        one = search(game, game.take(st, np.array([b])), seats[b : b + 1], budgets[b : b + 1],
                     keys[b : b + 1])  # fmt: skip
        assert np.array_equal(one.visits[0], res.visits[b])
        assert np.array_equal(one.qsum[0], res.qsum[b])


def winning_positions(game: Any, n: int, seed: int) -> tuple[Any, list[set[int]]]:
    """Positions (from random games) where the mover has a move that wins at once."""
    st = game.init(64, seed)
    found: list[Any] = []
    wins: list[set[int]] = []
    for _ in range(400):
        if len(found) >= n or np.asarray(game.terminated(st), bool).all():
            break
        live = np.flatnonzero(~np.asarray(game.terminated(st), bool))
        sub = game.take(st, live)
        mask = np.asarray(game.legal_mask(sub), bool)
        movers = np.asarray(game.current_player(sub))
        for j in range(len(live)):
            acts = np.flatnonzero(mask[j])
            if len(acts) < 2 or len(found) >= n:
                continue
            kids = game.take(sub, np.full(len(acts), j))
            r, d = game.step(kids, acts)
            good = set(acts[np.asarray(d, bool) & (r[:, movers[j]] > 0)].tolist())
            if good and len(good) < len(acts):
                found.append(game.take(sub, np.array([j])))
                wins.append(good)
        a = game.random_actions(sub)
        game.step(sub, a)
        for name, arr in zip([f for f in st.__dataclass_fields__], sub.arrays(), strict=True):
            getattr(st, name)[live] = arr
    assert found, "no position with a win in one found"
    from agents.rollout import concat

    return concat(game, found), wins


def test_backup_adds_visits_once_and_each_seats_return_up_the_path() -> None:
    """``backup`` (tree.py, compiled without the runtime: it walks the path once per seat
    instead of copying the value): every node on the path gets ``count`` visits once, and
    seat s's value sum at a node is the leaf value plus ``count`` times the rewards of the
    steps below that node (the returns from the node on)."""
    from agents.search.tree import Trees, backup

    tr = Trees.allocate(np.array([4]), 2, np.array([0]), 8, np.array([1], np.uint64))
    TR = tr.arrays()
    tr.parent[0, :3] = [-1, 0, 1]  # root -> 1 -> 2 (the leaf)
    tr.r[0, 1] = [0.5, -0.5]  # the step into node 1
    tr.r[0, 2] = [1.0, -2.0]  # the step into node 2
    backup(TR, 0, 2, np.array([0.25, -0.25]), 3)
    assert tr.n[0, :4].tolist() == [3, 3, 3, 0]
    np.testing.assert_allclose(tr.w[0, 2], [0.25, -0.25])
    np.testing.assert_allclose(tr.w[0, 1], [0.25 + 3 * 1.0, -0.25 + 3 * -2.0])
    np.testing.assert_allclose(tr.w[0, 0], [0.25 + 3 * 1.5, -0.25 + 3 * -2.5])
    assert not tr.w[0, 3].any()


def test_search_takes_a_win_in_one() -> None:
    # Proteus (PR-16); in random Virus Fight games a win in one with a losing alternative
    # is too rare to collect quickly (eliminations mostly happen without a decision, VF-15)
    game = ProteusBatch()
    st, wins = winning_positions(game, 6, seed=5)
    t = st.batch_size
    res = search(game, st, game.current_player(st), np.full(t, 300), np.arange(t, dtype=np.uint64))
    for b in range(t):
        assert int(np.argmax(res.visits[b])) in wins[b]


def test_uniform_evaluator_callback_is_batched_across_trees() -> None:
    game = ProteusBatch()
    st = positions(game, 5, seed=6)
    sizes: list[int] = []

    def uniform(leaves: Any) -> tuple[np.ndarray, np.ndarray]:
        k = leaves.batch_size
        sizes.append(k)
        assert not np.asarray(game.terminated(leaves), bool).any()
        return np.ones((k, game.num_actions)), np.zeros((k, game.num_players))

    budgets = np.array([12, 12, 12, 3, 12])
    cfg = SearchConfig(mode="puct", c=1.25)
    res = search(
        game, st, game.current_player(st), budgets, np.arange(5, dtype=np.uint64), cfg, uniform
    )
    assert res.trees.sims.tolist() == budgets.tolist()
    assert max(sizes) == 5 and len(sizes) <= 12  # one call per round, all trees together
    assert res.visits.sum() <= (budgets - 1).sum()  # a path may end in a finished game
    # uniform priors and zero values: PUCT spreads the visits over distinct root actions
    assert (res.visits[0] > 0).sum() == 11


def test_callback_with_wrong_shapes_is_rejected() -> None:
    game = ProteusBatch()
    st = game.init(2, 0)

    def bad(leaves: Any) -> tuple[np.ndarray, np.ndarray]:
        return np.ones((leaves.batch_size, 3)), np.zeros((leaves.batch_size, 2))

    with pytest.raises(ValueError, match="priors"):
        search(game, st, game.current_player(st), np.full(2, 4), np.zeros(2, np.uint64),
               SearchConfig(mode="puct"), bad)  # fmt: skip


def test_gumbel_root_visits_only_considered_actions() -> None:
    game = ProteusBatch()
    st = game.init(3, 0)
    cfg = SearchConfig(mode="puct", gumbel=True, considered=4, safety_check=False)
    res = search(
        game, st, game.current_player(st), np.full(3, 40), np.arange(3, dtype=np.uint64), cfg
    )
    assert res.trees.sims.tolist() == [40, 40, 40]
    for b in range(3):
        assert 1 <= (res.visits[b] > 0).sum() <= 4
    # the action played (most visits) is one of the considered ones and legal
    mask = np.asarray(game.legal_mask(st), bool)
    assert mask[np.arange(3), res.visits.argmax(axis=1)].all()


def test_gumbel_root_with_a_callback_keeps_every_tree_within_its_budget() -> None:
    """Sequential halving gave each survivor at least one visit per phase, so a tree with
    fewer simulations left than survivors overran its budget (16 simulations became 22)
    and its node arrays (sized for the budget: out-of-bounds writes, a hang or a crash in
    self-play). Many legal actions, a small budget, a network-like callback."""
    game = ProteusBatch()
    st = game.init(24, 5)
    for _ in range(6):
        game.step(st, game.random_actions(st), auto_reset=True)
    live = np.flatnonzero(~game.terminated(st))
    st = game.take(st, live)

    def flat(leaves: Any) -> tuple[np.ndarray, np.ndarray]:
        k = leaves.batch_size
        return np.ones((k, game.num_actions)), np.zeros((k, game.num_players))

    for budget, considered in ((16, 16), (9, 16), (5, 8), (2, 16)):
        cfg = SearchConfig(mode="puct", gumbel=True, considered=considered, safety_check=True)
        budgets = np.full(len(live), budget)
        res = search(game, st, game.current_player(st), budgets, np.arange(len(live),
                     dtype=np.uint64), cfg, flat)  # fmt: skip
        assert (res.trees.sims == budget).all(), (budget, considered, res.trees.sims)
        assert (res.trees.count[:, 0] <= budget + 2).all()  # the node arrays' size


def test_bad_input_is_rejected_with_a_clear_message() -> None:
    game = ProteusBatch()
    st = game.init(2, 0)
    seats = game.current_player(st)
    with pytest.raises(ValueError, match="budget"):
        search(game, st, seats, np.array([3, 0]), np.zeros(2, np.uint64))
    with pytest.raises(ValueError, match="must match"):
        search(game, st, seats[:1], np.array([3, 3]), np.zeros(2, np.uint64))
    with pytest.raises(ValueError, match="mode"):
        SearchConfig(mode="best-first")
    with pytest.raises(ValueError, match="search_api"):
        search(
            TicTacToe(),
            TicTacToe().init(1, 0),
            np.zeros(1, np.int64),
            np.ones(1),
            np.zeros(1, np.uint64),
        )
    assert supports(game) and not supports(TicTacToe())


@pytest.mark.parametrize("key", ["proteus", "vf2"])
def test_mcts_agent_plays_the_same_moves_whatever_the_batch(key: str) -> None:
    game = GAMES[key]()
    st = positions(game, 5, seed=8)
    seats = game.current_player(st)
    obs = game.observe(st, seats)
    mask = game.legal_mask(st)
    together = MCTSAgent(simulations=40, seed=3).act(obs, mask, ActContext(game, st, seats))
    for b in range(5):
        one = game.take(st, np.array([b]))
        alone = MCTSAgent(simulations=40, seed=3).act(
            obs[b : b + 1], mask[b : b + 1], ActContext(game, one, seats[b : b + 1])
        )
        assert alone[0] == together[b]
    again = MCTSAgent(simulations=40, seed=3).act(obs, mask, ActContext(game, st, seats))
    assert np.array_equal(again, together)


def test_mcts_agent_falls_back_to_the_python_tree_without_search_api() -> None:
    game = TicTacToe()
    st = game.init(1, 0)
    st.board[0, [0, 1, 4, 3]] = [0, 0, 1, 1]  # X X . : X (seat 0) wins at 2
    seats = game.current_player(st)
    a = MCTSAgent(simulations=100, seed=0).act(
        game.observe(st, seats), game.legal_mask(st), ActContext(game, st, seats)
    )
    assert a[0] == 2


def _constant(game: Any, value: float) -> Callable[[Any], tuple[np.ndarray, np.ndarray]]:
    """A callback with uniform priors and the same value ``value`` for every seat."""

    def evaluate(leaves: Any) -> tuple[np.ndarray, np.ndarray]:
        k = leaves.batch_size
        return np.ones((k, game.num_actions)), np.full((k, game.num_players), value)

    return evaluate


@pytest.mark.parametrize("key", ["proteus", "vf2"])
def test_rollout_mix_weighs_a_playout_into_each_callback_leaf(key: str) -> None:
    """``rollout_mix`` m: a leaf backs up ``(1 - m) * value + m * z`` (z a random playout's
    returns: -1, 0 or +1 per seat in these two-player games). With budget 2 the root's one
    visited action holds exactly one leaf value; m = 1 ignores the callback's value, m = 0
    is the callback alone; the playouts draw from each tree's own key. From the opening
    positions: no root action ends the game (a finished child backs up its rewards)."""
    game = GAMES[key]()
    st = game.init(4, 8)
    seats = game.current_player(st)
    keys = np.arange(4, dtype=np.uint64) + 11

    def run(mix: float, value: float, budget: int = 2) -> Any:
        cfg = SearchConfig(mode="puct", safety_check=False, rollout_mix=mix)
        return search(game, st, seats, np.full(4, budget), keys, cfg, _constant(game, value))

    for mix in (0.0, 0.5, 1.0):
        res = run(mix, 0.25)
        q = res.qsum.sum(axis=1)  # one visited root action per tree
        assert (res.visits.sum(axis=1) == 1).all()
        want = {round((1 - mix) * 0.25 + mix * z, 9) for z in (-1.0, 0.0, 1.0)}
        assert {round(float(x), 9) for x in q} <= want, (mix, q)
    # m = 1: the callback's value plays no part; m = 0: it is all there is
    a, b = run(1.0, 0.9, 40), run(1.0, -0.9, 40)
    np.testing.assert_array_equal(a.visits, b.visits)
    np.testing.assert_array_equal(a.qsum, b.qsum)
    np.testing.assert_allclose(run(0.0, 0.25).qsum.sum(axis=1), 0.25)
    # deterministic under the keys, and each tree's result independent of the batch
    c = run(0.5, 0.1, 30)
    np.testing.assert_array_equal(c.qsum, run(0.5, 0.1, 30).qsum)
    one = search(game, game.take(st, np.array([2])), seats[2:3], np.full(1, 30), keys[2:3],
                 SearchConfig(mode="puct", safety_check=False, rollout_mix=0.5),
                 _constant(game, 0.1))  # fmt: skip
    np.testing.assert_array_equal(one.qsum[0], c.qsum[2])
    with pytest.raises(ValueError, match="rollout_mix"):
        SearchConfig(mode="puct", rollout_mix=1.5)


def test_contempt_values_a_drawn_ending_below_zero_for_the_root_seat() -> None:
    """``contempt`` c: a drawn ending backs up -c for the root's seat and +c for the other
    (two players, zero-sum), both where the tree reaches it and where a playout does.

    Tree: with PR-17's turn limit at 1 every first placement ends the game drawn, so each
    root action's mean is exactly -c (PR-16 cannot end it sooner: no GOLD tile is active).
    Playouts: cut off after 0 steps they are draws too (``max_rollout_steps``)."""
    keys = np.arange(3, dtype=np.uint64) + 5
    for mode in ("uct", "puct"):
        game = ProteusBatch(max_turns=1)
        st = game.init(3, 0)
        seats = game.current_player(st)
        for c in (0.0, 0.4):
            res = search(game, st, seats, np.full(3, 12), keys, SearchConfig(mode=mode, contempt=c))
            seen = res.visits > 0
            assert seen.sum(axis=1).min() >= 2
            np.testing.assert_allclose(res.qsum[seen] / res.visits[seen], -c)
    for key in ("proteus", "vf2"):
        game = GAMES[key]()
        st = game.init(3, 1)
        seats = np.asarray(game.current_player(st), np.int64)
        cfg = SearchConfig(max_rollout_steps=0, contempt=0.25, safety_check=False)
        res = search(game, st, seats, np.full(3, 20), keys, cfg)
        tr = res.trees
        for t in range(3):
            mean = tr.w[t, 0] / tr.n[t, 0]  # every visit a cut-off playout: a draw
            want = np.full(2, 0.25)
            want[seats[t]] = -0.25
            np.testing.assert_allclose(mean, want)
    with pytest.raises(ValueError, match="contempt"):
        SearchConfig(contempt=-0.1)


def test_virus_fight_playout_cut_off_scores_the_supply_margin() -> None:
    """A Virus Fight playout cut off after ``max_steps`` decisions adds each seat's soft
    VF-17 score, ``tanh((own pieces in supply - the other's) / MARGIN_SCALE)`` (pips do not
    count), not a draw and not VF-17's +1 / -1; one not cut off plays to the end
    (VF-16/VF-17) as before; one cut off during the setup adds 0."""
    from envs.virus_fight.position import from_text
    from envs.virus_fight.search_api import MARGIN_SCALE
    from tests.virus_fight.vf_positions import position_text

    assert MARGIN_SCALE == 3.0
    game = VirusFightBatch(2)
    fns = compiled(game)
    rows = [". . . . .", "W1 M1 . . .", ". . . . .", ". . . . .", "M1 W1 . . ."]

    def score(supply: dict[int, str], steps: int) -> np.ndarray:
        text = position_text(rows, ["a4", "a1"], phase="effect", supply=supply)
        st = game.take(from_text(game, text), np.zeros(SLOTS, np.int64))
        NS, G = fns.api.arrays(st), fns.api.static(game)
        ret = np.zeros(2)
        rew = np.zeros((SLOTS, 2))
        fns.api.playout(G, NS, 1, np.uint64(3), np.int64(steps), ret, rew)
        return ret

    # pieces are conserved (VF-2): seat 1 holds the 20 off-board pieces seat 0 does not
    # seat 0 holds 11 pieces in supply to 9: +2 for it, -2 for seat 1; 9 to 11: the reverse
    lead = np.tanh(2.0 / 3.0)
    more = {0: "J1 J1 J2 J2 J3 J3 E1 E1 E2 E2 E3"}
    np.testing.assert_allclose(score(more, 0), [lead, -lead])
    np.testing.assert_allclose(score({0: "J1 J1 J2 J2 J3 J3 E1 E1 E2"}, 0), [-lead, lead])
    eight = np.tanh(8.0 / 3.0)  # 14 to 6: a bigger lead reads as better, still below 1
    np.testing.assert_allclose(
        score({0: "J1 J1 J2 J2 J3 J3 E1 E1 E2 E2 E3 E3 M2 M3"}, 0), [eight, -eight]
    )
    assert lead < eight < 1.0
    # ten each: 0 for both, whatever the pips (VF-17 itself would rank 16 against 28)
    np.testing.assert_array_equal(score({0: "J1 J1 E1 E1 M2 M2 W2 W2 J2 J2"}, 0), [0.0, 0.0])
    np.testing.assert_array_equal(score({0: "M2 M3 W2 W3 J1 J2 J3 E1 E2 E3"}, 0), [0.0, 0.0])
    full = score(more, 2**62)  # to the end: a decided game (two players, zero-sum)
    assert abs(full[0]) <= 1.0 and full.sum() == 0.0
    setup = game.take(game.init(1, 0), np.zeros(SLOTS, np.int64))
    ret = np.ones(2)
    fns.api.playout(
        fns.api.static(game), fns.api.arrays(setup), 1, np.uint64(3), np.int64(2), ret,
        np.zeros((SLOTS, 2)),
    )  # fmt: skip
    np.testing.assert_array_equal(ret, [0.0, 0.0])


def test_virus_fight_margin_with_three_and_four_seats() -> None:
    """With more than two seats the margin is taken against the most pieces of *another*
    seat still in (VF-15/VF-17: an eliminated seat neither scores nor counts), ties read 0."""
    from envs.virus_fight.kernel import I_ALIVE
    from envs.virus_fight.search_api import _add_supply_margins

    def margins(pieces: list[int], alive: int) -> np.ndarray:
        supply = np.zeros((1, 4, 12), np.int8)
        for s, n in enumerate(pieces):
            supply[0, s, :n] = 1  # n different pieces, one each
        info = np.zeros((1, 15), np.int64)
        info[0, I_ALIVE] = alive
        ret = np.zeros(len(pieces))
        _add_supply_margins(0, supply, info, len(pieces), ret)
        return ret

    t = lambda d: np.tanh(d / 3.0)  # noqa: E731
    np.testing.assert_allclose(margins([9, 4, 7], 0b111), [t(2), t(-5), t(-2)])
    # seat 0 out: seat 2 leads seat 1 by 3, seat 0's 9 pieces count for nobody
    np.testing.assert_allclose(margins([9, 4, 7], 0b110), [0.0, t(-3), t(3)])
    # two seats tied on top: 0 for both, the others measured against 6
    np.testing.assert_allclose(margins([6, 2, 6, 5], 0b1111), [0.0, t(-4), 0.0, t(-1)])
    # a lone seat still in has no other to be measured against: nothing added
    np.testing.assert_array_equal(margins([3, 8, 1, 2], 0b0001), [0.0, 0.0, 0.0, 0.0])


def _vf_search_roots(text: str, **cfg: Any) -> set[str]:
    """The root actions a UCT search (every child once first) visits from a VF position."""
    from envs.virus_fight.notation import action_to_str
    from envs.virus_fight.position import from_text

    game = VirusFightBatch(2)
    st = from_text(game, text)
    seat = game.current_player(st)
    res = search(game, st, seat, np.array([60]), np.array([5], np.uint64), SearchConfig(**cfg))
    return {action_to_str(int(a), 5) for a in np.flatnonzero(res.visits[0] > 0)}


# From a game of az against mcts:1000 (round 23). Seat 1 (marker on the M3 at a2, step
# phase) must step its marker (VF-15) to a3, b2 or a1. After *a3 seat 0 forces seat 1 out
# in five decisions: M3@b4 (its WRITE), *b4; a marker on a size-3 instruction makes seat 0
# first again in round 24 (VF-13): a2-a5 (its MOVE takes a3's last unmarked neighbour),
# *b3; seat 1's ERASE at a3 then leaves no unmarked neighbour to step to (VF-14, VF-15).
VF_TRAP_ROWS = [
    ".  W2 .  .  E3",
    ".  .  M1 J3 .",
    "E2 W2 M1 W1 M2",
    "M3 E2 .  W3 .",
    "E1 M2 .  W3 .",
]


def test_deep_safety_filter_drops_root_actions_that_lose_by_force() -> None:
    """``safety_depth`` d drops the root actions after which the other seats can force
    the root seat's loss within d decisions (the root action counted), keeps them when
    the walk is cut by ``safety_nodes`` or when every action loses; the one-decision
    filter (``safety_check``) alone keeps all three steps here."""
    from tests.virus_fight.vf_positions import position_text

    def seat_1_to_act(rows: list[str], marker: str, phase: str, rnd: int, first: int) -> str:
        """Seat 1 to act, seat 0's marker on b3; seat 0 holds what the game left it."""
        return position_text(
            [" ".join(r.split()) for r in rows],
            ["b3", marker],
            phase=phase,
            turn=1,
            first=first,
            rnd=rnd,
            supply={0: "M3 J1 J3" if rnd == 23 else "J1 J3"},  # M3@b4 in between
        )

    text = seat_1_to_act(VF_TRAP_ROWS, "a2", "step", 23, first=1)
    steps = {"*a3", "*b2", "*a1"}
    assert _vf_search_roots(text) == steps
    # *a3 and *a1 both lose by force in six decisions (the line above, and M3@c5 *a3 xb1
    # *a2 after *a1); *b2 does not, so only it stays
    assert _vf_search_roots(text, safety_depth=6) == {"*b2"}
    assert _vf_search_roots(text, safety_depth=5) == steps  # the traps are six deep
    assert _vf_search_roots(text, safety_depth=6, safety_nodes=1) == steps  # not settled
    # after *a3 and seat 0's line, every ERASE of seat 1 loses at once: none is dropped
    rows = [r.split() for r in VF_TRAP_ROWS]
    rows[0][0], rows[1][1], rows[3][0] = "M3", "M3", "."  # M3@b4 played, a2-a5 moved
    lost = seat_1_to_act([" ".join(r) for r in rows], "a3", "effect", 24, first=0)
    assert _vf_search_roots(lost, safety_depth=6) == {"xa4", "xa2", "xc2", "xb1"}
    # deepening (safety_max_depth): depth 4 keeps all three, then depth 6 drops the traps
    assert _vf_search_roots(text, safety_depth=4) == steps
    assert _vf_search_roots(text, safety_depth=4, safety_max_depth=6) == {"*b2"}
    assert _vf_search_roots(text, safety_depth=6, safety_max_depth=10) == {"*b2"}
    with pytest.raises(ValueError, match="safety_depth"):
        SearchConfig(safety_depth=-1)
    with pytest.raises(ValueError, match="safety_max_depth"):
        SearchConfig(safety_depth=6, safety_max_depth=4)
    with pytest.raises(ValueError, match="safety_nodes"):
        SearchConfig(safety_nodes=0)


def _loses_by_force(game: Any, st: Any, seat: int, depth: int) -> bool:
    """Python reference of the deep filter's walk over the batch facade: can the other
    seats force ``seat`` to a negative reward within ``depth`` decisions?"""
    if depth == 0 or bool(np.asarray(game.terminated(st))[0]):
        return False
    mover = int(np.asarray(game.current_player(st))[0])
    legal = np.flatnonzero(np.asarray(game.legal_mask(st), bool)[0])
    outcomes = [_loses_after(game, st, int(a), seat, depth) for a in legal]
    return all(outcomes) if mover == seat else any(outcomes)


def _loses_after(game: Any, st: Any, action: int, seat: int, depth: int) -> bool:
    """Whether ``action`` (the first of ``depth`` decisions) loses ``seat`` the game at
    once or by force within the rest (:func:`_loses_by_force`)."""
    nxt = game.take(st, np.array([0]))
    rew, _ = game.step(nxt, np.array([action], np.int64))
    return bool(rew[0, seat] < 0) or _loses_by_force(game, nxt, seat, depth - 1)


@pytest.mark.parametrize("key", ["proteus", "vf2", "vf3"])
def test_deep_safety_filter_matches_a_python_walk(key: str) -> None:
    """On positions of random play, the compiled filter (depth 3) drops exactly the root
    actions the Python walk proves lost, unless that is all of them (then none)."""
    game, st, fns, _, _, G = slot_batch(key, 6, seed=11)
    depth = 3
    dropped = 0
    for g in range(st.batch_size):
        one = game.take(st, np.array([g]))
        seat = int(np.asarray(game.current_player(one))[0])
        legal = np.flatnonzero(np.asarray(game.legal_mask(one), bool)[0])
        lost = {int(a) for a in legal if _loses_after(game, one, int(a), seat, depth)}
        want = set(legal.tolist()) - lost if len(lost) < len(legal) else set(legal.tolist())
        allowed = np.asarray(game.legal_mask(one), np.bool_)
        deep = fns.api.arrays(game.take(one, np.zeros(depth + 1, np.int64)))
        fns.deep_filter(G, deep, np.array([seat]), depth + 1, depth, 10**9, allowed)
        assert set(np.flatnonzero(allowed[0]).tolist()) == want
        dropped += len(want) < len(legal)
    assert dropped > 0  # these positions do hold forced losses to drop


@pytest.mark.parametrize("key", ["proteus", "vf2"])
def test_deepening_safety_filter_judges_only_the_actions_left(key: str) -> None:
    """``safety_max_depth`` runs the filter again, deeper, over the actions the shallower
    pass kept: a pass drops what the Python walk proves lost at its depth unless that is
    all of the actions *left* (then they all stay), whatever other legal actions exist."""
    game, st, fns, _, _, G = slot_batch(key, 12, seed=11)
    depth, checked = 3, 0
    for g in range(st.batch_size):
        one = game.take(st, np.array([g]))
        seat = int(np.asarray(game.current_player(one))[0])
        legal = np.flatnonzero(np.asarray(game.legal_mask(one), bool)[0]).tolist()
        lost = {a for a in legal if _loses_after(game, one, a, seat, depth)}
        if not 0 < len(lost) < len(legal):
            continue
        safe = min(set(legal) - lost)
        for left, want in ((lost, lost), (lost | {safe}, {safe})):
            allowed = np.zeros((1, game.num_actions), np.bool_)
            allowed[0, sorted(left)] = True
            deep = fns.api.arrays(game.take(one, np.zeros(depth + 3, np.int64)))
            fns.deep_filter(G, deep, np.array([seat]), depth + 3, depth, 10**9, allowed)
            assert set(np.flatnonzero(allowed[0]).tolist()) == want
        checked += 1
    assert checked > 0  # these positions hold actions lost at depth 3 beside safe ones
