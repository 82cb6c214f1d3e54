"""Filter tables (`dsl.tables`): which loops are tabled, what a table keeps, and when it declines.

That a tabled loop plays exactly as the loop as written (values, errors and
budgets) is tested with the other generated code, in test_codegen.py.
"""

from __future__ import annotations

import pytest

from ruleplay.dsl import runtime as R
from ruleplay.dsl import tables
from ruleplay.dsl.compiler import Compiler
from ruleplay.dsl.parser import parse_expr
from ruleplay.dsl.scope import Scope
from ruleplay.dsl.tables import FilterTable, filter_names

LINES = [[0, 1, 2], [3, 4, 5], [0, 4, 8]]
SCOPE = Scope(frozenset({"board"}), {"lines": LINES, "k": 1}).with_locals("cell", "p")


def _cond(text: str):
    return parse_expr(f"[l for l in lines if {text}]").cond


@pytest.mark.parametrize("text, free", [
    ("cell in l", ["cell"]),
    ("cell in l and k == 1", ["cell"]),
    ("l[0] == 0", []),
    ("not (p in l) or cell == 3", ["cell", "p"]),
])
def test_a_filter_of_locals_and_constants_is_tabled(text, free):
    assert filter_names(_cond(text), SCOPE.with_locals("l"), ("l",)) == free


@pytest.mark.parametrize("text", [
    "cell in board",             # reads the state
    "current in l",              # reads the flow
    "len(l) > cell",             # calls a builtin
    "cell in l and p in l",      # two operators that charge: a lump that does not fit has two places to fail
    "[cell] == l",               # builds a list
])
def test_a_filter_that_reads_more_is_not(text):
    assert filter_names(_cond(text), SCOPE.with_locals("l"), ("l",)) is None


def _table(text: str, items: list = LINES) -> FilterTable:
    inner = SCOPE.with_locals("l")
    cond = _cond(text)
    return FilterTable(items, ("l",), filter_names(cond, inner, ("l",)), Compiler().expr(cond, inner), cond.pos)


def _ctx() -> R.Ctx:
    return R.Ctx({}, {}, None, budget=R.Budget(1000, 8))


def test_a_table_keeps_the_selected_items_and_the_iterations_their_filters_cost():
    selected, tail, rest = _table("cell in l").entries(_ctx(), (4,))
    # each `in` walks a line of 3: the first line is rejected, its cost is carried by the second
    assert selected == [([3, 4, 5], 6, (0, 1)), ([0, 4, 8], 3, (2,))]
    assert (tail, rest) == (0, ())
    selected, tail, rest = _table("cell in l").entries(_ctx(), (1,))
    assert selected == [([0, 1, 2], 3, (0,))] and (tail, rest) == (6, (1, 2))


def test_values_equal_in_python_but_not_in_the_rules_get_their_own_entries():
    table = _table("cell == l[0]")
    assert [item for item, _, _ in table.entries(_ctx(), (0,))[0]] == [[0, 1, 2], [0, 4, 8]]
    assert table.entries(_ctx(), (False,))[0] == []  # false is not 0


@pytest.mark.parametrize("value", [1.0, [1], {"a": 1}])
def test_a_value_that_is_no_plain_scalar_runs_the_loop_as_written(value):
    assert _table("cell in l").entries(_ctx(), (value,)) is None


def test_a_filter_that_raises_for_some_values_runs_the_loop_as_written_for_them():
    table = _table("cell in l", LINES + [7])  # `in` on a number raises
    assert table.entries(_ctx(), (4,)) is None


def test_the_number_of_kept_combinations_is_bounded(monkeypatch):
    monkeypatch.setattr(tables, "MAX_KEYS", 2)
    table = _table("cell in l")
    assert table.entries(_ctx(), (0,)) is not None and table.entries(_ctx(), (1,)) is not None
    assert table.entries(_ctx(), (2,)) is None
    assert table.entries(_ctx(), (0,)) is not None  # kept ones stay


def test_a_lump_that_does_not_fit_fails_where_the_filter_would():
    table = _table("cell in l")
    ctx = R.Ctx({}, {}, None, budget=R.Budget(4, 8))
    with pytest.raises(R.LimitError) as err:
        table.replay(ctx, (4,), (0, 1))
    assert err.value.pos == _cond("cell in l").pos
    assert ctx.budget.iterations < 0


def test_tic_tac_toe_tables_its_lines():
    from ruleplay import load_game

    game = load_game("tic-tac-toe")
    fn = game.model.function_bodies["completes_line"]
    found = [v for v in fn.__globals__.values() if isinstance(v, FilterTable)]
    assert len(found) == 1
    state = game.new_state(0).apply("place(4)").apply("place(0)")
    assert state.data["vars"]["board"][4] == 0
    assert found[0]._entries  # the centre's four lines were selected once, and kept


