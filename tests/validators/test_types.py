"""The static type checker: each code on a small ruleset, silence where it cannot be sure."""

from __future__ import annotations

import textwrap
from pathlib import Path

import loaded
import pytest

from ruleplay import RulesetError
from ruleplay.dsl.builtins import BUILTINS
from ruleplay.engine.loader import builtin_games, load_model
from ruleplay.validators.signatures import accepts
from ruleplay.validators.type_passes import check_types

TYPE_CODES = {"RP222", "RP223", "RP224", "RP225"}

# EFFECTS, REQUIRE and END are replaced by each test; the rest is a small, valid game.
TEMPLATE = """\
ruleplay: 1
game: typed
players: 2
boards:
  grid: {width: 3, height: 3}
graphs:
  ring: {edges: [[a, b], [b, c], [c, a]]}
components:
  card:
    properties: {rank: int, suit: string}
    items:
      - {id: c1, rank: 1, suit: red}
      - {id: c2, rank: 2, suit: blue}
  token:
    items:
      - {id: t1, weight: 3}
constants:
  names: ["a", "b"]
  table: {high: 3}
  BOARD: grid
state:
  board: {init: "repeat(null, 9)"}
  score: {init: "0", per_player: true}
  hand: {init: "[]", per_player: true}
  count: {init: "0"}
  label: {init: '"none"'}
  winner: {init: "null"}
  loose: {init: "0"}
  declared: {init: "0", type: string}
functions:
  ranked:
    params: [c]
    value: c.rank
procedures:
  tidy:
    params: [x]
    effects: |
      loose = x
flow:
  phases:
    - name: play
      actions: [place]
actions:
  place:
    params:
      cell: cells("grid")
      card: {of: 'components("card")', where: REQUIRE}
    require:
      - board[cell] == null
      - REQUIRE
    effects: |
      board[cell] = current
      score[current] += 1
      count += 1
      winner = current
      label = "placed"
      EFFECTS
end:
  - when: END
scoring:
  score: score[p]
"""


def ruleset(tmp_path: Path, effects: str = "pass", require: str = "'true'", end: str = "'winner != null'",
            **replace: str) -> Path:
    text = TEMPLATE
    for old, new in replace.items():
        assert old in text, old
        text = text.replace(old, new)
    text = text.replace("EFFECTS", textwrap.indent(textwrap.dedent(effects).strip(), " " * 6).lstrip())
    text = text.replace("REQUIRE", require).replace("END", end)
    path = tmp_path / "typed.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def type_diagnostics(path: Path) -> list:
    try:
        model = load_model(path)
    except RulesetError as err:
        other = [d for d in err.diagnostics if d.code not in TYPE_CODES and d.severity == "error"]
        assert other == [], "\n".join(d.format() for d in other)
        return [d for d in err.diagnostics if d.code in TYPE_CODES]
    return [d for d in model.diagnostics if d.code in TYPE_CODES]


def only(path: Path):
    found = type_diagnostics(path)
    assert len(found) == 1, "\n".join(d.format() for d in found) or "no type diagnostic"
    return found[0]


def test_the_template_is_clean(tmp_path):
    assert type_diagnostics(ruleset(tmp_path)) == []


