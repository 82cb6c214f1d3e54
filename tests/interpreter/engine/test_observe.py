"""What `observe()` masks: `visible_if` on values that are not lists."""

from __future__ import annotations

import pickle

import pytest

from ruleplay import RuleRuntimeError

SECRET = """\
ruleplay: 1
game: secret
players: 2
state:
  plan:
    init: 'INIT'
    per_player: PER_PLAYER
    visible_if: viewer == owner or viewer == 0 and owner == null
    back: '"sealed"'
flow:
  phases:
    - {name: play, order: alternate, actions: [pass]}
actions:
  pass: {effects: pass}
end:
  - when: "true"
"""


@pytest.mark.parametrize("init, value", [("42", 42), ('"attack at dawn"', "attack at dawn")])
def test_a_value_that_is_not_a_list_is_one_item(make_game, init, value):
    game = make_game(SECRET.replace("INIT", init).replace("PER_PLAYER", "false"))
    state = game.new_state(0)
    assert state.observe(0)["state"]["plan"] == value
    assert state.observe(1)["state"]["plan"] == "sealed"
    assert game.info.hidden_information


def test_each_seat_entry_that_is_not_a_list_is_one_item(make_game):
    state = make_game(SECRET.replace("INIT", "p + 100").replace("PER_PLAYER", "true")).new_state(0)
    assert state.observe(0)["state"]["plan"] == [100, "sealed"]
    assert state.observe(1)["state"]["plan"] == ["sealed", 101]


PEEK = """\
ruleplay: 1
game: peek
players: 2
constants:
  seat_of: {jack: 0, king: 1}
components:
  card: {items: [{id: jack}, {id: queen}, {id: king}]}
state:
  hand: {per_player: true, init: '[["jack"], ["queen"]][p]', visibility: owner}
  table: {init: "[1]", visible_if: "viewer == seat_of[hand[1][0]]"}
  n: {init: "0"}
flow:
  phases:
    - {name: play, actions: [tick]}
actions:
  tick:
    params: {who: {of: "[0, 1]", seen_by: "seat_of[hand[1][0]]"}}
    effects: n += 1
end:
  - when: n >= 2
"""


def test_a_seats_view_fails_without_quoting_what_the_seat_cannot_see(make_game):
    """`visible_if` and `seen_by` fail on seat 1's queen: seat 0 learns where, never which card."""
    state = make_game(PEEK).new_state(0)
    for view in (lambda **kw: state.observe(0, **kw), lambda **kw: state.move_view("tick(0)", 0, **kw)):
        with pytest.raises(RuleRuntimeError) as seen:
            view()
        err = seen.value
        assert err.code == "RP500" and err.pos.line in (10, 17) and "withheld from player 0" in str(err)
        assert "queen" not in str(err) and err.__context__ is None and err.__cause__ is None
        assert "queen" not in repr(pickle.loads(pickle.dumps(err)).__dict__)
        with pytest.raises(RuleRuntimeError, match="no key 'queen' in map"):  # the operator asks for the text
            view(full_errors=True)