def _charges(call, ctx, args) -> tuple:
    """What one call gives and leaves: its result or error, and the budget after it."""
    try:
        outcome = ("ok", call(ctx, args))
    except R.RuleRuntimeError as err:
        outcome = (type(err).__name__, err.message, err.pos)
    return outcome, ctx.budget.iterations, ctx.budget.copies


@pytest.mark.parametrize("game, fn, args", [
    ("connect-four", "line_of", ["grid", 17, "SE"]),
    ("connect-four", "cell", ["grid", 3, 0]),
    ("connect-four", "cells", ["grid"]),
    ("connect-four", "line_of", ["nope", 17, "SE"]),   # raises each time
    ("connect-four", "line_of", ["grid", [1], "SE"]),  # no scalar: never kept
    ("lovci-pokladu", "adjacent", ["king", 24]),
    ("lovci-pokladu", "reachable", ["knight", 24, 2]),
])
def test_a_static_builtin_charges_and_gives_what_the_builtin_does(game, fn, args):
    from ruleplay import load_game
    from ruleplay.dsl.builtins import BUILTINS, invoke
    from ruleplay.dsl.tables import BuiltinTable

    model = load_game(game, players=2).model
    spec, pos = BUILTINS[fn], _cond("cell in l").pos
    table = BuiltinTable(spec)
    for iterations in (0, 1, 5, 40, 500, 100_000):  # budgets that do not fit, fit exactly, and fit easily
        for copies in (0, 3, 100_000):
            for _ in range(2):  # made, then read from the table
                want = _charges(lambda c, a: invoke(spec, c, a, pos),
                                R.Ctx({}, {}, model, budget=R.Budget(iterations, 8, copies)), list(args))
                got = _charges(lambda c, a: table.call(c, a, pos),
                               R.Ctx({}, {}, model, budget=R.Budget(iterations, 8, copies)), list(args))
                assert got == want, (iterations, copies)


@pytest.mark.parametrize("text", ['line_of("grid", c, d)', 'xy("grid", c)', 'cell("grid", c, 0)',
                                  'line_of(g, c, d)'])
def test_generated_code_reads_a_kept_result_inline_as_the_table_would(text):
    """The inline read of `BuiltinTable.plain`: the same values, errors and budgets as the closures' calls,
    for arguments that are kept (whole numbers, texts) and that are not (true, 17.0, a list)."""
    from ruleplay import load_game
    from ruleplay.dsl.codegen import Codegen

    model = load_game("connect-four").model
    scope = Scope(frozenset(), {}).with_locals("c", "d", "g")
    node = parse_expr(text)
    generated, closures = Codegen().expr(node, scope), Compiler().expr(node, scope)

    def run(fn, env: dict, iterations: int, copies: int) -> tuple:
        outcome = _charges(lambda ctx, _: fn(ctx), R.Ctx({}, {}, model, env=env, budget=R.Budget(iterations, 8,
                                                                                                   copies)), None)
        if outcome[0][0] == "ok" and type(outcome[0][1]) is list:
            outcome[0][1].append("changed")  # a caller may change what it got: the kept value must not change
        return outcome

    for c in (17, 3, True, 17.0, [1], -1, 99):
        for d in ("SE", "S", 1):
            env = {"c": c, "d": d, "g": "grid"}
            full = run(closures, env, 100_000, 100_000)
            used = (100_000 - full[1], 100_000 - full[2])
            for iterations in {0, used[0], max(0, used[0] - 1), 100_000}:  # too little, exactly enough, plenty
                for copies in {0, used[1], max(0, used[1] - 1), 100_000}:
                    for _ in range(2):  # made, then read back
                        assert run(generated, env, iterations, copies) == run(closures, env, iterations, copies), \
                            (c, d, iterations, copies)


def test_a_kept_result_is_handed_out_as_a_copy():
    from ruleplay import load_game
    from ruleplay.dsl.builtins import BUILTINS
    from ruleplay.dsl.tables import BuiltinTable

    model = load_game("connect-four").model
    table = BuiltinTable(BUILTINS["line_of"])
    first = table.call(R.Ctx({}, {}, model), ["grid", 17, "S"], None)
    first.append("changed")
    assert "changed" not in table.call(R.Ctx({}, {}, model), ["grid", 17, "S"], None)


# ------------------------------------------------------------ static user functions
def _static(functions: dict[str, tuple[tuple[str, ...], str]]) -> dict[str, int]:
    from ruleplay.dsl.scope import Callable_
    scope = Scope(frozenset({"board", "n"}), {"lines": LINES, "k": 1},
                  functions={f: Callable_(f, params) for f, (params, _) in functions.items()})
    return tables.static_functions({f: parse_expr(body) for f, (_, body) in functions.items()}, scope)