# ------------------------------------------------------------------ RP222
@pytest.mark.parametrize("effects, message", [
    ('log "a" + 1', "cannot apply `+` to string and int"),
    ("log [1] - 2", "cannot apply `-` to list of int and int"),
    ("log 2 * [1]", "cannot apply `*` to int and list of int"),
    ("log true + 1", "cannot apply `+` to bool and int"),
    ("log count + label", "cannot apply `+` to int and string"),
    ("log null + 1", "cannot apply `+` to null and int"),
    ('log "a" < 1', "cannot compare string with int using `<`"),
    ("log names >= 1", "cannot compare list of string with int using `>=`"),
    ("log count[0]", "cannot index int"),
    ("log names[true]", "a list index must be an int, not bool"),
    ('log table[0]', "a map key must be a string, not int"),
    ('log label["x"]', "a string index must be an int, not string"),
    ("log count[0:1]", "cannot slice int"),
    ('log names[0:"a"]', "slice bounds must be ints, not string"),
    ('log -label', "cannot negate string"),
    ("log 1 in count", "`in` needs a list, map or string on the right, not int"),
    ("log 1 in label", "`in` a string needs a string on the left, not int"),
    ("log names.first", "list of string has no fields, so `.first` fails"),
    ("log [x for x in count]", "cannot iterate over int"),
    ("for x in 5 { pass }", "cannot iterate over int"),
    ("repeat label { pass }", "`repeat` needs an int count, not string"),
    ("append 1 to count", "`append` needs a list, but `count` here is int"),
    ("draw label from hand[0] to hand[1]", "`draw` needs an int count, not string"),
    ("count += \"x\"", "cannot apply `+` to int and string"),
    ("label[0] = 1", "cannot assign into string at int"),
    ("log score[0] + names", "cannot apply `+` to int and list of string"),
    ("log declared + 1", "cannot apply `+` to string and int"),
    ("for c in components(\"card\") { log c.rank + c.suit }", "cannot apply `+` to int and string"),
    ("for a, b in zip(names, names) { log b - 1 }", "cannot apply `-` to string and int"),
    ("let total = 0\nlog total + \"s\"", "cannot apply `+` to int and string"),
    ("log len(names) + label", "cannot apply `+` to int and string"),
    ("log (let n = label; n - 1)", "cannot apply `-` to string and int"),
    ("log (let label = 3; label) + label", "cannot apply `+` to int and string"),
    ("log [a + b for a in names for b in score]", "cannot apply `+` to string and int"),
    ("log [b for a in score for b in a]", "cannot iterate over int"),
    ("log index_where(x for x in names) + label", "cannot apply `+` to int and string"),
])
def test_operator_type_mismatch(tmp_path, effects, message):
    d = only(ruleset(tmp_path, effects))
    assert d.code == "RP222"
    assert d.message == message
    assert d.hint
    assert d.severity == "error"


def test_diagnostic_gives_file_line_column_source_line_hint_and_path(tmp_path):
    path = ruleset(tmp_path, 'log 1\nif count > 0 {\n  log [c for c in names] + "s"\n}')
    d = only(path)
    lines = path.read_text().splitlines()
    line = next(i for i, text in enumerate(lines, 1) if '[c for c in names] + "s"' in text)
    # a comprehension is located at its first item, just inside the bracket
    assert (d.file, d.line, d.col) == (str(path), line, lines[line - 1].index("c for") + 1)
    assert d.source_line == lines[line - 1]
    assert d.path == "actions.place.effects"
    assert "`+` joins two lists" in d.hint
    text = d.format()
    assert text.startswith(f"{path}:{line}:{d.col}: error RP222: cannot apply `+` to list of string and string")
    assert "^" in text and "hint:" in text


def test_errors_in_quoted_expressions_are_located_inside_the_quotes(tmp_path):
    path = ruleset(tmp_path, end='"count > label"')
    d = only(path)
    lines = path.read_text().splitlines()
    line = next(i for i, text in enumerate(lines, 1) if "count > label" in text)
    assert (d.line, d.col) == (line, lines[line - 1].index("count > label") + 1)
    assert d.path == "end[0].when"


# ---------------------------------------------------------- state variable types
def test_a_variable_assigned_another_type_somewhere_is_not_reported(tmp_path):
    assert type_diagnostics(ruleset(tmp_path, 'count = "many"\nlog count + 1')) == []
    assert type_diagnostics(ruleset(tmp_path, "log winner + 1")) == []  # null at first, then a seat
    assert type_diagnostics(ruleset(tmp_path, "log loose + 1")) == []  # a procedure stores anything in it
    assert type_diagnostics(ruleset(tmp_path, 'let x = 1\nx = "a"\nlog x + "b"')) == []
    assert type_diagnostics(ruleset(tmp_path, 'let xs = [1]\nappend "a" to xs\nlog xs[1] + "b"')) == []


def test_item_types_follow_what_is_appended(tmp_path):
    assert type_diagnostics(ruleset(tmp_path, 'append "c1" to hand[current]\nlog hand[0][0].rank + 1')) == []
    d = only(ruleset(tmp_path, 'append "c1" to hand[current]\nlog hand[0][0].rank + "x"'))
    assert d.message == "cannot apply `+` to int and string"
    d = only(ruleset(tmp_path, "append 3 to hand[current]\nlog hand[0][0] + names"))
    assert d.message == "cannot apply `+` to int and list of string"


def test_declared_types_are_trusted(tmp_path):
    d = only(ruleset(tmp_path, "log declared * 2"))
    assert d.message == "cannot apply `*` to string and int"


