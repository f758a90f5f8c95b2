"""``python_virus_fight``: OpenSpiel's own checks, the VF-12 chance node, hidden setup
(VF-11) information states, IS-MCTS matches against our agents, and every transition
cross-checked with the plain-Python reference."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.optional import need

pyspiel = need("pyspiel", "openspiel")
need("envs.openspiel", "openspiel")

from envs.openspiel import bots  # noqa: E402
from envs.virus_fight.reference import RefGame  # noqa: E402


def _play(state: Any, *moves: str) -> None:
    for m in moves:
        state.apply_action(state.string_to_action(m))


def test_vf_registered_with_players_parameter() -> None:
    for players, side, actions in ((2, 5, 976), (3, 6, 1801), (4, 7, 3088)):
        game = pyspiel.load_game(f"python_virus_fight(players={players})")
        assert game.num_players() == players
        assert game.get_parameters()["board_size"] == side  # VF-4 default
        assert game.num_distinct_actions() == actions
        assert game.max_chance_outcomes() == players
        gtype = game.get_type()
        assert gtype.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
        assert gtype.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert pyspiel.load_game("python_virus_fight").get_type().utility == (
        pyspiel.GameType.Utility.ZERO_SUM
    )


@pytest.mark.parametrize("params", ["players=5", "board_size=9", "max_rounds=0", "colour=1"])
def test_vf_bad_parameters_are_rejected(params: str) -> None:
    with pytest.raises((ValueError, pyspiel.SpielError)):
        pyspiel.load_game(f"python_virus_fight({params})")


@pytest.mark.parametrize(
    "params,sims", [("players=2", 3), ("players=3,max_rounds=12", 2), ("players=4,max_rounds=6", 1)]
)
def test_vf_openspiel_random_sim_test(params: str, sims: int) -> None:
    game = pyspiel.load_game(f"python_virus_fight({params})")
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)


def test_vf12_tie_becomes_a_chance_node() -> None:
    game = pyspiel.load_game("python_virus_fight")
    state = game.new_initial_state()
    # equal count, pips and marked size: the VF-12 tie goes to chance
    _play(state, "M1@a1", "*a1", "M1@a5", "*a5")
    assert state.is_chance_node()
    assert state.chance_outcomes() == [(0, 0.5), (1, 0.5)]
    for seat in (0, 1):
        child = state.child(seat)
        assert child.current_player() == seat
        assert f"first={seat}" in child.information_state_string(1 - seat)


def test_vf12_no_tie_no_chance_node() -> None:
    game = pyspiel.load_game("python_virus_fight")
    state = game.new_initial_state()
    _play(state, "M1@a1", "*a1", "M1@a5", "W1@b5", "*a5")  # seat 0 has fewer pieces
    assert not state.is_chance_node()
    assert state.current_player() == 0


def test_vf12_partial_tie_of_three_players() -> None:
    game = pyspiel.load_game("python_virus_fight(players=3)")
    state = game.new_initial_state()
    # seat 0 (bottom) and seat 1 (left) one MOVE-1 each; seat 2 (top) two pieces
    _play(state, "M1@b1", "*b1", "M1@a2", "*a2", "M1@b6", "W1@c6", "*b6")
    assert state.chance_outcomes() == [(0, 0.5), (1, 0.5)]


def test_vf11_setup_is_hidden_in_information_states() -> None:
    game = pyspiel.load_game("python_virus_fight")
    a = game.new_initial_state()
    b = game.new_initial_state()
    _play(a, "M1@a1", "*a1")
    _play(b, "E3@c1", "J2@d1", "*d1")
    assert a.information_state_string(1) == b.information_state_string(1)
    assert a.observation_tensor(1) == b.observation_tensor(1)
    assert a.information_state_string(0) != b.information_state_string(0)
    _play(a, "W2@c5", "*c5")
    _play(b, "W2@c5", "*c5")  # the reveal: now seat 1 sees seat 0's program
    assert a.information_state_string(1) != b.information_state_string(1)


def test_vf_resample_keeps_the_information_state() -> None:
    game = pyspiel.load_game("python_virus_fight")
    state = game.new_initial_state()
    _play(state, "M1@a1", "J3@b1", "*b1", "W2@c5")
    key = state.information_state_string(1)
    programs = set()
    for i in range(12):
        world = state.resample_from_infostate(1, lambda i=i: (i + 0.5) / 12)
        assert world.information_state_string(1) == key
        assert world.current_player() == 1
        assert sorted(world.legal_actions()) == sorted(state.legal_actions())
        programs.add(world.information_state_string(0))
    assert len(programs) > 1  # seat 0's hidden program was redrawn


def test_vf_clones_are_independent_of_the_original() -> None:
    """A clone (what OpenSpiel's MCTSBot makes per simulation) shares nothing with its
    original: playing the clone to its end leaves the original's player to act, legal
    actions, information states and string as they were; also for a mid-game state built
    from a facade state (``state_of``), whose public history starts after the reveal."""
    from envs.virus_fight import kernel as K
    from envs.virus_fight.batch import VirusFightBatch
    from envs.virus_fight.openspiel import state_of

    game = pyspiel.load_game("python_virus_fight")
    facade = VirusFightBatch(2)
    one = facade.init(1, 7)
    while int(one.info[0, K.I_PHASE]) == K.PH_SETUP:  # to the reveal (VF-11)
        facade.step(one, facade.random_actions(one))
    starts = [game.new_initial_state(), state_of(game, facade, one)]
    assert starts[1].current_player() == 1  # seed 7: seat 1 opens round 1 (VF-12)
    rng = np.random.default_rng(5)
    for state in starts:
        for _ in range(40):
            before = (
                state.current_player(), state.legal_actions(), str(state),
                [state.information_state_string(p) for p in range(2)],
            )  # fmt: skip
            twin = state.clone()
            while not twin.is_terminal():
                if twin.is_chance_node():
                    twin.apply_action(twin.chance_outcomes()[0][0])
                else:
                    legal = twin.legal_actions()
                    twin.apply_action(legal[rng.integers(len(legal))])
            assert before == (
                state.current_player(), state.legal_actions(), str(state),
                [state.information_state_string(p) for p in range(2)],
            )  # fmt: skip
            if state.is_terminal():
                break
            if state.is_chance_node():
                state.apply_action(state.chance_outcomes()[0][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
    tail = starts[1].information_state_string(0).split(" then:")[1]
    assert tail and not tail.startswith(" ")  # "0:123 1:456 ...", no empty first event


def _reference_run(seed: int, players: int, max_rounds: int) -> int:
    """Random game through OpenSpiel and the reference together; returns moves compared."""
    game = pyspiel.load_game(f"python_virus_fight(players={players},max_rounds={max_rounds})")
    n = game.get_parameters()["board_size"]
    ref = RefGame(n=n, players=players, max_rounds=max_rounds)
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)
    compared = 0
    while not state.is_terminal():
        assert state.current_player() == ref.seat
        legal = state.legal_actions()
        names = sorted(state.action_to_string(a) for a in legal)
        assert names == sorted(set(ref.legal()))
        action = int(legal[rng.integers(len(legal))])
        text = state.action_to_string(action)
        state.apply_action(action)
        asked: list[list[int]] = []
        chosen: list[int] = []
        if state.is_chance_node():
            outcomes = [o for o, _ in state.chance_outcomes()]
            chosen.append(int(rng.choice(outcomes)))
            state.apply_action(chosen[0])

        def tie_break(tied: list[int], asked: list = asked, chosen: list = chosen) -> int:
            asked.append(tied)
            assert chosen, f"reference asked a VF-12 tie-break {tied} without a chance node"
            return int(chosen[0])

        ref.apply(text, tie_break=tie_break)
        if chosen:
            assert asked and sorted(asked[0]) == sorted(outcomes)
        compared += 1
        if ref.phase == "over":
            break
    assert state.is_terminal() and ref.phase == "over"
    assert state.returns() == [float(r) for r in ref.results]
    return compared


@pytest.mark.parametrize("players,max_rounds", [(2, 30), (3, 10), (4, 6)])
def test_vf_transitions_match_the_reference(players: int, max_rounds: int) -> None:
    assert sum(_reference_run(s, players, max_rounds) for s in range(3)) > 30


def test_vf_is_mcts_against_our_random_agent() -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    random_agent = need("agents.random_agent", "openspiel")
    game = pyspiel.load_game("python_virus_fight(max_rounds=12)")
    rs = np.random.RandomState(1)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=8, random_state=rs)
    contenders = [bots.bot_policy(bot), bots.agent_policy(random_agent.RandomAgent(seed=3))]
    results = bots.play_match(game, contenders, games=2, seed=5)
    assert results.shape == (2, 2)
    assert set(np.unique(results)) <= {-1.0, 0.0, 1.0}
    assert np.all(results.sum(axis=1) == 0)  # 2 players: zero-sum
