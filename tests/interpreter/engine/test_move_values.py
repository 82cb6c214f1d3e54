"""Moves compare as the rules' `==` does, and every legal move's text parses back to it."""

from __future__ import annotations

import pytest

from ruleplay import IllegalMoveError
from ruleplay.engine.moves import Move, parse_move

PICK = """\
ruleplay: 1
game: pick
players: 1
constants:
  values: [0, 1, 2, 0.0000001, 1.0e+300, -2.5]
state:
  log: {init: "[]"}
flow:
  phases:
    - {name: play, order: alternate, actions: [pick]}
actions:
  pick:
    params: {v: values}
    effects: append v to log
end:
  - when: len(log) == 3
"""


def test_true_is_never_one():
    assert Move("pick", (True,)) != Move("pick", (1,))
    assert Move("pick", ((False, 0),)) != Move("pick", ((0, 0),))
    assert len({Move("pick", (True,)), Move("pick", (1,))}) == 2
    assert Move("pick", (1.0,)) == Move("pick", (1,))  # as in the rules: 1.0 == 1


def test_a_boolean_argument_is_refused_where_a_number_is_legal(make_game):
    state = make_game(PICK).new_state(0)
    with pytest.raises(IllegalMoveError) as err:
        state.apply("pick(true)")
    assert err.value.code == "RP604"
    assert state.explain("pick(true)") is not None


def test_an_equal_number_is_played_as_the_rules_own_value(make_game):
    state = make_game(PICK).new_state(0)
    after = state.apply("pick(1.0)")
    assert after.data["vars"]["log"] == [1] and type(after.data["vars"]["log"][0]) is int
    assert [str(m) for m in after.history] == ["pick(1)"]


def test_every_legal_move_text_parses_back(make_game):
    state = make_game(PICK).new_state(0)
    texts = [str(m) for m in state.legal_moves()]
    assert "pick(0.0000001)" in texts and "pick(-2.5)" in texts
    for move in state.legal_moves():
        assert parse_move(str(move)) == move
        assert state.apply(str(move)).data["vars"]["log"] == [move.args[0]]


def test_explain_checks_the_rules_own_value_and_names_it_in_move_text():
    from ruleplay import load_game

    state = load_game("tic-tac-toe").new_state(0).apply("place(4)")
    assert state.explain("place(4.0)") == "illegal move place(4.0): that cell is already marked [TT-2.2]"
    assert state.explain("place(true)") == "illegal move place(true): true is not a possible value of 'cell'"


def test_a_text_beyond_u_ffff_is_a_value_a_move_carries(make_game):
    """JSON writes 😀 as a pair of surrogate escapes, which the move reader refuses: a ruleset offering it
    as a parameter value was refused (RP221), quoting the escapes and not the character it was given."""
    game = make_game(PICK.replace("[0, 1, 2, 0.0000001, 1.0e+300, -2.5]", '["😀", "a😀\\\\\\"b", "\\u00e9"]'))
    state = game.new_state(0)
    texts = [str(m) for m in state.legal_moves()]
    assert texts[0] == 'pick("😀")' and texts[2] == 'pick("\\u00e9")'
    for move in state.legal_moves():
        assert parse_move(str(move)) == move
        assert state.apply(str(move)).data["vars"]["log"] == [move.args[0]]
