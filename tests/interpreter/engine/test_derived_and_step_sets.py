"""Derived constants, boards' own step sets, parameter rules and end conditions citing several rules."""

from __future__ import annotations

import pytest

from ruleplay import RulesetError

BASE = """\
ruleplay: 1
game: mini
players: 2
boards:
  h: {width: 3, height: 3, steps: {hex: [N, NE, E, S, SW, W], jumps: [[2, 0], [0, 2]]}}
  sq: {width: 3, height: 3}
constants:
  size: 3
DERIVED
state:
  at: {init: "0"}
flow:
  phases:
    - name: play
      actions: [go]
actions:
  go:
    params:
      to:
        of: cells("h")
        from: FROM
        rule: X-1
    effects: at = to
end:
  - when: at == 8
    rule: END_RULES
"""


def game(make_game, derived: str = "", source: str = 'neighbors("h", at, "hex")', end_rules: str = "X-2",
         **kwargs):
    text = BASE.replace("DERIVED", derived).replace("FROM", source).replace("END_RULES", end_rules)
    return make_game(text, **kwargs)


def errors(make_game, **kwargs) -> list:
    with pytest.raises(RulesetError) as info:
        game(make_game, **kwargs)
    return [d for d in info.value.diagnostics if d.severity == "error"]


# ------------------------------------------------------------ derived constants
def test_derived_constants_are_computed_in_the_order_their_references_ask_for(make_game):
    g = game(make_game, derived="""derived:
  corners: '[c for c in cells("h") if len(neighbors("h", c, "hex")) == corner_degree]'
  corner_degree: min([len(row) for row in table])
  table: '[neighbors("h", c, "hex") for c in cells("h")]'
  seats: range(players)
  twice: size * 2""")
    c = g.model.constants
    assert c["table"][4] == [1, 2, 5, 7, 6, 3]
    assert (c["corner_degree"], c["corners"]) == (2, [0, 8])
    assert c["seats"] == [0, 1] and c["twice"] == 6


def test_functions_and_actions_read_derived_constants(make_game):
    g = game(make_game, derived="""derived:
  table: '[neighbors("h", c, "hex") for c in cells("h")]'""", source="table[at]")
    assert [str(m) for m in g.new_state().legal_moves()] == ["go(1)", "go(3)"]


def test_a_comprehension_variable_named_like_a_derived_constant_is_no_dependency(make_game):
    g = game(make_game, derived="""derived:
  a: '[b for b in range(size)]'
  b: len(a)""")
    assert g.model.constants["b"] == 3


def test_derived_constants_share_the_work_of_one_move(make_game):
    found = errors(make_game, derived="""derived:
  big: '[range(100) for x in range(100)]'
limits:
  copies_per_move: 1000""")
    assert [d.code for d in found] == ["RP226"]
    assert "cannot compute derived constant 'big'" in found[0].message


def test_a_failed_derived_constant_is_reported_once_not_again_where_it_is_read(make_game):
    found = errors(make_game, derived="""derived:
  broken: 1 // 0
  after: broken + 1
  table: '[after, broken]'""", source="'[c for c in cells(\"h\") if c != broken and c != table[0]]'")
    assert [(d.code, d.message) for d in found] == [
        ("RP226", "cannot compute derived constant 'broken': division by zero in `//`")]


def test_a_derived_constant_in_a_cycle_is_not_unknown_where_it_is_read(make_game):
    found = errors(make_game, derived="""derived:
  a: b + 1
  b: a + 1""", source="'[a, b]'")
    assert [d.code for d in found] == ["RP227"]


def test_derived_constants_cannot_call_the_rulesets_functions(make_game):
    found = errors(make_game, derived="""derived:
  x: f(1)
functions:
  f: {params: [n], value: n + 1}""")
    assert [d.code for d in found] == ["RP211"]
    assert "derived constant 'x' calls the ruleset's function `f`, which a derived constant cannot" in found[0].message


def test_a_derived_constant_in_a_longer_cycle_is_reported_once(make_game):
    found = errors(make_game, derived="""derived:
  a: c + 1
  b: a + 1
  c: b + 1
  d: a + 1""")
    assert [d.code for d in found] == ["RP227"]
    assert "a -> c -> b -> a" in found[0].message


# ---------------------------------------------------------------- step sets
def test_a_boards_step_set_serves_neighbors_flood_dirs_and_graphs(make_game):
    g = game(make_game, derived="""derived:
  far: flood("h", 0, 1, "jumps", [], [])
  vectors: dirs("h", "hex")
  named: dirs("king")
graphs:
  six: {board: h, steps: hex}
  listed: {board: sq, steps: [E, [0, 1]]}""")
    c = g.model.constants
    assert c["far"] == [2, 6] and c["vectors"][1] == [1, -1] and len(c["named"]) == 8
    assert g.model.graphs["six"]["adj"][4] == [1, 2, 3, 5, 6, 7]
    assert g.model.graphs["listed"]["adj"][4] == [1, 3, 5, 7]  # undirected: E and S edges, both ways
    assert g.model.boards["sq"].step_set("hex") is None


def test_a_named_set_stays_usable_on_a_board_with_sets_of_its_own(make_game):
    g = game(make_game, source='neighbors("h", at, "orthogonal")')
    assert [str(m) for m in g.new_state().legal_moves()] == ["go(1)", "go(3)"]


def test_the_type_checker_accepts_a_set_of_some_board_when_the_board_is_not_a_literal(make_game):
    g = game(make_game, derived="""derived:
  board_name: '"h"'""", source='neighbors(board_name, at, "hex")')
    assert [str(m) for m in g.new_state().legal_moves()] == ["go(1)", "go(3)"]


def test_dirs_without_a_board_knows_only_the_named_sets(make_game):
    found = errors(make_game, derived="""derived:
  v: dirs("hex")""")
    assert found[0].code in ("RP223", "RP226")
    assert "no direction set 'hex'" in found[0].message


def test_a_step_vector_beyond_any_board_is_refused_by_the_schema(make_game):
    found = errors(make_game, derived="""graphs:
  wide: {board: sq, steps: [[300, 0]]}""")
    assert found[0].code == "RP106"


# --------------------------------------------- parameter rules and end rules
def test_a_parameters_rule_is_recorded_and_cited(make_game):
    g = game(make_game)
    assert g.model.actions["go"].params[0].rule == "X-1"
    assert "X-1" in g.model.cited_rules


def test_switching_off_a_parameters_rule_drops_its_filters(make_game):
    g = game(make_game, disabled_rules=frozenset({"X-1"}))
    assert len(g.new_state().legal_moves()) == 9


def test_an_end_condition_citing_several_rules_records_them_all(make_game):
    g = game(make_game, end_rules="[X-2, X-3]", source="cells(\"h\")")
    state = g.new_state().apply("go(8)")
    assert state.is_terminal() and state.data["flow"]["ended_by"] == "X-2+X-3"
    assert state.data["flow"]["ended_by"].split("+") == g.model.end[0].rules
