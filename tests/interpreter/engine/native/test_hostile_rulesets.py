"""Hostile names and texts reach the C source only as numbers, and play the same natively.

State variables, functions, procedures, parameters, phases, boards,
component kinds and actions named as C keywords and the generator's own
names (`main`, `int`, `static`, `return`, `A`, `C`, `K`, `t1`), names that
differ only in case, and texts holding quotes, backslashes, `*/`, a NUL,
line breaks and characters beyond U+FFFF, in component ids and properties,
constants and code: the module builds, its source passes the verifier and
holds none of these texts, and the games are the Python engine's.
"""

from __future__ import annotations

import json

import pytest

from ruleplay import load_game
from ruleplay.engine.native.module import lower_model
from ruleplay.engine.native.verify import UnsafeSource, verify
from ruleplay.engine.native import NativeState, playout
from ruleplay.runs.play import agent_seed, game_seed, play_game

from native_support import lockstep, native_of

HOSTILE = r'''
ruleplay: 1
game: hostile
players: 2
boards:
  main: {width: 3, height: 2}
components:
  "int":
    properties: {label: string}
    items:
      - {id: "main", label: "*/ #include <stdio.h> /*"}
      - {id: "a\"b\\c\nd", label: "😀 \u0000 end"}
      - {id: "static", label: "'", copies: 2}
constants:
  texts: ["return 0; }", "\\", "\"", "*/", "😀", "\u0000", "a\nb"]
  A: 3
  K: [1, 2]
state:
  int: {init: "0"}
  Int: {init: "[]"}
  main: {init: '""'}
  C: {init: "0"}
functions:
  static:
    params: [t1, l2]
    value: t1 + l2
  rv_null:
    params: [goto]
    value: goto + "*/"
procedures:
  return:
    params: [switch]
    effects: |
      append switch to Int
      main = rv_null(switch)
flow:
  phases:
    - name: static
      order: alternate
      actions: [do_]
    - name: return
      order: alternate
      actions: [do_]
actions:
  do_:
    params:
      goto:
        of: 'components("int") + texts'
    effects: |
      int = static(int, A)
      C += len(goto)
      call return(goto)
      if goto in components("int") { main = main + goto.label }
      if len(Int) % 3 == 0 { end_phase }
end:
  - when: len(Int) >= 9
scoring:
  score: 'C + int + len(main) + len(cells("main")) + len(phase)'
'''


def _game(tmp_path):
    path = tmp_path / "hostile.yaml"
    path.write_text(HOSTILE, encoding="utf-8")
    return load_game(path)


def test_the_source_holds_none_of_the_texts_and_passes_the_verifier(tmp_path):
    game = _game(tmp_path)
    source = lower_model(game.model).source
    verify(source)
    for text in ("*/", "stdio", "😀", "\x00", "switch", "Int", "label", "hostile", "do_"):
        assert text not in source  # names and texts of the ruleset: none is in the C source
    for bad in ('#include "x.h"\n', 'rp_bail(C, 1, "fail", 0);', "/* a comment */", "system(0);"):
        with pytest.raises(UnsafeSource):
            verify(source + bad)


def test_hostile_games_play_as_the_python_engine_plays_them(tmp_path):
    game = _game(tmp_path)
    ng = native_of(game)
    for index in range(20):
        seed = game_seed(1, index)
        native = playout(ng, [0, 0], [agent_seed(seed, 0), agent_seed(seed, 1)], seed)
        python = play_game(game, ["random"], seed)
        assert (native.moves, native.scores, native.returns, native.ended_by) == (
            python.moves, python.scores, python.returns, python.ended_by)
        assert not native.handed_over
    state = NativeState.new(ng, 4)
    python = game.new_state(4)
    for k in range(5):  # moves that pass every component id and text of the `of:` set around
        legal = python.legal_actions()
        assert state.legal_actions() == legal
        state.apply_action(legal[k * 5 % len(legal)])
        python = python.apply(game.index_to_move(legal[k * 5 % len(legal)]))
    data = state.to_state().data
    assert json.dumps(data, sort_keys=True) == json.dumps(python.data, sort_keys=True)
    assert "\x00" in json.dumps(data) or "\\u0000" in json.dumps(data)  # a NUL came through as itself


INT_PARAMETERS = r'''
ruleplay: 1
game: int-parameters
players: 2
state:
  row: {init: "[0, 1, null, 3]"}
  total: {init: "0"}
  moves: {init: "0"}
flow:
  phases:
    - {name: play, order: alternate, actions: [put]}
actions:
  put:
    params:
      x: "[-4, -1, 0, 2, 3, 9223372036854775807, -9223372036854775807 - 1]"
    require:
      - check: x != true and x != 1.5
        message: never a boolean or a float
      - check: x > 2 or x < -4 or row[x] != 1
        message: one index of the row is spent
    effects: |
      row[x % 4] = x
      total = total + x
      moves += 1
end:
  - when: moves >= 6
scoring:
  score: "if p == 0 then moves else 0"
'''


def test_int_parameters_play_the_python_engines_games(tmp_path):
    """A parameter whose values are all ints is a C int in the listing: negative indexes, the largest and
    smallest ints of 64 bits (whose sums leave the step to the Python engine) list and play as in Python."""
    path = tmp_path / "ints.yaml"
    path.write_text(INT_PARAMETERS, encoding="utf-8")
    game = load_game(path)
    for seed in range(12):
        assert lockstep(game, seed, 10)
