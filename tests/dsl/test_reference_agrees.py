"""The compiled closures, the generated code and the naive reference evaluator agree on random expressions.

Expressions are generated as text (so the parser is exercised too) over a
fixed context of state variables, constants, flow values, locals and
components.  For each one, all three must give the same value (same types
all the way down), or all must raise the same rule error.  The closures and
the generated code (`dsl.codegen`) must also agree on the error's position
and hint and on every budget charge.  Any other exception is an engine bug
and fails the test.
"""

from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from ruleplay.dsl import runtime as R
from ruleplay.dsl.codegen import Codegen
from ruleplay.dsl.compiler import Compiler
from ruleplay.dsl.geometry import Grid
from ruleplay.dsl.parser import parse_expr
from ruleplay.dsl.reference import ReferenceEvaluator
from ruleplay.dsl.scope import Scope

MODEL = SimpleNamespace(
    component_ids=["r1", "r2", "b1"],
    components_by_kind={"red": ["r1", "r2"], "blue": ["b1"]},
    component_props={"r1": {"id": "r1", "kind": "red", "rank": 1}, "r2": {"id": "r2", "kind": "red", "rank": 2},
                     "b1": {"id": "b1", "kind": "blue", "rank": 3}},
    boards={"b": Grid("b", 3, 3)}, graphs={},
)
VARS = {"xs": [3, 1, 2], "n": 4, "words": ["a", "bb", ""], "grid": [[1, 2], [3, 4]], "flag": True,
        "empty": [], "mixed": [1, "a", None, [2], 0.5], "hand": ["r1", "b1"]}
CONSTANTS = {"k": 2, "half": 0.5, "m": {"a": 1, "b": [1, 2]}, "names": ["a", "b"]}
FLOW = {"seat": 1, "players": 3, "round": 2, "phase": "main", "stage": None, "start": 0, "turn": 4}
LOCALS = {"i": 1, "j": "j"}  # comprehensions rebind these, so shadowing is exercised too
SCOPE = Scope(frozenset(VARS), CONSTANTS).with_locals(*LOCALS)
ITERATIONS = 5_000

NAMES = sorted(VARS) + sorted(CONSTANTS) + sorted(LOCALS) + ["current", "players", "round", "phase", "stage"]
ATOMS = st.one_of(
    st.integers(-3, 12).map(str),
    st.sampled_from(["0.5", "2.5", "-1.5"]),
    st.sampled_from(['"a"', '"bb"', '""', "'r1'", '"b1"', '"king"', '"b"', '"N"']),
    st.sampled_from(["true", "false", "null"]),
    st.sampled_from(NAMES),
)
BINARY = ["+", "-", "*", "/", "//", "%", "==", "!=", "<", "<=", ">", ">=", "in", "not in", "and", "or"]
BUILTINS_BY_ARITY = {
    0: ["components", "seats"],
    1: ["len", "range", "sum", "min", "max", "abs", "any", "all", "index_where", "sorted", "reversed", "unique", "flatten",
        "str", "int", "keys", "values", "enumerate", "argmax", "argmin", "leader", "ranks", "components",
        "kind", "is_component", "next_seat", "others", "cells", "dirs", "dir_vec", "perimeter"],
    2: ["range", "min", "max", "count", "index_of", "zip", "repeat", "xy", "next_seat"],
    3: ["get", "cell", "step", "ray", "neighbors", "line_of"],
}


def _extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    def call(arity: int) -> st.SearchStrategy[str]:
        return st.tuples(st.sampled_from(BUILTINS_BY_ARITY[arity]), st.lists(inner, min_size=arity, max_size=arity)) \
            .map(lambda t: f"{t[0]}({', '.join(t[1])})")

    return st.one_of(
        st.tuples(inner, st.sampled_from(BINARY), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["-", "not "]), inner).map(lambda t: f"({t[0]}{t[1]})"),
        st.tuples(inner, inner, inner).map(lambda t: f"(if {t[0]} then {t[1]} else {t[2]})"),
        st.tuples(inner, inner).map(lambda t: f"{t[0]}[{t[1]}]"),
        st.tuples(inner, st.sampled_from(["", "1", "-1", "i", "null"]), st.sampled_from(["", "2", "-1", "n"]))
        .map(lambda t: f"{t[0]}[{t[1]}:{t[2]}]"),
        st.tuples(inner, st.sampled_from(["a", "b", "rank", "kind", "id"])).map(lambda t: f"{t[0]}.{t[1]}"),
        st.lists(inner, max_size=3).map(lambda items: f"[{', '.join(items)}]"),
        st.tuples(inner, inner, st.one_of(st.just(""), inner.map(lambda c: f" if {c}")))
        .map(lambda t: f"[{t[0]} for i in {t[1]}{t[2]}]"),
        st.tuples(inner, inner).map(lambda t: f"[{t[0]} for i, j in {t[1]}]"),
        st.tuples(st.sampled_from(["any", "all", "index_where"]), inner, inner)
        .map(lambda t: f"{t[0]}({t[1]} for i in {t[2]})"),
        st.tuples(inner, inner, inner, st.one_of(st.just(""), inner.map(lambda c: f" if {c}")))
        .map(lambda t: f"[{t[0]} for i in {t[1]} for j in {t[2]}{t[3]}]"),
        st.tuples(st.sampled_from(["any", "all"]), inner, inner, inner)
        .map(lambda t: f"{t[0]}({t[1]} for i in {t[2]} if {t[1]} for j in {t[3]})"),
        st.tuples(st.sampled_from(["i", "v", "xs"]), inner, inner).map(lambda t: f"(let {t[0]} = {t[1]}; {t[2]})"),
        call(0), call(1), call(2), call(3),
    )


