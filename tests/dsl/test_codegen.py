"""Generated code (`dsl.codegen`) runs effects exactly as the closure compiler does, and is built safely.

Random effect blocks — assignments, `let` shadowing a parameter, loops,
list statements, citations, flow signals, user functions and procedures
(recursive ones too) — run under both compilers from the same state and
the same seeded generator.  Everything observable must match: the state,
the locals, the fired rules, the log, the signals, the budget left, the
generator's state, and the error (class, message, position, hint) when
there is one.  Small budgets make limit errors common, so a charge made
in another order or amount shows as a different error or budget.
"""

from __future__ import annotations

import ast
import linecache
import random
import traceback
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ruleplay.dsl import emit
from ruleplay.dsl import runtime as R
from ruleplay.dsl.codegen import Codegen, make_compiler
from ruleplay.dsl.compiler import Compiler
from ruleplay.dsl.parser import parse_effects, parse_expr
from ruleplay.dsl.scope import Callable_, Scope
from ruleplay.dsl.tables import static_functions

MODEL = SimpleNamespace(component_ids=["r1", "r2"], components_by_kind={"red": ["r1", "r2"]},
                        component_props={"r1": {"id": "r1", "kind": "red", "rank": 1},
                                         "r2": {"id": "r2", "kind": "red", "rank": 2, "marks": [1, [2, 3]]}},
                        boards={}, graphs={})
# `cs` holds components, and a text that is none: property reads go through the generator's tables
VARS = {"xs": [3, 1, 2], "ys": [], "n": 4, "out": 0, "m": {"a": 1, "b": [1, 2]}, "grid": [[1, 2], [3, 4]],
        "cs": ["r1", "r2", "zz"]}
# `twice`, `span`, `quad` and `deep` read only their arguments: the generated code keeps their values (`dsl.tables`).
FUNCTIONS = {"twice": (("a",), "a * 2"), "fact": (("a",), "if a <= 0 then 1 else a * fact(a - 1)"),
             "span": (("a",), "len([v for v in range(a % 40) if v % 3 == 1]) + len(repeat(0, a % 30))"),
             "quad": (("a",), "twice(twice(a))"), "deep": (("a",), "quad(a) + span(a)"),
             "mine": (("a",), "a + n")}
PROCEDURES = {"bump": (("a",), "n += a  @P1 log a"), "rec": (("a",), "if a > 0 { call rec(a - 1) } out += 1"),
              "shadow": (("i",), "let i = i + 1  out = i"),
              "rec2": (("a",), "out += deep(a % 3) + mine(a)  if a > 0 { call rec2(a - 1) }")}
# Constant lists a filter can be tabled over (`dsl.tables`); `mixed` makes `in` raise for one of its items.
CONSTANTS = {"k": 2, "ks": [5, 6], "lines": [[0, 1, 2], [3, 4, 5], [0, 4, 8], [2, 4, 6], []],
             "pairs": [[1, 2], [3, 4], [1, 4]], "mixed": [[1, 2], 7, [3]], "odd": [[1, 2], [3]]}
SCOPE = Scope(frozenset(VARS), CONSTANTS,
              functions={n: Callable_(n, p) for n, (p, _) in FUNCTIONS.items()},
              procedures={n: Callable_(n, p) for n, (p, _) in PROCEDURES.items()},
              disabled_rules=frozenset({"OFF"})).with_locals("i")

