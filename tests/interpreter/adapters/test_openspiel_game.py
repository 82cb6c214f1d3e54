"""Registered rulesets pass OpenSpiel's random simulation test, match its own games, and solve as they should."""

from __future__ import annotations

import pickle
import random

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the OpenSpiel adapter needs the `rl` extra")

import numpy as np
from open_spiel.python.algorithms import (
    cfr,
    expected_game_score,
    exploitability,
    get_all_states,
    mcts,
)
from ruleplay import load_game
from ruleplay.engine.loader import builtin_games
from ruleplay.openspiel import register

KUHN = {"utility": (-2, 2, 0)}  # kuhn-poker declares its returns: net chips


def _load(name, players=None, variant=None, **kwargs):
    return pyspiel.load_game(register(name, players, variant, **kwargs))


def test_random_sim_test(config):
    name, players, variant = config
    game = _load(name, players, variant, **(KUHN if name == "kuhn-poker" else {}))
    pyspiel.random_sim_test(game, num_sims=2 if config[0] in ("tic-tac-toe", "kuhn-poker") else 1,
                            serialize=True, verbose=False)


def _states(game, chance):
    return get_all_states.get_all_states(game, depth_limit=-1, include_terminals=True,
                                         include_chance_states=chance, to_string=str)


@pytest.mark.slow  # about 15 s: every state of both games
def test_tic_tac_toe_has_openspiels_5478_states():
    ours, theirs = _states(_load("tic-tac-toe"), False), _states(pyspiel.load_game("tic_tac_toe"), False)
    assert len(ours) == len(theirs) == 5478
    assert sum(s.is_terminal() for s in ours.values()) == sum(s.is_terminal() for s in theirs.values())


def test_kuhn_poker_has_openspiels_states_and_information_sets():
    ours, theirs = _states(_load("kuhn-poker", **KUHN), False), _states(pyspiel.load_game("kuhn_poker"), False)
    assert len(ours) == len(theirs) == 54
    infosets = [{s.information_state_string() for s in states.values() if not s.is_terminal()}
                for states in (ours, theirs)]
    assert len(infosets[0]) == len(infosets[1]) == 12
    # OpenSpiel deals one card per chance node (1 + 3 chance nodes), the ruleset both at once (KP-A2): 1.
    assert len(_states(_load("kuhn-poker", **KUHN), True)) == 54 + 1


def test_cfr_finds_kuhn_pokers_value_of_minus_one_eighteenth():
    game = _load("kuhn-poker", **KUHN)
    solver = cfr.CFRSolver(game)
    for _ in range(120):
        solver.evaluate_and_update_policy()
    policy = solver.average_policy()
    value = expected_game_score.policy_value(game.new_initial_state(), [policy, policy])
    assert value[0] == pytest.approx(-1 / 18, abs=0.005)
    assert exploitability.exploitability(game, policy) < 0.01


def _legal_by_player(state, players):
    return {p: (state.legal_actions(p), sum(state.legal_actions_mask(p))) for p in (pyspiel.PlayerId.CHANCE, *players)}


def test_a_player_not_to_move_has_no_legal_actions_as_in_native_games():
    games = (_load("kuhn-poker", **KUHN), pyspiel.load_game("kuhn_poker"))
    for state in (game.new_initial_state() for game in games):  # the deal: only chance moves
        legal = _legal_by_player(state, (0, 1))
        assert legal[0] == legal[1] == ([], 0) and legal[pyspiel.PlayerId.CHANCE][0] == state.legal_actions()
        assert len(state.legal_actions_mask(1)) == state.get_game().num_distinct_actions()
        while state.is_chance_node():
            state.apply_action(state.legal_actions()[0])
        legal = _legal_by_player(state, (0, 1))  # player 0 to move
        assert legal[pyspiel.PlayerId.CHANCE] == legal[1] == ([], 0)
        assert legal[0] == (state.legal_actions(), len(state.legal_actions()))
        assert len(state.clone().legal_actions(0)) == 2 and state.clone().legal_actions(1) == []


def test_game_type_follows_the_ruleset():
    ttt, kuhn, cards = _load("tic-tac-toe").get_type(), _load("kuhn-poker", **KUHN).get_type(), \
        _load("nautilus-cards").get_type()
    assert ttt.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert ttt.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert kuhn.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kuhn.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kuhn.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert cards.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION


def test_a_game_that_shuffles_draws_its_seed_at_a_hidden_root():
    game = _load("nautilus-cards", seeds=8)
    root = game.new_initial_state()
    assert root.is_chance_node() and root.chance_outcomes() == [(s, 1 / 8) for s in range(8)]
    a, b = root.child(3), root.child(5)
    assert str(a) != str(b)  # different shuffles
    engine = load_game("nautilus-cards")
    assert str(a) == str(game.new_initial_state().child(3)) and a.engine_state.data == engine.new_state(seed=3).data
    assert "seed" not in a.information_state_string(0)


