"""Registered rulesets pass OpenSpiel's random simulation test, match its own games, and solve as they should.

Each test runs on both kinds of registered game (`kind`): the C++ game on
the native module ("cxx", `adapters.openspiel_native`) and the pyspiel game
written in Python ("pygame"); they must answer alike.
"""

from __future__ import annotations

import os
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
from open_spiel.python.observation import make_observation
from ruleplay.adapters.openspiel_native import shim
from ruleplay.engine.errors import RuleplayError
from ruleplay.engine.native.build import BuildError
from ruleplay.openspiel import engine_state, register

from test_hand_over import CASES as HAND_OVER_CASES, HANDED_OVER, _game as hand_over_game  # engine/native's

KUHN = {"utility": (-2, 2, 0)}  # kuhn-poker declares its returns: net chips
KINDS = ("cxx", "pygame")


def _cxx_buildable() -> str | None:
    try:
        shim()
    except BuildError as err:
        return str(err)
    return None


@pytest.fixture(params=KINDS)
def kind(request):
    """The kind of game registered: the C++ one (skipped where it cannot be built, failed under CI) or Python's."""
    if request.param == "cxx":
        why = _cxx_buildable()
        if why is not None:
            if os.environ.get("CI"):
                pytest.fail(f"the C++ OpenSpiel game cannot be built under CI: {why}")
            pytest.skip(why)
    return request.param


def _load(kind, name, players=None, variant=None, **kwargs):
    return pyspiel.load_game(register(name, players, variant, cxx=kind == "cxx", **kwargs))


def _refused(kind):
    """What a refused move or a bad argument raises: the engine's error in the Python game, pyspiel.SpielError
    with the same message in the C++ one (as OpenSpiel's own C++ games raise theirs)."""
    return pyspiel.SpielError if kind == "cxx" else ValueError


def test_random_sim_test(config, kind):
    name, players, variant = config
    game = _load(kind, name, players, variant, **(KUHN if name == "kuhn-poker" else {}))
    pyspiel.random_sim_test(game, num_sims=2 if config[0] in ("tic-tac-toe", "kuhn-poker") else 1,
                            serialize=True, verbose=False)


def _states(game, chance):
    return get_all_states.get_all_states(game, depth_limit=-1, include_terminals=True,
                                         include_chance_states=chance, to_string=str)


@pytest.mark.slow  # about 15 s: every state of both games
def test_tic_tac_toe_has_openspiels_5478_states(kind):
    ours, theirs = _states(_load(kind, "tic-tac-toe"), False), _states(pyspiel.load_game("tic_tac_toe"), False)
    assert len(ours) == len(theirs) == 5478
    assert sum(s.is_terminal() for s in ours.values()) == sum(s.is_terminal() for s in theirs.values())


def test_kuhn_poker_has_openspiels_states_and_information_sets(kind):
    ours, theirs = _states(_load(kind, "kuhn-poker", **KUHN), False), _states(pyspiel.load_game("kuhn_poker"), False)
    assert len(ours) == len(theirs) == 54
    infosets = [{s.information_state_string() for s in states.values() if not s.is_terminal()}
                for states in (ours, theirs)]
    assert len(infosets[0]) == len(infosets[1]) == 12
    # OpenSpiel deals one card per chance node (1 + 3 chance nodes), the ruleset both at once (KP-A2): 1.
    assert len(_states(_load(kind, "kuhn-poker", **KUHN), True)) == 54 + 1


def test_cfr_finds_kuhn_pokers_value_of_minus_one_eighteenth(kind):
    game = _load(kind, "kuhn-poker", **KUHN)
    solver = cfr.CFRSolver(game)
    for _ in range(120):
        solver.evaluate_and_update_policy()
    policy = solver.average_policy()
    value = expected_game_score.policy_value(game.new_initial_state(), [policy, policy])
    assert value[0] == pytest.approx(-1 / 18, abs=0.005)
    assert exploitability.exploitability(game, policy) < 0.01


def _legal_by_player(state, players):
    return {p: (state.legal_actions(p), sum(state.legal_actions_mask(p))) for p in (pyspiel.PlayerId.CHANCE, *players)}


