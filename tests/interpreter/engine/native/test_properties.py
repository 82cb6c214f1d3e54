"""Random expressions and effect blocks give the same results natively and on the Python engine.

Hypothesis writes expressions and effect blocks over a small ruleset that
holds values of every kind (ints, floats, texts, lists, maps, null,
booleans, components, a board and a graph); each batch is lowered as probes
into one module.  For every expression: where the Python engine (the
closure compiler, the oracle) raises, the module gives up; where it gives
a value, the module gives the same value, type for type, and leaves the
same budget, or gives up for a value it does not hold (an int past 64 bits).
For every effect block, the state after it is the same, or both fail.
"""

from __future__ import annotations

import copy
import json
import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ruleplay import load_game
from ruleplay.dsl import runtime as R
from ruleplay.dsl.parser import DslSyntaxError, parse_effects, parse_expr
from ruleplay.engine.native.build import load_module
from ruleplay.engine.native.convert import from_module, to_module
from ruleplay.engine.native.module import lower_model
from ruleplay.engine.rng import Rng

from native_support import native_of

RULESET = """\
ruleplay: 1
game: properties
players: 3
boards:
  b: {width: 4, height: 3}
graphs:
  g:
    adjacency: {a: [b, c], b: [a, d], c: [a], d: [b]}
components:
  card:
    properties: {rank: int, tags: list}
    items:
      - {id: ace, rank: 1, tags: [x]}
      - {id: two, rank: 2, tags: [], copies: 2}
constants:
  nums: [3, 1, 2]
  fl: [0.5, -1.25, 3.0]
  words: ["b", "a", "ab"]
  colours: {red: 1, blue: 2}
  pairs: [[1, 2], [3, 4]]
  edges: [[1, 2], [2, 3], [5, 6]]
  ragged: [[1], [2, 3], [], [63, 0, 5, 5]]
state:
  i: {init: "7"}
  f: {init: "2.5"}
  s: {init: '"cab"'}
  L: {init: "[4, null, 1, 3]"}
  M: {init: "[[1, 2], [3], []]"}
  m: {init: "colours"}
  nul: {init: "null"}
  t: {init: "true"}
functions:
  twice:
    params: [x]
    value: x + x
  # functions whose value is always a C truth or int: lowered to C functions returning one (no tagged value)
  big:
    params: [x]
    value: x > 2
  above:
    params: [x]
    value: len([y for y in nums if y > x])
  scaled:
    params: [x]
    value: above(x) * 4611686018427387904
  marked:
    params: [k]
    value: L[k] == null
  # a version viewing L that calls another (the view it is given handed on) and reads L itself
  either:
    params: [k]
    value: marked(k) or L[k % 4] == k
  # count(), index_of() and `in` of a state list in a version viewing it (one walk where its items lie)
  tally:
    params: [v]
    value: "count(L, v) * 10 + index_of(L, v) + (if v in L then 100 else 0)"
  down:
    params: [n]
    value: n <= 0 or not down(n - 1)
  sure:
    params: [x]
    value: "if big(x) then above(x) else 0"
  # functions handed a board's line (`line_of` over a named board): versions taking it as a table of C ints,
  # where every use is a walk, a slice walked, an index or len(); any other use keeps the tagged list
  run:
    params: [p, line]
    value: any(all(L[c % 4] == p for c in line[k:k + 2]) for k in range(len(line) - 1))
  ends:
    params: [line, k]
    value: line[k] * 100 + line[-1] * 10 + len(line)
  walked:
    params: [line]
    value: sum([c for c in line if c != 5]) + len([c for c in line[1:]]) + len([c for c in line[:-1]])
  span:
    params: [line, lo, hi]
    value: "[c for c in line[lo:hi]]"
  handed:
    params: [line]
    value: ends(line, 0) + walked(line) + ends(line, -1)
  same:
    params: [line]
    value: line == [0, 1, 2, 3]
  deep:
    params: [line, n]
    value: "if n <= 0 then len(line) else deep(line, n - 1)"
  picked:
    params: [line]
    value: "(if len(line) > 3 then line else line)[0]"
  # slices of a line the lowering knows lie within it (`lower_bounds`: read where they lie, charged as a constant),
  # and slices that look alike but do not (bounds clamped as Python clamps them)
  windows:
    params: [line]
    value: >-
      [[c for c in line[s:s + 3]] for s in range(len(line) - 2)] + [[c for c in line[s:2 + s]] for s in
      range(1, len(line) - 1)] + [[c for c in line[s:s + 0]] for s in range(len(line))]
  overhang:
    params: [line]
    value: >-
      [[c for c in line[s:s + 3]] for s in range(len(line) - 1)] + [[c for c in line[s + 1:s + 2]] for s in
      range(len(line) + 2)] + [[c for c in line[s:s + 2]] for s in range(-2, len(line) - 1)] + [[c for c in
      line[s:s - 1]] for s in range(len(line))] + [[c for c in line[s:len(line) + 1]] for s in range(len(line))]
  # versions taking C ints where every caller's argument is one (`_version`): compared, used as keys, handed
  # on, given to builtins that refuse them; max() and min() of ints folded as C ints, a function of one an int
  lowest:
    params: [k]
    value: min([x * 2 for x in range(k, 5) if x != 3])
  highest:
    params: [k, line]
    value: max([c for c in line if L[c % 4] != null and c >= k])
  both:
    params: [a, b]
    value: "[a == b, a < b, L[a % 4], len(a), lowest(a) + b]"
flow:
  phases:
    - {name: play, order: alternate, actions: [go]}
actions:
  go: {}
end:
  - when: "false"
"""

NAMES = ["i", "f", "s", "L", "M", "m", "nul", "t", "nums", "fl", "words", "colours", "pairs", "edges", "current",
         "players", "round", "turn", "phase", "stage"]
LITERALS = ["0", "1", "2", "3", "-1", "7", "0.5", "2.0", "-0.0", "1.5", "4611686018427387904", "9223372036854775807",
            '"a"', '"ab"', '""', '"ace"', '"two#1"', '"red"', '"b"', '"g"', '"N"', '"king"', '"orthogonal"', "true",
            "false", "null", "[]", "[1, 2]", '["a", "b"]', "[1, [2]]", "[0.5, 1]"]
