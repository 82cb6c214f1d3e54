"""The Python API's errors: every error ruleplay raises on purpose is a RuleplayError, and wrong argument
types are named, not met deep inside as a bare TypeError or KeyError."""

from __future__ import annotations

import pytest

import ruleplay
from ruleplay import (DeadlockError, IllegalMoveError, MoveParseError, RuleplayError, RuleRuntimeError, RulesetError,
                      StateFormatError, StepLimitError, load_game, parse_move)


@pytest.mark.parametrize("error", [RulesetError, RuleRuntimeError, StepLimitError, DeadlockError, IllegalMoveError,
                                   MoveParseError, StateFormatError])
def test_every_error_is_a_ruleplay_error(error):
    assert issubclass(error, RuleplayError) and error.__name__ in ruleplay.__all__


def test_one_except_clause_catches_a_ruleset_and_a_rule_fault(make_game):
    with pytest.raises(RuleplayError) as loading:
        load_game("no-such-game")
    assert loading.value.code == "RP009"
    game = make_game("""\
ruleplay: 1
game: fault
players: 2
state:
  x: {init: "0"}
flow:
  phases:
    - {name: play, actions: [go]}
actions:
  go:
    effects: x = 1 // x
end:
  - when: x > 5
""")
    with pytest.raises(RuleplayError) as running:
        game.new_state().apply("go")
    assert isinstance(running.value, RuleRuntimeError) and running.value.code == "RP500"


@pytest.mark.parametrize("kwargs, message", [({"players": "2"}, "players must be an int, not str"),
                                             ({"players": 2.0}, "players must be an int, not float"),
                                             ({"players": True}, "players must be an int, not bool"),
                                             ({"variant": 5}, "variant must be the variant's name as text")])
def test_a_player_count_or_variant_of_the_wrong_type_is_named(kwargs, message):
    with pytest.raises(TypeError, match=message):
        load_game("tic-tac-toe", **kwargs)


@pytest.mark.parametrize("data", [{}, None, [], {"vars": {}, "flow": {}}])
def test_with_data_refuses_what_is_no_states_data(data):
    with pytest.raises(StateFormatError, match="a state's data is a map with flow, rng, vars"):
        load_game("tic-tac-toe").new_state().with_data(data)


def test_a_move_that_is_no_text_is_named():
    with pytest.raises(MoveParseError, match="not a move text: int 5"):
        parse_move(5)


def test_errors_cross_to_another_process_whole():
    import pickle

    game = load_game("tic-tac-toe")
    state = game.new_state().apply("place(4)")
    caught = []
    for action in (lambda: load_game("no-such-game"), lambda: state.apply("place(4)"), lambda: parse_move(5),
                   lambda: state.with_data({})):
        try:
            action()
        except RuleplayError as err:
            caught.append(err)
    for err in caught:
        again = pickle.loads(pickle.dumps(err))
        assert type(again) is type(err) and str(again) == str(err) and vars(again) == vars(err)
