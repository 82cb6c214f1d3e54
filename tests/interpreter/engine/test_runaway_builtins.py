"""Whole rulesets whose moves once did work the budget never saw; each now stops quickly or stays small.

The unit cases are in tests/dsl/test_budget.py; these prove the same through
`load_game` and `State.apply`, with the default limits.
"""

from __future__ import annotations

import time
import tracemalloc

import pytest

from ruleplay import load_game
from ruleplay.engine.errors import RuleRuntimeError

pytestmark = pytest.mark.timeout(120)  # should a charge go missing again, fail here rather than hang

RULESET = """\
ruleplay: 1
game: escapes
players: 2
boards:
BOARDS
state:
  x: {init: "[]"}
  n: {init: "0"}
flow:
  phases:
    - {name: play, order: alternate, actions: [go]}
actions:
  go:
    effects: |
      EFFECTS
end:
  - when: "false"
"""


def game(tmp_path, effects: str, boards: int = 1):
    text = RULESET.replace("BOARDS", "\n".join(f"  b{i}: {{width: 256, height: 256}}" for i in range(boards)))
    path = tmp_path / "escapes.yaml"
    path.write_text(text.replace("EFFECTS", effects), encoding="utf-8")
    return load_game(path)


@pytest.mark.parametrize("effects", [
    "x = [] * 1000000000000000000000000000000",
    "repeat 100 { x = x * 1000000000000000000000 }",
])
def test_repeating_an_empty_list_any_number_of_times_is_instant(tmp_path, effects):
    started = time.process_time()
    assert game(tmp_path, effects).new_state(0).apply("go").data["vars"]["x"] == []
    assert time.process_time() - started < 5


@pytest.mark.parametrize("effects, message", [
    ("x = [0] * 1000000000000000000000000000000", "list repetition by 1000000000000000000000000000000 is out of"),
    ("n = len(ranks(range(100000)))", "ranks(): effect iteration limit exceeded"),
    ("for i in range(20) { n = len(ranks(range(20000))) }", "ranks(): effect iteration limit exceeded"),
    ('for i in range(100) { n = len(cells("b0")) }', "cells(): the values built or copied"),
    ('for i in range(100) { n = len(flood("b0", 0, 500, "king", [], [])) }', "flood(): effect iteration limit"),
])
def test_work_that_escaped_the_budget_now_stops_it(tmp_path, effects, message):
    state = game(tmp_path, effects).new_state(0)
    started = time.process_time()
    with pytest.raises(RuleRuntimeError) as err:
        state.apply("go")
    assert time.process_time() - started < 5
    assert message in err.value.message and err.value.pos.line > 0
    assert err.value.code == ("RP500" if "repetition" in message else "RP501")  # a refused count, or a limit


def test_neighbours_on_hundreds_of_boards_take_no_memory(tmp_path):
    """A neighbour table per board and direction set used to be built on first use: gigabytes here."""
    effects = 'for b in B { for d in ["orthogonal", "diagonal", "king", "knight"] { n += len(neighbors(b, 300, d)) } }'
    names = "[" + ", ".join(f'"b{i}"' for i in range(300)) + "]"
    g = game(tmp_path, effects.replace("B", names), boards=300)
    state = g.new_state(0)
    tracemalloc.start()
    try:
        after = state.apply("go")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert after.data["vars"]["n"] == 300 * (4 + 4 + 8 + 6)  # cell 300 is on row 1: two knight jumps leave
    assert peak < 20_000_000
