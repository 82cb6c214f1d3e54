"""Every builtin function: results, and the error each one gives for bad arguments."""

from __future__ import annotations

from types import SimpleNamespace

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ruleplay.dsl import runtime as R
from ruleplay.dsl.builtins import BUILTINS
from ruleplay.dsl.compiler import Compiler
from ruleplay.dsl.geometry import Grid
from ruleplay.dsl.parser import parse_expr
from ruleplay.dsl.scope import Scope
from ruleplay.engine.builders.components import flatten_graph


def _graph(edges, nodes=(), directed=False):
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(nodes)
    g.add_edges_from(edges)
    return flatten_graph(g)


MODEL = SimpleNamespace(
    component_ids=["r1", "r2", "g1"],
    components_by_kind={"red": ["r1", "r2"], "green": ["g1"]},
    component_props={"r1": {"id": "r1", "kind": "red"}, "r2": {"id": "r2", "kind": "red"},
                     "g1": {"id": "g1", "kind": "green"}},
    # a 4 x 3 board:  0  1  2  3 / 4  5  6  7 / 8  9 10 11
    boards={"b": Grid("b", 4, 3), "one": Grid("one", 5, 1)},
    graphs={"path": _graph([("a", "b"), ("b", "c"), ("c", "d")], nodes=["z"]),
            "oneway": _graph([(1, 2), (2, 3)], directed=True)},
)
SCOPE = Scope(frozenset(), {"m": {"b": 2, "a": 1}, "words": ["x", "y"], "huge": 1e308})


def ev(text: str, players: int = 3):
    compiler = Compiler()
    fn = compiler.expr(parse_expr(text), SCOPE)
    assert compiler.problems == []
    return fn(R.Ctx({}, {"players": players, "seat": 0}, MODEL))


