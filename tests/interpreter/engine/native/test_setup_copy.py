"""A new game's set-up copied over the last game's state in a batch of whole playouts plays as the Python engine.

A set-up that draws no random number is kept and copied into each new game (rp_engine.c); a kept list variable
found holding no list or map when it was kept is written over the last game's list item by item.  Here the kept
`rows` holds lists, and the last game leaves only numbers in its `rows`: the new game must get lists of its own
(a flat copy would share the kept inner lists, which the game then changes, so the next game starts elsewhere).
"""

from __future__ import annotations

from ruleplay import load_game
from ruleplay.engine.native.playout import batch
from ruleplay.runs.play import game_seed, play_game

from native_support import native_of

RULESET = """\
ruleplay: 1
game: setup-copy
players: 2
state:
  rows: {init: "[[0], [0], [0]]"}
flow:
  phases:
    - {name: play, order: alternate, actions: [grow]}
actions:
  grow:
    params:
      i: range(3)
    require:
      - check: rows[i] != 9
    effects: |
      if rows[i] == [0] { rows[i][0] = 1 } else { rows[i] = 9 }
end:
  - when: all(r == 9 for r in rows)
"""


def test_a_kept_set_up_holding_lists_is_copied_afresh_into_each_game_of_a_batch(tmp_path):
    (tmp_path / "setup-copy.yaml").write_text(RULESET, encoding="utf-8")
    game = load_game(tmp_path / "setup-copy.yaml")
    ng = native_of(game)
    assert len(play_game(game, ["random"], game_seed(5, 0)).moves) == 6  # each row: [0] to [1], then 9
    assert batch(ng, 5, 0, 8, [0, 0]) == (8, 48)