def test_a_player_not_to_move_has_no_legal_actions_as_in_native_games(kind):
    games = (_load(kind, "kuhn-poker", **KUHN), pyspiel.load_game("kuhn_poker"))
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


def test_game_type_follows_the_ruleset(kind):
    ttt, kuhn, cards = _load(kind, "tic-tac-toe").get_type(), _load(kind, "kuhn-poker", **KUHN).get_type(), \
        _load(kind, "nautilus-cards").get_type()
    assert ttt.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert ttt.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert kuhn.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kuhn.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kuhn.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert cards.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION


def test_a_game_that_shuffles_draws_its_seed_at_a_hidden_root(kind):
    game = _load(kind, "nautilus-cards", seeds=8)
    root = game.new_initial_state()
    assert root.is_chance_node() and root.chance_outcomes() == [(s, 1 / 8) for s in range(8)]
    a, b = root.child(3), root.child(5)
    assert str(a) != str(b)  # different shuffles
    engine = load_game("nautilus-cards")
    assert str(a) == str(game.new_initial_state().child(3)) and engine_state(a).data == engine.new_state(seed=3).data
    assert "seed" not in a.information_state_string(0)


def test_each_seat_sees_its_own_card_in_the_deal_and_in_its_information_state(kind):
    game = _load(kind, "kuhn-poker", **KUHN)
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


def test_the_information_state_tensor_records_the_moves_as_seen(kind):
    game = _load(kind, "kuhn-poker", **KUHN, history=4)
    state = _deal(game.new_initial_state(), "deal(J, Q)")
    state = state.child(state.legal_actions()[1])  # seat 0 bets
    size = len(game.new_initial_state().observation_tensor(0))
    rows = [state.information_state_tensor(1)[size + 8 * r:size + 8 * (r + 1)] for r in range(4)]
    # [present, fully seen, index within the action, one-hot over deal, check, bet, call, fold]
    assert rows[0] == [1, 0, 0, 1, 0, 0, 0, 0]  # the deal, with seat 0's card masked from seat 1
    assert rows[1] == [1, 1, 0, 0, 0, 1, 0, 0]
    assert rows[2] == rows[3] == [0] * 8
    observer = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    observer.set_from(state, 1)  # the same numbers in two pieces, as the Python game's observer names them
    assert list(observer.dict) == ["observation", "history"] and observer.dict["history"].shape == (4, 8)
    assert list(observer.tensor) == state.information_state_tensor(1)
    assert observer.string_from(state, 1) == state.information_state_string(1)


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
    with pytest.raises(ValueError, match="cxx=True needs backend"):
        register("tic-tac-toe", backend="python", cxx=True)
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
    state = pyspiel.load_game(copy).new_initial_state()  # a C++ game where it builds
    assert [state.action_to_string(0, a) for a in state.legal_actions()] == ["place(4)"]
    assert len(pyspiel.load_game(base).new_initial_state().legal_actions()) == 9


def test_only_a_seats_own_view_is_observed(kind):
    game = _load(kind, "kuhn-poker", **KUHN)
    with pytest.raises(_refused(kind), match="one seat's own view"):
        make_observation(game, pyspiel.IIGObservationType(public_info=True, perfect_recall=False,
                                                          private_info=pyspiel.PrivateInfoType.ALL_PLAYERS))


def _after_refusal(kind, state, action) -> Exception:
    """The error applying `action` raises; the state must be as it was."""
    before = str(state)
    with pytest.raises(_refused(kind)) as err:
        state.apply_action(action)
    assert str(state) == before
    return err.value


def test_an_outcome_the_root_does_not_list_is_refused(kind):
    """apply_action(10**9) at the seed-drawing root started the game from seed 10^9, outside the outcomes
    the node lists; every other chance node refused."""
    from ruleplay import IllegalMoveError

    root = _load(kind, "nautilus-cards", seeds=8).new_initial_state()
    assert [a for a, _ in root.chance_outcomes()] == list(range(8))
    refused = IllegalMoveError if kind == "pygame" else pyspiel.SpielError
    for action in (8, 10**9):
        err = _after_refusal(kind, root, action)
        assert isinstance(err, refused) and (kind == "cxx" or err.code == "RP604")
        assert str(err) == f"illegal move seed {action}: the root chance node draws the game's seed from 0..7, " \
                           f"one of its 8 outcomes"
        with pytest.raises(refused, match="draws the game's seed from 0..7"):
            root.action_to_string(pyspiel.PlayerId.CHANCE, action)
    root.apply_action(7)
    assert engine_state(root).data == load_game("nautilus-cards").new_state(seed=7).data


