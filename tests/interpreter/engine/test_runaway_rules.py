"""Rules that would exhaust the machine stop with a located RP500/RP501 error, within seconds.

Each case is the smallest form of a real hazard: work that doubles with each
call or iteration, a value that doubles in size (text, list, or a list that
holds itself twice) until it fills the memory, work linear in a large value
done once per item of it, or a walk that never ends.
"""

from __future__ import annotations

import time

import pytest

from ruleplay import load_game
from ruleplay.engine.errors import RuleRuntimeError

CPU_SECONDS = 5  # generous on a loaded machine; a runaway case would take hours or all the memory
pytestmark = pytest.mark.timeout(120)  # should a limit stop working, fail here rather than hang the suite

RULESET = """\
ruleplay: 1
game: runaway
players: 2
functions:
  double:
    params: [n]
    value: "if n == 0 then 1 else double(n - 1) + double(n - 1)"
  pairs_of:
    params: [xs]
    value: zip(xs, xs)
  nest:
    params: [n]
    value: "if n == 0 then [1, 2] else pairs_of(nest(n - 1))"
procedures:
  twice:
    params: [d]
    effects: "if d > 0 { call twice(d - 1) call twice(d - 1) }"
boards:
  b: {width: 3, height: 3}
state:
  x: {init: "[1, 2]"}
  s: {init: '"ab"'}
  big: {init: 'INIT'}
  n: {init: "0"}
flow:
  phases:
    - {name: play, order: alternate, actions: [go]}
actions:
  go:
    effects: |
      EFFECTS
end:
  - when: "false"
"""


def ruleset(tmp_path, init: str = "0", effects: str = "pass") -> str:
    path = tmp_path / "runaway.yaml"
    path.write_text(RULESET.replace("INIT", init).replace("EFFECTS", effects), encoding="utf-8")
    return str(path)


def stops(action) -> RuleRuntimeError:
    started = time.process_time()
    with pytest.raises(RuleRuntimeError) as err:
        action()
    assert time.process_time() - started < CPU_SECONDS
    assert err.value.pos is not None and err.value.pos.line > 0
    return err.value


@pytest.mark.parametrize("init, message", [
    ("double(60)", "iteration limit exceeded"),                       # 2^60 calls
    ("nest(60)", "zip(): effect iteration limit exceeded"),            # a list sharing itself 2^60 times
    ("repeat(repeat(0, 100000), 100000)", "repeat(): too many items"),
    ("[range(100000) for i in range(100)]", "values built or copied in one move are too large"),
    ('join(repeat("abcdefghij", 20000), "")', "join() would make a text of 200000 characters"),
    ("repeat([1, 2, 3], 40000) * 2", "repeat(): too many items (40000 copies"),
])
def test_a_runaway_value_in_setup_stops(tmp_path, init, message):
    game = load_game(ruleset(tmp_path, init=init))
    assert message in stops(lambda: game.new_state(0)).message


@pytest.mark.parametrize("effects, message", [
    ("for i in range(60) { x = [x, x] }", "values built or copied in one move are too large"),
    ("for i in range(60) { x = x + x }", "`+` would make a list"),
    ("for i in range(60) { x += x }", "`+` would make a list"),
    ("for i in range(60) { s = s + s }", "`+` would make a text"),
    ("for i in range(60) { append x to x }", "values built or copied in one move are too large"),
])
def test_a_value_doubling_in_a_move_stops(tmp_path, effects, message):
    game = load_game(ruleset(tmp_path, effects=effects))
    state = game.new_state(0)
    err = stops(lambda: state.apply("go"))
    assert message in err.message and err.code == "RP501"


def test_the_copy_budget_is_a_limit_a_ruleset_can_raise(tmp_path):
    path = ruleset(tmp_path, effects="for i in range(10) { x = x + repeat(0, 2000) }")
    with open(path, "a", encoding="utf-8") as out:
        out.write("limits:\n  copies_per_move: 100000\n")
    state = load_game(path).new_state(0)
    assert "copies_per_move" in stops(lambda: state.apply("go")).hint
    ordinary = load_game(ruleset(tmp_path, effects="for i in range(10) { x = x + repeat(0, 2000) }"))
    assert len(ordinary.new_state(0).apply("go").data["vars"]["x"]) == 20002  # well within the default