def test_a_function_of_its_arguments_and_constants_is_static_with_the_height_of_its_calls():
    assert _static({
        "one": (("a",), "a + k"),  # static, but cheaper to run than to look up: not tabled
        "two": (("a", "b"), "one(a) * len([l for l in lines if b in l])"),
        "three": (("a",), "two(a, one(a)) + len(cells(\"sq\")) + xy(\"sq\", a)[0]"),
        "loop": (("a",), "[n for n in range(a)]"),  # `n` is the loop's own name here, not the state's
        "lookup": (("a",), "kind(a) == \"red\""),  # one call: not tabled
    }) == {"two": 1, "three": 2, "loop": 0}


@pytest.mark.parametrize("body", [
    "a + n",                      # reads the state
    "a + current",                # reads the flow
    "[n for n in n]",             # the loop's source is read outside the loop: the state's `n`
    "len([1 for v in range(a)]) + len(board)",
    "a + seats()[0]",             # a builtin that reads the flow
    "a + reads(a)",               # calls a function that reads the state
    "a + self(a - 1)",            # calls itself
    "a + other(a)",               # ... through another
    "a + nowhere(a)",             # an unknown name is nothing static
])
def test_a_function_that_reads_more_or_recurses_is_not(body):
    work = "len([x for x in range(3)])"  # enough to be worth tabling, were it static
    found = _static({"f": (("a",), f"{work} + len({body})"), "reads": (("a",), "board[a]"),
                     "self": (("a",), f"{work} + self(a)"), "other": (("a",), f"{work} + f(a)")})
    assert "f" not in found and _static({"f": (("a",), f"{work} + len(a + k)")}) == {"f": 0}


def _table_ctx(iterations: int = 1000, depth: int = 0, max_depth: int = 4) -> R.Ctx:
    budget = R.Budget(iterations, max_depth, 500)
    budget.depth = depth
    return R.Ctx({}, {}, None, env={"a": 3}, budget=budget)


def _counting_body(calls: list):
    def body(ctx):
        calls.append(ctx.env["a"])
        ctx.budget.spend(5, None)
        result = [ctx.env["a"]] * 3
        ctx.budget.charge(result, None)
        return result
    return body


def test_a_function_table_charges_what_the_body_charged_and_hands_out_copies():
    calls: list = []
    table = tables.FunctionTable(_counting_body(calls), ("a",), 0)
    first, second = _table_ctx(), _table_ctx()
    got = table.call(first)
    again = table.call(second)
    assert calls == [3] and got == again == [3, 3, 3] and again is not table.call(_table_ctx())
    assert (second.budget.iterations, second.budget.copies) == (first.budget.iterations, first.budget.copies) \
        == (995, 497)


def test_a_function_table_runs_the_body_when_its_charges_or_its_calls_would_not_fit():
    calls: list = []
    table = tables.FunctionTable(_counting_body(calls), ("a",), 2)
    table.call(_table_ctx())
    with pytest.raises(R.LimitError, match="iteration limit"):
        table.call(_table_ctx(iterations=4))      # 5 iterations do not fit: the body runs, and raises itself
    table.call(_table_ctx(depth=3, max_depth=4))  # two more levels of calls would pass max_depth 4
    table.call(_table_ctx(depth=2, max_depth=4))  # they fit: looked up
    table.call(R.Ctx({}, {}, None, env={"a": [1]}, budget=R.Budget(100, 4, 100)))  # no plain scalar
    assert calls == [3, 3, 3, [1]]


@pytest.mark.parametrize("game, expected", [
    ("nautilus", {"centre", "direction_at", "exit_cell", "manhattan", "near_slots", "slot_cells", "slot_of"}),
    ("lovci-pokladu", set()),  # its static helpers are all arithmetic (`at`, `sign`, ...)
    ("nautilus-cards", set()),
])
def test_the_seed_games_geometry_helpers_are_tabled(game, expected):
    from ruleplay import load_game
    bodies = load_game(game, players=2).model.function_bodies
    tabled = {f for f, body in bodies.items() if isinstance(getattr(body, "__self__", None), tables.FunctionTable)}
    assert tabled == expected


def test_a_long_chain_of_static_functions_is_worked_out_without_python_recursion():
    chain = {f"f{i}": (("a",), f"f{i + 1}(a) + f{i + 1}(a)") for i in range(2999)}
    chain["f2999"] = (("a",), "len(range(a)) + len(range(a))")
    found = _static(chain)
    assert found["f0"] == 2999 and found["f2999"] == 0 and len(found) == 3000