UNARY = ["-{}", "not {}"]
BINARY = ["{} + {}", "{} - {}", "{} * {}", "{} / {}", "{} // {}", "{} % {}", "{} == {}", "{} != {}", "{} < {}",
          "{} <= {}", "{} > {}", "{} >= {}", "{} in {}", "{} not in {}", "{} and {}", "{} or {}"]
CALLS = ["len({})", "sum({})", "min({})", "max({})", "min({}, {})", "max({}, {})", "abs({})", "any({})", "all({})",
         "sorted({})", "reversed({})", "count({}, {})", "index_of({}, {})", "index_where({})", "unique({})",
         "flatten({})", "str({})",
         "join({})", "join({}, {})", "int({})", "keys({})", "values({})", "get({}, {}, {})", "zip({}, {})",
         "range({})", "range({}, {})", "repeat({}, {})", "enumerate({})", "argmax({})", "argmin({})", "leader({})",
         "ranks({})", "components({})", "kind({})", "is_component({})", "next_seat({})", "others({})", "cells({})",
         "cell({}, {}, {})", "xy({}, {})", "step({}, {}, {})", "ray({}, {}, {})", "neighbors({}, {}, {})",
         "dirs({})", "dir_vec({})", "perimeter({})", "line_of({}, {}, {})", "offset({}, {}, {})",
         "area({}, {}, {}, {})", "flood({}, {}, {}, {}, {}, {})", "adjacent({}, {})", "nodes({})",
         "reachable({}, {})", "distance({}, {}, {})", "reachable_via({}, {})", "distance_via({}, {}, {})",
         "twice({})", "seats()", "components()", "{}[{}]", "{}[{}:{}]", "{}[:{}]", "{}.red", "{}.rank", "{}.tags",
         # folds of comprehensions (made without their list), also inside loops
         "len([y for y in {} if y])", "sum([y for y in {}])", "max([y for y in {} if y != {}])", "min([y for y in {}])",
         "[len([y for y in {} if y != z]) for z in {}]", "[sum([y * z for y in {}]) for z in {}]",
         "[max([y for y in range(z + 1)]) for z in {}]"]


def _fill(template: str, parts: list[str]) -> str:
    return template.format(*parts)


def _expressions() -> st.SearchStrategy[str]:
    leaf = st.sampled_from(LITERALS + NAMES)

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        def shaped(template: str) -> st.SearchStrategy[str]:
            n = template.count("{}")
            return st.lists(inner, min_size=n, max_size=n).map(lambda parts: _fill(template, parts))

        templates = st.sampled_from(UNARY + BINARY + CALLS)
        comp = st.tuples(inner, st.sampled_from(["x", "y"]), inner, inner).map(
            lambda p: f"[{p[0]} for {p[1]} in {p[2]} if {p[3]}]")
        quant = st.tuples(st.sampled_from(["any", "all"]), inner, inner).map(
            lambda p: f"{p[0]}(x > {p[1]} for x in {p[2]})")
        cond = st.tuples(inner, inner, inner).map(lambda p: f"(if {p[0]} then {p[1]} else {p[2]})")
        # several clauses, and index_where, over the names and literals: a source built at random, looped
        # in a loop, makes work quadratic in its size
        nested = st.tuples(inner, leaf, leaf, inner).map(
            lambda p: f"[{p[0]} for x in {p[1]} for y in {p[2]} if {p[3]}]")
        find = st.tuples(inner, leaf).map(lambda p: f"index_where(x > {p[0]} for x in {p[1]})")
        let = st.tuples(st.sampled_from(["x", "i"]), inner, inner).map(lambda p: f"(let {p[0]} = {p[1]}; {p[2]})")
        return st.one_of(templates.flatmap(shaped).map(lambda e: f"({e})"), comp, quant, cond, nested, find, let,
                         st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"))

    return st.recursive(leaf, extend, max_leaves=8)


def _same(a, b) -> bool:
    """Equal as the rules hold values: types included (1 is not 1.0, true is not 1), -0.0 apart from 0.0."""
    if type(a) is not type(b):
        return False
    if type(a) is list:
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if type(a) is float:
        return math.copysign(1, a) == math.copysign(1, b) and a == b
    return a == b


class _Probe:
    """A module of the ruleset with probes, and the state they run on."""

    def __init__(self, game, expressions=(), effects=()):
        model = game.model
        self.game = game
        low = lower_model(model, False, tuple((e, model.scope) for e in expressions),
                          tuple((b, model.scope) for b in effects))
        self.module = load_module(low.source)
        self.state = game.new_state(0)

    def native_state(self):
        ffi, lib = self.module.ffi, self.module.lib
        ptr = ffi.gc(lib.rp_new(), lib.rp_free)
        assert lib.rp_from_json(ptr, to_module(self.game.model, self.state.data).encode())
        return ptr

    def value(self, k: int):
        ffi, lib = self.module.ffi, self.module.lib
        err = ffi.new("rp_error *")
        out = lib.rp_probe(self.native_state(), k, ffi.NULL, 0, err)
        if out == ffi.NULL:
            return ("bail", err.code)
        try:
            return ("value", json.loads(ffi.string(out).decode()))
        finally:
            lib.rp_free_text(out)

    def effects(self, k: int):
        ffi, lib = self.module.ffi, self.module.lib
        ptr = self.native_state()
        err = ffi.new("rp_error *")
        if not lib.rp_probe_effects(ptr, k, err):
            return ("bail", err.code)
        text = lib.rp_to_json(ptr)
        try:
            return ("state", from_module(self.game.model, ffi.string(text).decode()))
        finally:
            lib.rp_free_text(text)


BAIL_NATIVE = 3  # rp.h: a value the module does not hold; the Python engine makes the step


def _python_value(game, tree):
    model = game.model
    state = game.new_state(0)
    fn = model.compiler().expr(tree, model.scope)
    budget = model.budget()
    ctx = R.Ctx(copy.deepcopy(state.data["vars"]), dict(state.data["flow"]), model, budget=budget)
    try:
        with R.recursion_guard():
            value = fn(ctx)
    except R.RuleRuntimeError:
        return ("error",)
    return ("value", [json.loads(json.dumps(value)), budget.iterations, budget.copies])


def _parsed(texts):
    out = []
    for text in texts:
        try:
            out.append(parse_expr(text))
        except DslSyntaxError:
            continue
    return out


@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_expressions(), min_size=60, max_size=60))
def test_random_expressions_agree(tmp_path_factory, texts):
    path = tmp_path_factory.mktemp("props") / "properties.yaml"
    path.write_text(RULESET, encoding="utf-8")
    game = load_game(path)
    native_of(game)
    trees = _parsed(texts)
    probe = _Probe(game, trees)
    native_bails = 0
    for k, tree in enumerate(trees):
        python = _python_value(game, tree)
        native = probe.value(k)
        if python[0] == "error":
            assert native[0] == "bail", (texts[k], native)
        elif native[0] == "bail":
            assert native[1] == BAIL_NATIVE, (texts[k], python, native)
            native_bails += 1
        else:
            assert _same(native[1], python[1]), (texts[k], native[1], python[1])
    assert native_bails <= len(trees) // 10 + 1


