"""Small listings unrolled and small listings and end conditions inlined into the step play as the Python engine.

A listing of UNROLLED_MOVES moves or fewer (none from `from:`) has its loops unrolled, nested ones too, and a
listing or end condition of INLINED_LINES lines of C or fewer is compiled into the step that calls it
(module.py).  The ruleset below has one of each on either side of the line: `put` (4 x 4 moves, a `where:` and a
check) unrolled, `push` (17 moves) not; a small end condition inlined, a long one called.  Every move of random
games is compared with the Python engine's (legal moves in order, fired rules, state, end).
"""

from __future__ import annotations

import re

import pytest

from ruleplay import load_game
from ruleplay.engine.native.module import INLINED_LINES, UNROLLED_MOVES, lower_model

from native_support import lockstep

LONG_SUM = " + ".join(f"far[{k}]" for k in range(17))
RULESET = f"""\
ruleplay: 1
game: step-inlining
players: 2
boards:
  grid: {{width: 4, height: 4}}
state:
  board: {{init: "repeat(null, 16)"}}
  far: {{init: "repeat(0, 17)"}}
flow:
  phases:
    - {{name: play, order: alternate, actions: [put, push]}}
actions:
  put:
    params:
      x: range(4)
      y: {{of: "range(4)", where: "x != y or x == 0"}}
    require:
      - check: board[cell("grid", x, y)] == null
    effects: board[cell("grid", x, y)] = current
  push:
    params:
      k: range(17)
    require:
      - check: far[k] < 2 and (k + len(far)) % 3 != 0
    effects: far[k] += 1
end:
  - when: all(c != null for c in board)
  - when: "{LONG_SUM} >= 14"
scoring:
  score: "count(board, p)"
"""


@pytest.fixture
def game(tmp_path):
    (tmp_path / "step-inlining.yaml").write_text(RULESET, encoding="utf-8")
    return load_game(tmp_path / "step-inlining.yaml")


def _functions(source: str) -> dict[str, str]:
    """Each function's text by name."""
    return {m.group(2): m.group(0)
            for m in re.finditer(r"^(static|RP_STEP_INLINE) \w+ (\w+)\([^;\n]*\)\n\{\n.*?\n\}\n", source, re.M | re.S)}


def test_small_listings_are_unrolled_and_inlined_and_small_end_conditions_inlined(game):
    assert game.model.actions["put"].size <= UNROLLED_MOVES < game.model.actions["push"].size
    source = lower_model(game.model).source
    functions = _functions(source)
    listings = [text for name, text in functions.items() if name.startswith("L")]
    assert [text.count("RP_UNROLL") for text in listings] == [2, 0]  # put's two loops; push's one not
    assert all(text.startswith("RP_STEP_INLINE ") for text in listings)
    ends = re.search(r"ENDS\[2\] = \{\{(c\d+),.*?\}, \{(c\d+),", source).groups()
    small, long = (functions[name] for name in ends)
    assert small.startswith("RP_STEP_INLINE ") and small.count("\n") <= INLINED_LINES
    assert long.startswith("static ") and long.count("\n") > INLINED_LINES


def test_unrolled_and_inlined_code_plays_as_the_python_engine(game):
    played = [move.split("(")[0] for seed in range(16) for move in lockstep(game, seed, 60)]
    assert played.count("put") > 50 and played.count("push") > 50, played