def test_a_variable_without_init_or_assignment_is_null(tmp_path):
    add = {'  loose: {init: "0"}': '  loose: {init: "0"}\n  unset: {}'}
    d = only(ruleset(tmp_path, "log unset + 1", **add))
    assert d.message == "cannot apply `+` to null and int"
    assert type_diagnostics(ruleset(tmp_path, "unset = 2\nlog unset + 1", **add)) == []


# -------------------------------------------------------------------- RP223
@pytest.mark.parametrize("effects, message", [
    ("log len(5)", "argument 1 of `len()` must be a string, a list or a map, not int"),
    ('log range("a")', "argument 1 of `range()` must be an int, not string"),
    ("log range(1, names)", "argument 2 of `range()` must be an int, not list of string"),
    ("log sum(count)", "argument 1 of `sum()` must be a list, not int"),
    ('log abs("x")', "argument 1 of `abs()` must be a number, not string"),
    ("log keys(names)", "argument 1 of `keys()` must be a map, not list of string"),
    ('log min(1, "a")', "argument 2 of `min()` must be a number, not string"),
    ("log int(names)", "argument 1 of `int()` must be a number or a string, not list of string"),
    ('log cell("nosuchboard", 0, 0)', "there is no board 'nosuchboard'"),
    ('log cells("grd")', "there is no board 'grd'"),
    ('log components("nokind")', "there is no component kind 'nokind'"),
    ('log neighbors("grid", cell, "kingg")', "there is no direction set 'kingg'"),
    ('log dirs("rook")', "there is no direction set 'rook'"),
    ('log step("grid", cell, "NNE")', "there is no direction 'NNE'"),
    ('log adjacent("rng", "a")', "there is no graph 'rng'"),
    ('log xy("grid", "a")', "argument 2 of `xy()` must be an int, not string"),
    ("log others(label)", "argument 1 of `others()` must be an int, not string"),
])
def test_builtin_argument_of_a_wrong_type_or_an_unknown_name(tmp_path, effects, message):
    d = only(ruleset(tmp_path, effects))
    assert d.code == "RP223"
    assert d.message == message
    assert d.hint


def test_unknown_names_behind_constants_are_found_too(tmp_path):
    assert type_diagnostics(ruleset(tmp_path, "log cells(BOARD)")) == []
    d = only(ruleset(tmp_path, "log cells(BOARD)", **{"BOARD: grid": "BOARD: grd"}))
    assert d.message == "there is no board 'grd'" and "'grid'" in d.hint


def test_builtin_argument_is_located_at_the_argument(tmp_path):
    path = ruleset(tmp_path, 'log neighbors("grid", cell, "kingg")')
    d = only(path)
    assert d.source_line[d.col - 1:].startswith('"kingg"')


# -------------------------------------------------------------------- RP224
@pytest.mark.parametrize("require", ["names", "[c for c in names]", "table", "cells(\"grid\")"])
def test_requirement_that_is_a_list_or_map(tmp_path, require):
    d = only(ruleset(tmp_path, require=f"'{require}'", **{"where: REQUIRE": "where: 'true'"}))
    assert d.code == "RP224"
    assert "requirement" in d.message and "len(...)" in d.hint
    assert d.path == "actions.place.require[1]"


def test_end_condition_that_is_a_list(tmp_path):
    d = only(ruleset(tmp_path, end="'[1 for c in board if c != null]'"))
    assert d.code == "RP224" and "end condition is always list of int" in d.message


def test_conditions_that_may_be_true_or_false_are_fine(tmp_path):
    for cond in ["len(names) > 0", "any(c == null for c in board)", "count", "label", "winner"]:
        assert type_diagnostics(ruleset(tmp_path, require=f"'{cond}'", end=f"'{cond}'")) == [], cond


def test_where_condition_that_is_a_list(tmp_path):
    d = only(ruleset(tmp_path, **{"where: REQUIRE": "where: names"}))
    assert d.code == "RP224" and "where condition" in d.message


# -------------------------------------------------------------------- RP225
def test_property_no_component_kind_declares(tmp_path):
    d = only(ruleset(tmp_path, 'for x in components("card") { log x.colour }'))
    assert d.code == "RP225"
    assert d.message == "no component of kind 'card' has a property 'colour'"
    assert d.hint == "properties: id, kind, rank, suit"


def test_property_of_another_kind(tmp_path):
    d = only(ruleset(tmp_path, "log card.weight"))
    assert d.message == "no component of kind 'card' has a property 'weight'"
    assert type_diagnostics(ruleset(tmp_path, "for x in components() { log x.weight }")) == []


