"""Scores, returns and chance weights that are not finite numbers are errors at the expression that gave them."""

from __future__ import annotations

import pytest

from ruleplay.engine.errors import RuleRuntimeError

GAME = """\
ruleplay: 1
game: checked
players: 2
state:
  rolled: {init: "null"}
flow:
  phases:
    - {name: roll, order: chance, actions: [die]}
actions:
  die:
    chance: true
    params: {face: "[1, 2, 3]"}
    weight: 'WEIGHT'
    effects: rolled = face
end:
  - when: rolled != null
scoring:
  score: 'SCORE'
"""


def game(make_game, weight: str = "1", score: str = "rolled"):
    return make_game(GAME.replace("WEIGHT", weight).replace("SCORE", score))


@pytest.mark.parametrize("weight, shown", [
    ("if face == 1 then 0.0 / 0.0 else 1", "division by zero"),
    ("if face == 1 then -1 else 1", "is -1, not a finite number >= 0"),
    ("if face == 1 then \"heavy\" else 1", "is string, not a finite number >= 0"),
    ("if face == 1 then true else 1", "is bool, not a finite number >= 0"),
])
def test_a_bad_weight_is_located(make_game, weight, shown):
    """Weights are read as the chance node's outcomes are listed (weight 0 is no outcome): at the node itself."""
    with pytest.raises(RuleRuntimeError) as err:
        game(make_game, weight=weight).new_state(0)
    assert shown in err.value.message
    assert err.value.pos.line == 13  # in the weight expression


def test_weights_that_sum_to_zero_are_located(make_game):
    with pytest.raises(RuleRuntimeError, match="weights sum to 0.0") as err:
        game(make_game, weight="0").new_state(0)
    assert err.value.pos.line == 13


@pytest.mark.parametrize("score, shown", [("[rolled]", "list"), ('"high"', "string"), ("rolled > 1", "bool")])
def test_a_score_that_is_not_a_number_is_located(make_game, score, shown):
    final = game(make_game, score=score).new_state(0).apply_chance()
    with pytest.raises(RuleRuntimeError) as err:
        final.scores()
    assert f"`scoring.score` gave {shown} for player 0, not a finite number" in err.value.message
    assert (err.value.pos.line, err.value.pos.col) == (18, 11)  # the score expression


def test_weights_whose_sum_no_float_holds_are_located(make_game):
    big = "1" + "0" * 298 + ".0 * 10000000000"  # 1e308 each: three of them sum past the largest float
    state = game(make_game, weight=big).new_state(0)
    with pytest.raises(RuleRuntimeError, match="weights sum to more than a float holds") as err:
        state.apply_chance()
    assert err.value.pos.line == 13
