"""Rules that would exhaust the machine stop with a located RP500/RP501 error, within seconds.

Each case is the smallest form of a real hazard: work that doubles with each
call or iteration, or a value that doubles in size (text, list, or a list
that holds itself twice) until it fills the memory.
"""

from __future__ import annotations

import time

import pytest

from ruleplay import load_game
from ruleplay.errors import RuleRuntimeError

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
state:
  x: {init: "[1, 2]"}
  s: {init: '"ab"'}
  big: {init: 'INIT'}
flow:
  phases:
    - {name: play, order: alternate, actions: [go]}
actions:
  go: {effects: "EFFECTS"}
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
    ("nest(60)", "values built or copied in one move are too large"),  # a list sharing itself 2^60 times
    ("repeat(repeat(0, 100000), 100000)", "repeat() count out of range"),
    ("[range(100000) for i in range(100)]", "values built or copied in one move are too large"),
    ('join(repeat("abcdefghij", 20000), "")', "join() would make a text of 200000 characters"),
    ("repeat([1, 2, 3], 40000) * 2", "out of range"),
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
    path = ruleset(tmp_path, effects="for i in range(20) { x = x + repeat(0, 2000) }")
    with open(path, "a", encoding="utf-8") as out:
        out.write("limits:\n  copies_per_move: 100000\n")
    state = load_game(path).new_state(0)
    assert "copies_per_move" in stops(lambda: state.apply("go")).hint
    ordinary = load_game(ruleset(tmp_path, effects="for i in range(20) { x = x + repeat(0, 2000) }"))
    assert len(ordinary.new_state(0).apply("go").data["vars"]["x"]) == 40002  # well within the default