ANY_TYPE = st.recursive(ATOMS, _extend, max_leaves=14)


# Typed expressions mostly evaluate to values, so the agreement on results is well exercised too.
@lru_cache(maxsize=None)
def typed(kind: str, depth: int) -> st.SearchStrategy[str]:
    leaves = {
        "int": st.one_of(st.integers(-3, 9).map(str), st.sampled_from(["n", "k", "i", "current", "players", "round"])),
        "list": st.sampled_from(["xs", "empty", "range(4)", "[1, 2, 2]", 'cells("b")', "seats()"]),
        "str": st.sampled_from(['"a"', '""', "j", "phase", 'words[1]', '"r1".kind']),
        "bool": st.sampled_from(["true", "false", "flag"]),
    }[kind]
    if depth == 0:
        return leaves
    i, li, s, b = (typed(k, depth - 1) for k in ("int", "list", "str", "bool"))
    grow = {
        "int": [
            st.tuples(i, st.sampled_from(["+", "-", "*", "//", "%"]), i).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            i.map(lambda x: f"(-{x})"), li.map(lambda x: f"len({x})"), li.map(lambda x: f"sum({x})"),
            st.tuples(li, i).map(lambda t: f"get({t[0]}, {t[1]}, 0)"),
            st.tuples(b, i, i).map(lambda t: f"(if {t[0]} then {t[1]} else {t[2]})"),
            st.tuples(li, i).map(lambda t: f"count({t[0]}, {t[1]})"), s.map(lambda x: f"len({x})"),
            st.tuples(i, i).map(lambda t: f"max({t[0]}, {t[1]})"),
            st.tuples(b, li).map(lambda t: f"index_where({t[0]} for i in {t[1]})"),
            st.tuples(i, i).map(lambda t: f"(let v = {t[0]}; v * v + {t[1]})"),
        ],
        "list": [
            st.lists(i, max_size=4).map(lambda xs: f"[{', '.join(xs)}]"),
            st.tuples(i, li, st.one_of(st.just(""), b.map(lambda c: f" if {c}")))
            .map(lambda t: f"[{t[0]} for i in {t[1]}{t[2]}]"),
            li.map(lambda x: f"sorted({x})"), li.map(lambda x: f"reversed({x})"), li.map(lambda x: f"unique({x})"),
            li.map(lambda x: f"argmax({x})"), li.map(lambda x: f"ranks({x})"),
            st.tuples(li, li).map(lambda t: f"({t[0]} + {t[1]})"),
            st.tuples(li, st.sampled_from(["1", "-1", "i"])).map(lambda t: f"{t[0]}[{t[1]}:]"),
            st.tuples(i, li, li, b).map(lambda t: f"[{t[0]} for i in {t[1]} for v in {t[2]} if {t[3]}]"),
            i.map(lambda x: f'neighbors("b", {x} % 9, "king")'), i.map(lambda x: f"range({x} % 7)"),
        ],
        "str": [
            st.tuples(s, s).map(lambda t: f"({t[0]} + {t[1]})"), i.map(lambda x: f"str({x})"),
            st.tuples(b, s, s).map(lambda t: f"(if {t[0]} then {t[1]} else {t[2]})"),
        ],
        "bool": [
            st.tuples(i, st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), i)
            .map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(i, st.sampled_from(["in", "not in"]), li).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(b, st.sampled_from(["and", "or"]), b).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            b.map(lambda x: f"(not {x})"), st.tuples(s, s).map(lambda t: f"({t[0]} < {t[1]})"),
            st.tuples(st.sampled_from(["any", "all"]), b, li).map(lambda t: f"{t[0]}({t[1]} for i in {t[2]})"),
        ],
    }[kind]
    return st.one_of(leaves, *grow)


TYPED = st.one_of(*(typed(kind, 3) for kind in ("int", "list", "str", "bool")))


def _ctx() -> R.Ctx:
    vars_ = {k: R.clone(v) for k, v in VARS.items()}
    return R.Ctx(vars_, dict(FLOW), MODEL, env=dict(LOCALS), budget=R.Budget(ITERATIONS, 64))


