"""The compiler: what every operator and statement means, and how each one fails."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from ruleplay.dsl import runtime as R
from ruleplay.dsl.compiler import Compiler
from ruleplay.dsl.parser import parse_effects, parse_expr
from ruleplay.dsl.scope import Callable_, Scope
from ruleplay.engine.rng import Rng

MODEL = SimpleNamespace(
    component_ids=["r1", "b1"],
    components_by_kind={"card": ["r1", "b1"]},
    component_props={"r1": {"id": "r1", "kind": "card", "colour": "red", "rank": 1},
                     "b1": {"id": "b1", "kind": "card", "colour": "blue", "rank": 2}},
    boards={}, graphs={},
)
CONSTANTS = {"limit": 3, "table": {"a": 1, "b": [1, 2]}, "names": ["x", "y"]}
SCOPE = Scope(frozenset({"xs", "n", "grid", "hand", "pile", "log_", "m"}), CONSTANTS)


def fresh_vars() -> dict:
    return {"xs": [1, 2, 3], "n": 0, "grid": [[0, 0], [0, 0]], "hand": ["r1", "b1"], "pile": [],
            "log_": [], "m": {"k": 1}}


def ctx(vars_=None, env=None, iterations=100_000, depth=64, rng=None) -> R.Ctx:
    flow = {"seat": 1, "players": 2, "round": 3, "phase": "main", "stage": None, "start": 0, "turn": 5}
    return R.Ctx(fresh_vars() if vars_ is None else vars_, flow, MODEL, rng=rng, env=env,
                 budget=R.Budget(iterations, depth))


def ev(text: str, scope: Scope = SCOPE, **kwargs):
    compiler = Compiler()
    fn = compiler.expr(parse_expr(text), scope)
    assert compiler.problems == []
    return fn(ctx(**kwargs))


def run(text: str, scope: Scope = SCOPE, vars_=None, **kwargs) -> tuple[dict, R.Ctx]:
    compiler = Compiler()
    fn = compiler.block(parse_effects(text), scope)
    assert compiler.problems == [], compiler.problems
    c = ctx(vars_, **kwargs)
    fn(c)
    return c.vars, c


def fails(text: str, message: str, effects: bool = False, **kwargs) -> R.RuleRuntimeError:
    with pytest.raises(R.RuleRuntimeError) as err:
        run(text, **kwargs) if effects else ev(text, **kwargs)
    assert message in err.value.message
    assert err.value.pos is not None and err.value.pos.line == 1
    return err.value


# ----------------------------------------------------------------- names
def test_names_resolve_to_locals_then_state_then_flow_then_constants():
    assert ev("xs") == [1, 2, 3]
    assert ev("current") == 1 and ev("players") == 2 and ev("round") == 3 and ev("phase") == "main"
    assert ev("stage") is None and ev("start_player") == 0 and ev("turn") == 5
    assert ev("limit") == 3
    assert ev("xs", SCOPE.with_locals("xs"), env={"xs": "local"}) == "local"


# ------------------------------------------------------------ arithmetic
@pytest.mark.parametrize("text, value", [
    ("1 + 2", 3), ("1 + 2.5", 3.5), ("7 - 10", -3), ("3 * 4", 12), ("2.5 * 2", 5.0),
    ("6 / 3", 2), ("7 / 2", 3.5), ("7 // 2", 3), ("-7 // 2", -4), ("7 % 3", 1), ("-7 % 3", 2),
    ("100000000000000001 / 1", 100000000000000001),
    ('"ab" + "cd"', "abcd"), ("[1] + [2, 3]", [1, 2, 3]), ("[0] * 3", [0, 0, 0]), ("[] * 5", []),
    ("-(2 + 3)", -5), ("- 2.5", -2.5),
])
def test_arithmetic(text, value):
    result = ev(text)
    assert result == value and type(result) is type(value)


def test_exact_division_of_ints_stays_int():
    assert type(ev("6 / 3")) is int
    assert type(ev("6.0 / 3")) is float


def test_list_repetition_copies_nested_lists():
    assert ev("[[0]] * 2") == [[0], [0]]
    vars_, _ = run("grid = [[0]] * 2\ngrid[0][0] = 7")
    assert vars_["grid"] == [[7], [0]]


@pytest.mark.parametrize("text, message", [
    ('"a" + 1', "cannot apply `+` to string and int"),
    ("[1] - 2", "cannot apply `-` to list and int"),
    ("true + 1", "cannot apply `+` to bool and int"),
    ("null * 2", "cannot apply `*` to null and int"),
    ("2 * [1]", "cannot apply `*` to int and list"),
    ('"ab" * 2', "cannot apply `*` to string and int"),
    ("1 / 0", "division by zero in `/`"),
    ("1 // 0", "division by zero in `//`"),
    ("1 % 0.0", "division by zero in `%`"),
    ("[1] * -1", "list repetition by -1 is out of range"),
    ("[1, 2] * 60000", "out of range"),
    ('-"a"', "cannot negate string"),
    ("-true", "cannot negate bool"),
])
def test_arithmetic_errors(text, message):
    fails(text, message)


BIG = 2 ** 1023  # numbers are capped at 1024 bits: 2 * BIG - 1 is the largest int the rules keep


@pytest.mark.parametrize("text, message", [
    # Every integer result is checked, not only products: a sum can double in each step of a loop.
    ("n + n", "`+` makes a number of 1025 bits; numbers are capped at 1024 bits"),
    ("-n - n", "`-` makes a number of 1025 bits"),
    ("n - (-n)", "`-` makes a number of 1025 bits"),
    ("n * 2", "`*` makes a number of 1025 bits"),
    ("(n + (n - 1)) + 0.5", "`+` result is too large (int + number)"),  # no float is that large
    # A float past its range would be inf (or then nan): neither is a number JSON can hold.
    ("f * f", "`*` makes a number too large for a float (inf)"),
    ("f + f", "`+` makes a number too large for a float"),
    ("-f - f", "`-` makes a number too large for a float (-inf)"),
    ("f / 0.5", "`/` makes a number too large for a float"),
    ("f // 0.5", "`//` makes a number too large for a float"),
])
def test_numbers_out_of_range_are_rule_errors(text, message):
    vars_ = fresh_vars() | {"n": BIG, "f": 1e308}
    fails(text, message, scope=Scope(SCOPE.state_vars | {"f"}, CONSTANTS), vars_=vars_)


def test_numbers_up_to_the_cap_are_kept():
    assert ev("n + (n - 1)", vars_=fresh_vars() | {"n": BIG}) == 2 ** 1024 - 1
    assert ev("(-n) - n", vars_=fresh_vars() | {"n": BIG - 1}) == -(2 ** 1024) + 2
    assert ev("n * 1.5", vars_=fresh_vars() | {"n": 1e300}) == 1.5e300


def test_a_sum_that_doubles_in_a_loop_stops_at_the_cap():
    err = fails("n = 1 repeat 2000 { n = n + n }", "numbers are capped at 1024 bits", effects=True)
    assert err.code == "RP500"
    fails("n = 1 repeat 2000 { n += n }", "numbers are capped at 1024 bits", effects=True)


# ----------------------------------------------------------- comparisons
@pytest.mark.parametrize("text, value", [
    ("1 < 2", True), ("2 <= 2", True), ("3 > 4", False), ("1.5 >= 1", True),
    ('"abc" < "abd"', True), ("[1, 2] < [1, 3]", True), ("[2] > [1, 9]", True),
    ("1 == 1.0", True), ("1 != 2", True), ("2 != 2", False), ('"a" == "a"', True), ("null == null", True),
    ("true == 1", False), ("1 == true", False), ("0 == false", False), ("[true] == [1]", False),
    ("[[1, true]] == [[1, true]]", True), ("table == table", True), ('"1" == 1', False),
    ("null != 0", True), ('x == "a"', False),
])
def test_comparisons(text, value):
    assert ev(text, SCOPE.with_locals("x"), env={"x": 1}) is value


@pytest.mark.parametrize("text, message", [
    ('"a" < 1', "cannot compare string with int using `<`"),
    ("null >= 0", "cannot compare null with int using `>=`"),
    ("true < false", "cannot compare bool with bool"),
    ('[1] < ["a"]', "cannot compare lists whose items differ in type"),
    ("table < table", "cannot compare map with map"),
    # Lists compare at their first items that differ, and `true` differs from `1` but is not below it.
    ("[true] < [1]", "cannot compare lists whose items differ in type using `<` (bool with int)"),
    ("[1, false] >= [1, 0]", "cannot compare lists whose items differ in type using `>=` (bool with int)"),
])
def test_comparison_errors(text, message):
    fails(text, message)


@pytest.mark.parametrize("text, value", [
    ("[1, true] < [2, false]", True), ("[null, 1] < [null, 2]", True), ("[1, 2.5] > [1, 2]", True),
    ('[[1, "a"]] < [[1, "b"]]', True), ("[1] < [1, 0]", True), ("[[1]] <= [[1]]", True), ("[] < [null]", True),
])
def test_lists_compare_at_their_first_differing_items(text, value):
    assert ev(text) is value


@pytest.mark.parametrize("text, value", [
    ("2 in xs", True), ("5 in xs", False), ("5 not in xs", True), ("1 in [true]", False),
    ("true in [1]", False), ("1.0 in [1]", True), ("[1] in [[1], [2]]", True), ("null in [null]", True),
    ('"a" in table', True), ('"z" in table', False), ("1 in table", False),
    ('"bc" in "abcd"', True), ('"x" not in "abc"', True),
])
def test_membership(text, value):
    assert ev(text) is value


def test_membership_errors():
    fails("1 in 5", "`in` needs a list, map or string, not int")
    fails('1 in "abc"', "`in` needs a list, map or string, not string")


# ----------------------------------------------------- logic and conditionals
def test_and_or_give_booleans_and_stop_early():
    assert ev("1 and 2") is True
    assert ev("0 or []") is False
    assert ev("false and 1 / 0 == 1") is False
    assert ev("true or 1 / 0 == 1") is True
    assert ev("not []") is True and ev("not 3") is False


def test_conditional_expression_evaluates_one_branch():
    assert ev("if n == 0 then 1 else 1 / 0") == 1
    assert ev("if xs then \"some\" else \"none\"") == "some"


# --------------------------------------------------------- index and fields
@pytest.mark.parametrize("text, value", [
    ("xs[0]", 1), ("xs[-1]", 3), ('"abc"[1]', "b"), ('table["b"][1]', 2), ("table.a", 1),
    ("xs[1:]", [2, 3]), ("xs[:-1]", [1, 2]), ("xs[5:]", []), ('"hello"[1:3]', "el"), ("xs[null:1]", [1]),
    ('"r1".colour', "red"), ("hand[1].rank", 2), ('"b1".kind', "card"), ('"b1".id', "b1"),
])
def test_indexing_slicing_and_fields(text, value):
    assert ev(text) == value


@pytest.mark.parametrize("text, message", [
    ("xs[3]", "index 3 is out of range for a list of length 3"),
    ("xs[-4]", "index -4 is out of range"),
    ('xs["a"]', "a list index must be an int, not string"),
    ("xs[true]", "a list index must be an int, not bool"),
    ("table[1]", "a map key must be a string, not int"),
    ('table["zz"]', "no key 'zz' in map (keys: a, b)"),
    ("n[0]", "cannot index int"),
    ("n[0:1]", "cannot slice int"),
    ('xs[0:"a"]', "slice bounds must be ints, not string"),
    ("table.zz", "no field 'zz' (fields: a, b)"),
    ('"r1".size', "component 'r1' has no property 'size'"),
    ('"nope".colour', "'nope' is not a component, so it has no property 'colour'"),
    ("xs.colour", "list has no field 'colour'"),
])
def test_index_and_field_errors(text, message):
    fails(text, message)


# -------------------------------------------------------------- comprehensions
def test_comprehension_filters_unpacks_and_does_not_leak_its_variables():
    assert ev("[x * 2 for x in xs if x != 2]") == [2, 6]
    assert ev("[k for k in table]") == ["a", "b"]
    assert ev("[c for c in \"ab\"]") == ["a", "b"]
    assert ev("[i + x for i, x in enumerate(xs)]") == [1, 3, 5]
    scope = SCOPE.with_locals("x")
    assert ev("[x for x in xs] + [x]", scope, env={"x": 9}) == [1, 2, 3, 9]


def test_comprehension_errors():
    fails("[x for x in 5]", "cannot iterate over int")
    fails("[a for a, b in xs]", "cannot unpack int into 2 names")


def test_any_and_all_over_generators_stop_at_the_first_deciding_item():
    assert ev('any(x > 1 for x in [1, 2, "a"])') is True
    assert ev('all(x < 2 for x in [1, 2, "a"])') is False
    assert ev("any(x > 5 for x in xs)") is False
    assert ev("all(x > 0 for x in [])") is True
    fails('any(x > 5 for x in [1, "a"])', "cannot compare string with int")


# ------------------------------------------------------------------ statements
def test_assignment_copies_values():
    vars_, _ = run("pile = xs\nappend 4 to pile")
    assert vars_["xs"] == [1, 2, 3] and vars_["pile"] == [1, 2, 3, 4]


def test_augmented_assignment_copies_like_assignment():
    vars_, c = run("pile += [xs]\nxs[0] = 99")
    assert vars_["pile"] == [[1, 2, 3]]  # not changed through xs
    assert R.DEFAULT_COPIES - c.budget.copies >= 4  # the copy, [[1, 2, 3]], is charged
    vars_, _ = run("grid = [[0]]\ngrid[0] += [grid]")
    assert vars_["grid"] == [[0, [[0]]]]  # a copy of grid as it was, not grid itself
    assert vars_["grid"][0][1] is not vars_["grid"]


def test_augmented_assignment_of_a_shared_list_is_charged_in_full():
    big = list(range(1000))
    err = fails("pile = [xs] repeat 10 { pile += pile }", "values built or copied in one move are too large",
                effects=True, vars_=fresh_vars() | {"xs": big})
    assert err.code == "RP501"


def test_nested_and_augmented_assignment():
    vars_, _ = run('grid[1][0] = 5\nn += 2\nn *= 10\nn -= 1\nm.k = "v"\nm["new"] = 1\nxs[-1] += 10')
    assert vars_["grid"] == [[0, 0], [5, 0]]
    assert vars_["n"] == 19
    assert vars_["m"] == {"k": "v", "new": 1}
    assert vars_["xs"] == [1, 2, 13]


@pytest.mark.parametrize("text, message", [
    ("xs[3] = 1", "cannot assign at index 3 of a list of length 3"),
    ('xs["a"] = 1', "cannot assign at index 'a'"),
    ("m[1] = 1", "a map key must be a string, not int"),
    ("n[0] = 1", "cannot assign into a int"),
    ('n += "a"', "cannot apply `+` to int and string"),
    ("grid[5][0] = 1", "index 5 is out of range"),
])
def test_assignment_errors(text, message):
    fails(text, message, effects=True)


def test_let_copies_and_may_be_changed():
    vars_, c = run("let a = xs\nappend 9 to a\na[0] = 7\npile = a")
    assert vars_["xs"] == [1, 2, 3]
    assert vars_["pile"] == [7, 2, 3, 9]


def test_if_elif_else_runs_the_first_true_branch():
    program = 'if n > 5 { pile = ["big"] } elif n > 0 { pile = ["small"] } else { pile = ["zero"] }'
    for value, want in [(9, "big"), (1, "small"), (0, "zero")]:
        vars_ = fresh_vars()
        vars_["n"] = value
        assert run(program, vars_=vars_)[0]["pile"] == [want]


def test_for_loops_and_the_loop_variable_is_scoped_to_the_loop():
    vars_, _ = run("for x in xs { n += x }\nfor i, x in enumerate(xs) { grid[0][0] += i * x }")
    assert vars_["n"] == 6 and vars_["grid"][0][0] == 8
    scope = SCOPE.with_locals("x")
    vars_, c = run("for x in xs { pass }\nn = x", scope, env={"x": 42})
    assert vars_["n"] == 42 and c.env == {"x": 42}
    vars_, _ = run("let x = 5\nfor x in xs { pass }\nn = x")
    assert vars_["n"] == 5


def test_repeat():
    assert run("repeat 4 { n += 1 }")[0]["n"] == 4
    assert run("repeat 0 { n += 1 }")[0]["n"] == 0
    fails("repeat -1 { pass }", "repeat needs a non-negative int, not -1", effects=True)
    fails('repeat "3" { pass }', "repeat needs a non-negative int", effects=True)


def test_list_statements():
    vars_, _ = run("append [1] to pile\nprepend 0 to pile\nremove 2 from xs\nmove \"r1\" from hand to pile")
    assert vars_["pile"] == [0, [1], "r1"] and vars_["xs"] == [1, 3] and vars_["hand"] == ["b1"]
    vars_, _ = run("draw 2 from xs to pile")
    assert vars_["xs"] == [3] and vars_["pile"] == [1, 2]
    vars_, _ = run("draw 0 from xs to pile")
    assert vars_["xs"] == [1, 2, 3] and vars_["pile"] == []


def test_appended_values_are_copies():
    vars_, _ = run("append grid to pile\ngrid[0][0] = 1")
    assert vars_["pile"] == [[[0, 0], [0, 0]]]


@pytest.mark.parametrize("text, message", [
    ("remove 9 from xs", "9 is not in xs"),
    ("move 9 from xs to pile", "9 is not in xs"),
    ("draw 4 from xs to pile", "cannot draw 4 from xs: only 3 left"),
    ("draw -1 from xs to pile", "draw needs a non-negative int"),
    ("append 1 to n", "`n` is a int, not a list"),
    ("shuffle xs", "shuffle needs the game's random generator"),
])
def test_list_statement_errors(text, message):
    fails(text, message, effects=True)


def test_shuffle_uses_the_state_generator_deterministically():
    first, _ = run("xs = range(20)\nshuffle xs", rng=Rng(7))
    again, _ = run("xs = range(20)\nshuffle xs", rng=Rng(7))
    other, _ = run("xs = range(20)\nshuffle xs", rng=Rng(8))
    assert first["xs"] == again["xs"] != other["xs"]
    assert sorted(first["xs"]) == list(range(20))


def test_flow_statements_raise_signals():
    _, c = run("end_turn")
    assert c.signals.end_turn and not c.signals.end_phase
    _, c = run("end_phase\nend_game")
    assert c.signals.end_phase and c.signals.end_game
    _, c = run("stage bid")
    assert c.signals.stage == "bid" and c.signals.stage_set
    _, c = run("stage none")
    assert c.signals.stage is None and c.signals.stage_set
    _, c = run("goto scoring")
    assert c.signals.goto == "scoring" and c.signals.end_phase


def test_log_fail_and_citations():
    _, c = run('log "hello"\n@R-1 log 1\n@R-2 { log 2 }\n@R-3 @R-4 pass')
    assert c.log == ["hello", 1, 2]
    assert c.fired == ["R-1", "R-2", "R-3", "R-4"]
    with pytest.raises(R.RuleFailure) as err:
        run('fail "broken: " + str(n)')
    assert err.value.message == "broken: 0" and err.value.code == "RP502"


def test_disabled_rules_do_nothing():
    scope = Scope(SCOPE.state_vars, CONSTANTS, disabled_rules=frozenset({"R-1"}))
    vars_, c = run("@R-1 n = 5\n@R-2 xs = []", scope)
    assert vars_["n"] == 0 and vars_["xs"] == [] and c.fired == ["R-2"]


# ------------------------------------------------------------ compile problems
def problems(text: str, scope: Scope = SCOPE, effects: bool = True) -> list[tuple[str, str]]:
    compiler = Compiler()
    if effects:
        compiler.block(parse_effects(text), scope)
    else:
        compiler.expr(parse_expr(text), scope)
    return [(p.code, p.message) for p in compiler.problems]


def test_loop_variables_and_parameters_are_read_only():
    assert problems("for x in xs { x = 1 }") == [
        ("RP213", "`x` is a parameter or loop variable and cannot be changed")]
    assert problems("for x in [[1]] { append 1 to x }")[0][0] == "RP213"
    assert problems("cell = 2", SCOPE.with_locals("cell"))[0][0] == "RP213"
    assert problems("[0 for x in xs]", effects=False) == []


def test_constants_and_flow_values_cannot_be_assigned():
    assert problems("limit = 4") == [("RP213", "`limit` cannot be changed by effects (const)")]
    assert problems("round = 4") == [("RP213", "`round` cannot be changed by effects (flow)")]


def test_unknown_names_functions_and_arity():
    compiler = Compiler()
    fn = compiler.expr(parse_expr("lenght(xss)"), SCOPE)
    (p1, p2) = compiler.problems
    assert (p1.code, p1.message) == ("RP210", "unknown name `xss`") and "'xs'" in p1.hint
    assert (p2.code, p2.message) == ("RP211", "unknown function `lenght`") and "'len'" in p2.hint
    with pytest.raises(R.RuleRuntimeError):  # the broken node still compiles to something that raises
        fn(ctx())
    assert problems("len(1, 2)", effects=False) == [("RP212", "`len` takes 1 argument(s), got 2")]
    assert problems("range()", effects=False) == [("RP212", "`range` takes 1-2 argument(s), got 0")]
    assert problems("call nothing()")[0][0] == "RP211"


# ---------------------------------------------------- user functions, procedures
def user_scope() -> Scope:
    return Scope(SCOPE.state_vars, CONSTANTS,
                 functions={"depth": Callable_("depth", ("k",)), "twice": Callable_("twice", ("v",))},
                 procedures={"bump": Callable_("bump", ("by",)), "loop": Callable_("loop", ())})


def user_compiler(scope: Scope) -> Compiler:
    compiler = Compiler()
    compiler.function_bodies["depth"] = compiler.expr(parse_expr("if k == 0 then 0 else depth(k - 1) + 1"),
                                                      scope.only_locals("k"))
    compiler.function_bodies["twice"] = compiler.expr(parse_expr("v * 2"), scope.only_locals("v"))
    compiler.procedure_bodies["bump"] = compiler.block(parse_effects("n += by\nlet t = 1"),
                                                       scope.only_locals("by"))
    compiler.procedure_bodies["loop"] = compiler.block(parse_effects("call loop()"), scope.only_locals())
    assert compiler.problems == []
    return compiler


def test_user_functions_and_procedures():
    scope = user_scope()
    compiler = user_compiler(scope)
    assert compiler.expr(parse_expr("twice(depth(5))"), scope)(ctx()) == 10
    c = ctx(env={"by": "outer"})
    compiler.block(parse_effects("call bump(3)\ncall bump(4)"), scope.with_locals("by"))(c)
    assert c.vars["n"] == 7 and c.env == {"by": "outer"}  # a call gets its own locals
    assert problems("call bump()", scope) == [("RP212", "procedure `bump` takes 1 argument(s), got 0")]
    assert problems("twice(1, 2)", scope, effects=False) == [("RP212", "`twice` takes 1 argument(s), got 2")]


def test_recursion_depth_limit_for_functions():
    scope = user_scope()
    compiler = user_compiler(scope)
    fn = compiler.expr(parse_expr("depth(n)"), scope)
    vars_ = fresh_vars()
    vars_["n"] = 10
    assert fn(ctx(vars_, depth=11)) == 10
    with pytest.raises(R.LimitError) as err:
        fn(ctx(vars_, depth=9))
    assert "call depth over 9 in `depth`" in err.value.message and err.value.code == "RP501"


def test_recursion_depth_limit_for_procedures():
    scope = user_scope()
    compiler = user_compiler(scope)
    run_ = compiler.block(parse_effects("call loop()"), scope)
    with pytest.raises(R.LimitError) as err:
        run_(ctx(depth=20))
    assert "call depth over 20 in procedure `loop`" in err.value.message


# ------------------------------------------------------------------- budget
@pytest.mark.parametrize("text, effects", [
    ("for x in range(50) { n += 1 }", True),
    ("repeat 50 { pass }", True),
    ("for x in range(10) { for y in range(10) { pass } }", True),
    ("[x for x in range(50)]", False),
    ("any(x > 100 for x in range(50))", False),
])
def test_iteration_budget_stops_runaway_loops(text, effects):
    with pytest.raises(R.LimitError) as err:
        run(text, iterations=40) if effects else ev(text, iterations=40)
    assert err.value.message == "effect iteration limit exceeded in one move"
    assert "iterations_per_move" in err.value.hint


def test_iteration_budget_is_shared_by_one_run():
    _, c = run("for x in range(30) { pass }\nrepeat 9 { pass }", iterations=40)
    assert c.budget.iterations == 1


@pytest.mark.parametrize("value, message", [
    ('"no such card"', "no such card"), ("true", "true"), ("null", "null"), ("1.5", "1.5"),
    ('[1, "a", null, false]', '[1, "a", null, false]'), ("table", '{"a": 1, "b": [1, 2]}'),
    ("range(500)", "a list of 500 items"),
])
def test_fail_shows_its_value_as_the_language_writes_it(value, message):
    with pytest.raises(R.RuleFailure) as err:
        run(f"fail {value}")
    assert err.value.message == message and err.value.code == "RP502"


@pytest.mark.parametrize("text,n", [
    ("let k = 1\nif true { let k = 9 }\nn = k", 1),  # the inner `let` shadows k only inside its block
    ("let k = 1\nif true { k = 9 }\nn = k", 9),  # assigning the outer `let` changes it
    ("let k = 1\nfor x in xs { let k = x }\nn = k", 1),
    ("let k = 1\nrepeat 3 { let k = k + 1\n n += k }", 6),  # each turn starts from the outer k
    ("let k = 1\nif true { let k = 2\n if true { let k = 3 }\n n = k }", 2),
])
def test_a_let_ends_with_its_block(text, n):
    vars_, c = run(text)
    assert vars_["n"] == n
    assert "k" not in c.env  # the effects' own `let` ends with them too


def test_a_let_ends_with_its_block_also_when_the_block_fails():
    compiler = Compiler()
    fn = compiler.block(parse_effects("let k = 1\nif true { let k = 2\n fail \"stop\" }"), SCOPE)
    c = ctx(env={"k": 0})
    with pytest.raises(R.RuleFailure):
        fn(c)
    assert c.env == {"k": 0}
