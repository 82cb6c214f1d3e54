"""Games written with the language's newer forms play natively as on the Python engine.

Othello (tests/rulesets/othello.yaml) has `let` in a function, `index_where`,
a comprehension of two `for` clauses and a pass that is a move; Fallbacks
(tests/rulesets/fallbacks.yaml) has `fallback: true` actions in a phase and
in a stage, with parameters and requirements of their own, and a seat passed
over when neither it nor the fallbacks have a move.  The module must list a
fallback exactly when the Python engine does, and refuse one while another
move is legal.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from ruleplay import IllegalMoveError, load_game
from ruleplay.engine.native import NativeState, playout
from ruleplay.engine.native.handle import BAIL_ILLEGAL
from ruleplay.runs.perft import perft_table
from ruleplay.runs.play import agent_seed, play_game

from native_support import lockstep, native_of, outcome

RULESETS = Path(__file__).resolve().parents[3] / "rulesets"
OTHELLO = RULESETS / "othello.yaml"
FALLBACKS = RULESETS / "fallbacks.yaml"
QUOTED = [4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288]  # Othello's perft, as every program quotes it


@pytest.mark.parametrize("depth", [5, pytest.param(7, marks=pytest.mark.slow)])
def test_othello_perft_counts_are_the_python_engines(depth):
    game = load_game(OTHELLO)
    state = game.new_state(0)
    native = perft_table(state, depth, native=native_of(game))
    assert native == perft_table(state, depth)
    assert [r.nodes for r in native] == QUOTED[:depth]


@pytest.mark.slow
def test_othello_perft_natively_to_depth_9():
    game = load_game(OTHELLO)
    assert [r.nodes for r in perft_table(game.new_state(0), 9, native=native_of(game))] == QUOTED


def test_othello_games_with_passes_agree_move_by_move():
    game = load_game(OTHELLO)
    played = Counter(move for seed in range(4) for move in lockstep(game, seed, 200))
    assert played["pass_turn"] > 0, "no game passed: pick seeds that do"


def test_fallbacks_are_listed_natively_exactly_when_the_python_engine_lists_them():
    game = load_game(FALLBACKS)
    played = Counter(move.split("(")[0] for seed in range(30) for move in lockstep(game, seed, 100))
    assert played["throw"] and played["wait"] and played["shrug"] and played["brag"] and played["take"], played


def test_a_fallback_move_is_refused_natively_while_another_move_is_legal():
    game = load_game(FALLBACKS)
    native = NativeState.new(native_of(game), 0)
    assert native.legal_actions() == game.new_state(0).legal_actions()
    err = native.ng.ffi.new("rp_error *")
    assert not native.ng.lib.rp_apply(native._ptr, game.move_to_index("throw(1)"), err)
    assert err.code == BAIL_ILLEGAL  # the module's own refusal, before the Python engine is asked why
    with pytest.raises(IllegalMoveError) as refused:
        native.apply_action(game.move_to_index("throw(1)"))
    assert refused.value.code == "RP603"


# A move's parameters whose values are all ints are C ints in every site of the action (its checks, `where:`,
# `from:` and effects), handed to user functions' versions taking C ints; a parameter with other values too
# keeps its tagged values.
INT_PARAMS = """\
ruleplay: 1
game: int-params
players: 2
boards:
  grid: {width: 4, height: 3}
state:
  board: {init: "repeat(null, 12)"}
  marks: {init: "[]"}
  winner: {init: "null"}
functions:
  landing:
    params: [col]
    value: max([c for c in line_of("grid", cell("grid", col, 0), "S") if board[c] == null])
  pair_at:
    params: [p, c]
    value: any(board[d] == p for d in line_of("grid", c, "E") if d != c)
flow:
  phases:
    - {name: play, order: alternate, actions: [drop, mark]}
actions:
  drop:
    params:
      col: range(4)
      lift: {of: "[0, 1]", where: "lift == 0 or col % 2 == 1"}
    require:
      - check: board[cell("grid", col, 0)] == null
    effects: |
      let spot = landing(col)
      board[spot] = current
      if lift == 1 and spot > 3 { board[spot - 4] = current }
      if pair_at(current, spot) { winner = current }
  mark:
    params:
      what: {of: '[1, "x", 2.5, true]', where: "len(marks) < 2"}
    effects: |
      let kept = what
      append kept to marks
end:
  - when: winner != null
  - when: all(c != null for c in board)
scoring:
  score: "if winner == p then 1 else 0"
"""


def test_int_parameters_are_played_natively_as_the_python_engine_plays_them(tmp_path):
    played = _played_in_lockstep(tmp_path, INT_PARAMS, games=12, steps=40)
    assert played["drop"] and played["mark"], played


def _played_in_lockstep(tmp_path, text: str, games: int, steps: int) -> Counter:
    """How often each action was played in `games` random games of ruleset `text`, each made natively and in
    Python side by side (`lockstep`)."""
    path = tmp_path / "game.yaml"
    path.write_text(text, encoding="utf-8")
    game = load_game(path)
    return Counter(move.split("(")[0] for seed in range(games) for move in lockstep(game, seed, steps))


# reachable_via and distance_via keep the graph of the last edge list they met (rp_builtins.c): `rewire` changes an
# edge of the same list in place and `grow` lengthens it, so a kept graph that is not the list's shows.
EDGES = """\
ruleplay: 1
game: rewired-walks
players: 2
state:
  edges: {init: "[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5]]"}
  at: {init: "0"}
  walked: {init: "0"}
  n: {init: "0"}
