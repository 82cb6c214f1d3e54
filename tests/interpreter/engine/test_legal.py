"""The shortcuts of `engine.legal` give what the general code gives.

`from_values` takes whole numbers and texts against an `of:` set of them
without a Python step per value; `bind` hands a move's arguments to its
effects as they are when no argument can be a list.  Each is compared with
the general path on random values, errors included.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ruleplay import IllegalMoveError, load_game
from ruleplay.dsl import runtime as R
from ruleplay.engine import legal
from ruleplay.engine.moves import _thaw

SCALARS = """\
ruleplay: 1
game: scalar-params
players: 2
state: {n: {init: "0"}}
flow: {phases: [{name: play, order: alternate, actions: [pick, pair]}]}
actions:
  pick:
    params:
      a: {of: '[0, 1, 2, "x", "y", 5] + range(6, 40)', from: "[5, 0]"}
    effects: n = n + 1
  pair:
    params:
      p: {of: "[[0, 1], [1, 2]]"}
    effects: n = n + 1
end: [{when: "n >= 3"}]
"""

MEMBERS = [0, 1, 2, "x", "y", 5, *range(6, 40)]  # positions past a small set's table: its order is not theirs
VALUE = st.one_of(st.sampled_from(MEMBERS), st.sampled_from([1.0, True, False, 3, "z", -0.0, [1], None]))


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    path = tmp_path_factory.mktemp("legal") / "scalars.yaml"
    path.write_text(SCALARS, encoding="utf-8")
    return load_game(path)


def _general(game, values):
    """`from_values` with its shortcut switched off: the walk over every value."""
    model = game.model
    tables = legal._universe_tables(model)
    key = ("pick", "a")
    index, plain, _ = tables[key]
    tables[key] = (index, plain, False)
    try:
        return _outcome(game, values)
    finally:
        tables[key] = (index, plain, True)


def _outcome(game, values):
    model = game.model
    try:
        return legal.from_values(model, model.actions["pick"], 0, values)
    except R.RuleRuntimeError as err:
        return ("error", str(err))


@settings(max_examples=300, deadline=None)
@given(st.lists(VALUE, max_size=16))
def test_from_values_takes_whole_numbers_and_texts_as_the_walk_does(game, values):
    fast = _outcome(game, values)
    assert fast == _general(game, values)
    if fast and fast[0] != "error" and all(type(v) in (int, str) for v in values):
        assert all(v is MEMBERS[k] for k, v in fast)  # the `of:` values themselves: the moves are the interned ones


def test_the_shortcut_names_the_first_value_not_in_of(game):
    assert _outcome(game, [0, "z", 3]) == ("error", _general(game, [0, "z", 3])[1])
    assert "'z'" in _outcome(game, [0, "z", 3])[1]


def test_bind_hands_plain_arguments_as_they_are_and_lists_as_lists(game):
    pick, pair = game.model.actions["pick"], game.model.actions["pair"]
    assert pick.param_names == ("a",) and pair.param_names is None
    for move in game.new_state(0).legal_moves():
        action = game.model.actions[move.action]
        bound = legal.bind(action, move)
        assert bound == {p.name: _thaw(v) for p, v in zip(action.params, move.args)}
        assert all(type(v) is not tuple for v in bound.values())


ZERO_WEIGHT = """
ruleplay: 1
game: loaded-coin
players: 2
state: {n: {init: "0"}, side: {init: "-1"}}
flow:
  phases:
    - {name: toss, order: chance, actions: [coin]}
    - {name: play, actions: [inc]}
actions:
  coin: {chance: true, params: {s: "[0, 1, 2]"}, weight: "if s == 1 then 0 else s + 1", effects: side = s}
  inc: {effects: n += 1}
end: [{when: n >= 2}]
"""


def test_a_chance_outcome_of_weight_0_cannot_happen(make_game):
    """Not listed, not legal, not drawn, not counted by perft: `coin(1)` here is no outcome at all."""
    from ruleplay.runs.perft import perft

    state = make_game(ZERO_WEIGHT).new_state(0)
    assert [str(m) for m in state.legal_moves()] == ["coin(0)", "coin(2)"]
    assert [(str(m), p) for m, p in state.chance_outcomes()] == [("coin(0)", 0.25), ("coin(2)", 0.75)]
    assert not state.is_legal(state.game.parse_move("coin(1)"))
    with pytest.raises(IllegalMoveError, match="not a legal move now"):
        state.apply("coin(1)")
    assert perft(state, 1).nodes == 2
    assert {state.game.new_state(seed).apply_chance().last_move.args[0] for seed in range(40)} == {0, 2}
