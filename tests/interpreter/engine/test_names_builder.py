"""Declared names code must name: refused when code reads them as something else, kept when it reads them."""

from __future__ import annotations

import pytest

from ruleplay import RulesetError

BASE = """\
ruleplay: 1
game: names
players: 2
{decls}
flow:
  phases:
    - name: play
      actions: [tick]
actions:
  tick:
    {params}
    effects: {effects}
end:
  - when: {end}
"""


def ruleset(decls: str = "state:\n  n: {init: '0'}", params: str = "", effects: str = "n += 1",
            end: str = "n >= 2") -> str:
    return BASE.format(decls=decls, params=params, effects=effects, end=end)


@pytest.mark.parametrize("decls, message", [
    ("state:\n  n: {init: '0'}\n  'true': {init: '5'}", "state variable 'true' cannot be named in code: it reads as "
                                                       "a keyword or literal"),
    ("state:\n  n: {init: '0'}\n  a-b: {init: '1'}", "state variable 'a-b' cannot be named in code: it reads as "
                                                    "an expression"),
    ("constants: {'null': 3}\nstate:\n  n: {init: '0'}", "constant 'null' cannot be named"),
    ("derived: {'if': '1'}\nstate:\n  n: {init: '0'}", "derived constant 'if' cannot be named"),
    ("functions:\n  'true': {value: '1'}\nstate:\n  n: {init: '0'}", "function 'true' cannot be named"),
    ("functions:\n  f: {params: [x, 'not'], value: x}\nstate:\n  n: {init: '0'}",
     "parameter 'not' of function 'f' cannot be named"),
    ("procedures:\n  a-b: {effects: pass}\nstate:\n  n: {init: '0'}", "procedure 'a-b' cannot be named"),
])
def test_a_name_code_cannot_read_is_refused_where_it_is_declared(make_game, decls, message):
    with pytest.raises(RulesetError) as info:
        make_game(ruleset(decls))
    (d,) = [d for d in info.value.diagnostics if d.code == "RP219"]
    assert message in d.message
    assert "rename it, e.g. `" in d.hint and "letters, digits and `_`" in d.hint


def test_the_hint_proposes_a_name_code_can_read(make_game):
    with pytest.raises(RulesetError) as info:
        make_game(ruleset("state:\n  n: {init: '0'}\n  a-b: {init: '1'}\n  'null': {init: '1'}"))
    hints = [d.hint for d in info.value.diagnostics if d.code == "RP219"]
    assert [h.split("`")[1] for h in hints] == ["a_b", "null_"]


def test_an_action_parameter_named_like_a_literal_is_refused(make_game):
    with pytest.raises(RulesetError) as info:
        make_game(ruleset(params="params: {'false': '[1, 2]'}"))
    assert [d.message for d in info.value.diagnostics if d.code == "RP219"] == [
        "parameter 'false' of action 'tick' cannot be named in code: it reads as a keyword or literal"]


def test_keywords_code_reads_as_names_where_they_stand_are_kept(make_game):
    """The lexer is contextual: `to`, `from`, `and` or `in` are names where no keyword can stand, and a
    procedure named `pass` is called as `call pass()`; a state variable `log` is changed by `append`."""
    game = make_game(ruleset(
        decls="state:\n  n: {init: '0'}\n  log: {init: '[]'}\n"
              "procedures:\n  pass: {params: [in], effects: n += in}",
        params="params: {to: '[1]', from: '[2]', and: '[3]'}",
        effects="'call pass(to + from + and - 5)\n      append n to log'"))
    state = game.new_state().apply("tick(1, 2, 3)")
    assert state.data["vars"]["n"] == 1 and state.data["vars"]["log"] == [1]