INT = st.recursive(
    st.one_of(st.integers(-2, 6).map(str), st.sampled_from(["n", "k", "i", "out", "len(xs)", "xs[0]", "xs[-1]",
                                                            "xs[7]", "m.a",
                                                            "cs[i % 3].rank", "len(cs[i % 3].marks)", "m.rank",
                                                            "len(grid.marks)", "n.rank",
                                                            "cs[1].marks[1][0]"])),
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "//", "%"]), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        inner.map(lambda x: f"twice({x})"), inner.map(lambda x: f"fact({x} % 5)"),
        inner.map(lambda x: f"span({x})"), inner.map(lambda x: f"deep({x})"),
        st.tuples(inner, inner).map(lambda t: f"(if {t[0]} > {t[1]} then {t[0]} else {t[1]})"),
        st.tuples(st.sampled_from(["v", "i", "n"]), inner, inner).map(lambda t: f"(let {t[0]} = {t[1]}; {t[2]} + {t[0]})"),
        inner.map(lambda x: f"index_where(v > {x} for v in xs)"),
        inner.map(lambda x: f"len([[a, v] for a, b in pairs if a != {x} for v in xs if v > b])"),
        inner.map(lambda x: f"sum([v * {x} for v in xs])"), inner.map(lambda x: f"len([v for v in xs if v > {x}])"),
        st.sampled_from(["len([l for l in lines if i in l])", "len([a for a, b in pairs if a == i or b == i])",
                         "len([l for l in mixed if i in l])", "(if any(len(l) > i for l in lines if i in l) "
                         "then 1 else 0)", "(if all(a > 0 for a, b in odd if b != i) then 1 else 2)",
                         "len([l for l in lines if not (i in l)])", "sum([a for a, b in pairs if i < a])"]),
    ), max_leaves=5)
PLACE = st.sampled_from(["n", "out", "xs[0]", "xs[-1]", "m.a", "grid[1][0]"])


def _statements(block: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(PLACE, st.sampled_from(["=", "+=", "-=", "*="]), INT).map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
        st.tuples(st.sampled_from(["v", "i", "w"]), INT).map(lambda t: f"let {t[0]} = {t[1]}"),
        st.tuples(INT, INT).map(lambda t: f"let v = {t[0]}  v += {t[1]}  out = v"),
        st.tuples(INT, block, block).map(lambda t: f"if {t[0]} > 2 {{ {t[1]} }} else {{ {t[2]} }}"),
        block.map(lambda b: f"for v in xs {{ {b} }}"), block.map(lambda b: f"for v, w in grid {{ {b} }}"),
        st.sampled_from(["for v in xs { out += len([l for l in lines if v in l]) }",
                         "let w = true  out = len([a for a, b in pairs if a == w])",
                         "let w = 4  out = len([l for l in lines if w in l])",
                         "for v in xs { out += len([a for a, b in pairs if b == v]) }"]),
        st.tuples(INT, block).map(lambda t: f"repeat {t[0]} % 4 {{ {t[1]} }}"),
        INT.map(lambda x: f"append {x} to xs"), INT.map(lambda x: f"prepend {x} to ys"),
        INT.map(lambda x: f"remove {x} from xs"), INT.map(lambda x: f"move {x} from xs to ys"),
        INT.map(lambda x: f"draw {x} % 3 from xs to ys"), st.just("shuffle xs"), st.just("append xs to xs"),
        INT.map(lambda x: f"log {x}"), block.map(lambda b: f"@R1 {{ {b} }}"), INT.map(lambda x: f"@R2 out = {x}"),
        block.map(lambda b: f"@OFF {{ {b} }}"), INT.map(lambda x: f"@R3 let v = {x}"),
        st.sampled_from(["end_turn", "stage s1", "stage none", "goto p2", "end_game", "pass"]),
        INT.map(lambda x: f"call bump({x})"), INT.map(lambda x: f"call rec({x} % 70)"),
        INT.map(lambda x: f"call shadow({x})"), INT.map(lambda x: f"call rec2({x} % 12)"), INT.map(lambda x: f'if {x} == 3 {{ fail "three" }}'),
    )


BLOCK = st.recursive(_statements(st.just("")), lambda inner: st.lists(_statements(inner), max_size=4)
                     .map("  ".join), max_leaves=8)


