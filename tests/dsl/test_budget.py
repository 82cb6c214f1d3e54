"""The per-move budget: every operator and builtin is charged at least its real work and memory, before doing it.

Each case here was once work that escaped the budget: a charge computed from
a size that is not the cost (`[] * n`), an algorithm worse than its charge
(`ranks`), or memory no move paid for (neighbour tables built on first use).
"""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ruleplay.dsl import runtime as R
from ruleplay.dsl.builtins import BUILTINS
from ruleplay.dsl.compiler import Compiler
from ruleplay.dsl.geometry import Grid
from ruleplay.dsl.parser import parse_effects, parse_expr
from ruleplay.dsl.reference import ReferenceEvaluator
from ruleplay.dsl.scope import Scope
from ruleplay.engine.builders.components import flatten_graph

import networkx as nx

_STAR = nx.Graph()
_STAR.add_edges_from(("hub", f"n{i}") for i in range(5000))
MODEL = SimpleNamespace(
    component_ids=[f"c{i}" for i in range(5000)], components_by_kind={"c": [f"c{i}" for i in range(5000)]},
    component_props={}, boards={"big": Grid("big", 256, 256), "b": Grid("b", 4, 3)},
    graphs={"star": flatten_graph(_STAR)},
)
SCOPE = Scope(frozenset({"xs", "long"}), {})


def _ctx(iterations: int = 200_000, copies: int = 1_000_000, vars_: dict | None = None) -> R.Ctx:
    return R.Ctx(vars_ or {"xs": [], "long": "ab" * 50_000}, {"players": 2}, MODEL,
                 budget=R.Budget(iterations, 64, copies))


def both(text: str, **kwargs) -> tuple[object, R.Budget]:
    """The value of `text` by the compiler, checked against the reference evaluator; and the budget left."""
    compiler = Compiler()
    fn = compiler.expr(parse_expr(text), SCOPE)
    assert compiler.problems == []
    ctx = _ctx(**kwargs)
    value = fn(ctx)
    ref_ctx = _ctx(**kwargs)
    assert ReferenceEvaluator(SCOPE).eval(parse_expr(text), ref_ctx) == value
    assert (ref_ctx.budget.iterations, ref_ctx.budget.copies) == (ctx.budget.iterations, ctx.budget.copies)
    return value, ctx.budget


def refused(text: str, message: str, **kwargs) -> R.RuleRuntimeError:
    """Both evaluators refuse `text` with the same error, quickly (a refusal must not do the work first)."""
    errors = []
    for evaluate in (lambda c: Compiler().expr(parse_expr(text), SCOPE)(c),
                     lambda c: ReferenceEvaluator(SCOPE).eval(parse_expr(text), c)):
        began = time.perf_counter()
        with pytest.raises(R.RuleRuntimeError) as err:
            evaluate(_ctx(**kwargs))
        assert time.perf_counter() - began < 2
        assert message in err.value.message
        errors.append(err.value.message)
    assert errors[0] == errors[1]
    return err.value


# ------------------------------------------------------------------ list repetition
def test_an_empty_list_repeated_any_number_of_times_is_empty_and_costs_nothing():
    value, budget = both("[] * 1000000000000000000000")
    assert value == [] and budget.copies == 1_000_000


def test_a_repeated_list_is_charged_its_items_times_the_count_before_it_is_made():
    value, budget = both("[[1, 2], 3] * 4")
    assert value == [[1, 2], 3] * 4 and budget.copies == 1_000_000 - 4 * 4
    refused("[0] * 1000000000000000000000", "list repetition by 1000000000000000000000 is out of range")
    refused("[0] * -1", "the count must not be negative")
    refused("[0] * 90000", "values built or copied in one move are too large", copies=50_000)


def test_repetition_in_an_assignment_is_charged_the_same_way():
    compiler = Compiler()
    fn = compiler.block(parse_effects("xs *= 1000000000000000000000"), SCOPE)
    ctx = _ctx()
    fn(ctx)
    assert ctx.vars["xs"] == []
    ctx.vars["xs"] = [1]
    with pytest.raises(R.RuleRuntimeError, match="out of range"):
        fn(ctx)


