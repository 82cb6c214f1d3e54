"""One user-visible step has one work bound, and everything the rules compute runs inside it.

A step that repeats work — the flow passing seat after seat that cannot
move, a picture of a large board, an agent trying every legal move — is
charged to one budget, not to a fresh one per repetition; scores, returns,
chance weights, invariants and observations use the ruleset's own limits
and the recursion guard; numbers too large for a float are rule errors.
"""

from __future__ import annotations

import pytest

from ruleplay import StateFormatError
from ruleplay.agents import make_agent
from ruleplay.engine.errors import LimitError, RuleRuntimeError
from ruleplay.runs.perft import perft

pytestmark = pytest.mark.timeout(120)  # the cases this file guards against would run for hours

# Each listing of `tick`'s moves costs about 150000 of the 200000 iterations a step may use.
EXPENSIVE_LISTING = """\
ruleplay: 1
game: stuck
players: 4
state: {n: {init: "0"}}
flow:
  phases:
    - name: play
      when_stuck: pass
      actions: [tick]
actions:
  tick:
    params:
      v: {of: "range(1500)", where: "len([k for k in range(100) if k < 0]) > 0"}
    effects: n += 1
end:
  - when: n > 5
"""


def test_passing_seats_share_one_listing_budget(make_game):
    # Before: each of up to 1000 passes listed the moves with a fresh budget (150 million iterations).
    with pytest.raises(LimitError, match="iteration limit"):
        make_game(EXPENSIVE_LISTING).new_state(0)


RENDER = """\
ruleplay: 1
game: picture
players: 2
boards: {b: {width: 20, height: 20}}
state: {cells: {init: "[0 for c in cells(\\"b\\")]"}, n: {init: "0"}}
flow: {phases: [{name: play, actions: [tick]}]}
actions: {tick: {effects: n += 1}}
end: [{when: n > 3}]
render:
  - {show: cells, board: b, cell: "str(len([k for k in range(CELL) if k >= 0]))"}
"""


def test_a_picture_has_one_budget_not_one_per_cell(make_game):
    cheap = make_game(RENDER.replace("CELL", "10"))
    assert "10" in cheap.new_state(0).render()
    # 400 cells of 1000 iterations each: within a budget per cell, over one budget for the picture.
    with pytest.raises(LimitError, match="iteration limit"):
        make_game(RENDER.replace("CELL", "1000"), name="big.yaml").new_state(0).render()


LOOKAHEAD = """\
ruleplay: 1
game: lookahead
players: 2
limits: {iterations_per_decision: DECISION}
state: {n: {init: "0"}}
flow: {phases: [{name: play, actions: [work]}]}
actions:
  work:
    params: {k: {of: "range(20)"}}
    effects: "n += len([i for i in range(100000) if i < 0]) + 1"
end: [{when: n > 3}]
"""


def test_the_greedy_agent_has_one_budget_for_a_whole_decision(make_game):
    # Each try costs about 100000 iterations, half a move's budget; trying 20 moves costs 2 million.
    tight = make_game(LOOKAHEAD.replace("DECISION", "1000000"))
    state = tight.new_state(0)
    assert make_agent("random", 1).choose(state) in state.legal_moves()
    with pytest.raises(LimitError, match="greedy agent's look-ahead over 20 moves"):
        make_agent("greedy", 1).choose(state)
    roomy = make_game(LOOKAHEAD.replace("DECISION", "5000000"), name="roomy.yaml")
    state = roomy.new_state(0)
    assert make_agent("greedy", 1).choose(state) in state.legal_moves()


BIG = str(2 ** 1023)  # `half - 1 + half` is 2**1024 - 1: within the language's 1024 bits, past the largest float

SCORING = """\
ruleplay: 1
game: scoring
players: 2
limits: {max_depth: 10}
constants: {half: BIG}
functions:
  deep: {params: [k], value: "if k == 0 then 0 else deep(k - 1)"}
state: {n: {init: "0"}}
flow: {phases: [{name: play, actions: [tick]}]}
actions: {tick: {effects: n += 1}}
end: [{when: n > 0}]
scoring:
  score: SCORE
""".replace("BIG", BIG)


def test_scoring_keeps_the_rulesets_limits(make_game):
    assert make_game(SCORING.replace("SCORE", "deep(5)")).new_state(0).scores() == [0, 0]
    state = make_game(SCORING.replace("SCORE", "deep(30)"), name="deep.yaml").new_state(0)
    with pytest.raises(LimitError, match="call depth over 10"):
        state.scores()