def _compile(cls: type, text: str) -> tuple[Any, list]:
    compiler = cls()
    compiler.know_components(MODEL.component_props, 400)
    nodes = {n: parse_expr(body) for n, (_, body) in FUNCTIONS.items()}
    for n, (params, _) in FUNCTIONS.items():
        compiler.function_bodies[n] = compiler.expr(nodes[n], SCOPE.only_locals(*params))
    compiler.table_functions(static_functions(nodes, SCOPE), {n: p for n, (p, _) in FUNCTIONS.items()})
    for n, (params, body) in PROCEDURES.items():
        compiler.procedure_bodies[n] = compiler.block(parse_effects(body), SCOPE.only_locals(*params))
    return compiler.block(parse_effects(text), SCOPE), compiler.problems


def _play(run: Any, iterations: int) -> dict:
    ctx = R.Ctx(R.clone(VARS), {"seat": 0}, MODEL, rng=random.Random(7), env={"i": 1},
                budget=R.Budget(iterations, 8, 400))
    try:
        run(ctx)
        outcome: Any = "ok"
    except R.RuleRuntimeError as err:
        outcome = (type(err).__name__, err.message, err.pos, err.hint)
    s = ctx.signals
    return {"outcome": outcome, "vars": ctx.vars, "env": ctx.env, "fired": ctx.fired, "log": ctx.log,
            "signals": (s.end_turn, s.end_phase, s.end_game, s.stage, s.stage_set, s.goto),
            "budget": (ctx.budget.iterations, ctx.budget.copies, ctx.budget.depth), "rng": ctx.rng.getstate()}


def check(text: str) -> None:
    closures, problems_c = _compile(Compiler, text)
    generated, problems_g = _compile(Codegen, text)
    assert problems_c == problems_g
    if problems_c:  # a ruleset with problems is never played
        return
    for iterations in (60, 2_000):
        want, got = _play(closures, iterations), _play(generated, iterations)
        for key in want:
            assert want[key] == got[key], f"{text!r} ({iterations} iterations): {key} {want[key]} != {got[key]}"


@given(BLOCK)
@example("let i = 5  out = i")                      # a `let` shadows the parameter until its block ends
@example("if true { let i = 9 }  out = i")          # ... and not after it
@example("for v in xs { append v to xs }  out = len(xs)")  # a loop walks a copy
@example("@R3 let i = 7  out = i")                  # a cited `let` is a `let`
@example("@R3 let v = 0  let v = v + 1  out = v")
@example("@OFF let v = 0  out = 1")                 # switched off: not there at all
@example("call rec(70)")                            # deeper than the depth limit
@example("out = fact(9)")
@example("call rec2(11)")                           # tabled functions called ever deeper, then past the limit
@example("repeat 3 { out += span(37) }")            # a tabled value's charges, and then ones that do not fit
@example("out = deep(5) + deep(5)")
@example("xs[5] = 1")
@example("append xs to xs  append xs to xs  n = len(xs)")
@example("out = cs[i % 3].rank")                    # a component, then one without the property, then no component
@example("let i = 2  out = cs[i].rank")
@example("out = len(xs.marks)")                      # a list or a map is no component: `field` says so
@example("out = m.marks")
@example("repeat 90 { out = len(cs[1].marks) }")    # each copy of a list property is charged its size
@example("repeat 9 { out += len([l for l in lines if i in l]) }")  # a tabled filter: lumps, and one that does not fit
@example("let i = 0  out = len([l for l in mixed if i in l])")     # `in` raises for one item: the loop as written
@example("for v in xs { out += len([a for a, b in odd if b == v]) }")  # `odd` cannot be unpacked
def test_generated_effects_match_the_closures(text):
    check(text)


@pytest.mark.parametrize("start", [1, 2, 60, 149, 500])
def test_a_long_elif_chain_runs_as_the_closures_do(start):
    """Each `elif` whose test needs statements sat in the `else:` of the one before: 150 branches were
    indented past Python's 100 levels, an IndentationError when the move ran (the closures played it)."""
    chain = " ".join(f"elif n == {k} {{ out = {k} }}" for k in range(2, 150))
    check(f"n = {start}  if n == 1 {{ out = 1 }} {chain} else {{ out = -1 }}")