def _run(evaluate) -> tuple[str, Any]:
    try:
        return "value", evaluate()
    except R.RuleRuntimeError as err:
        return "error", (type(err).__name__, err.message)


def same(a: Any, b: Any) -> bool:
    """Equal values of identical types, all the way down (so 1, 1.0 and true differ)."""
    if type(a) is not type(b):
        return False
    if type(a) is list:
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


def _located(evaluate) -> tuple[str, Any]:
    """The outcome with everything an error carries: class, message, position and hint."""
    try:
        return "value", evaluate()
    except R.RuleRuntimeError as err:
        return "error", (type(err).__name__, err.message, err.pos, err.hint)


def _spent(ctx: R.Ctx) -> tuple[int, int, int]:
    return ctx.budget.iterations, ctx.budget.copies, ctx.budget.depth


def check(text: str) -> None:
    node = parse_expr(text)
    compiler, codegen = Compiler(), Codegen()
    compiled, generated = compiler.expr(node, SCOPE), codegen.expr(node, SCOPE)
    assert compiler.problems == [] and codegen.problems == [], compiler.problems
    reference = ReferenceEvaluator(SCOPE)
    ctx_c, ctx_r, ctx_g = _ctx(), _ctx(), _ctx()
    got_c = _run(lambda: compiled(ctx_c))
    got_r = _run(lambda: reference.eval(node, ctx_r))
    got_g = _located(lambda: generated(ctx_g))
    assert got_c[0] == got_r[0], f"{text}: compiled {got_c} but reference {got_r}"
    if got_c[0] == "value":
        assert same(got_c[1], got_r[1]), f"{text}: compiled {got_c[1]!r} but reference {got_r[1]!r}"
        assert same(got_c[1], got_g[1]), f"{text}: closures {got_c[1]!r} but generated {got_g[1]!r}"
    else:
        assert got_c[1] == got_r[1], f"{text}: compiled {got_c[1]} but reference {got_r[1]}"
        assert _located(lambda: compiled(_ctx())) == got_g, f"{text}: closures {got_c} but generated {got_g}"
    assert _spent(ctx_c) == _spent(ctx_g), f"{text}: closures charged {_spent(ctx_c)}, generated {_spent(ctx_g)}"
    for ctx in (ctx_c, ctx_r, ctx_g):
        assert ctx.vars == VARS, "evaluating an expression changed the state"
    assert ctx_c.env == LOCALS and ctx_g.env == LOCALS, "a comprehension leaked or lost a local"


@given(TYPED)
def test_agree_on_well_typed_expressions(text):
    check(text)


@given(ANY_TYPE)
@example('any(i > 1 for i in [3, "a"])')   # stops before the item that cannot be compared
@example('[i for i in xs] + [i]')          # the outer `i` is back after the comprehension
@example('[true] == [1]')
@example('[1] < ["a"]')
@example('get(m, [1], 0)')
@example('neighbors("b", 4, [1])')
@example("100000000000000001 / 1")
@example('int("²")')
@example("[i for i in range(6000)]")       # over the iteration budget in both
@example("[i for i in range(3000) if i in range(3000)]")  # `in` walks the list: over the budget at the same item
@example("[unique(range(2000)) for i in range(3)]")      # a builtin's list arguments cost their size
@example("[len(xs + xs) for i in range(3)]")
@example('unique([1, true, 1.0, [1], [true], [1.0], null, "1"])')
@example("sorted([true, 1])")
@example('sorted([[1, "a"], [1, 2]])')
@example("[1, true] < [1, 2]")
@example("xs in [xs, grid]")
@example('ray("b", 0, [0, 0])')
@example('[get(xs, i, 0) for i in [-4, -3, -1, 0, 2, 3, true, 1.0, "a"]]')  # `get` written out: bounds, types
@example('[get(m, key, -1) for key in ["a", "b", "z", 1, null]] + [get("ab", 0, 9)]')
@example('[len(v) for v in [xs, m, "abc", ""]] + [len(3)]')                 # `len` written out, then its error
@example("[[i, j] for i in xs if i > 1 for j in range(i) if j != i - 2]")   # each clause sees the ones before
@example("any(i == j for i in xs for j in [2, 9]) and not all(i < j for i in xs for j in xs)")
@example('index_where(i > 1 for i in [0, "a", 5])')                          # stops before the bad comparison
@example("index_where(j for i, j in grid if i > 1)")                         # the position counts filtered items
@example("(let i = xs; [i for i in i]) + [i]")                             # `let` ends with its body
@example("(let xs = 3; xs * 2) + len(xs)")                                   # and may hide a variable in it
@example("[i for i in range(70) for j in range(70) if i == j]")              # over the budget in the inner loop
def test_agree_on_any_expression_including_failing_ones(text):
    check(text)
