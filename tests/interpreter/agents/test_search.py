"""The search agents' cut-off judgement: by rank without a scale, by tanh(lead / scale) with one."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from ruleplay import load_game
from ruleplay.agents import make_agent
from ruleplay.agents.search import CutOff, SearchSettings, evaluate, rollout, sample_chance
from ruleplay.engine.errors import StepLimitError
from ruleplay.engine.rng import Rng, seed_state

TAKE_RACE = Path(__file__).resolve().parents[2] / "rulesets" / "take-race.yaml"

THREE_SEATS = """
ruleplay: 1
game: three
players: 3
state: {pts: {per_player: true, init: "0"}}
flow: {phases: [{name: play, order: alternate, actions: [take]}]}
actions: {take: {params: {n: "range(0, 4)"}, effects: "pts[current] += n"}}
end: [{when: "pts[0] >= 9"}]
scoring: {score: "pts[p]"}
heuristics: {points: {value: "pts[seat]", scale: 2}}
"""


@pytest.fixture(scope="module")
def race():
    return load_game(TAKE_RACE)


def test_without_a_scale_only_the_order_counts(race):
    state = race.new_state(0).apply("take(3)").apply("take(1)")  # lead: 2 and -2
    assert evaluate(state, CutOff("lead", None)) == [1.0, -1.0]
    level = race.new_state(0).apply("take(2)").apply("take(2)")
    assert evaluate(level, CutOff("lead", None)) == [0.0, 0.0]
    assert evaluate(state, CutOff("lead", 0.0)) == [1.0, -1.0]  # a scale of 0: the limit, the order alone


def test_with_a_scale_a_wider_lead_is_worth_more(race):
    narrow = race.new_state(0).apply("take(2)").apply("take(1)")  # lead 1 - (-1) = 2
    wide = race.new_state(0).apply("take(3)").apply("take(1)")  # lead 2 - (-2) = 4
    assert evaluate(narrow, CutOff("lead", 4.0)) == pytest.approx([math.tanh(0.5), -math.tanh(0.5)])
    assert evaluate(wide, CutOff("lead", 4.0)) == pytest.approx([math.tanh(1.0), -math.tanh(1.0)])


def test_the_end_is_judged_by_the_returns_whatever_the_scale(race):
    state = race.new_state(0)
    for move in ["take(1)", "take(3)"] * 3:
        state = state.apply(move)
    assert state.is_terminal()
    assert evaluate(state, CutOff("lead", 0.5)) == state.returns() == evaluate(state, CutOff("lead", None))


def test_each_seat_is_the_mean_over_the_others(make_game):
    game = make_game(THREE_SEATS)
    state = game.new_state(0).apply("take(3)").apply("take(1)")  # points 3, 1, 0
    values = evaluate(state, CutOff.of(state, SearchSettings()))
    t = math.tanh
    assert values == pytest.approx([(t(1.0) + t(1.5)) / 2, (t(-1.0) + t(0.5)) / 2, (t(-1.5) + t(-0.5)) / 2])


def test_the_scale_comes_from_the_option_else_the_heuristic(make_game, race):
    state = make_game(THREE_SEATS).new_state(0)
    assert CutOff.of(state, SearchSettings()) == CutOff("points", 2.0)
    assert CutOff.of(state, SearchSettings(scale=7.5)) == CutOff("points", 7.5)
    assert CutOff.of(state, SearchSettings(scale=0.0)) == CutOff("points", 0.0)
    assert CutOff.of(race.new_state(0), SearchSettings()) == CutOff("lead", None)
    assert CutOff.of(race.new_state(0), SearchSettings(heuristic="modest", scale=1.0)) == CutOff("modest", 1.0)


@pytest.mark.parametrize("agent", ["mcts", "ismcts"])
def test_a_scaled_cut_off_search_is_reproducible_and_plays_a_legal_move(race, agent):
    state = race.new_state(0)
    spec = f"{agent}:iterations=40:depth=1:scale=2"
    picks = {str(make_agent(spec, 3).choose(state)) for _ in range(3)}
    assert len(picks) == 1 and picks <= {str(m) for m in state.legal_moves()}


def test_a_lead_too_large_for_a_float_counts_as_a_whole_win(make_game):
    big = 2 ** 1023  # the difference, 2 ** 1024, has no float
    game = make_game(THREE_SEATS.replace("players: 3", "players: 2").replace(
        'value: "pts[seat]"', 'value: "if seat == 0 then big else 0 - big"') + f"constants: {{big: {big}}}\n")
    assert evaluate(game.new_state(0), CutOff("points", 2.0)) == [1.0, -1.0]


LOOPING = """
ruleplay: 1
game: looping
players: 2
limits: {max_steps: 7}
state: {pts: {per_player: true, init: "0"}}
flow: {phases: [{name: play, order: alternate, actions: [take]}]}
actions: {take: {params: {n: "range(0, 3)"}, effects: "pts[current] += n"}}
end: [{when: "pts[0] >= 1000"}]
scoring: {score: "pts[p]"}
heuristics: {points: {value: "pts[seat]", scale: 2}}
"""


def _chained_rollout(state, rng, depth, cut):
    """The rollout as a chain of values, as it was before moves were made in place (the oracle); and
    whether the step limit stopped it."""
    steps = 0
    try:
        while not state.is_terminal() and (depth is None or steps < depth):
            if state.is_chance_node():
                state = state.apply(sample_chance(state, rng))
            else:
                moves = state.legal_moves()
                state = state.apply(moves[rng.below(len(moves))])
            steps += 1
    except StepLimitError:
        return evaluate(state, cut), True
    return evaluate(state, cut), False


@pytest.mark.parametrize("name", ["tic-tac-toe", "kuhn-poker", "nautilus-cards", "lovci-pokladu", "looping"])
def test_a_rollout_in_place_plays_and_judges_as_a_chain_of_values(make_game, name):
    game = make_game(LOOPING) if name == "looping" else load_game(name)
    state = game.new_state(4)
    if not state.is_chance_node():
        state = state.apply(state.legal_moves()[-1])
    before = state.dumps()
    cut = CutOff.of(state, SearchSettings())
    for seed, depth in [(0, None), (1, None), (2, 3), (3, 0)]:
        expected, stopped = _chained_rollout(state, Rng(seed_state(seed)), depth, cut)
        assert rollout(state, Rng(seed_state(seed)), depth, cut) == expected
        # the looping game passes its step limit in every full rollout: judged on the state before that move
        assert stopped == (name == "looping" and depth is None)
    assert state.dumps() == before  # the tree's state is left as it was


HUNDREDS = """
ruleplay: 1
game: hundreds
players: 2
boards: {grid: {width: 3, height: 3}}
constants: {lines: [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]]}
state:
  board: {init: "repeat(null, 9)"}
  winner: {init: "null"}