@pytest.mark.parametrize("text", ["out = nope + 1", "call nowhere(1)", "call bump(1, 2)", "out = twice()",
                                  "k = 1", "current = 2", "out = unknownfn(1)", "for v in xs { v = 2 }",
                                  "append 1 to k"])
def test_same_problems(text):
    problems = _compile(Compiler, text)[1]
    assert problems and problems == _compile(Codegen, text)[1]


@pytest.mark.parametrize(("body", "message"), [
    ("    return ctx.__class__\n", "__class__"),
    ("    return open('x')\n", "'open'"),
    ("    import os\n", "Import"),
    ("    def inner(ctx):\n        pass\n", "nested function"),
    ("    return [1, {2: len(b'x')}]\n", "bytes constant"),
    ("    if ctx:\n        pass\n    else:\n        ctx.vars[0] = eval\n", "'eval'"),
    ("    return (lambda: 1)\n", "Lambda"),
    ("    del ctx.vars[0]\n", "Delete"),
    ("    return {**ctx.vars}\n", "NoneType"),
])
def test_verify_refuses_what_the_generator_never_emits(body, message):
    with pytest.raises(emit.GeneratedCodeError, match=message):
        emit.verify(ast.parse("def _effects(ctx):\n" + body), {})


def test_verify_checks_the_context_of_a_name_where_it_stands():
    tree = ast.parse("def _effects(ctx):\n    ctx.vars\n")
    tree.body[0].body[0].value.value.ctx = ast.Del()  # the `Load` of `ctx`, as no parse would make it
    with pytest.raises(emit.GeneratedCodeError, match="Del context"):
        emit.verify(tree, {})


def test_user_text_is_only_data():
    """A name or text that looks like Python stays a dict key or a constant."""
    scope = Scope(frozenset({"__import__"}), {})
    fn = Codegen().expr(parse_expr('__import__ + "os\')\\nimport os"'), scope)
    ctx = R.Ctx({"__import__": "x"}, {}, MODEL)
    assert fn(ctx) == "xos')\nimport os"


def test_an_internal_error_shows_the_generated_source():
    fn = Codegen().expr(parse_expr("xs[0] + 1"), SCOPE)
    ctx = R.Ctx({"xs": None}, {}, MODEL)
    ctx.vars = None  # a broken context: an engine bug, not a rule error
    with pytest.raises(TypeError) as info:
        fn(ctx)
    text = "".join(traceback.format_exception(info.value))
    assert "_vars['xs']" in text, text
    assert any(name.startswith("<ruleplay-generated-") for name in linecache.cache)


def test_the_same_code_compiles_once():
    before = len(emit._CODE)
    for _ in range(3):
        assert Codegen().expr(parse_expr("n * 3 + 4311"), SCOPE)(R.Ctx({"n": 2}, {}, MODEL)) == 4317
    assert len(emit._CODE) == before + 1


def test_choosing_the_compiler(monkeypatch):
    monkeypatch.delenv("RULEPLAY_COMPILER", raising=False)
    assert isinstance(make_compiler(), Codegen)
    monkeypatch.setenv("RULEPLAY_COMPILER", "closures")
    assert type(make_compiler()) is Compiler
    monkeypatch.setenv("RULEPLAY_COMPILER", "fast")
    with pytest.raises(ValueError, match="generated, closures"):
        make_compiler()


@pytest.mark.parametrize("cls", [Compiler, Codegen])
def test_a_cited_let_ends_with_its_block(cls):
    run, problems = _compile(cls, "if true { @R3 let i = 9  out = i }  n = i")
    assert problems == []
    ctx = R.Ctx(R.clone(VARS), {}, MODEL, env={"i": 1})
    run(ctx)
    assert (ctx.vars["out"], ctx.vars["n"], ctx.env, ctx.fired) == (9, 1, {"i": 1}, ["R3"])


