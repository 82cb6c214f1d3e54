"""The proof of which state variables the native state may keep unboxed (engine/native/typed_state.py)."""

from __future__ import annotations

import pytest

from ruleplay import load_game
from ruleplay.engine.native.typed_state import IntCells, int_cells

TEMPLATE = """\
ruleplay: 1
game: typed
players: 3
constants:
  size: 4
  far: 300
  word: "x"
state:
  cells: {{init: "{init}"}}
  other: {{init: "0"}}
procedures:
  mark:
    params: [at]
    effects: |
      {procedure}
flow:
  phases:
    - name: play
      order: alternate
      actions: [put]
actions:
  put:
    params:
      at: range(4)
    effects: |
      {effects}
end:
  - when: other > 3
"""


def _proof(tmp_path, init="repeat(null, size)", effects="cells[at] = current", procedure="other += 1"):
    path = tmp_path / "typed.yaml"
    path.write_text(TEMPLATE.format(init=init, effects=effects, procedure=procedure), encoding="utf-8")
    return int_cells(load_game(path).model)


@pytest.mark.parametrize("rulesets, proven", [
    ("connect-four", {"board": IntCells("board", 42, 0, 1)}),
    ("tic-tac-toe", {"board": IntCells("board", 9, 0, 1)}),
])
def test_built_in_boards_are_proven(rulesets, proven):
    found, refused = int_cells(load_game(rulesets).model)
    assert found == proven
    assert "board" not in refused


@pytest.mark.parametrize("init, effects, procedure, proven", [
    ("repeat(null, size)", "cells[at] = current", "other += 1", IntCells("cells", 4, 0, 2)),
    ("[null, 1, -3, null]", "cells[at] = null", "cells[at] = 5", IntCells("cells", 4, -3, 5)),
    ("repeat(0, 2 * size - 4)", "cells[at] = if at > 1 then far else -far", "other += 1",
     IntCells("cells", 4, -300, 300)),
    ("null", "if other == 0 { cells = repeat(null, 4) }\n      cells[at] = 1", "other += 1",
     IntCells("cells", 4, 0, 1)),
    ("repeat(null, 4)", "for x in range(3) { cells[x] = 2 }", "other += 1", IntCells("cells", 4, 0, 2)),
])
def test_covered_writes_are_proven(tmp_path, init, effects, procedure, proven):
    found, refused = _proof(tmp_path, init, effects, procedure)
    assert found == {"cells": proven}
    assert set(refused) == {"other"}


@pytest.mark.parametrize("init, effects, procedure, reason", [
    ("repeat(null, 4)", 'cells[at] = "x"', "other += 1", "a value that may not be null or a small int"),
    ("repeat(null, 4)", "cells[at] = 1.5", "other += 1", "a value that may not be null or a small int"),
    ("repeat(null, 4)", "cells[at] = [1]", "other += 1", "a value that may not be null or a small int"),
    ("repeat(null, 4)", "cells[at] = word", "other += 1", "a value that may not be null or a small int"),
    ("repeat(null, 4)", "cells[at] = other", "other += 1", "a value that may not be null or a small int"),
    ("repeat(0, 4)", "cells[at] += 1", "other += 1", "`+=` writes it"),
    ("repeat(null, 4)", "cells[at] = 1", "cells = repeat(null, 5)", "different lengths (4, 5)"),
    ("repeat(null, 4)", "cells[at] = 1", "cells = repeat(null, at)", "length that is not a constant"),
    ("repeat(null, 4)", "append 1 to cells", "other += 1", "a list statement (append) changes it"),
    ("repeat(null, 4)", "cells[at] = 1", "remove 1 from cells", "a list statement (remove) changes it"),
    ("[null, 1, 2, 3]", "cells[at][0] = 1", "other += 1", "a nested index or a field"),
    ("repeat(null, 4)", "cells = [1, 2, 3, 4] + []", "other += 1", "something other than repeat()"),
    ("repeat(null, 4)", "cells[at] = 32767", "other += 1", "need more than 16 bits"),
    ("null", "other += 1", "other += 1", "nothing makes it a list"),
    # a local hides `current` and the constant: either may then hold anything
    ("repeat(null, 4)", 'let current = "x"\n      cells[at] = current', "other += 1",
     "a value that may not be null or a small int"),
    ("repeat(null, 4)", "cells[at] = 1", "let size = word\n      cells[0] = size",
     "a value that may not be null or a small int"),
])
def test_uncovered_writes_keep_the_variable_boxed(tmp_path, init, effects, procedure, reason):
    found, refused = _proof(tmp_path, init, effects, procedure)
    assert "cells" not in found
    assert reason in refused["cells"].reason


def test_widths_and_null_codes():
    assert (IntCells("b", 9, 0, 1).bits, IntCells("b", 9, 0, 1).null_code) == (8, -128)
    assert (IntCells("b", 9, -127, 127).bits, IntCells("b", 9, -127, 127).null_code) == (8, -128)
    assert (IntCells("b", 9, -128, 0).bits, IntCells("b", 9, 0, 128).bits) == (16, 16)
    assert IntCells("b", 9, -300, 300).null_code == -32768