# ------------------------------------------------------------------ slices and loops
def test_a_slice_is_charged_its_length():
    value, budget = both("long[0:60000]")
    assert len(value) == 60_000 and budget.copies == 1_000_000 - 60_000
    refused("long[10:]", "values built or copied in one move are too large", copies=1000)


def test_walking_a_text_is_charged_before_it_is_split_into_characters():
    refused("[c for c in long]", "effect iteration limit exceeded", iterations=1000)
    refused("any(c == 'z' for c in long)", "effect iteration limit exceeded", iterations=1000)
    compiler = Compiler()
    fn = compiler.block(parse_effects("for c in long { pass }"), SCOPE)
    with pytest.raises(R.LimitError, match="iteration limit"):
        fn(_ctx(iterations=1000))


# ------------------------------------------------------------------ builtins
def test_ranks_takes_n_log_n_time_and_is_charged_for_it():
    n = 60_000
    began = time.perf_counter()
    value, budget = both(f"ranks([x % 7 for x in range({n})])", iterations=10_000_000)
    # A guard against pairwise counting (n^2 = 3.6e9 comparisons: many minutes), not a speed measurement: the
    # bound holds on a loaded machine, where the sort takes a few seconds.
    assert time.perf_counter() - began < 60
    per_residue = [len(range(r, n, 7)) for r in range(7)]
    assert value[:7] == [sum(per_residue[r + 1:]) for r in range(7)] and value[7] == value[0]
    # range: n built; the comprehension: n turns; ranks: its list walked ceil(log2 n) = 16 times
    assert budget.iterations == 10_000_000 - n - 16 * n
    assert both("ranks([2, 1.0, 1, 3])")[0] == [1, 2, 2, 0]  # 1 == 1.0: one rank


@pytest.mark.parametrize("text, walks", [
    ("sorted(xs)", 10), ("ranks(xs)", 10), ("keys(m)", 10), ("values(m)", 10),
    ("reversed(xs)", 1), ("unique(xs)", 1),
])
def test_builtins_that_sort_pay_one_walk_per_halving(text, walks):
    xs = list(range(1000, 0, -1))
    compiler = Compiler()
    scope = Scope(frozenset({"xs", "m"}), {})
    fn = compiler.expr(parse_expr(text), scope)
    ctx = R.Ctx({"xs": xs, "m": {str(x): x for x in xs}}, {"players": 2}, MODEL, budget=R.Budget(10 ** 6, 64))
    fn(ctx)
    assert ctx.budget.iterations == 10 ** 6 - walks * 1000


@pytest.mark.parametrize("text, message", [
    ("range(90000)", "values built or copied in one move are too large"),
    ("repeat(0, 90000)", "values built or copied in one move are too large"),
    ('cells("big")', "values built or copied in one move are too large"),
    ('components("c")', "values built or copied in one move are too large"),
    ('area("big", 0, 200, 200)', "values built or copied in one move are too large"),
    ('nodes("star")', "values built or copied in one move are too large"),
    ('adjacent("star", "hub")', "values built or copied in one move are too large"),
    ('join(repeat("ab", 3000))', "values built or copied in one move are too large"),
])
def test_builtins_whose_result_outgrows_their_arguments_pay_for_it_first(text, message):
    err = refused(text, message, copies=4000 if "join" not in text else 7000)
    assert err.message.startswith(text.split("(")[0] + "(): ")


@pytest.mark.parametrize("text", [
    'flood("big", 0, 1000, "king", [], [])',
    'reachable("star", "hub")',
    'distance("star", "hub", "nowhere")',
])
def test_searches_stop_as_soon_as_the_budget_is_spent(text):
    refused(text, "effect iteration limit exceeded", iterations=500)