@pytest.mark.parametrize("text", ["out = get(null, 1, 9)", "out = get(5, 0, 1)", "out = get(1.5, 0, 1)",
                                  "out = get(true, 0, 1)", 'out = get("abc", 1, 9)'])
def test_get_of_a_constant_compiles_without_a_warning(text):
    """`get` written out for a constant that is no list or map was `None[1]`: Python printed a
    SyntaxWarning on the user's terminal as it compiled the move (a SyntaxError under -W error)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check(text)


def test_every_builtin_ruleset_compiles_without_a_warning(monkeypatch):
    """Python warns of generated code it finds suspect (`x is 3`); none of it may be."""
    import warnings

    from ruleplay.engine.loader import builtin_games, load_model

    monkeypatch.setattr(emit, "_CODE", {})  # compile everything afresh, not from this process's cache
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for game in builtin_games():
            load_model(game)


def test_a_function_is_compiled_when_first_called_and_runs_its_own_code_after():
    before = len(emit._CODE)
    fn = Codegen().expr(parse_expr("n * 5 + 9133"), SCOPE)
    assert fn.__code__ is emit._FIRST_CALL and len(emit._CODE) == before  # verified, not yet written
    assert fn(R.Ctx({"n": 1}, {}, MODEL)) == 9138
    code = fn.__code__
    assert code is not emit._FIRST_CALL and code.co_filename.startswith("<ruleplay-generated-")
    assert fn(R.Ctx({"n": 2}, {}, MODEL)) == 9143 and fn.__code__ is code and len(emit._CODE) == before + 1


def test_a_second_first_call_finds_the_function_compiled():
    """Two threads may both enter a function's first call: the second finds the code in place."""
    fn = Codegen().expr(parse_expr("n - 7109"), SCOPE)
    pending = fn.__globals__[emit._PENDING]
    assert emit.compile_now(pending) is fn
    code = fn.__code__
    assert emit.compile_now(pending) is fn and fn.__code__ is code
    assert fn(R.Ctx({"n": 7110}, {}, MODEL)) == 1


_ARGUMENTS = [0, 2, 3, -3, True, 1.0, 10**30, R.MAX_ITEMS + 1, "ab", [1, 2, 3], {"a": 1}, None]


@pytest.mark.parametrize("text", ["range(a)", "range(a, b)", "len(a)", "get(a, b, 7)", "[i for i in range(a, b)]"])
def test_written_out_builtins_match_the_closures_at_every_budget(text):
    """`len`, `get` and `range` (`Codegen._inline_builtin`): the same values, errors and budgets as the closures,
    for arguments the inline path takes and those it leaves to the builtin, with copies to spare, exactly
    enough and one short."""
    scope = Scope(frozenset(), {}).with_locals("a", "b")
    node = parse_expr(text)
    generated, closures = Codegen().expr(node, scope), Compiler().expr(node, scope)

    def run(fn: Any, a: Any, b: Any, copies: int) -> tuple:
        ctx = R.Ctx({}, {}, None, env={"a": a, "b": b}, budget=R.Budget(10**6, 8, copies))
        try:
            outcome: tuple = ("ok", fn(ctx))
        except R.RuleRuntimeError as err:
            outcome = (type(err).__name__, err.message, err.pos)
        return outcome, ctx.budget.copies, ctx.budget.iterations

    for a in _ARGUMENTS:
        for b in _ARGUMENTS:
            spent = R.DEFAULT_COPIES - run(closures, a, b, R.DEFAULT_COPIES)[1]
            for copies in {0, max(spent - 1, 0), spent, R.DEFAULT_COPIES}:
                assert run(generated, a, b, copies) == run(closures, a, b, copies), (a, b, copies)