EFFECTS = ["i = {}", "f = {}", "s = {}", "L = {}", "m.red = {}", "L[{}] = {}", "M[{}] = {}", "i += {}", "L += {}",
           "append {} to L", "prepend {} to M", "remove {} from L", "move {} from L to M", "draw {} from L to M",
           "shuffle L", "let z = {}\nL = [z, z]", "if {} {{ i = {} }} else {{ s = {} }}",
           "for x in {} {{ append x to M }}", "for a, b in {} {{ i = a }}", "repeat {} {{ i += 1 }}",
           "M[0][{}] = {}", "nul = {}"]


@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.lists(st.tuples(st.sampled_from(EFFECTS), st.lists(_expressions(), min_size=3, max_size=3)),
                         min_size=1, max_size=4), min_size=25, max_size=25))
def test_random_effect_blocks_agree(tmp_path_factory, blocks):
    path = tmp_path_factory.mktemp("props") / "properties.yaml"
    path.write_text(RULESET, encoding="utf-8")
    texts = ["\n".join(template.format(*parts[: template.count("{}")]) for template, parts in block)
             for block in blocks]
    _effects_agree(load_game(path), texts)


def _effects_agree(game, texts):
    """Each effect block that parses leaves the same state natively as on the Python engine, or both fail (the
    module may also give up on a value it does not hold); what each path did, in order."""
    native_of(game)
    model = game.model
    trees = []
    for text in texts:
        try:
            trees.append((text, parse_effects(text)))
        except DslSyntaxError:
            continue
    probe = _Probe(game, effects=[t for _, t in trees])
    outcomes = []
    for k, (text, tree) in enumerate(trees):
        state = game.new_state(0)
        data = copy.deepcopy(state.data)
        ctx = R.Ctx(data["vars"], data["flow"], model, rng=Rng(data["rng"]), budget=model.budget())
        fn = model.compiler().block(tree, model.scope)
        try:
            with R.recursion_guard():
                fn(ctx)
            python = ("state", data["vars"])
        except R.RuleRuntimeError:
            python = ("error",)
        native = probe.effects(k)
        if python[0] == "error":
            assert native[0] == "bail", (text, native)
        elif native[0] == "bail":
            assert native[1] == BAIL_NATIVE, (text, python, native)
        else:
            assert _same(json.loads(json.dumps(native[1]["vars"])), json.loads(json.dumps(python[1]))), text
        outcomes.append((python[0], native[0]))
    return outcomes


# assignments into lists (by an int in range inline, anything else by the runtime) and ints that leave 64 bits
CURATED_EFFECTS = {
    "L[1] = 5": ("state", "state"), "L[-1] = 9": ("state", "state"), "L[4] = 1": ("error", "bail"),
    "L[true] = 1": ("error", "bail"), "L[1.0] = 1": ("error", "bail"), "M[0][1] = 7": ("state", "state"),
    "M[0][-2] = 3": ("state", "state"), "M[2][0] = 1": ("error", "bail"),
    "M[1] = M[0]\nM[1][0] = 8": ("state", "state"),
    "L[i - 7] = [1]\nL[0][0] = 2": ("state", "state"), "m.red = 4": ("state", "state"), "s[0] = 1": ("error", "bail"),
    "for k in range(4) { L[k] = k * k }": ("state", "state"),
    "i = len(L) * 4611686018427387904": ("state", "bail"), "i = len(L) - 9223372036854775807 - 9": ("state", "bail"),
    "i = len(L) + 9223372036854775806": ("state", "bail"), "i = len(L) + 9223372036854775803": ("state", "state"),
    "if L[0] < L[2] { i = 1 } else { i = 2 }": ("state", "state"), "if L[1] < 2 { i = 1 }": ("error", "bail"),
    "if s < 1 { i = 1 }": ("error", "bail"), 'if s > "ca" { i = 5 }': ("state", "state"),
    "if L[1] == null { i = 3 }": ("state", "state"), "if M[0] == [1, 2] { i = 4 }": ("state", "state"),
    "if f == 2.5 { i = 6 }": ("state", "state"), "if L[0] == 4.0 { i = 7 }": ("state", "state"),
    # a user function's C int past 64 bits: the module gives up, the Python engine goes on with a big int
    "i = scaled(0)": ("state", "bail"), "i = scaled(2)": ("state", "state"),
    "if marked(1) { L[1] = 0 }\nif marked(1) { i = 0 }": ("state", "state"),
    # a version's view read at each call from effects: after L changes, and after L stops being a list
    "i = either(1)\nL[1] = 1\nf = either(1)": ("state", "state"), "L = 3\ni = either(1)": ("error", "bail"),
    # a `let` of an int no statement changes is a C int; one a statement changes keeps its tagged value
    "let k = len(L) - 1\nL[k] = k * 10\ni = lowest(k)": ("state", "state"),
    "let k = lowest(0)\nL[0] = [k]\nL[1] = k": ("state", "state"),
    "let k = len(L)\nk = k + 0.5\nf = k": ("state", "state"), "let k = len(L)\nk += 2\ni = k": ("state", "state"),
    "let k = len(M)\nfor x in range(k) { let k = x * 2\nL[x] = k }\ni = k": ("state", "state"),
    "let k = len(L) * 4611686018427387904\ni = 1": ("state", "bail"), "let k = lowest(7)\ni = k": ("error", "bail"),
    # count(), index_of() and `in` of a state list from effects: read where it lies at the call, after it changed
    "i = count(L, 1) * 10 + index_of(L, 3)\nL[0] = 3\nf = count(L, 3) * 10 + index_of(L, 3)": ("state", "state"),
    "if 3 in L { L[3] = 5 }\nif 3 in L { i = 1 } else { i = 2 }\nif 5 in L { f = 1 }": ("state", "state"),
    "append 1.0 to L\ni = count(L, 1) * 10 + index_of(L, 1)": ("state", "state"),
    "L[2] = [1]\ni = count(L, [1]) * 10 + index_of(L, [1])": ("state", "state"),
    "L = 3\ni = count(L, 1)": ("error", "bail"), "L = []\ni = count(L, 1) * 10 + index_of(L, 1)": ("state", "state"),
}


