"""`heuristics:`: built in order, checked like any expression, numbers at run time, read by greedy."""

from __future__ import annotations

from pathlib import Path

import pytest

from ruleplay import RulesetError, load_game
from ruleplay.agents import make_agent
from ruleplay.dsl import runtime as R
from ruleplay.engine.scoring import heuristic_values

TAKE_RACE = Path(__file__).resolve().parents[2] / "rulesets" / "take-race.yaml"

GAME = """
ruleplay: 1
game: h
players: 2
state:
  pts: {per_player: true, init: "0"}
flow:
  phases:
    - name: play
      order: alternate
      actions: [go]
actions:
  go:
    effects: pts[current] += 1
end:
  - when: pts[1] == 2
scoring:
  score: pts[p]
"""


def test_heuristics_are_built_in_the_order_written():
    race = load_game(TAKE_RACE)
    assert list(race.model.heuristics) == ["lead", "modest"]
    state = race.new_state(0).apply("take(3)")
    assert heuristic_values(race.model, state.data, "lead") == [3, -3]
    assert heuristic_values(race.model, state.data, "modest") == [-3, 0]


@pytest.mark.parametrize("section, message", [
    ("heuristics:\n  lead: {rule: X-1}\n", "game.yaml:20:9: error RP102: 'value' is required here"),
    ("heuristics:\n  lead: {value: 'pts[seat] +'}\n", "game.yaml:20:"),
    ("heuristics:\n  lead: {value: 'pts[p]'}\n", "game.yaml:20:22: error RP210: unknown name `p`"),
    ("heuristics:\n  lead: {value: 'pts[seat]', weight: 2}\n", "error RP103: unknown key 'weight'"),
    ("heuristics:\n  lead: {value: 'pts[seat]', scale: 0}\n", "game.yaml:20:37: error RP100: 0 is less than or equal to the minimum of 0"),
    ("heuristics:\n  lead: {value: 'pts[seat]', scale: -3}\n", "game.yaml:20:37: error RP100: -3 is less than"),
    ("heuristics:\n  lead: {value: 'pts[seat]', scale: .inf}\n", "game.yaml:20:37: error RP004: `.inf` is not a finite number"),
    ("heuristics:\n  lead: {value: 'pts[seat]', scale: ten}\n", "game.yaml:20:37: error RP101: expected number, got text: \"ten\""),
    ("heuristics:\n  lead: {value: 'pts[seat]', scale: true}\n", "game.yaml:20:37: error RP101: expected number, got boolean: true"),
    (f"heuristics:\n  lead: {{value: 'pts[seat]', scale: {2 ** 1024 - 1}}}\n",  # no float holds it
     "game.yaml:20:37: error RP106: "),
])
def test_a_bad_heuristic_is_a_located_diagnostic(make_game, section, message):
    with pytest.raises(RulesetError) as info:
        make_game(GAME + section)
    assert message in str(info.value)


def test_a_heuristic_that_is_not_a_number_is_a_rule_error(make_game):
    game = make_game(GAME + "heuristics:\n  odd:\n    value: '\"high\"'\n")
    with pytest.raises(R.RuleRuntimeError, match=r"`heuristics.odd.value` gave string for player 0, not a finite number"):
        heuristic_values(game.model, game.new_state(0).data, "odd")


def test_greedy_follows_the_heuristic_among_moves_that_neither_win_nor_lose():
    state = load_game(TAKE_RACE).new_state(0)
    assert {str(make_agent("greedy", k).choose(state)) for k in range(5)} == {"take(3)"}
    assert {str(make_agent("greedy:heuristic=modest", k).choose(state)) for k in range(5)} == {"take(1)"}
    with pytest.raises(ValueError, match="take-race has no heuristic 'nope'"):
        make_agent("greedy:heuristic=nope").choose(state)


@pytest.mark.parametrize("name", ["nautilus", "nautilus-cards", "lovci-pokladu"])
def test_every_seed_game_ships_a_heuristic_that_gives_numbers(name):
    game = load_game(name, players=2)
    assert game.model.heuristics, f"{name} has no heuristics"
    state, agent = game.new_state(4), make_agent("random", 4)
    for _ in range(60):
        if state.is_terminal():
            break
        state = state.apply_chance() if state.is_chance_node() else state.apply(agent.choose(state))
        for heuristic in game.model.heuristics:
            assert all(isinstance(v, (int, float)) for v in heuristic_values(game.model, state.data, heuristic))