CASES = {
    "len": [("len([1, 2])", 2), ('len("abc")', 3), ("len(m)", 2), ("len([])", 0)],
    "range": [("range(3)", [0, 1, 2]), ("range(2, 5)", [2, 3, 4]), ("range(-1)", []), ("range(3, 1)", [])],
    "sum": [("sum([1, 2, 3])", 6), ("sum([])", 0), ("sum([1, 0.5])", 1.5)],
    "min": [("min([3, 1, 2])", 1), ("min(4, 2)", 2), ("min(1, 1.5)", 1)],
    "max": [("max([3, 1, 2])", 3), ("max(4, 2)", 4), ("max([-1.5, -2])", -1.5)],
    "abs": [("abs(-3)", 3), ("abs(2.5)", 2.5)],
    "any": [("any([0, null, 1])", True), ("any([])", False)],
    "all": [("all([1, true, \"a\"])", True), ("all([1, 0])", False), ("all([])", True)],
    "sorted": [("sorted([3, 1, 2])", [1, 2, 3]), ('sorted(["b", "a"])', ["a", "b"]), ("sorted([])", []),
               ("sorted([2, 0.5, 1])", [0.5, 1, 2]),
               # lists compare at their first items that differ (by `==`): equal prefixes may hold anything
               ("sorted([[2], [1, 5], [1]])", [[1], [1, 5], [2]]),
               ("sorted([[null, 1], [null, 0]])", [[None, 0], [None, 1]])],
    "reversed": [("reversed([1, 2, 3])", [3, 2, 1])],
    "count": [("count([1, 2, 1, true], 1)", 2), ('count(["a"], "b")', 0), ("count([[1], [1]], [1])", 2)],
    "index_of": [("index_of([5, 6, 7], 7)", 2), ("index_of([5], 9)", -1), ("index_of([true, 1], 1)", 1)],
    "index_where": [("index_where([0, null, 3, true])", 2), ("index_where([false, [], \"\"])", -1),
                    ("index_where([])", -1), ("index_where(x > 5 for x in [5, 6, 7])", 1),
                    ("index_where(x > 5 for x in [7, 6] if x < 7)", 1)],
    "unique": [("unique([1, 2, 1, 3, 2])", [1, 2, 3]), ("unique([1, true, 1.0])", [1, True]),
               ("unique([0, false, null, [1], [true], [1.0], [], m, m, \"1\"])",
                [0, False, None, [1], [True], [], {"a": 1, "b": 2}, "1"])],
    "flatten": [("flatten([[1], [], [2, 3]])", [1, 2, 3])],
    "join": [('join(["a", 1, null, true], "-")', "a-1-null-true"), ("join([1, 2])", "12"), ("join([], \",\")", "")],
    "str": [("str(12)", "12"), ("str(null)", "null"), ("str(true)", "true"), ("str(false)", "false"),
            ('str("a")', "a"), ("str([1])", "list"), ("str(1.5)", "1.5")],
    "int": [("int(3.9)", 3), ("int(-3.9)", -3), ('int("42")', 42), ('int(" -7 ")', -7), ('int("+5")', 5), ("int(5)", 5),
            ('int(join(repeat("9", 300)))', 10 ** 300 - 1)],
    "keys": [("keys(m)", ["a", "b"])],
    "values": [("values(m)", [1, 2])],
    "get": [('get(m, "a", 0)', 1), ('get(m, "z", 0)', 0), ("get(m, 1, 0)", 0), ("get([5, 6], 1, 0)", 6),
            ("get([5, 6], 2, 0)", 0), ("get([5, 6], -1, 0)", 6), ('get([5], "a", null)', None),
            ("get(3, 0, 9)", 9)],
    "zip": [("zip([1, 2, 3], [4, 5])", [[1, 4], [2, 5]])],
    "repeat": [("repeat(0, 3)", [0, 0, 0]), ("repeat([1], 2)", [[1], [1]]), ("repeat(null, 0)", [])],
    "enumerate": [('enumerate(["a", "b"])', [[0, "a"], [1, "b"]])],
    "argmax": [("argmax([1, 5, 2, 5])", [1, 3]), ("argmax([])", [])],
    "argmin": [("argmin([1, 5, 1])", [0, 2]), ("argmin([])", [])],
    "leader": [("leader([1, 5, 2])", 1), ("leader([5, 1, 5])", None), ("leader([])", None)],
    "ranks": [("ranks([10, 30, 20, 30])", [3, 0, 2, 0]), ("ranks([])", [])],
    "components": [("components()", ["r1", "r2", "g1"]), ('components("red")', ["r1", "r2"])],
    "kind": [('kind("g1")', "green")],
    "is_component": [('is_component("r2")', True), ('is_component("x")', False), ("is_component(1)", False)],
    "seats": [("seats()", [0, 1, 2])],
    "next_seat": [("next_seat(2)", 0), ("next_seat(0, 2)", 2), ("next_seat(1, -1)", 0)],
    "others": [("others(1)", [2, 0])],
    "cells": [('cells("one")', [0, 1, 2, 3, 4]), ('len(cells("b"))', 12)],
    "cell": [('cell("b", 1, 2)', 9), ('cell("b", 3, 0)', 3), ('cell("b", 4, 0)', None), ('cell("b", 0, -1)', None)],
    "xy": [('xy("b", 9)', [1, 2]), ('xy("b", 0)', [0, 0])],
    "step": [('step("b", 5, "E")', 6), ('step("b", 5, "N")', 1), ('step("b", 5, [1, 1])', 10),
             ('step("b", 0, "E", 3)', 3), ('step("b", 0, "E", 4)', None), ('step("b", 0, "W")', None)],
    "ray": [('ray("b", 4, "E")', [5, 6, 7]), ('ray("b", 0, "NW")', []), ('ray("b", 0, "SE")', [5, 10])],
    "neighbors": [('neighbors("b", 5, "orthogonal")', [1, 6, 9, 4]),
                  ('neighbors("b", 5, "diagonal")', [2, 10, 8, 0]),
                  ('neighbors("b", 5, "king")', [1, 2, 6, 10, 9, 8, 4, 0]),
                  ('neighbors("b", 0, "knight")', [6, 9]),
                  ('neighbors("b", 0, "orthogonal")', [1, 4])],
    "dirs": [('dirs("orthogonal")', [[0, -1], [1, 0], [0, 1], [-1, 0]]), ('len(dirs("knight"))', 8),
             ('len(dirs("king"))', 8)],
    "dir_vec": [('dir_vec("SW")', [-1, 1]), ("dir_vec([2, 1])", [2, 1])],
    "perimeter": [('perimeter("b")', [0, 1, 2, 3, 7, 11, 10, 9, 8, 4]), ('perimeter("one")', [0, 1, 2, 3, 4])],
    "line_of": [('line_of("b", 5, "E")', [4, 5, 6, 7]), ('line_of("b", 5, "SE")', [0, 5, 10]),
                ('line_of("b", 8, "N")', [8, 4, 0])],
    "flood": [('flood("b", 0, 2, "orthogonal", [], [])', [1, 2, 4, 5, 8]),
              ('flood("b", 0, 2, "orthogonal", [1], [])', [4, 5, 8]),
              ('flood("b", 0, 2, "orthogonal", [], [4])', [1, 2, 4, 5]),
              ('flood("b", 0, 0, "king", [], [])', []),
              ('flood("b", 0, 1, "knight", [], [])', [6, 9]),
              ('flood("b", 0, 1, "orthogonal", [], [])', [1, 4]),
              ('flood("b", 0, 3, "orthogonal", [], [1])', [1, 4, 5, 6, 8, 9]),
              ('flood("b", 5, 1, "king", [], [])', [0, 1, 2, 4, 6, 8, 9, 10]),
              ('flood("b", 0, 0, "orthogonal", [], [])', [])],
    "offset": [('offset("b", 0, 9)', [1, 2]), ('offset("b", 9, 0)', [-1, -2]), ('offset("b", 5, 5)', [0, 0]),
               ('step("b", 9, offset("b", 5, 9), -2)', 1)],
    "area": [('area("b", 1, 2, 2)', [1, 2, 5, 6]), ('area("b", 0, 4, 3)', list(range(12))),
             ('area("b", 3, 2, 1)', []), ('area("b", 4, 1, 3)', [])],
    "adjacent": [('adjacent("path", "b")', ["a", "c"]), ('adjacent("path", "z")', []),
                 ('adjacent("oneway", 2)', [3])],
    "nodes": [('nodes("path")', ["a", "b", "c", "d", "z"]), ('nodes("oneway")', [1, 2, 3])],
    "reachable": [('reachable("path", "a")', ["b", "c", "d"]), ('reachable("path", "a", 2)', ["b", "c"]),
                  ('reachable("path", "z")', []), ('reachable("oneway", 2)', [3]),
                  ('reachable("path", "a", null)', ["b", "c", "d"])],
    "distance": [('distance("path", "a", "d")', 3), ('distance("path", "a", "a")', 0),
                 ('distance("path", "a", "z")', None), ('distance("oneway", 3, 1)', None)],
    "reachable_via": [("reachable_via([[1, 2], [2, 3], [7, 8]], 1)", [2, 3]),
                      ("reachable_via([[1, 2], [2, 3]], 1, 1)", [2]),
                      ('reachable_via([[[0, 0], [0, 1]]], [0, 1])', [[0, 0]])],
    "distance_via": [("distance_via([[1, 2], [2, 3]], 3, 1)", 2), ("distance_via([[1, 2]], 1, 9)", None)],
}