def test_curated_effects_agree(tmp_path):
    path = tmp_path / "properties.yaml"
    path.write_text(RULESET, encoding="utf-8")
    assert _effects_agree(load_game(path), list(CURATED_EFFECTS)) == list(CURATED_EFFECTS.values())


CURATED = [  # forms the lowering writes specially, each also inside a loop, where its state must start anew
    "len([x for x in nums if x > 1])", "sum([x * 0.5 for x in nums])", "max([x for x in fl])",
    "min([x for x in L if x != null])", "[len([y for y in nums if y != z]) for z in nums]",
    "[sum([y * z for y in nums]) for z in fl]", "[max([y for y in range(z + 1)]) for z in nums]",
    "[min([y for y in pairs[z]]) for z in range(2)]", "len([m for m in M if len(m) > 0])",
    "any(x > 2 for x in nums)", "[all(y < z for y in nums) for z in nums]", "[x for x in L[1:3]]",
    "[[y for y in words[:z]] for z in range(4)]", "sum([len(w) for w in words])", "max([i, 2.5])",
    "min([x for x in nums if x > 5])", "max([x for x in words])", "[x + 1 for x in range(i)]",
    'len(line_of("b", 5, "E")) + len([c for c in line_of("b", i - 6, "S")][0:1])',
    "[z in nums for z in [1, 3.0, true, -1, 64, 4611686018427387904, null]]", "[any(z in p for p in edges) for z in nums]",
    "[len([p for p in pairs if z in p]) for z in [1.0, true, 4, 99, -4]]", "[not (i in p) for p in edges]",
    '[cell("b", x, y) for x in [0, 3, 4, -1, 1.0] for y in [0, 2, 3, true]]', '[cell("b", x, 1) for x in nums]',
    '[len(x) for x in [L, s, m, "", [], M[0]]]', "len(i)", "[len(x) for x in [L, 2.0]]",
    "[[z in p for p in ragged] for z in [0, 3, 5, 63, 64, -1, 1.0, null]]", "[len(p) > 2 and 5 in p for p in ragged]",
    # a loop over constant sets filtered by `x in NAME`, x a C int: only the sets holding x walked, every test
    # charged, up to where any() or all() stops; x tagged (the loop as written), the budget running out (and not)
    "[any(len(q) > 0 for q in ragged if k in q) for k in [0, 1, 2, 3, 5, 63, 64, -1, 4]]",
    "[all(q[0] < 60 for q in ragged if k in q) for k in range(-1, 65)]", "[[q for q in ragged if k in q] for k in range(7)]",
    "[len([c for q in ragged if k in q for c in q if c != k]) for k in range(7)]", "[q for q in ragged if i in q]",
    "[any(k in q for q in edges if k in q) for k in [1.0, true, 2]]",
    "len([k for k in range(16666) if any(len(q) > 3 for q in ragged if k in q)])",
    "len([k for k in range(16667) if any(len(q) > 3 for q in ragged if k in q)])",
    # the budget running out at a test of a constant set (and just not)
    "len([k for k in range(28572) for p in pairs if k % 4 in p])",
    "len([k for k in range(28000) for p in pairs if k % 4 in p])",
    # graphs whose nodes are told apart by ==: 1 and 1.0 one node (its first spelling kept), true another
    'reachable_via([[1, 2.0], [2, true], [true, "a"], [[1], 1.0], [null, [1]], [-0.0, 0]], 1.0)',
    'distance_via([[1, 2], [2.0, 3], [3, 1.0], [[3], 3.0]], 1, 3.0)', "reachable_via([[0.5, nul], [nul, 0.5]], 0.5)",
    "[distance_via([[x, x + 1] for x in range(40)] + [[40, 0.0]], z, 20) for z in [0, 39.0, 41, true]]",
    "[reachable_via(edges, z, 2) for z in nums]",
    # local bindings: computed once, read as locals, hiding any name; a value that fails fails the whole
    "let x = len(nums); x * x + x", "[let y = z * 2; y + y for z in nums]", "let current = 5; current + i",
    "let ks = nums; [z in ks for z in range(4)]", "let a = i > 3; (if a then f else s)", "let e = L[9]; 1",
    "[let q = [z, z]; len(q) + q[0] for z in nums]", "sum([let d = x - i; d * d for x in nums])",
    "[any(let d = x * z; d > i for x in nums) for z in range(3)]", "let m2 = m; let r = m2.red; [r, m2.blue]",
    # several `for` clauses: each source computed and charged per binding of the clauses before it
    "[x + y for x in nums for y in range(x) if y != 1]", "[[a, b, c] for a, b in pairs for c in range(a) if c < b]",
    "[y for x in M for y in x]", "len([y for x in M for y in x if y > 1])", "[y for x in nums for y in x]",
    "len([x for x in nums for y in fl if x > y])", "sum([x * y for x in nums for y in nums if x != y])",
    "max([x - y for x in nums for y in fl])", "min([w for x in nums for w in words if len(w) < x])",
    "any(x == y for x in nums for y in L)", "all(x != y for x in nums for y in words)",
    "[any(x + y == z for x in nums for y in nums) for z in range(7)]",
    "[all(x + y < z for x in nums if x > 1 for y in range(x)) for z in range(8)]",
    "[[x, y] for x in range(3) if x != 1 for y in range(x, 3) if x + y != 3]",
    "[[x + y for x in nums for y in range(z)] for z in range(3)]",
    "[len([x for x in nums for y in range(z)]) for z in nums]",
    "[sum([x * y for x in fl for y in range(z)]) for z in range(3)]", "[max([x for x in M for y in x]) for z in nums]",
    # index_where: the position of the first item that passes, -1 for none
    "index_where(x > 1 for x in nums)", "index_where(x for x in L)",
    'index_where(w == "ab" for w in words if len(w) > 1)',
    "[index_where(y > z for y in nums) for z in nums]", "index_where([false, 0, 3])", "index_where(x > 9 for x in nums)",
    "[index_where(y > z for y in range(5)) for z in range(7)]",
    "[index_where(y > z for y in nums[1:]) for z in nums]",
    "index_where(x > 1 for x in i)", "[index_where(z in p for p in edges) for z in range(7)]",
    # range() of C ints: counted without tags, empty when the end comes first, refused past 100,000 items
    "[x for x in range(len(nums) - 1)]", "[[y for y in range(z, len(nums))] for z in range(-2, 4)]",
    "[x * 2 for x in range(3 - len(nums) * 2)]", "len([x for x in range(99998 + len(nums))])",
    "[len([y for y in range(z - 2, z + i)]) for z in range(3)]",
    "len([x for x in range(9223372036854775806 + len(nums))])",
    # a kept builtin's call site meeting more arguments than its slots' hashes keep apart, twice over
    '[len(line_of("b", c, d)) for k in range(2) for c in range(len(nums) * 4) for d in ["N", "E", "S", "W", "NE", "NW", "SE", "SW"]]',
    '[sum(line_of("b", c, "E")) + len(line_of("b", c, "SW")) for c in range(i + 5)]',
    # a kept builtin's call site with a slot per cell and item of a constant list, each met twice; anything
    # else (off the board, not an int) kept in its hashed slots or called anew
    '[len(line_of("b", c, d)) for k in range(2) for c in [0, 11, 12, -1, 2.0, true, 3, 11] for d in ["N", "E", "SW"]]',
    '[[step("b", c, d) for d in ["N", "E", "S", "W"]] for k in nums for c in range(i + 6)]',
    '[neighbors("b", c, "king") for c in [11, 0, 11, 0, 5.0, 4611686018427387904]]',
    '[line_of(w, 1, "E") for w in ["b", "b", "g"]]', '[len(line_of("b", c, "E")) for c in ["a", null, L]]',
    # user functions returning a C truth or int (their calls charged as any call), and what they are given
    # that makes them fail; a truth or int met beside tagged values (floats, texts, bools)
    "[big(x) for x in nums]", "big(s)", "big(nul)", "[big(x) for x in fl]", "[above(x) for x in [0, 1, 2.5, 9]]",
    "above(s)", "above(0) == 3.0", "above(0) + 0.5", "big(3) == true", "big(3) == 1", "[sure(x) for x in nums]",
    "[down(n) for n in range(6)]", "down(2.5)", "down(s)", "any(big(x) for x in nums) and above(1) == 2",
    "[scaled(x) for x in [2, 3]]", "str(big(3)) + str(above(1))", "[above(x) for x in L]", "twice(above(0))",
    # an int's text (written by the runtime's own digits): zero, one digit, signs, both ends of 64 bits
    "[str(x) for x in [0, 7, -7, 10, -10, 9223372036854775807, -9223372036854775807 - 1]]",
    '"player " + str(i - 3) + " has " + str(len(L) * 1000001)',
    # a state list read where its items lie (in an expression it cannot change), by a tagged or a C int key,
    # and everything else through the runtime: negative keys, keys past its end, keys that are no int,
    # state that holds no list
    "[marked(k) for k in [0, 1, 3, -1, -4]]", "marked(4)", "marked(-5)", "marked(1.0)", "marked(true)",
    "marked(null)", "[L[k] for k in range(4)]", "[L[k] for k in range(-4, 0)]", "[L[k] for k in range(5)]",
    "[M[k][0] for k in range(2)]", "[s[k] for k in range(3)]", "[f[k] for k in range(1)]", "[m[k] for k in nums]",
    "[L[k + 9223372036854775807] for k in range(1)]", "[L[len(M) - k] for k in range(3)]",
    # constant lists of ints walked as C ints from tables (each item of a list of such lists too, of one
    # length or of several, empty among them), charged as walked; lists holding anything else as before
    "[x for x in nums]", "[[x, y] for x in nums for y in [1, 2]]", "[[x * 2 for x in p] for p in pairs]",
    "[sum([x for x in p]) for p in ragged]", "[len([x for x in p if x != 5]) for p in ragged]",
    "[any(x > 1 for x in p) for p in ragged]", "[max([x for x in p]) for p in ragged]",
    "[[L[x] for x in p] for p in [[0, 1], [3, -1]]]", "[all(L[x] != null for x in p) for p in [[0, 2], [1]]]",
    "[x + 1 for x in [-3, -9223372036854775807]]", "[x - 1 for x in [-3, 9223372036854775807]]",
    "[x for x in [1, 2.0]]", "[x for x in [true, 1]]", "[[x for x in p] for p in [[1], [true], []]]",
    "[[x for x in p] for p in [[], []]]", "len([x for x in nums for y in range(33333) for z in [1, 2, 3]])",
    '[len(line_of("b", c, d)) for k in range(2) for c in [0, 5, 11, 12, -1] for d in ["N", "E"]]',
    # a slice of a text walked in an expression: the runtime's own list of its letters, held while walked
    "[x for x in s[0:2]]", "[[y for y in s[:z]] for z in range(4)]", "[[y for y in M[z][0:1]] for z in range(2)]",
    '[[x for x in "abcdefghijklmnopqrstuvwxyz"[z:z + 20]] for z in range(2)]',
    # line_of() over a named board and a constant direction (or the item of a loop over constant directions,
    # names or vectors) walked as C ints from a table of every cell's line, by a tagged or a C int cell; a cell
    # off the board, not an int, or a direction that does not move: the error through the hand-over
    '[c for c in line_of("b", 5, "E")]', '[c * 2 for c in line_of("b", i, "NE") if c != 4]',
    '[[c for c in line_of("b", x, d)] for d in ["E", "S", "NW", [1, 1], [2, -1]] for x in [0, 6, 11]]',
    '[sum([c for c in line_of("b", x, "SE")]) for x in nums]', 'any(c == 5 for c in line_of("b", i - 6, "W"))',
    '[max([c for c in line_of("b", x, "N") if L[c % 4] != null]) for x in range(12)]',
    '[c for c in line_of("b", 12, "E")]', '[c for c in line_of("b", -1, "E")]',
    '[c for c in line_of("b", 1.0, "E")]', '[c for c in line_of("b", true, "E")]', '[c for c in line_of("b", nul, "S")]',
    '[c for c in line_of("b", 3, [0, 0])]', '[[c for c in line_of("b", 3, d)] for d in ["E", "up"]]',
    '[c for c in line_of("g", 3, "E")]', 'len([c for k in range(30000) for c in line_of("b", 0, "E")])',
    # a board's line handed to a user function: the version taking it as C ints (walked, sliced, indexed, its
    # len) and its fallbacks: the generic function where a use needs the list (compared, returned, a call of
    # itself), errors the Python path raises (an index off the line, bounds or indexes not ints, a cell off
    # the board), the budget running out in the version
    '[run(p, line_of("b", c, d)) for p in [null, 1, 3, 4] for c in range(12) for d in ["E", "S", "NE", "SW"]]',
    '[ends(line_of("b", c, "E"), k) for c in [0, 5, 11] for k in [0, 1, -1, -2]]', 'ends(line_of("b", 5, "E"), 4)',
    'ends(line_of("b", 5, "E"), -5)', 'ends(line_of("b", 5, "E"), true)', 'ends(line_of("b", 5, "E"), 1.0)',
    'ends(line_of("b", 5, "E"), null)', '[walked(line_of("b", c, d)) for c in range(12) for d in ["N", "SE", [1, 2]]]',
    '[span(line_of("b", 6, "E"), lo, hi) for lo in [null, -9, -2, 0, 1, 3, 7] for hi in [null, -9, -1, 0, 2, 9]]',
    'span(line_of("b", 6, "E"), true, 2)', 'span(line_of("b", 6, "E"), 0, 2.0)', 'span(line_of("b", 6, "E"), "a", 2)',
    '[handed(line_of("b", c, "W")) for c in range(12)]', '[same(line_of("b", c, "E")) for c in [0, 1, 4]]',
    '[deep(line_of("b", c, "S"), 2) for c in [1, 2]]', '[picked(line_of("b", c, "NW")) for c in range(12)]',
    'run(1, line_of("b", 12, "E"))', 'run(1, line_of("b", -1, "E"))', 'run(1, line_of("b", 2.0, "E"))',
    'run(1, line_of("b", true, "E"))', 'ends(line_of("b", nul, "E"), 0)', 'run(1, line_of("g", "a", "E"))',
    'run(1, [0, 1, 2])', 'ends([4, 5], 1)', '[run(1, line_of("b", c, d)) for c in [0, 1.5] for d in ["E", "S"]]',
    'len([k for k in range(20000) if run(3, line_of("b", k % 12, "E"))])',
    'len([k for k in range(20000) if span(line_of("b", k % 12, "E"), 0, 4) != []])',
    '[[windows(line_of("b", c, "E")), windows(line_of("b", c, "S")), windows(line_of("b", c, "NE")),'
    ' windows(line_of("b", c, "SW"))] for c in range(12)]',
    '[[overhang(line_of("b", c, "E")), overhang(line_of("b", c, "S")), overhang(line_of("b", c, "NE")),'
    ' overhang(line_of("b", c, "SW"))] for c in range(12)]',
    'len([k for k in range(20000) if windows(line_of("b", k % 12, "E")) != []])',
    # sums of ints whose bounds the lowering knows (no overflow test), near the ends of 64 bits
    "[k + 4 - 9223372036854775807 for k in range(3)]", "[9223372036854775807 - k for k in range(3)]",
    # max() and min() of C ints whose best is (or starts at) an end of 64 bits
    "max([k * -4611686018427387904 * 2 for k in range(1, 2)])",
    "[min([9223372036854775807 - k for k in range(z)]) for z in range(1, 3)]",
    "[max([k * -4611686018427387904 * 2 for k in range(z)]) for z in range(1, 3)]",
    '[either(k) for k in range(-4, 6)]', 'either(1.0)', 'either(null)',
    "[k - 4611686018427387904 - 4611686018427387904 for k in range(2)]",
    # ranges whose bounds the lowering knows: their length untested when short, tested when they may be long
    "[[j for j in range(k, 3)] for k in range(-1, 5)]",
    "[k for k in range(-1, 1) if k < 0 and len([j for j in range(k, 100001)]) > 0]",
    # user functions given C ints (their versions taking them so) and tagged values of every other kind
    "[lowest(k) for k in range(5)]", "lowest(4)", "lowest(5)", "lowest(1.0)", "lowest(true)", "[lowest(k) for k in nums]",
    '[highest(k, line_of("b", c, "E")) for k in range(4) for c in [0, 5, 11]]', 'highest(9, line_of("b", 0, "E"))',
    '[highest(k, line_of("b", c, "S")) for k in [0, 2.5, true] for c in [1, 3]]',
    "[both(a, b) for a in range(3) for b in range(2)]", "both(1, 2.5)", "both(true, 1)", "both(2, 4611686018427387904)",
    "[both(a, 9223372036854775807) for a in range(2)]",
    # max() and min() of C ints: the first of equals, none (an error), charged as the list
    "max([x % 3 for x in range(7)])", "min([x - 2 for x in range(4) if x > 0])", "max([x for x in range(0)])",
    "[min([x * y for x in range(z)]) for z in range(1, 4) for y in [2, -1]]", "max([len(w) for w in words])",
    "len([k for k in range(30000) if max([x for x in range(k % 3 + 1)]) > 1])",
    # loops walking a constant list where it lies, and items read where they lie (no copy of the item)
    '[w + "x" for w in words if w != "a"]', '[a * 10 + b for a, b in pairs]', 'any(w == "ab" for w in words)',
    '[[y for y in x if y > 1] for x in M]', '[x for x in L if x != null]', '[[w for w in words] for x in edges]',
    '[e[0] + k for e in edges for k in e]', 'len([w for k in range(40000) for w in words])',
    'len([x for k in range(30000) for x in L])', '[x for x in colours]', '[x for x in s]',
    # equality (rp_equal: two ints, texts or booleans inline, the rest through rp_equal_any) in count(),
    # index_of(), unique(), `in` and `==`, over every pair of kinds: 1 == 1.0, true is not 1, lists item by item
    '[count(["a", 1, 1.0, true, null, false, 0, [1], [1.0], [true], "b", 2, m], v) for v in [1, 1.0, true, '
    'false, 0, 0.0, null, "a", "c", [1], [1.0], [true], [], 2, 2.5, colours, [m]]]',
    '[index_of([null, "a", 1.0, true, [1, "a"], 1, [m, 2]], v) for v in [1, true, null, "a", [1.0, "a"], 0, '
    'false, [1, "b"], [colours, 2.0], [m, true], "b"]]',
    '[v in [0.0, false, "ab", [2, [3]], i] for v in [0, false, true, "ab", "a", [2, [3.0]], [2, [3, 4]], null, 7, '
    '7.0, 8]]', 'unique([1, 1.0, true, 1, "a", "a", false, 0, null, null, [1], [1.0], [true]])',
    '[[a == b for b in [1, 1.0, true, "a", null, [1], [true], m]] for a in [1, 1.0, true, "a", null, [1], '
    '[true], colours, [m]]]', '[count(L, v) + index_of(L, v) for v in L + [3.0, 4, true, 9]]',
    # step() of a named board from a table of every cell and named direction, by a C int or a tagged cell; a
    # vector, a cell off the board or no int, a name no direction has, a count that is no literal: the builtin
    '[[step("b", c, d) for d in ["N", "NE", "E", "SE", "S", "SW", "W", "NW", [1, 1]]] for c in range(12)]',
    '[step("b", x, "W", 2) for x in nums]', '[step("b", i, w) for w in ["N", "S", "SE"]]',
    '[step("b", c, d, k) for c in [0, 7] for d in ["S", "NE"] for k in [0, 1, -1]]', 'step("b", 12, "N")',
    'step("b", -1, "N")', 'step("b", 1.0, "N")', 'step("b", true, "N")', 'step("b", 3, "up")', 'step("b", 3, s)',
    # a component's property read where it lies, charged as its copy: a scalar one anywhere, a list by `in`,
    # len() and a loop in an expression; anything that is no component with the property through rp_field
    '[c.rank for c in ["ace", "two"]]', '[len(c.tags) for c in ["ace", "two"]]',
    '["x" in c.tags for c in ["ace", "two"]]',
    '[[t for t in c.tags] for c in ["ace", "two"]]', '[c.tags for c in ["ace", "two"]]', '"three".rank',
    '[m.red for k in range(2)]', '"x" in m.red', 'len([k for k in range(40000) if "x" in "ace".tags])',
    # a loop over pairs made by a list literal, walked as they are made (no list made), charged as the list
    '[b for a, b in [[x, x * 2] for x in nums] if a > 1]',
    'len([a for a, b in [[x, M[x % 3]] for x in nums] if len(b) > 0])',
    '[[a, b, c] for a, b in [[p, len(p)] for p in M] for c in range(b)]',
    'sum([a * b for a, b in [[x, x + 1] for x in nums if x != 2]])',
    '[a for a, b in [[x, x + s] for x in nums]]', 'any(b > 2 for a, b in [[x, x] for x in nums])',
    'max([b for a, b in [[w, len(w)] for w in words]])',
    '[a for a, b in [[x, 1, 2] for x in nums]]', 'len([a for k in range(9000) for a, b in [[x, [x]] for x in nums]])',
    # count(), index_of() and `in` of a state list, walked once where it lies; a list holding lists (M), a value
    # or an item that is a float, a list or a map, and anything but a list through the runtime; the budget running
    # out (and just not)
    '[[count(L, v), index_of(L, v), v in L, v not in L, tally(v)] for v in [4, null, 1, 3, 2, true, false, 0, "a", '
    '4.0, [4], m, nul]]', '[[v in M, v not in M] for v in [[3], [], 3, null, [3.0]]]',
    '["a" in s, "ab" in s, "red" in m, 1 in m]', '1 in f', 'len([k for k in range(40000) if k % 5 in L])',
    'len([k for k in range(40001) if k % 5 in L])',
    # `in` of a list that is no constant (made, sliced, returned): one walk, or through the runtime as above
    '[[v in [1, null, "a", true, i], v in M[0] + [v], v not in L[1:]] for v in [1, 1.0, true, null, "a", 7, [1], 3]]',
    'len([k for k in range(20000) if k % 5 in twice(L)])', 'len([k for k in range(20001) if k % 5 in twice(L)])',
    # len() of flatten() and unique(), the list unmade: lists of lists (nested deeper too), scalars of every kind
    # (small ints, and not), lists among them (the call made), anything the builtin refuses; the budget running
    # out (and just not)
    '[len(flatten(M)), len(flatten([])), len(flatten([[1, [2, 3]], [], [m], M])), len(unique(L)), len(unique([]))]',
    'len(unique([1, 1.0, true, 1, "a", "a", false, 0, null, null, 2.5, 2.5]))',
    'len(unique([63, 0, 64, -1, 63, 5, 0]))', 'len(unique([[1], [1.0], 2, m, m]))', 'len(unique([5, 0, 63, 5, 0, 63]))',
    'len(flatten(L))', 'len(flatten([[1, 2], m]))', 'len(flatten([[1], 3]))', 'len(unique(s))', 'len(flatten(nul))',
    '[len(unique(L[:k])) + len(flatten(M[k:])) for k in range(4)]',
    'len([k for k in range(28571) if len(flatten(M)) > 0])', 'len([k for k in range(28572) if len(flatten(M)) > 0])',
    'len([k for k in range(40000) if len(unique(L)) > 0])', 'len([k for k in range(40001) if len(unique(L)) > 0])',
    # short lists of scalars (counted in place by the size walk) among longer and nested ones, at the nesting bound
    # and one level past it (an error), scanned by `==`
    '[[[x, y], [x], [x, y, x, y], [x, y, x, y, x], [[x]], [x, m], []] == [] for x in nums for y in L]',
    *[f"let a = {'[' * 50}[1, 2]{']' * 50}; let b = {'[' * k}a{']' * k}; b == []" for k in (49, 50)],
    '[[count(M, v), index_of(M, v)] for v in [[3], [], 3, null]]', 'count(s, 1)', 'count(m, 1)', 'index_of(nul, 1)',
    'index_of(f, 2.5)', '[[count(x, 1), index_of(x, 1)] for x in [[1, 1.0, true], [2, [1]], [], [m, 1]]]',
    'len([k for k in range(40000) if count(L, k % 5) > 0])', 'len([k for k in range(40001) if count(L, k % 5) > 0])',
    'len([k for k in range(40000) if index_of(L, k % 5) > 0])',
    'len([k for k in range(40001) if index_of(L, k % 5) > 0])',
]


