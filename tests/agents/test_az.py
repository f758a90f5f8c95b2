"""The shipped AlphaZero agents ``az`` / ``az-policy`` (issue #12 item 3).

Their weights are package data (``agents/weights``); the test loads each shipped file,
checks it fits its game, and measures both agents against ``random`` over a small number
of seat-swapped games (a learned agent that loses to random is broken weights or a
broken observation path). No speed is asserted.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

from agents.az import AZAgent, load_weights, shipped_players, weights_path  # noqa: E402
from agents.measure import measure  # noqa: E402
from agents.registry import agent_names, make_agent, resolve  # noqa: E402
from envs import registry  # noqa: E402
from envs.core.agent import ActContext  # noqa: E402

SHIPPED = [(g, p) for g in registry.names() for p in shipped_players(g)]


def test_some_weights_are_shipped() -> None:
    assert len(SHIPPED) >= 2
    for game, players in SHIPPED:
        assert weights_path(game, players).stat().st_size < 4_000_000  # a few MB at most


@pytest.mark.parametrize(("game", "players"), SHIPPED)
def test_shipped_weights_load_and_fit(game: str, players: int) -> None:
    net = load_weights(weights_path(game, players))
    facade = registry.make_batch(game, players)
    assert net.meta["obs_shape"] == list(facade.obs_shape)
    assert net.meta["num_actions"] == facade.num_actions
    assert {"az", "az-policy"} <= set(agent_names(game))
    resolve(game, "az:8")


@pytest.mark.parametrize(("game", "players"), SHIPPED)
def test_shipped_network_with_search_beats_random(game: str, players: int) -> None:
    """``az:16`` (the shipped network guiding a small search) against ``random``.

    The network alone (``az-policy``) is not asserted here: the shipped 2-player board
    networks of 30-40 minutes of training on a loaded 2-core machine do not all beat
    random on their own (measured in docs/results.md).
    """
    r = measure(game, "az:16", "random", games=10, players=players, seed=5)
    assert r["wins"] >= 7, r  # seat-swapped 5 + 5 games


def test_az_agent_plays_legal_moves_and_needs_context() -> None:
    game, players = SHIPPED[0]
    facade = registry.make_batch(game, players)
    state = facade.init(3, seed=1)
    seats = facade.current_player(state)
    obs = facade.observe(state, seats)
    mask = facade.legal_mask(state)
    for name in ("az-policy", "az:4"):
        a = make_agent(game, name, seed=0).act(obs, mask, ActContext(facade, state, seats))
        assert mask[np.arange(3), a].all()
    with pytest.raises(ValueError, match="ActContext"):
        AZAgent(4).act(obs, mask, None)
    with pytest.raises(ValueError, match="simulations"):
        AZAgent(-1)
    with pytest.raises(ValueError, match="contempt"):
        AZAgent(4, contempt=1.5)


def test_unknown_az_budget_is_named() -> None:
    game = SHIPPED[0][0]
    with pytest.raises(ValueError, match="az:N needs an integer"):
        resolve(game, "az:many")


def test_decision_time_times_one_act_per_position(capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m agents.measure GAME AGENT --decision-time K``: K timed ``act`` calls at
    batch size 1 (the docs' decision times), bad counts named."""
    from agents.measure import decision_time, main

    game, players = SHIPPED[0]
    d = decision_time(game, "az-policy", positions=3, players=players)
    assert d["positions"] == 3 and 0 < d["median_ms"] and 0 < d["mean_ms"]
    assert main([game, "az:4", "--decision-time", "2", "--players", str(players)]) == 0
    assert "ms per move" in capsys.readouterr().out
    with pytest.raises(ValueError, match="decision-time"):
        decision_time(game, "random", positions=0)


