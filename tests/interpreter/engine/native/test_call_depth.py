"""Calls written without counting their depth where the text bounds it (`call_depth`) still stop where Python does.

A chain of user calls (an action calls a procedure, which calls functions)
is `limits.max_depth` deep or one call deeper: within the limit both engines
play the same game with no hand-over; past it the Python engine raises its
depth error at the first move and the native module must fail the same way.
A function that calls itself keeps the count whatever the limit.
"""

from __future__ import annotations

import pytest

from ruleplay import load_game
from ruleplay.dsl.parser import parse_effects, parse_expr
from ruleplay.engine.native import playout
from ruleplay.engine.native.call_depth import deepest_calls
from ruleplay.engine.native.module import lower_model
from ruleplay.runs.play import agent_seed, game_seed, play_game

from native_support import native_of, outcome

CHAIN = """\
ruleplay: 1
game: chain
players: 2
state:
  x: {init: "0"}
  n: {init: "0"}
functions:
  one:
    params: [k]
    value: "k + 1"
  two:
    params: [k]
    value: "one(k) + one(k + 1)"
  three:
    params: [k]
    value: "[two(j) for j in range(k % 3)]"
procedures:
  bump:
    params: [k]
    effects: |
      x = len(three(k)) + x
actions:
  go:
    effects: |
      n += 1
      call bump(n)
flow:
  phases:
    - {name: play, order: alternate, actions: [go]}
end:
  - when: n >= 12
scoring:
  score: "if x > 10 then 1 else 0"
limits: {max_depth: DEPTH}
"""


def test_the_deepest_chain_of_calls_is_read_from_the_text():
    functions = {"one": parse_expr("k + 1"), "two": parse_expr("one(k) + one(k)"), "three": parse_expr("two(k)")}
    assert deepest_calls(functions, {}) == 3
    assert deepest_calls(functions, {"p": parse_effects("x = three(1)\ncall q()"), "q": None}) == 4
    assert deepest_calls({}, {}) == 0
    assert deepest_calls({**functions, "one": parse_expr("three(k)")}, {}) is None  # a cycle through three
    assert deepest_calls({"f": parse_expr("f(k)")}, {}) is None


@pytest.mark.parametrize("depth, counted", [(4, False), (3, True)])
def test_a_chain_of_calls_stops_where_python_stops_it(tmp_path, depth, counted):
    path = tmp_path / "chain.yaml"
    path.write_text(CHAIN.replace("DEPTH", str(depth)), encoding="utf-8")
    game = load_game(path)
    assert ("rp_enter" in lower_model(game.model).source) == counted  # 4 calls deep: counted only past the limit
    ng = native_of(game)
    for index in range(2):
        seed = game_seed(4, index)
        handed = []

        def native_game():
            result = playout(ng, [0, 0], [agent_seed(seed, 0), agent_seed(seed, 1)], seed)
            handed.append(result.handed_over)
            return result

        python = outcome(lambda: play_game(game, ["random"], seed))
        assert outcome(native_game) == python
        assert python[0] == ("error" if counted else "game")
        assert handed == ([] if counted else [False])