def test_curated_forms_agree(tmp_path):
    path = tmp_path / "properties.yaml"
    path.write_text(RULESET, encoding="utf-8")
    game = load_game(path)
    native_of(game)
    trees = [parse_expr(text) for text in CURATED]
    probe = _Probe(game, trees)
    for k, tree in enumerate(trees):
        python, native = _python_value(game, tree), probe.value(k)
        if python[0] == "error":
            assert native[0] == "bail", CURATED[k]
        else:
            assert native[0] == "value" and _same(native[1], python[1]), (CURATED[k], native, python)


# Sums of ints the lowering knows the bounds of, which may pass 64 bits: the overflow is still tested (the Python
# engine makes such a step).
PAST_64_BITS = ["[k - 9223372036854775807 - 2 for k in range(3)]", "[9223372036854775807 - 1 + k for k in range(3)]",
                "[k + 4611686018427387904 + 4611686018427387904 for k in range(2)]"]


def test_known_sums_past_64_bits_bail(tmp_path):
    path = tmp_path / "properties.yaml"
    path.write_text(RULESET, encoding="utf-8")
    game = load_game(path)
    probe = _Probe(game, [parse_expr(text) for text in PAST_64_BITS])
    for k, text in enumerate(PAST_64_BITS):
        assert _python_value(game, parse_expr(text))[0] == "value", text
        assert probe.value(k) == ("bail", BAIL_NATIVE), text


