"""The leak checks of observation_checks can fail: each catches its leak in a small game made to leak.

A check that passes on every built-in game proves something only if it
fails where a move, a chance outcome or a past move shows hidden data.
"""

from __future__ import annotations

import pytest
from observation_checks import (TwinCounts, check_chance_outcomes_private, check_history_masked,
                                check_move_shows_only_what_is_seen)

GAME = """\
ruleplay: 1
game: leaky
players: 2
components:
  card: {items: [{id: a}, {id: b}, {id: c}, {id: d}, {id: e}]}
state:
  pile: {init: components("card"), visibility: hidden}
  hand: {per_player: true, init: "[]", visibility: owner}
  kept: {per_player: true, init: "[]", visibility: owner}
  n: {init: "0"}
setup: |
  draw 2 from pile to hand[0]
  draw 2 from pile to hand[1]
flow:
  phases:
    - {name: keep, actions: [keep], end_if: n >= 1}
    - {name: steal, order: chance, actions: [steal]}
    - {name: play, actions: [tick]}
actions:
  keep:
    params: {card: {of: components("card"), from: "hand[current]"SEEN}}
    effects: |
      move card from hand[current] to kept[current]
      n += 1
  steal:
    chance: true
    params: {STEAL}
    effects: |
      move STOLEN from hand[1] to kept[0]
      n += 1
  tick: {effects: n += 1}
end: [{when: n >= 4}]
"""
LEAKY_STEAL = ('card: {of: components("card"), from: "hand[1]"}', "card")
BLIND_STEAL = ('slot: {of: range(5), from: "range(len(hand[1]))"}', "hand[1][slot]")


def _game(make_game, seen: str = "", steal: tuple[str, str] = BLIND_STEAL, name: str = "leaky.yaml"):
    text = GAME.replace("SEEN", seen).replace("STEAL", steal[0]).replace("STOLEN", steal[1])
    return make_game(text, name=name)


def test_a_kept_card_shown_in_the_move_is_caught_and_a_masked_one_is_not(make_game):
    leaky = _game(make_game).new_state(0)
    with pytest.raises(AssertionError, match="which it sees neither before nor after the move"):
        check_move_shows_only_what_is_seen(leaky, leaky.apply(leaky.legal_moves()[0]))
    private = _game(make_game, seen=", seen_by: current", name="private.yaml").new_state(0)
    check_move_shows_only_what_is_seen(private, private.apply(private.legal_moves()[0]))


def test_chance_outcomes_that_name_hidden_cards_are_caught_and_places_are_not(make_game):
    for steal, leaks in ((LEAKY_STEAL, True), (BLIND_STEAL, False)):
        game = _game(make_game, seen=", seen_by: current", steal=steal, name=f"steal-{leaks}.yaml")
        state = game.new_state(3)
        state = state.apply(state.legal_moves()[0])
        assert state.is_chance_node()
        counts = TwinCounts()
        if leaks:
            with pytest.raises(AssertionError, match="chance outcomes seat 0 can list change"):
                check_chance_outcomes_private(state, counts)
        else:
            check_chance_outcomes_private(state, counts)
            assert counts.tested > 0


def test_a_past_move_masked_in_the_history_stays_masked(make_game):
    state = _game(make_game, seen=", seen_by: current").new_state(0)
    kept = state.apply(state.legal_moves()[0])
    check_history_masked(kept)
    assert kept.observe(1)["history"] == ["keep(?)"]
