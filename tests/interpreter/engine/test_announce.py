"""`announce TEXT [to SEATS]`: the events a ruleset tells the players, with the rule each comes from."""

from __future__ import annotations

import pytest

from ruleplay.dsl.runtime import RuleRuntimeError

GIFT = """
ruleplay: 1
game: gift
players: 2
state:
  hand: {per_player: true, init: '["a", "b"]', visibility: owner}
flow:
  on_round_end: |
    @G-3 announce "round " + str(round) + " is over"
  phases:
    - name: main
      order: each
      actions: [give, shout]
actions:
  give:
    rule: G-1
    params:
      card: {of: '["a", "b"]', from: "hand[current]"}
    effects: |
      move card from hand[current] to hand[1 - current]
      announce "player " + str(current) + " hands you " + card to 1 - current
  shout:
    effects: |
      @G-2 { append "a" to hand[current] announce "everyone hears player " + str(current) }
      announce "nobody cites a rule here" to []
      announce 12
end:
  - when: round == 2
    at: end_of_round
scoring:
  score: "0"
"""


@pytest.mark.parametrize("compiler", ["closures", "generated"])
def test_announce_records_text_rule_and_seats(make_game, monkeypatch, compiler):
    monkeypatch.setenv("RULEPLAY_COMPILER", compiler)
    state = make_game(GIFT).new_state(0).apply("give(a)")
    assert state.last_events == [{"text": "player 0 hands you a", "rule": "G-1", "to": [1]}]
    state = state.apply("shout")  # the last seat of the round: the round's end hook announces too
    assert state.last_events == [
        {"text": "everyone hears player 1", "rule": "G-2", "to": None},
        {"text": "nobody cites a rule here", "rule": None, "to": []},
        {"text": "12", "rule": None, "to": None},
        {"text": "round 1 is over", "rule": "G-3", "to": None},
    ]
    assert state.apply("shout").last_events[-1]["rule"] is None  # the next move starts a fresh list


@pytest.mark.parametrize("compiler", ["closures", "generated"])
@pytest.mark.parametrize("seats, shown", [("2", "2"), ("[0, -1]", "-1"), ('"x"', "'x'")])
def test_announce_to_something_not_a_seat_is_a_rule_error(make_game, monkeypatch, compiler, seats, shown):
    monkeypatch.setenv("RULEPLAY_COMPILER", compiler)
    game = make_game(GIFT.replace("to 1 - current", f"to {seats}"))
    with pytest.raises(RuleRuntimeError, match=rf"`announce \.\.\. to` names {shown}, which is not a seat \(0\.\.1\)"):
        game.new_state(0).apply("give(a)")


def test_in_place_moves_keep_and_undo_their_events(make_game):
    state = make_game(GIFT).new_state(0)
    state.apply_in_place("give(a)")
    assert [e["text"] for e in state.last_events] == ["player 0 hands you a"]
    state.apply_in_place("shout")
    state.undo()
    assert [e["text"] for e in state.last_events] == ["player 0 hands you a"]