@pytest.mark.parametrize("init, effects, message", [
    ("0", "call twice(60)", "effect iteration limit exceeded"),  # 2^60 procedure calls
    # Work linear in a large value, once per item of it: each walk is charged to the iterations.
    ("range(100000)", "n = len([i for i in big if i in big])", "effect iteration limit exceeded"),
    ("range(100000)", "n = len([i for i in range(100) if big == big])", "effect iteration limit exceeded"),
    ("range(100000)", "n = len([i for i in range(100) if big <= big])", "effect iteration limit exceeded"),
    ("range(100000)", "n = len([len(unique(big)) for i in range(100)])", "unique(): effect iteration limit"),
    ("range(100000)", "n = len([count(big, i) for i in big])", "count(): effect iteration limit"),
    ("range(100000)", "for i in range(1000) { remove 99999 from big append 99999 to big }",
     "effect iteration limit exceeded"),
    ("range(100000)", "n = len(flatten([big, big, big, big, big, big, big, big, big, big]))",
     "flatten(): effect iteration limit exceeded"),
    # Values built and thrown away at once still take time and memory: charged to the copies.
    ("range(50000)", "n = len([len(big + big) for i in range(100)])", "values built or copied in one move"),
    ("range(100000)", "n = len([len(big[1:]) for i in range(100)])", "values built or copied in one move"),
    ('join(repeat("a", 50000))', "n = len([big + big for i in range(100000)])", "values built or copied"),
    ("range(100000)", "x = [big] repeat 16 { x += x }", "values built or copied in one move"),
    ("range(1000)", "n = sum([len(range(1000)) for i in big])", "values built or copied in one move"),
    # A substring search in a long text, once per item: searched in C, but in time linear in the text.
    ('join(repeat("a", 99999))', 'let t = join(repeat("a", 500)) + "b"  n = len([i for i in range(2000) if t in big])',
     "effect iteration limit exceeded"),
])
def test_work_linear_in_a_large_value_is_charged(tmp_path, init, effects, message):
    state = load_game(ruleset(tmp_path, init=init, effects=effects)).new_state(0)
    err = stops(lambda: state.apply("go"))
    assert message in err.message and err.code == "RP501"


def test_a_large_value_walked_once_is_fine(tmp_path):
    state = load_game(ruleset(tmp_path, init="range(100000)", effects="n = len(unique(big[1:] + [1]))")).new_state(0)
    started = time.process_time()
    assert state.apply("go").data["vars"]["n"] == 99999  # linear: type-aware keys, not pairwise `==`
    assert time.process_time() - started < CPU_SECONDS


@pytest.mark.parametrize("effects", ['n = len(ray("b", 0, [0, 0]))', 'n = len(line_of("b", 4, [0, 0]))'])
def test_a_ray_that_does_not_move_is_an_error(tmp_path, effects):
    state = load_game(ruleset(tmp_path, effects=effects)).new_state(0)
    assert "[0, 0] does not lead anywhere" in stops(lambda: state.apply("go")).message


@pytest.mark.parametrize("effects", [
    "repeat 1200 { x = [x] }",
    "repeat 150 { x[0] = x }",
    "let a = [1] repeat 900 { a = [a] } n = len(sorted([a, a]))",
])
def test_values_nest_at_most_a_hundred_levels(tmp_path, effects):
    state = load_game(ruleset(tmp_path, effects=effects)).new_state(0)
    err = stops(lambda: state.apply("go"))
    assert "a value is nested more than 100 levels deep" in err.message and err.code == "RP501"


def test_nesting_is_bounded_across_moves_too(tmp_path):
    state = load_game(ruleset(tmp_path, effects="repeat 60 { x = [x] }")).new_state(0)
    state = state.apply("go")  # 61 levels: fine, and the state still copies, compares and saves
    assert state.copy().to_json() == state.to_json()
    assert "nested more than 100 levels" in stops(lambda: state.apply("go")).message


GRAPH = """\
ruleplay: 1
game: walks
players: 2
boards:
  sea: {width: 32, height: 32}
graphs:
  g: {board: sea, steps: orthogonal}
state:
  n: {init: "0"}
flow:
  phases:
    - {name: play, order: alternate, actions: [go]}
actions:
  go:
    params:
      a: range(SIZE)
      b: range(SIZE)
      c: range(SIZE)
    effects: n = sum([len(reachable("g", cell)) for cell in range(1000)])
end:
  - when: "false"
"""


def walks(tmp_path, size: int) -> str:
    path = tmp_path / f"walks{size}.yaml"
    path.write_text(GRAPH.replace("SIZE", str(size)), encoding="utf-8")
    return str(path)


def test_graph_searches_are_charged_by_the_part_of_the_graph_they_walk(tmp_path):
    state = load_game(walks(tmp_path, 1)).new_state(0)
    assert "reachable(): effect iteration limit exceeded" in stops(lambda: state.apply("go(0, 0, 0)")).message


def test_listing_moves_charges_each_parameter_value_tried(tmp_path):
    game = load_game(walks(tmp_path, 1000))  # 10^9 candidate moves
    err = stops(lambda: game.new_state(0).legal_moves())  # the flow lists them to find who can move
    assert err.code == "RP501" and "listing the moves of action 'go' tries too many parameter values" in err.message
    assert err.pos.line == 18  # the parameter being listed when the budget ran out
    assert len(load_game(walks(tmp_path, 40)).new_state(0).legal_moves()) == 40 ** 3  # 64000: within the budget


@pytest.mark.parametrize("in_place", [False, True])
def test_a_move_that_runs_out_of_python_stack_is_a_rule_error_and_leaves_the_state(tmp_path, in_place):
    """Python's own frame limit can come before `limits.max_depth` (here it is set low on purpose): the move
    fails with a rule error, not a RecursionError, and the state it was made on is unchanged."""
    import inspect
    import sys

    state = load_game(ruleset(tmp_path, effects="n = double(40)")).new_state(0)
    before = state.to_json()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 40)
    try:
        with pytest.raises(RuleRuntimeError, match="too deeply for the interpreter"):
            state.apply_in_place("go") if in_place else state.apply("go")
    finally:
        sys.setrecursionlimit(limit)
    assert state.to_json() == before