def test_every_builtin_has_cases():
    assert sorted(BUILTINS) == sorted(CASES), "add cases for new builtins to CASES"


@pytest.mark.parametrize("text, value", [c for cases in CASES.values() for c in cases])
def test_builtin_results(text, value):
    result = ev(text)
    assert result == value
    assert type(result) is type(value)


ERRORS = [
    ("len(5)", "len() needs a list, map or string, not int"),
    ('range("a")', "needs an int, not string"),
    ("range(200000)", "range() too long"),
    ('sum([1, "a"])', "sum() needs numbers, found string"),
    ("sum(3)", "sum() needs a list, not int"),
    ("min([])", "min() of an empty list"),
    ("max([true])", "max() needs numbers, found bool"),
    ('min(1, "a")', "min() needs numbers"),
    ('abs("1")', "abs() needs a number, not string"),
    ("any(1)", "any() needs a list, not int"),
    ("index_where(\"abc\")", "index_where() needs a list, not string"),
    ('sorted([1, "a"])', "sorted() needs items of one comparable type"),
    # a boolean is never a number, for sorted() as for `<`
    ("sorted([true, 1, false, 0])", "sorted() needs items of one comparable type (numbers, strings or lists), "
                                    "not bool and int"),
    ("sorted([true, false])", "not bool"),
    ("sorted([[1, true], [1, 2]])", "cannot compare lists whose items differ in type using `<`"),
    ("sum([huge, huge])", "`sum()` makes a number too large for a float"),
    ("reversed(m)", "reversed() needs a list, not map"),
    ("count(1, 1)", "count() needs a list"),
    ("flatten([1])", "flatten() needs a list, not int"),
    ('int("1.5")', "int() cannot convert '1.5'"),
    ('int("²")', "int() cannot convert"),
    ('int(join(repeat("9", 5000)))', "int() of a text of 5000 characters: numbers are capped at 1024 bits"),
    ('int(join(repeat("9", 310)))', "`int()` makes a number of 1030 bits"),
    ('int("--5")', "int() cannot convert"),
    ("int(null)", "int() cannot convert None"),
    ("keys([])", "keys() needs a map, not list"),
    ("values(1)", "values() needs a map, not int"),
    ("zip([1], 2)", "zip() needs a list, not int"),
    ("repeat(0, -1)", "repeat(): the count is -1: it must be 0 or more"),
    ("argmax([null])", "argmax() needs numbers, found null"),
    ("ranks(5)", "ranks() needs a list"),
    ('components("blue")', "no component kind 'blue'"),
    ("components([1])", "no component kind [1]"),
    ('kind("x")', "'x' is not a component"),
    ('next_seat("a")', "next_seat() needs a seat (0..2), not 'a'"),
    ('others("a")', "others() needs a seat (0..2), not 'a'"),
    ("next_seat(100, -1)", "next_seat() needs a seat (0..2), not 100"),
    ("others(99)", "others() needs a seat (0..2), not 99"),
    ("others(-1)", "others() needs a seat (0..2), not -1"),
    ('next_seat(0, "a")', "needs an int, not string"),
    ('cells("nope")', "no board 'nope'"),
    ("cells(1)", "no board 1"),
    ('cell("b", 1.5, 0)', "needs an int, not number"),
    ('xy("b", 12)', "12 is not a cell of board 'b'"),
    ('step("b", 0, "UP")', "'UP' is not a direction"),
    ('step("b", 0, [1])', "[1] is not a direction"),
    ('step("b", -1, "N")', "-1 is not a cell of board 'b'"),
    ('ray("b", "0", "N")', "'0' is not a cell of board 'b'"),
    ('neighbors("b", 0, "kingg")', "no direction set 'kingg'"),
    ('neighbors("b", 0, [1])', "no direction set [1]"),
    ('dirs("rook")', "no direction set 'rook'"),
    ('dir_vec("X")', "'X' is not a direction"),
    ('perimeter("nope")', "no board 'nope'"),
    ('line_of("b", 0, "Q")', "'Q' is not a direction"),
    ('line_of("b", 0, [0, 0])', "[0, 0] does not lead anywhere"),
    ('ray("b", 5, [0, 0])', "[0, 0] does not lead anywhere"),
    ("join(5)", "join() needs a list, not int"),
    ("join([1], 2)", "join() needs a text separator, not int"),
    ('flood("b", 0, 2, "rook", [], [])', "no direction set 'rook'"),
    ('flood("b", 0, "2", "king", [], [])', "needs an int, not string"),
    ('flood("b", 0, 2, "king", 5, [])', "needs a list, not int"),
    ('offset("b", 0, 12)', "12 is not a cell of board 'b'"),
    ('area("b", 0, 0, 1)', "area() needs a positive width and height"),
    ('area("b", 0, 1.5, 1)', "needs an int, not number"),
    ('flood("b", 0, "2", "orthogonal", [], [])', "needs an int, not string"),
    ('flood("b", 12, 1, "orthogonal", [], [])', "12 is not a cell of board 'b'"),
    ('flood("b", 0, 1, "orthogonal", 5, [])', "needs a list, not int"),
    ('adjacent("nope", 1)', "no graph 'nope'"),
    ("nodes(1)", "no graph 1"),
    ('reachable("path", "a", "2")', "max_steps must be an int, not string"),
    ('distance("nope", 1, 2)', "no graph 'nope'"),
    ("reachable_via([[1, 2, 3]], 1)", "an edge must be a pair [a, b]"),
    ("reachable_via(5, 1)", "needs a list, not int"),
    ('reachable_via([[1, 2]], 1, "x")', "max_steps must be an int"),
    ("distance_via([1], 1, 2)", "an edge must be a pair"),
]