def test_every_other_node_refuses_what_it_does_not_list(kind):
    root = _load(kind, "kuhn-poker", **KUHN).new_initial_state()
    assert str(_after_refusal(kind, root, 0)) == \
        "illegal move deal(J, J): J is refused by the `where:` of 'b' now [KP-2.2]"
    decision = root.child(1)  # deal(J, Q)
    assert decision.legal_actions() == [9, 10]
    assert str(_after_refusal(kind, decision, 11)) == "illegal move call: there is no bet to call [KP-3.2]"
    for action in (13, 10**9):
        assert str(_after_refusal(kind, decision, action)) == \
            f"illegal move {action}: an action of player 0 is an int 0..12"


def test_an_action_string_for_a_player_who_is_no_seat_is_refused(kind):
    from ruleplay import SeatError

    state = _load(kind, "kuhn-poker", **KUHN).new_initial_state()
    with pytest.raises(SeatError if kind == "pygame" else pyspiel.SpielError,
                       match=r"player 5 is neither a seat of this game \(0\.\.1\) nor chance"):
        state.action_to_string(5, 1)


def _answers(state, seats):
    """Everything a state answers, for each of `seats`: who moves, actions, outcomes, strings, tensors and
    returns."""
    out = {"str": str(state), "returns": state.returns(), "player": state.current_player(),
           "terminal": state.is_terminal(), "legal": state.legal_actions(), "history": state.history()}
    if state.is_chance_node():
        out["outcomes"] = state.chance_outcomes()
        out["chance strings"] = [state.action_to_string(pyspiel.PlayerId.CHANCE, a) for a, _ in out["outcomes"]]
    for seat in seats:
        out[seat] = (state.observation_string(seat), state.observation_tensor(seat),
                     state.information_state_string(seat), state.information_state_tensor(seat),
                     [state.action_to_string(seat, a) for a in out["legal"]], state.legal_actions(seat))
    return out


TYPE_FIELDS = ("long_name", "dynamics", "chance_mode", "information", "utility", "reward_model", "max_num_players",
               "min_num_players", "provides_information_state_string", "provides_information_state_tensor",
               "provides_observation_string", "provides_observation_tensor", "parameter_specification",
               "default_loadable", "provides_factored_observation_string", "is_concrete")


def _game_answers(game):
    """What a game says of itself: its type (but its name), sizes, utilities, length and tensor shapes."""
    kind = game.get_type()
    return ([getattr(kind, f) for f in TYPE_FIELDS], game.num_distinct_actions(), game.max_chance_outcomes(),
            game.num_players(), game.min_utility(), game.max_utility(), game.utility_sum(), game.max_game_length(),
            game.observation_tensor_shape(), game.information_state_tensor_shape())


def test_the_cxx_game_and_the_python_games_play_alike(config):
    """Along random paths, the C++ game, the Python game on the native handle and the Python game on the Python
    engine answer alike: actions, chance outcomes, strings, tensors and returns, for every seat."""
    if _cxx_buildable() is not None:
        pytest.skip(_cxx_buildable())
    name, players, variant = config
    kwargs = {"seeds": 16} | (KUHN if name == "kuhn-poker" else {})
    games = [pyspiel.load_game(register(name, players, variant, backend=backend, cxx=cxx, **kwargs))
             for backend, cxx in (("native", True), ("native", False), ("python", None))]
    names = [g.get_type().short_name for g in games]
    assert names[0] + "_pygame" == names[1] and names[0] + "_python" == names[2]
    assert _game_answers(games[0]) == _game_answers(games[1]) == _game_answers(games[2])
    seats = range(games[0].num_players())
    rnd = random.Random(1)
    for _ in range(2):
        states = [g.new_initial_state() for g in games]
        while True:
            first, second = _answers(states[0], seats), _answers(states[1], seats)
            assert first == second
            # the Python engine (slow in the long games): the seat to move's views
            mover = [p for p in [states[2].current_player()] if p >= 0]
            assert _answers(states[2], mover) == {k: v for k, v in first.items() if k not in seats or k in mover}
            if states[0].is_terminal():
                break
            action = rnd.choice(first["legal"])
            children = [s.child(action) for s in states]  # clones: the parents stay as they were
            assert [str(s) for s in states] == [first["str"]] * 3
            states = children