# An announce's text built by `+`, str() and join() is only measured natively (lower_announce.py): it must fail
# where making it fails (operand types, join's arguments, a float's form) and charge what making it charges
# (`copies_per_move` is 40 here: three texts of 5 built into one charge 10 + 15, four charge 10 + 15 + 20).
CURATED_ANNOUNCES = {
    'announce "abcde" + "abcde" + "abcde"': ("state", "state"),
    'announce "abcde" + "abcde" + "abcde" + "abcde"': ("error", "bail"),
    'announce "abcde" + ("abcde" + ("abcde" + "abcde"))': ("error", "bail"),
    'announce "ab" + str(i) + s': ("state", "state"), 'announce str(f) + str(nul) + str(t)': ("state", "state"),
    'announce str(L) + str(m)': ("state", "state"), 'announce join(nums) + join([])': ("state", "state"),
    'announce "p" + str(current) + join(words, ",")': ("state", "state"),
    'announce join(repeat("abcdefghij", 3), "")': ("state", "state"),
    'announce join(repeat("abcdefghij", 5))': ("error", "bail"),
    'announce join(words) + join(words) + join(words)': ("state", "state"),
    'announce join(words) + join(words) + join(words) + join(words)': ("error", "bail"),
    'announce join(words, "abcde") + join(words, "abcde")': ("error", "bail"),
    'announce "a" + i': ("error", "bail"), 'announce i + "a"': ("error", "bail"),
    'announce "a" + L': ("error", "bail"), 'announce L + "a"': ("error", "bail"),
    'announce str(i) + nul': ("error", "bail"), 'announce join(i)': ("error", "bail"),
    'announce join(words, 1)': ("error", "bail"), 'announce "a" + str(L[9])': ("error", "bail"),
    'announce str(1 / 0) + "a"': ("error", "bail"), 'announce "a" + s + "b" to current': ("state", "state"),
    'announce "a" + s to 7': ("error", "bail"), 'announce s': ("state", "state"), 'announce M': ("state", "state"),
    'announce "a" + twice(s)': ("state", "state"), 'announce twice(s) + twice(i)': ("error", "bail"),
    'announce "é" + "ü" + s\ni = 1': ("state", "state"),
    # choices: measured branch by branch; a branch that is no text fails the `+` it is a side of, not the announce
    'announce "a" + (if t then "bc" + s else i)': ("state", "state"),
    'announce "a" + (if not t then "bc" + s else i)': ("error", "bail"),
    'announce (if t then "x" + s else "y") + str(i)': ("state", "state"),
    'announce if t then 5 else "a" + s': ("state", "state"), 'announce (if nul then "x" else 5) + 1': ("state", "state"),
    'announce "a" + (if t then (if not t then "b" else L) else "c")': ("error", "bail"),
    'announce "a" + (if L[7] then "b" else "c")': ("error", "bail"),
}


def test_curated_announces_agree(tmp_path):
    path = tmp_path / "properties.yaml"
    path.write_text(RULESET + "limits: {copies_per_move: 40}\n", encoding="utf-8")
    assert _effects_agree(load_game(path), list(CURATED_ANNOUNCES)) == list(CURATED_ANNOUNCES.values())