@pytest.mark.parametrize("text, message", ERRORS)
def test_builtin_errors_are_rule_errors_located_at_the_call(text, message):
    with pytest.raises(R.RuleRuntimeError) as err:
        ev(text)
    assert message in err.value.message
    name = text.split("(")[0]
    assert err.value.message.startswith(f"{name}(): ")
    assert err.value.pos is not None and (err.value.pos.line, err.value.pos.col) == (1, 1)


def test_every_builtin_has_an_error_case_or_accepts_anything():
    accepts_anything = {"str", "get", "is_component", "seats", "leader", "enumerate", "unique", "argmin",
                        "index_of", "all"}
    tested = {text.split("(")[0] for text, _ in ERRORS}
    assert sorted(set(BUILTINS) - tested - accepts_anything) == []


def test_builtins_do_not_change_their_arguments():
    xs = [3, 1, 2]
    compiler = Compiler()
    fn = compiler.expr(parse_expr("[sorted(xs), reversed(xs), unique(xs), repeat(xs, 2)]"),
                       Scope(frozenset({"xs"})))
    out = fn(R.Ctx({"xs": xs}, {"players": 2}, MODEL))
    assert xs == [3, 1, 2]
    out[3][0].append(9)
    assert xs == [3, 1, 2]


def test_builtin_table_records_arity_and_docs():
    for name, spec in BUILTINS.items():
        assert spec.name == name
        assert 0 <= spec.min_args <= spec.max_args
        assert spec.doc, f"{name} needs a docstring: it is the user's reference"
        assert spec.returns in ("int", "bool", "string", "list", "map", "any", "number")