@pytest.mark.parametrize("backend, cxx", [("native", True), ("native", False), ("python", None)])
def test_a_state_serializes_with_its_history_and_who_saw_what(backend, cxx):
    if cxx and _cxx_buildable() is not None:
        pytest.skip(_cxx_buildable())
    game = pyspiel.load_game(register("kuhn-poker", backend=backend, cxx=cxx))
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


def test_openspiels_python_mcts_and_its_random_bots_drive_a_registered_game(kind):
    game = _load(kind, "tic-tac-toe")
    bot = mcts.MCTSBot(game, 2.0, 30, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
                       random_state=np.random.RandomState(0))
    assert bot.step(game.new_initial_state()) in range(9)
    bots = [pyspiel.make_uniform_random_bot(p, 7) for p in range(2)]
    assert sorted(pyspiel.evaluate_bots(game.new_initial_state(), bots, 7)) in ([-1.0, 1.0], [0.0, 0.0])


def test_openspiels_cxx_mcts_drives_the_cxx_game():
    """pyspiel.MCTSBot (C++) crashes on Python games (docs/adapters.md); on the C++ game it plays, and finds
    the win in one move."""
    if _cxx_buildable() is not None:
        pytest.skip(_cxx_buildable())
    game = _load("cxx", "tic-tac-toe")
    state = game.new_initial_state()
    for action in (0, 3, 1, 4):  # X on 0 and 1, O on 3 and 4: X wins on 2
        state.apply_action(action)
    bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(5, 1), 2.0, 1000, 10, False, 1, False)
    assert bot.step(state) == 2
    bots = [pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(2, 3), 2.0, 50, 10, False, seat, False)
            for seat in range(2)]
    assert sorted(pyspiel.evaluate_bots(game.new_initial_state(), bots, 7)) in ([-1.0, 1.0], [0.0, 0.0])


def _step(state, action):
    try:
        state.apply_action(action)
    except (RuleplayError, pyspiel.SpielError) as err:
        return str(err)
    return None


@pytest.mark.parametrize("case", sorted(HAND_OVER_CASES))
def test_a_step_the_module_gives_up_on_is_made_by_the_python_engine_in_the_cxx_game(tmp_path, case):
    """A rule error, a budget, an int past 64 bits...: the C++ game hands the step to the Python engine and
    answers as the Python game does from then on, or raises its error (as SpielError) and stays as it was."""
    if _cxx_buildable() is not None:
        pytest.skip(_cxx_buildable())
    game = hand_over_game(tmp_path, case)
    ours, theirs = (pyspiel.load_game(register(game, cxx=cxx)).new_initial_state() for cxx in (True, False))
    for step in range(40):
        assert _answers(ours, (0, 1)) == _answers(theirs, (0, 1))
        if theirs.is_terminal():
            break
        action = theirs.legal_actions()[step % len(theirs.legal_actions())]
        try:
            theirs.apply_action(action)
        except RuleplayError as err:
            with pytest.raises(pyspiel.SpielError) as raised:
                ours.apply_action(action)
            assert str(raised.value) == str(err)
            assert _answers(ours, (0, 1)) == _answers(theirs, (0, 1))  # both as they were
            other = theirs.legal_actions()[0]  # another move: both make it, or both refuse it alike
            assert _step(ours, other) == _step(theirs, other)
            assert _answers(ours, (0, 1)) == _answers(theirs, (0, 1))
            return
        ours.apply_action(action)
    assert case in HANDED_OVER