@pytest.mark.parametrize(("game", "players"), SHIPPED)
def test_az_searches_each_game_with_its_own_draws_whatever_the_batch(
    game: str, players: int
) -> None:
    """Games of a batch at the same position get different search keys (each game's own
    state, as ``mcts:N``): a measurement's games are not copies of one another. The moves
    of a batch equal those of its games asked one at a time; during Virus Fight's hidden
    setup (VF-11) the seat's ``determinizations`` samples share the budget."""
    from agents.search.roots import decision_roots

    facade = registry.make_batch(game, players)
    state = facade.init(6, seed=2)  # six games at the opening position
    seats = np.asarray(facade.current_player(state), np.int64)
    obs, mask = facade.observe(state, seats), facade.legal_mask(state)
    roots, own, keys, budgets = decision_roots(
        facade, state, obs, mask, seats, np.arange(6), 0, 4, 100
    )
    assert len(set(keys.tolist())) == len(keys)
    assert np.bincount(own).tolist() == [len(roots) // 6] * 6
    assert budgets.tolist() == [100 // (len(roots) // 6)] * len(roots)  # samples share it
    agent = AZAgent(8, seed=1)
    whole = agent.act(obs, mask, ActContext(facade, state, seats))
    for i in range(6):
        one = facade.take(state, np.array([i]))
        ctx = ActContext(facade, one, seats[i : i + 1])
        assert agent.act(obs[i : i + 1], mask[i : i + 1], ctx)[0] == whole[i]
    with pytest.raises(ValueError, match="determinizations"):
        AZAgent(8, determinizations=0)


@pytest.mark.parametrize(("game", "players"), SHIPPED)
def test_prior_mix_blends_the_priors_with_uniform_over_the_legal_actions(
    game: str, players: int
) -> None:
    """``prior_mix`` m: every leaf's priors are ``(1 - m) p + m / n_legal`` on its legal
    actions and 0 elsewhere (m = 0 the network's own); out of [0, 1] it is named."""
    from agents.az import net_evaluator

    facade = registry.make_batch(game, players)
    state = facade.init(4, seed=3)
    net = load_weights(weights_path(game, players))
    plain, values = net_evaluator(net, facade)(state)
    mask = facade.legal_mask(state)
    legal = mask.sum(axis=1, keepdims=True)
    for m in (0.25, 1.0):
        mixed, v = net_evaluator(net, facade, prior_mix=m)(state)
        np.testing.assert_allclose(
            mixed, np.where(mask, (1 - m) * plain + m / legal, 0.0), atol=1e-6
        )
        np.testing.assert_allclose(mixed.sum(axis=1), 1.0, atol=1e-5)
        np.testing.assert_array_equal(v, values)
    with pytest.raises(ValueError, match="prior_mix"):
        AZAgent(8, prior_mix=1.5)


@pytest.mark.parametrize(
    ("param", "attr", "unset", "explicit", "vf_sets_it"),
    [
        ("rollout_steps", "AZ_ROLLOUT_STEPS", None, (None, 7), True),
        ("safety_depth", "AZ_SAFETY_DEPTH", 0, (0, 3), True),
        ("safety_max_depth", "AZ_SAFETY_MAX_DEPTH", 0, (0, 8), True),
        ("safety_nodes", "AZ_SAFETY_NODES", 5000, (1, 900), True),
    ],
)
def test_search_settings_default_to_the_games_own(
    monkeypatch: pytest.MonkeyPatch,
    param: str,
    attr: str,
    unset: object,
    explicit: tuple[object, ...],
    vf_sets_it: bool,
) -> None:
    """``AZAgent(rollout_steps=GAME_DEFAULT)`` cuts its playouts where the game's search
    module says (``AZ_ROLLOUT_STEPS``; none: to the end) and ``safety_depth=GAME_DEFAULT``
    filters its root to the game's ``AZ_SAFETY_DEPTH`` (none: 0, no deep filter), and
    so on for the filter's deeper passes and walk budget (``AZ_SAFETY_MAX_DEPTH``, none: 0;
    ``AZ_SAFETY_NODES``, none: 5,000); an explicit value wins; a negative one is rejected."""
    import agents.az as az
    from agents.search.driver import search_api

    getter = {
        "rollout_steps": az.game_rollout_steps,
        "safety_depth": az.game_safety_depth,
        "safety_max_depth": lambda game: az.game_safety_deepening(game)[0],
        "safety_nodes": lambda game: az.game_safety_deepening(game)[1],
    }
    seen: list[object] = []
    real = az.root_visits

    def spy(*args: object, **kw: object) -> np.ndarray:
        seen.append(kw[param])
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(az, "root_visits", spy)
    set_by_game = []
    for game, players in SHIPPED:
        facade = registry.make_batch(game, players)
        own = getattr(search_api(facade), attr, unset)
        assert getter[param](facade) == own
        set_by_game.append(own != unset)
        state = facade.init(2, seed=3)
        seats = facade.current_player(state)
        obs, mask = facade.observe(state, seats), facade.legal_mask(state)
        for value, want in ((az.GAME_DEFAULT, own), *((v, v) for v in explicit)):
            seen.clear()
            AZAgent(4, **{param: value}).act(obs, mask, ActContext(facade, state, seats))
            assert seen == [want]
    # Virus Fight sets it (where vf_sets_it), Proteus never
    assert set_by_game == [vf_sets_it if g == "virus_fight" else False for g, _ in SHIPPED]
    with pytest.raises(ValueError, match=param):
        AZAgent(4, **{param: -5})