flow:
  phases:
    - {name: play, order: alternate, actions: [walk, rewire, grow]}
actions:
  walk:
    params:
      to: {of: "range(9)", where: "to in reachable_via(edges, at, 2)"}
    effects: |
      walked += distance_via(edges, at, to)
      at = to
      n += 1
  rewire:
    params:
      k: {of: "range(5)"}
      z: {of: "range(9)"}
    effects: |
      edges[k] = [edges[k][0], z]
      n += 1
  grow:
    params:
      z: {of: "range(9)", where: "len(edges) < 9"}
    effects: |
      append [at, z] to edges
      n += 1
end:
  - when: n >= 30
scoring:
  score: "walked"
"""


def test_walks_over_edges_changed_in_place_are_played_as_the_python_engine_plays_them(tmp_path):
    played = _played_in_lockstep(tmp_path, EDGES, games=10, steps=30)
    assert played["walk"] and played["rewire"] and played["grow"], played


# `step` of a named board is read from a table of every cell and named direction (lower_tables.py's
# `_board_step`); a direction given as a vector and a step count that is no literal go to the builtin.
STEPS = """\
ruleplay: 1
game: board-steps
players: 2
boards:
  grid: {width: 4, height: 3}
state:
  at: {init: "5"}
  heads: {init: '["N", "E", [1, 1], "SW"]'}
  seen: {init: "[]"}
  n: {init: "0"}
functions:
  moves_from:
    params: [c]
    value: '[t for d, t in [[d, step("grid", c, d)] for d in heads] if t != null]'
flow:
  phases:
    - {name: play, order: alternate, actions: [go, jump, turn]}
actions:
  go:
    params:
      to: {of: "range(12)", where: "to in moves_from(at)"}
    effects: |
      at = to
      n += 1
  jump:
    params:
      k: {of: "range(4)", where: 'step("grid", at, heads[k], 2) != null'}
    effects: |
      at = step("grid", at, heads[k], 2)
      append step("grid", at, heads[k], k) to seen
      n += 1
  turn:
    params:
      d: {of: '["N", "NE", "E", "SE", "S", "SW", "W", "NW", [-1, 0]]'}
      k: {of: "range(4)"}
    effects: |
      heads[k] = d
      n += 1
end:
  - when: n >= 30
scoring:
  score: "len(seen) + at"
"""


def test_steps_on_a_board_are_played_natively_as_the_python_engine_plays_them(tmp_path):
    played = _played_in_lockstep(tmp_path, STEPS, games=12, steps=40)
    assert played["go"] and played["jump"] and played["turn"], played


# A component's property read by `in`, `len` or (if no value of it holds a list) a loop in an expression, and one
# no value of which is a list (`size`) wherever it is read, is read where it lies, charged as its copy
# (lower_expr.py's `_read`); `pairs` holds lists, so a loop over it reads a copy, and a list kept from it is
# changed (`keep`) while the property stays as it was.
PROPERTIES = """\
ruleplay: 1
game: component-reads
players: 2
components:
  tile:
    properties: {marks: list, pairs: list, size: int}
    items:
      - {id: a, marks: [1, 2], pairs: [[1, 2], [3]], size: 1}
      - {id: b, marks: [], pairs: [], size: 2}
      - {id: c, marks: [2, 3, 4], pairs: [[4]], size: 3}
state:
  held: {init: "[]"}
  kept: {init: "[[0]]"}
  n: {init: "0"}
flow:
  phases:
    - {name: play, order: alternate, actions: [take, keep]}
actions:
  take:
    params:
      t: {of: '["a", "b", "c"]', where: "len(t.marks) < 3 or n % 2 == 0"}
      k: {of: "range(5)", where: "k in t.marks or k == 0"}
    effects: |
      append [m * k for m in t.marks if m != k] to held
      append t.size * k to held
      n += 1
  keep:
    params:
      t: {of: '["a", "b", "c"]', where: "len([p for p in t.pairs if len(p) > 0]) > 0"}
    effects: |
      kept = [p for p in t.pairs if len(p) > 0]
      append n to kept[0]
      append len(kept[0]) to held
      n += 1
end:
  - when: n >= 20
scoring:
  score: "len(held)"
