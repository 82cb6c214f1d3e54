"""`fallback: true`: an action listed exactly when the other actions on offer list no move."""

from __future__ import annotations

import pytest

from ruleplay import IllegalMoveError, RuleplayError
from ruleplay.engine import legal

GAME = """\
ruleplay: 1
game: fallbacks
players: 2
state:
  left: {init: "2"}
  passes: {init: "0"}
  cards: {init: "CARDS"}
flow:
  phases:
    - name: play
      actions: [take, give_up, discard]
      stages:
        after: {actions: [keep, shrug]}
      when_stuck: WHEN
actions:
  take:
    params: {n: "[1, 2]"}
    require: ["current == 0 and n <= left"]
    effects: |
      left -= n
      passes = 0
      stage after
  give_up:
    fallback: true
    params: {k: "[0, 1]"}
    require: ["k <= cards[current]"]
    effects: passes += 1
  discard:
    fallback: true
    require: ["cards[current] > 0"]
    effects: cards[current] -= 1
  keep:
    require: ["left > 0"]
    effects: pass
  shrug:
    fallback: true
    effects: pass
end:
  - when: passes >= 3
"""


@pytest.fixture
def game(make_game):
    return lambda when_stuck="error", cards="[0, 0]": make_game(GAME.replace("WHEN", when_stuck)
                                                             .replace("CARDS", cards))


def moves(state) -> list[str]:
    return [str(m) for m in state.legal_moves()]


def test_listed_only_when_no_other_action_has_a_move(game):
    state = game().new_state()
    assert moves(state) == ["take(1)", "take(2)"]  # seat 0 can take: no fallback on offer
    state = state.apply("take(1)")
    assert moves(state) == ["keep"]  # in the stage: keep is legal, so shrug is not
    state = state.apply("keep")
    assert moves(state) == ["give_up(0)"]  # seat 1 cannot take: both fallbacks, each with its own checks
    state = state.apply("give_up(0)").apply("take(1)")
    assert moves(state) == ["shrug"]  # nothing left to keep


def test_every_fallback_is_listed_with_its_own_parameters_and_requirements(game):
    state = game(cards="[0, 1]").new_state().apply("take(1)").apply("keep")
    assert moves(state) == ["give_up(0)", "give_up(1)", "discard"]


def test_a_fallback_is_refused_while_another_move_is_legal(game):
    state = game().new_state()
    with pytest.raises(IllegalMoveError) as err:
        state.apply("give_up(0)")
    assert err.value.code == "RP603"
    assert "offered only when no other action has a legal move, and 2 move(s) are legal now, such as take(1)" \
        in err.value.reason
    assert state.explain("give_up(0)") == str(err.value)
    assert state.apply("take(1)").apply("keep").explain("give_up(0)") is None


def test_when_stuck_applies_only_when_the_fallbacks_list_nothing_too(game):
    state = game("error", cards="[-1, -1]").new_state().apply("take(1)")
    with pytest.raises(RuleplayError) as err:
        state.apply("keep")  # seat 1 can take nothing, and neither fallback's requirement holds
    assert err.value.code == "RP505"
    passed = game("pass", cards="[-1, -1]").new_state().apply("take(1)").apply("keep")
    assert passed.current_player == 0 and moves(passed) == ["take(1)"]
    assert moves(game("pass").new_state().apply("take(1)").apply("keep")) == ["give_up(0)"]


def test_the_generated_listing_and_the_reference_agree(game):
    g = game()
    state = g.new_state()
    for move in ["take(1)", "keep", "give_up(0)", "take(1)", "shrug"]:
        data = state.data
        assert legal.generate(g.model, data["vars"], data["flow"]) == \
            legal.generate(g.model, data["vars"], data["flow"], reference=True)
        state = state.apply(move)