def test_flood_reads_its_cell_lists_by_value_and_takes_any_value():
    assert both('flood("b", 0, 1, "orthogonal", [1.0], [])')[0] == [4]  # 1.0 == 1: the cell is blocked
    assert both('flood("b", 0, 1, "orthogonal", [true, [1], "1"], [])')[0] == [1, 4]  # none of these is 1


def test_neighbour_lookups_build_no_tables():
    """A table per board and direction set, built on first use, was memory no move paid for."""
    grids = [Grid(f"g{i}", 256, 256) for i in range(3)]
    for g in grids:
        for dirset in ("orthogonal", "diagonal", "king", "knight"):
            g.neighbors(g.size - 1, dirset)
        assert vars(g) == {"name": g.name, "width": 256, "height": 256, "own_sets": {}}
    assert grids[0].neighbors(0, "king") == [1, 257, 256]
    assert BUILTINS["neighbors"].linear


def test_every_builtin_is_charged_or_constant_time():
    """A builtin marked constant-time must be one: it walks no list and builds no list or text."""
    assert sorted(name for name, spec in BUILTINS.items() if not spec.linear) == ["get", "len", "str"]
    for name, spec in BUILTINS.items():
        assert not spec.prepaid or spec.needs_ctx, f"{name} charges its result itself, so it needs the ctx"
    # Every other builtin makes a result no larger than a few times its (scanned) arguments, or than a
    # board's edge (ray, line_of, perimeter) or the seats: the scan charged that work before the call.
    assert sorted(name for name, spec in BUILTINS.items() if spec.prepaid) == [
        "adjacent", "area", "cells", "components", "flood", "join", "nodes", "range", "reachable", "repeat"]
    assert sorted(name for name, spec in BUILTINS.items() if spec.sorts) == ["keys", "ranks", "sorted", "values"]


def test_log_keeps_a_charged_copy_of_the_value_as_it_was():
    compiler = Compiler()
    fn = compiler.block(parse_effects("log xs append 4 to xs log xs"), SCOPE)
    ctx = _ctx(vars_={"xs": [1, 2, 3], "long": ""})
    fn(ctx)
    assert ctx.log == [[1, 2, 3], [1, 2, 3, 4]]
    assert ctx.budget.copies == 1_000_000 - 3 - 4  # two lists logged; the appended int is no list
    fn = compiler.block(parse_effects("repeat 1000 { log xs }"), SCOPE)
    with pytest.raises(R.LimitError, match="values built or copied"):
        fn(_ctx(vars_={"xs": list(range(5000)), "long": ""}))


def _counted(value: object, levels: int) -> int:
    """The reference count of `size`: every list item and map entry, nested ones included."""
    if type(value) not in (list, dict):
        return 0
    if levels == 0:
        raise R.LimitError("too deep", None)
    items = value if type(value) is list else list(value.values())  # type: ignore[union-attr]
    return len(items) + sum(_counted(item, levels - 1) for item in items)


_VALUES = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=2),
                       lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=2), inner,
                                                                                   max_size=4), max_leaves=40)


@settings(max_examples=60, deadline=None)
@given(_VALUES, st.integers(0, 60))
def test_size_counts_every_item_up_to_its_cap_and_refuses_what_is_nested_too_deep(value, cap) -> None:
    check_size(value, cap)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(_VALUES, st.integers(0, 60))
def test_size_counts_every_item_up_to_its_cap_at_length(value, cap) -> None:
    check_size(value, cap)


def check_size(value: object, cap: int) -> None:
    """`size` of a value, and of it nested close to the limit, is the reference count up to `cap`."""
    wrapped = value
    for _ in range(R.MAX_NESTING - 3):
        wrapped = [wrapped]  # close to the nesting limit: the short-item path must not pass it
    for candidate in (value, wrapped):
        try:
            expected = _counted(candidate, R.MAX_NESTING)
        except R.LimitError:
            with pytest.raises(R.LimitError, match="nested more than"):
                R.size(candidate, 10**9)
            continue
        got = R.size(candidate, cap)
        assert got == expected if expected <= cap else got > cap
        assert R.size(candidate, 10**9) == expected