def test_property_on_a_text_that_no_component_has(tmp_path):
    d = only(ruleset(tmp_path, "log label.colour"))
    assert d.message == "no component has a property 'colour'"


def test_component_property_types_come_from_the_items(tmp_path):
    d = only(ruleset(tmp_path, "log card.suit * 2"))
    assert d.message == "cannot apply `*` to string and int"


# --------------------------------------------------------------- everywhere
@pytest.mark.parametrize("replace, path", [
    ({"value: c.rank": "value: '\"a\" - c'"}, "functions.ranked.value"),
    ({"loose = x": "loose = x + (\"a\" - 1)"}, "procedures.tidy.effects"),
    ({"score: score[p]": "score: 'score[p] + \"pts\"'"}, "scoring.score"),
    ({'board: {init: "repeat(null, 9)"}': "board: {init: 'repeat(null, 9) + 1'}"}, "state.board.init"),
    ({"      actions: [place]": "      actions: [place]\n      end_if: 'count - \"x\" > 0'"},
     "flow.phases[0].end_if"),
    ({"scoring:": "triggers:\n  - {when: 'count > 9', effects: 'log label - 1'}\nscoring:"}, "triggers[0].effects"),
    ({"scoring:": "render:\n  - {show: board, board: grid, cell: 'item + \"x\"'}\nscoring:"}, None),
    ({"scoring:": "invariants:\n  - {check: 'names'}\nscoring:"}, "invariants[0].check"),
    ({"card: {of: 'components(\"card\")', where: REQUIRE}": "card: {of: 'components(\"card\")', from: 'len(5)'}"},
     "actions.place.params.card.from"),
])
def test_every_part_of_the_ruleset_is_checked(tmp_path, replace, path):
    found = type_diagnostics(ruleset(tmp_path, **replace))
    if path is None:  # render: cell items of a board of seats and nulls may be either, so stay silent
        assert found == []
        return
    assert len(found) == 1, [d.format() for d in found]
    assert found[0].path == path


def test_a_function_body_is_reported_once_however_often_it_is_called(tmp_path):
    path = ruleset(tmp_path, "log ranked(card)\nlog ranked(card)", **{"value: c.rank": "value: '[c] - 1'"})
    (d,) = type_diagnostics(path)
    assert d.path == "functions.ranked.value"


def test_several_problems_are_reported_together(tmp_path):
    found = type_diagnostics(ruleset(tmp_path, 'log "a" + 1\nlog len(3)\nlog card.colour', end="names"))
    assert sorted(d.code for d in found) == ["RP222", "RP223", "RP224", "RP225"]


def test_dynamic_code_stays_silent(tmp_path):
    effects = """\
        let v = get(table, "high", "none")
        log v + 1
        log (if count > 1 then 1 else "one") + 1
        log [1, "a"][0] + 1
        let xs = []
        log xs + [1]
        log [] * 3
        log names * 2
        log sum([]) + 0.5
        log table.high + 1
        log "c1".rank + 1
        log "ab"[0] + "c"
        log label in names and label in table and "a" in label
        log [c for c in "abc"] + ["d"]
        log [k for k in table][0] + "x"
        log min(score) + max(1, 2.5)
        log reachable("ring", "a")
        for i, row in enumerate([[1, 2]]) { log row[0] + i }
        call tidy("anything")
        log hand[current] + []
        shuffle hand[current]
        move card from hand[current] to hand[1 - current]
    """
    assert type_diagnostics(ruleset(tmp_path, effects)) == []


def test_every_builtin_has_a_signature_for_the_checker():
    accepts_anything = {"get", "is_component", "seats", "str"}
    missing = [n for n, spec in BUILTINS.items() if n not in accepts_anything and not accepts(n, spec.max_args)]
    assert missing == [], "add them to validators/signatures.py"


# ------------------------------------------------------------ real rulesets
def _rulesets() -> list[Path]:
    tests = Path(__file__).resolve().parent.parent / "rulesets"
    return sorted(builtin_games().values()) + sorted(tests.glob("*.yaml"))


@pytest.mark.parametrize("path", _rulesets(), ids=lambda p: p.stem)
def test_rulesets_have_no_type_diagnostics(path):
    base = loaded.model(path)  # the models other tests play (a load checks types too: this asks again)
    for model in [base, *(loaded.model(path, variant=variant) for variant in base.variants)]:
        found = list(check_types(model, path))
        assert found == [], "\n".join(d.format() for d in found)


TEMPLATE_HEAD = 'ruleplay: 1\ngame: calls\nplayers: 2\nstate: {n: {init: "0"}}\n'