flow: {phases: [{name: play, order: alternate, actions: [place]}]}
actions:
  place:
    params: {cell: 'cells("grid")'}
    require: [{check: "board[cell] == null"}]
    effects: |
      board[cell] = current
      if any(all(board[c] == current for c in line) for line in lines) { winner = current }
end: [{when: "winner != null"}, {when: "all(c != null for c in board)"}]
scoring:
  score: "if winner == p then 1 else 0"
  returns: "if winner == null then 0 else (if winner == p then 100 else -100)"
"""


@pytest.mark.parametrize("agent", ["mcts", "ismcts"])
def test_declared_returns_wider_than_one_still_explore(make_game, agent):
    """Tic-tac-toe paid in hundreds: UCB's exploration is weighed against the widest return seen, so a search
    blocks the loss it would block at returns of one (with the means in hundreds, c = 1.4 weighed nothing
    and 5 of 20 seeds of `mcts` let O win)."""
    game = make_game(HUNDREDS)
    state = game.new_state(0)
    for cell in (0, 3, 8, 4):  # O holds 3 and 4: X must take 5
        state = state.apply(f"place({cell})")
    chosen = [str(make_agent(f"{agent}:iterations=200", seed).choose(state)) for seed in range(12)]
    assert chosen == ["place(5)"] * 12
