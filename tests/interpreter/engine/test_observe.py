"""What `observe()` masks: `visible_if` on values that are not lists."""

from __future__ import annotations

import pytest

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