"""


def test_component_properties_read_in_place_play_as_the_python_engine_plays_them(tmp_path):
    played = _played_in_lockstep(tmp_path, PROPERTIES, games=12, steps=30)
    assert played["take"] and played["keep"], played


# `for a, b in [[x, f(x)] for x in L]` in a comprehension or a fold binds a and b to each pair's values as they
# are made, with no list made, charged as the list of pairs is (lower_expr.py's `_pairs`); a quantifier's loop,
# which may stop early, makes the list.  `bag` holds lists, so pairs hold lists too.
PAIRS = """\
ruleplay: 1
game: pair-walks
players: 2
boards:
  grid: {width: 3, height: 3}
state:
  at: {init: "4"}
  bag: {init: "[[1], [2, 3], []]"}
  notes: {init: "[]"}
  n: {init: "0"}
functions:
  reach:
    params: [c]
    value: '[t for d, t in [[d, step("grid", c, d)] for d in ["N", "E", "S", "W"]] if t != null and d != "S"]'
  sized:
    params: []
    value: 'len([x for k, x in [[k, bag[k]] for k in range(len(bag)) if k != 1] if len(x) > 0])'
  nested:
    params: []
    value: '[[a, b, m] for a, b in [[x, len(x)] for x in bag] for m in [1, 2] if m > b]'
flow:
  phases:
    - {name: play, order: alternate, actions: [go, grow]}
actions:
  go:
    params:
      to: {of: "range(9)", where: "to in reach(at)"}
    effects: |
      at = to
      append sized() to notes
      n += 1
  grow:
    params:
      k: {of: "range(3)", where: "any(x < 3 for j, x in [[j, len(bag[j])] for j in range(3)] if j == k)"}
    effects: |
      append n to bag[k]
      notes = notes + [len(nested())]
      n += 1
end:
  - when: n >= 25
scoring:
  score: "len(notes)"
"""


def test_pairs_walked_as_they_are_made_play_as_the_python_engine_plays_them(tmp_path):
    played = _played_in_lockstep(tmp_path, PAIRS, games=12, steps=30)
    assert played["go"] and played["grow"], played


# `from:` values found among `of:` values that are all places [x, y] of two ints by a table of their box
# (rp_engine.c `universe_index`): a value in the box, twice, in any order; a place equal to one of them but
# written with a float (the Python engine makes that step); a place in the box that is not among them and one
# outside it (an error of the rules, as the Python engine raises it).
PLACES = """\
ruleplay: 1
game: pair-params
players: 2
state:
  n: {init: "0"}
  placed: {init: "0"}
flow:
  phases:
    - {name: placing, order: alternate, actions: [put]}
actions:
  put:
    params:
      at:
        of: "[[x, y] for x in range(-1, 3) for y in range(2, 5) if x * 2 != y]"
        from: FROM
    effects: |
      placed += at[0] * 10 + at[1]
      n += 1
end:
  - when: n >= 20
scoring:
  score: "placed"
"""
PLACES_FROM = '"if n == 9 then [[2.0, 3], [0, 2]] else [[n % 4 - 1, 3], [2, 3], [-1, 4], [0, 2], [2, 3]]"'


def test_from_values_among_places_are_found_as_the_python_engine_finds_them(tmp_path):
    played = _played_in_lockstep(tmp_path, PLACES.replace("FROM", PLACES_FROM), games=8, steps=25)
    assert played["put"] >= 8 * 20, played


@pytest.mark.parametrize("wrong", ["[1, 2]", "[3, 2]", "[1, 2, 3]", "[1, true]"])
def test_from_values_not_among_places_fail_as_on_the_python_engine(tmp_path, wrong):
    path = tmp_path / "game.yaml"
    path.write_text(PLACES.replace("FROM", f'"if n == 5 then [{wrong}] else [[0, 2]]"'), encoding="utf-8")
    game = load_game(path)
    ng = native_of(game)
    for seed in range(2):
        native = outcome(lambda: playout(ng, [0, 0], [agent_seed(seed, 0), agent_seed(seed, 1)], seed))
        assert native == outcome(lambda: play_game(game, ["random"], seed))
        assert native[0] == "error", native


# A character of an ASCII text is read from the texts' tables (rp_ascii_char); a negative index, a text with a
# character past ASCII, and a character no text has been yet (digits made by str()) take rp_index's long way.
TEXT_CHARS = """\
ruleplay: 1
game: text-characters
players: 2
state:
  t: {init: '"sea-map"'}
  got: {init: "[]"}
  n: {init: "0"}
flow:
  phases:
    - {name: play, order: alternate, actions: [read, grow]}
actions:
  read:
    params:
      k: {of: "range(-40, 40)", where: "k >= -len(t) and k < len(t)"}
    effects: |
      append t[k] to got
      n += 1
  grow:
    params:
      z: {of: "range(3)"}
    effects: |
      t = t + (if z == 0 then "é" else if z == 1 then str(n * 7) else "Q")
      n += 1
end:
  - when: n >= 30
scoring:
  score: "len(got)"
"""


def test_characters_of_texts_are_read_natively_as_the_python_engine_reads_them(tmp_path):
    played = _played_in_lockstep(tmp_path, TEXT_CHARS, games=12, steps=40)
    assert played["read"] and played["grow"], played