def test_each_seat_sees_its_own_card_in_the_deal_and_in_its_information_state():
    game = _load("kuhn-poker", **KUHN)
    root = game.new_initial_state()
    deal = next(a for a, _ in root.chance_outcomes() if root.action_to_string(pyspiel.PlayerId.CHANCE, a)
                == "deal(K, J)")
    assert root.action_to_string(0, deal) == "deal(K, ?)"
    assert root.action_to_string(1, deal) == "deal(?, J)"
    kj, kq = _deal(root, "deal(K, J)"), _deal(root, "deal(K, Q)")
    assert kj.information_state_string(0) == kq.information_state_string(0)
    assert kj.information_state_string(1) != kq.information_state_string(1)
    assert list(kj.information_state_tensor(0)) == list(kq.information_state_tensor(0))
    assert list(kj.observation_tensor(1)) != list(kq.observation_tensor(1))


def test_the_information_state_tensor_records_the_moves_as_seen():
    game = _load("kuhn-poker", **KUHN, history=4)
    state = _deal(game.new_initial_state(), "deal(J, Q)")
    state = state.child(state.legal_actions()[1])  # seat 0 bets
    size = len(game.new_initial_state().observation_tensor(0))
    rows = [state.information_state_tensor(1)[size + 8 * r:size + 8 * (r + 1)] for r in range(4)]
    # [present, fully seen, index within the action, one-hot over deal, check, bet, call, fold]
    assert rows[0] == [1, 0, 0, 1, 0, 0, 0, 0]  # the deal, with seat 0's card masked from seat 1
    assert rows[1] == [1, 1, 0, 0, 0, 1, 0, 0]
    assert rows[2] == rows[3] == [0] * 8


def _deal(state, text):
    """The child of a chance node by the outcome's text."""
    return state.child(next(a for a, _ in state.chance_outcomes()
                            if state.action_to_string(pyspiel.PlayerId.CHANCE, a) == text))


def test_declared_returns_take_their_range_from_the_ruleset(tmp_path):
    game = pyspiel.load_game(register("kuhn-poker"))  # scoring.returns_range: {min: -2, max: 2, sum: 0}
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-2.0, 2.0, 0.0)
    assert register("kuhn-poker") == register("kuhn-poker", **KUHN)
    text = builtin_games()["kuhn-poker"].read_text(encoding="utf-8")
    unranged = tmp_path / "kuhn-poker.yaml"
    unranged.write_text("\n".join(line for line in text.splitlines()
                                  if not line.startswith(("spec:", "  returns_range:"))) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"kuhn-poker declares its own returns.*but not their range: add "
                                         r"`returns_range.*utility=\(min, max, sum\)"):
        register(unranged)
    with pytest.raises(ValueError, match="utility must be"):
        register("kuhn-poker", utility=(2, -2, 0))


def test_bad_options_are_refused():
    with pytest.raises(ValueError, match="seeds must be"):
        register("nautilus-cards", seeds=0)
    with pytest.raises(ValueError, match="history must be"):
        register("tic-tac-toe", history=-1)


def test_registering_twice_gives_the_same_game():
    assert register("tic-tac-toe") == register("tic-tac-toe") == "ruleplay_tic_tac_toe_2p"
    assert register("nautilus", players=3, variant="sonar-4-6") == "ruleplay_nautilus_sonar_4_6_3p"
    assert register("nautilus-cards", seeds=8, history=4) == "ruleplay_nautilus_cards_2p_seeds8_history4"
    register("kuhn-poker", **KUHN)
    with pytest.raises(ValueError, match="registered already with utility"):
        register("kuhn-poker", utility=(-3, 3, 0))


def test_an_edited_copy_of_a_registered_game_gets_a_name_of_its_own(tmp_path):
    text = builtin_games()["tic-tac-toe"].read_text(encoding="utf-8")
    edited = tmp_path / "tic-tac-toe.yaml"
    edited.write_text("\n".join(line for line in text.splitlines() if not line.startswith("spec:"))
                      .replace('cell: cells("grid")', "cell: '[4]'") + "\n", encoding="utf-8")  # one cell to play
    base, copy = register("tic-tac-toe"), register(edited)
    assert base == "ruleplay_tic_tac_toe_2p" and copy.startswith("ruleplay_tic_tac_toe_2p_r") and register(edited) == copy
    state = pyspiel.load_game(copy).new_initial_state()
    assert [state.action_to_string(0, a) for a in state.legal_actions()] == ["place(4)"]
    assert len(pyspiel.load_game(base).new_initial_state().legal_actions()) == 9


def test_only_a_seats_own_view_is_observed():
    game = _load("kuhn-poker", **KUHN)
    with pytest.raises(ValueError, match="one seat's own view"):
        game.make_py_observer(pyspiel.IIGObservationType(public_info=True, perfect_recall=False,
                                                         private_info=pyspiel.PrivateInfoType.ALL_PLAYERS))


def _after_refusal(state, action) -> Exception:
    """The error applying `action` raises; the state must be as it was."""
    before = str(state)
    with pytest.raises(ValueError) as err:
        state.apply_action(action)
    assert str(state) == before
    return err.value