def test_a_grid_refuses_a_ray_that_would_never_end():
    with pytest.raises(ValueError, match="direction other than"):
        Grid("b", 3, 3).ray(4, (0, 0))


# ------------------------------------------------------------------ graph nodes, keyed as `==` compares
NODES = SimpleNamespace(
    **{**vars(MODEL), "graphs": {"mixed": _graph([(1, "a"), ("1", "b"), (2.5, "c"), ((0, 1), "d")])}})


def ev_nodes(text: str):
    compiler = Compiler()
    fn = compiler.expr(parse_expr(text), SCOPE)
    assert compiler.problems == []
    return fn(R.Ctx({}, {"players": 2}, NODES))


@pytest.mark.parametrize("text, value", [
    ('adjacent("mixed", 1)', ["a"]),
    ('adjacent("mixed", 1.0)', ["a"]),  # 1 == 1.0: one node
    ('adjacent("mixed", "1")', ["b"]),  # 1 != "1": two nodes
    ('adjacent("mixed", true)', []),  # true != 1
    ('adjacent("mixed", "True")', []),
    ('adjacent("mixed", [0, 1])', ["d"]),
    ('adjacent("mixed", [0.0, 1.0])', ["d"]),
    ('adjacent("mixed", "[0, 1]")', []),
    ('adjacent("mixed", "2.5")', []),
    ('distance("mixed", 1.0, "a")', 1),
    ('distance("mixed", "1", "a")', None),
    ('reachable("mixed", "a")', [1]),
    ('reachable("mixed", [0, 1.0])', ["d"]),
    ("distance_via([[1, 2], [2, 3]], 1.0, 3)", 2),
    ("distance_via([[1, 2], [2, 3]], 1, 3.0)", 2),
    ('distance_via([[1, 2], ["2", 3]], 1, 3)', None),
    ("distance_via([[true, 2], [1, 3]], true, 3)", None),
    ('distance_via([["True", 2], [true, 3]], "True", 3)', None),
    ("reachable_via([[1, 2], [2.0, 3]], 1)", [2, 3]),
    ('reachable_via([[1, "1"], ["1", true], [true, null]], 1)', ["1", True, None]),
    ("reachable_via([[[1], [true]], [[1.0], [2]]], [1])", [[True], [2]]),
    ("reachable_via([[m, 1], [1, m]], 1)", [{"a": 1, "b": 2}]),
    ('reachable_via([[join(repeat("x", 1000)), 2]], 2)', ["x" * 1000]),
])
def test_graph_nodes_equal_in_the_language_are_one_node(text, value):
    result = ev_nodes(text)
    assert result == value
    assert [type(v) for v in result] == [type(v) for v in value] if type(value) is list else True


def test_searches_over_one_edge_list_reuse_its_tables_only_while_it_holds_the_same_nodes():
    reachable, distance = BUILTINS["reachable_via"].fn, BUILTINS["distance_via"].fn
    edges = [[1, 2], [2, 3], ["a", 1]]
    assert reachable(edges, 1) == [2, "a", 3] and distance(edges, "a", 3) == 3
    edges[1][1] = 4  # changed in place after the search: the kept tables are not this list's any more
    assert reachable(edges, 1) == [2, "a", 4] and distance(edges, "a", 3) is None
    spelt = [[1.0, 2], [2, 4], ["a", 1]]  # equal to `edges`, but 1 is spelt 1.0
    assert spelt == edges and reachable(spelt, 2) == [1.0, 4, "a"]
    flags = [[True, 2]]  # equal to [[1, 2]]; true is no number
    assert reachable([[1, 2]], 2) == [1] and reachable(flags, 2) == [True]
    assert reachable([[1, 2]], True) == []


_ITEMS = st.sampled_from([0, 1, 2, True, False, 1.0, 0.0, -0.0, None, "a", "", [1], [True], {"a": 1}, float("nan")])


@settings(max_examples=300, deadline=None)
@given(st.lists(_ITEMS, max_size=8), _ITEMS)
def test_count_counts_the_items_the_rules_call_equal(items, value):
    """`count` hands whole numbers, texts and null to Python's own `list.count` unless a bool could pass for a
    number: the same count as the rules' equality, item by item."""
    assert BUILTINS["count"].fn(items, value) == sum(1 for x in items if R.equal(x, value))