def test_a_long_chain_of_function_calls_is_typed_without_python_recursion(tmp_path):
    # f0 calls f1 ... calls f2999: typed callees first, so each link is one step of a loop.
    functions = "".join(f'  f{i}: {{params: [x], value: "f{i + 1}(x) + 1"}}\n' for i in range(2999))
    text = (TEMPLATE_HEAD + "functions:\n" + functions + '  f2999: {params: [x], value: "1"}\n'
            + 'actions:\n  tick: {effects: "n += f0(1) + \'a\'"}\n'
            + "flow: {phases: [{name: play, actions: [tick]}]}\nend: [{when: \"n >= 3\"}]\n")
    path = tmp_path / "chain.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RulesetError) as err:
        load_model(path)
    assert [d.code for d in err.value.diagnostics] == ["RP222"]  # int + text, found through 3000 calls


def test_functions_that_call_each_other_are_typed_as_any_inside_their_cycle(tmp_path):
    functions = ('  even: {params: [k], value: "if k == 0 then true else odd(k - 1)"}\n'
                 '  odd: {params: [k], value: "if k == 0 then false else even(k - 1)"}\n')
    text = (TEMPLATE_HEAD + "functions:\n" + functions + 'actions:\n  tick: {effects: "if even(2) { n += 1 }"}\n'
            + "flow: {phases: [{name: play, actions: [tick]}]}\nend: [{when: \"n >= 3\"}]\n")
    path = tmp_path / "cycle.yaml"
    path.write_text(text, encoding="utf-8")
    assert load_model(path).diagnostics == []


def test_the_inferred_types_are_kept_for_each_name_where_it_is_read():
    from ruleplay.dsl import ast as A
    from ruleplay.validators.type_passes import inferred_types

    model = load_model("tic-tac-toe")
    found = inferred_types(model)
    assert str(found.functions["completes_line"]) == "bool"
    assert str(found.params["place", "cell"]) == "int"
    assert str(found.variables["board"]) == "list"
    file = model.source.base.file
    # `line` and `c` of `all(board[c] == p for c in line) for line in lines`, line 34
    bound = {name: str(t) for (pos, name), t in found.bound.items() if pos.line == 34}
    assert bound == {"line": "list of int", "c": "int"}
    assert str(found.names[A.Pos(file, 34, 26)]) == "int"  # the `c` of board[c]


def test_a_type_may_hold_a_text_unless_it_is_made_of_null_flags_and_numbers():
    from ruleplay.validators.typelattice import (ANY, BOOL, INT, MAP, NEVER, NULL, NUMBER, STRING, component,
                                                 list_of, may_hold_text)

    for t in (NULL, BOOL, INT, NUMBER, list_of(INT), list_of(list_of(BOOL))):
        assert not may_hold_text(t), t
    for t in (ANY, NEVER, STRING, MAP, component(None), list_of(ANY), list_of(list_of(STRING)), list_of(MAP)):
        assert may_hold_text(t), t


def test_the_stored_types_ignore_a_declared_type(tmp_path):
    """Nothing checks a `type:` at run time: what a variable may hold is what is stored in it."""
    from ruleplay.engine.textless import stored_types

    model = load_model(ruleset(tmp_path, "declared = 3\ncount = 2"))
    types = stored_types(model)
    assert str(types["declared"]) == "int" and str(types["count"]) == "int"  # `type: string` is not what it holds
    assert str(types["score"]) == "list of int"
    assert str(types["loose"]) == "int"  # `tidy` is never called: its `loose = x` stores nothing


@pytest.mark.parametrize("effects, loose", [
    ("call tidy(count)", "int"),
    ('call tidy(label)', "any"),  # int joined with string
    ("call tidy(ranked(card))", "int"),  # `ranked`'s c is what its call passes: a card, whose rank is an int
    ("call tidy(table[label] - 1)", "number"),  # a map's value may be anything, but `-` makes a number
    ('call tidy([1, count])', "any"),
    ("call tidy(count + table[label])", "number"),  # `+` with a number on one side adds numbers
    ("call tidy(names + table[label])", "any"),  # a list on one side: a list, of anything
])
def test_the_stored_types_pass_each_call_s_arguments_to_its_parameters(tmp_path, effects, loose):
    """A parameter holds what its calls pass (joined over every call), not anything."""
    from ruleplay.engine.textless import stored_types

    model = load_model(ruleset(tmp_path, effects))
    assert str(stored_types(model)["loose"]) == loose