def test_an_outcome_the_root_does_not_list_is_refused():
    """apply_action(10**9) at the seed-drawing root started the game from seed 10^9, outside the outcomes
    the node lists; every other chance node refused."""
    from ruleplay import IllegalMoveError

    root = _load("nautilus-cards", seeds=8).new_initial_state()
    assert [a for a, _ in root.chance_outcomes()] == list(range(8))
    for action in (8, 10**9):
        err = _after_refusal(root, action)
        assert isinstance(err, IllegalMoveError) and err.code == "RP604"
        assert str(err) == f"illegal move seed {action}: the root chance node draws the game's seed from 0..7, " \
                           f"one of its 8 outcomes"
        with pytest.raises(IllegalMoveError, match="draws the game's seed from 0..7"):
            root.action_to_string(pyspiel.PlayerId.CHANCE, action)
    root.apply_action(7)
    assert root.engine_state.data == load_game("nautilus-cards").new_state(seed=7).data


def test_every_other_node_refuses_what_it_does_not_list():
    root = _load("kuhn-poker", **KUHN).new_initial_state()
    assert str(_after_refusal(root, 0)) == "illegal move deal(J, J): J is refused by the `where:` of 'b' now [KP-2.2]"
    decision = root.child(1)  # deal(J, Q)
    assert decision.legal_actions() == [9, 10]
    assert str(_after_refusal(decision, 11)) == "illegal move call: there is no bet to call [KP-3.2]"
    for action in (13, 10**9):
        assert str(_after_refusal(decision, action)) == f"illegal move {action}: an action of player 0 is an int 0..12"


def test_an_action_string_for_a_player_who_is_no_seat_is_refused():
    from ruleplay import SeatError

    state = _load("kuhn-poker", **KUHN).new_initial_state()
    with pytest.raises(SeatError, match=r"player 5 is neither a seat of this game \(0\.\.1\) nor chance"):
        state.action_to_string(5, 1)


def test_the_native_and_python_backends_play_alike(config):
    """Along random paths, both backends' states answer alike: actions, strings, tensors and returns."""
    name, players, variant = config
    kwargs = {"seeds": 16} | (KUHN if name == "kuhn-poker" else {})
    native, python = (_load(name, players, variant, backend=b, **kwargs) for b in ("native", "python"))
    assert native.get_type().short_name + "_python" == python.get_type().short_name
    rnd = random.Random(1)
    for _ in range(2):
        ours, theirs = native.new_initial_state(), python.new_initial_state()
        while True:
            assert str(ours) == str(theirs) and ours.returns() == theirs.returns()
            assert ours.current_player() == theirs.current_player() and ours.legal_actions() == theirs.legal_actions()
            if ours.is_terminal():
                break
            if ours.is_chance_node():
                assert ours.chance_outcomes() == theirs.chance_outcomes()
            else:
                seat = ours.current_player()
                assert ours.observation_tensor(seat) == theirs.observation_tensor(seat)
                assert ours.information_state_string(seat) == theirs.information_state_string(seat)
                assert [ours.action_to_string(seat, a) for a in ours.legal_actions()] == \
                    [theirs.action_to_string(seat, a) for a in theirs.legal_actions()]
            action = rnd.choice(ours.legal_actions())
            child = ours.child(action)  # a clone: the parent stays as it was
            assert str(ours) == str(theirs)
            ours, theirs = child, theirs.child(action)


@pytest.mark.parametrize("backend", ["native", "python"])
def test_a_state_serializes_with_its_history_and_who_saw_what(backend):
    game = _load("kuhn-poker", backend=backend)
    state = _deal(game.new_initial_state(), "deal(K, J)")
    state.apply_action(state.legal_actions()[1])  # seat 0 bets
    again = game.deserialize_state(state.serialize())
    assert str(again) == str(state) and again.history() == state.history()
    assert again.information_state_string(1) == state.information_state_string(1)  # the deal seen as deal(?, J)
    assert again.legal_actions() == state.legal_actions()
    copy = pickle.loads(pickle.dumps(state))
    assert str(copy) == str(state) and copy.information_state_tensor(0) == state.information_state_tensor(0)
    again.apply_action(again.legal_actions()[0])
    assert str(again) != str(state)  # the copy plays on by itself


def test_openspiels_python_mcts_and_its_random_bots_drive_a_registered_game():
    """pyspiel.MCTSBot (C++) crashes on Python games (docs/adapters.md): its Python MCTS is what runs."""
    game = _load("tic-tac-toe")
    bot = mcts.MCTSBot(game, 2.0, 30, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
                       random_state=np.random.RandomState(0))
    assert bot.step(game.new_initial_state()) in range(9)
    bots = [pyspiel.make_uniform_random_bot(p, 7) for p in range(2)]
    assert sorted(pyspiel.evaluate_bots(game.new_initial_state(), bots, 7)) in ([-1.0, 1.0], [0.0, 0.0])