@pytest.mark.parametrize("section,expression,message", [
    ("returns", "half - 1 + half", "too large for a utility"),
    ("score", "'many'", "not a finite number"),
])
def test_numbers_too_large_for_a_float_are_rule_errors(make_game, section, expression, message):
    text = SCORING.replace("SCORE", f'"{expression}"') if section == "score" else \
        SCORING.replace("  score: SCORE", f"  score: \"0\"\n  {section}: \"{expression}\"")
    state = make_game(text).new_state(0).apply("tick")
    assert state.is_terminal()
    with pytest.raises(RuleRuntimeError, match=message):
        state.returns()


def test_a_huge_integer_score_ranks_without_overflow(make_game):
    text = SCORING.replace("SCORE", '"if p == 0 then half - 1 + half else 1"')
    state = make_game(text).new_state(0).apply("tick")
    assert state.returns() == [1.0, -1.0]


WEIGHTS = """\
ruleplay: 1
game: weights
players: 2
constants: {half: BIG}
state: {n: {init: "0"}}
flow: {phases: [{name: draw, order: chance, actions: [roll]}, {name: play, actions: [tick]}]}
actions:
  roll: {chance: true, params: {k: "[1, 2]"}, weight: WEIGHT, effects: n += k}
  tick: {effects: n += 1}
end: [{when: n > 4}]
""".replace("BIG", BIG)


@pytest.mark.parametrize("weight", ['"half - 1 + half"', '"if k == 1 then -1 else 1"'])
def test_a_chance_weight_out_of_range_is_a_rule_error(make_game, weight):
    """Weights are read as the outcomes are listed (an outcome of weight 0 is no outcome): at the chance node."""
    game = make_game(WEIGHTS.replace("WEIGHT", weight))
    with pytest.raises(RuleRuntimeError, match="not a finite number >= 0"):
        game.new_state(0)


CHANCE_CHAIN = """\
ruleplay: 1
game: chain
players: 2
state: {n: {init: "0"}, rolls: {init: "0"}}
flow:
  phases:
    - {name: roll, order: chance, actions: [flip], end_if: "rolls >= 3000"}
    - {name: play, actions: [tick]}
actions:
  flip: {chance: true, params: {k: "[0]"}, effects: rolls += 1}
  tick: {effects: n += 1}
end: [{when: n > 2}]
limits: {max_steps: 100000}
"""


def test_perft_walks_a_long_run_of_chance_moves_without_recursion(make_game):
    # 3000 chance moves before the first decision: one Python frame per move used to blame the rules.
    result = perft(make_game(CHANCE_CHAIN).new_state(0), 1)
    assert (result.nodes, result.terminals) == (1, 0)


def test_history_and_last_move_agree_over_a_long_game(make_game):
    state = make_game(CHANCE_CHAIN).new_state(0)
    assert state.history == () and state.last_move is None
    while state.is_chance_node():
        state = state.apply_chance()
    assert len(state.history) == 3000 and state.last_move == state.history[-1]
    after = state.apply("tick")
    assert after.history == state.history + (after.last_move,) and str(after.last_move) == "tick"
    assert after.game.state_from_json(after.to_json()).history == after.history


def _tampered(game, **flow):
    data = game.new_state(0).to_json()
    data["data"]["flow"].update(flow)
    return data


@pytest.mark.parametrize("flow,message", [
    ({"start": 5}, "flow.start 5 is not a seat"),
    ({"player": 1}, "player 1 is to move, but the flow's current seat is 0"),
])
def test_a_tampered_flow_is_refused(make_game, flow, message):
    game = make_game(WEIGHTS.replace(', weight: WEIGHT', "").replace("order: chance, ", "").replace(
        "roll: {chance: true, ", "roll: {"))
    with pytest.raises(StateFormatError, match=message):
        game.state_from_json(_tampered(game, **flow))


def test_a_tampered_queue_of_an_each_phase_is_refused(make_game):
    game = make_game(EXPENSIVE_LISTING.replace("when_stuck: pass", "order: each").replace(
        ', where: "len([k for k in range(100) if k < 0]) > 0"', ""))
    assert game.new_state(0).data["flow"]["queue"] == [0, 1, 2, 3]
    with pytest.raises(StateFormatError, match="does not start with the current seat"):
        game.state_from_json(_tampered(game, queue=[2, 3]))
