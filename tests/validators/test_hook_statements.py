"""A flow statement in a hook is refused exactly where the event loop would silently ignore it.

The check (`validators.hook_statements`) states which statements each hook
honours; this test asks the loop itself.  For every hook and statement it
plays the game once with the statement and once without: a statement the
check accepts must change the game, and a statement it refuses (RP324)
must be one that, let through, would have changed nothing.
"""

from __future__ import annotations

import json

import pytest

import ruleplay.validators as validators
from ruleplay import RulesetError, load_game
from ruleplay.validators.hook_statements import check_hook_statements

GAME = """ruleplay: 1
game: hooks
players: 2
state: {{n: {{init: "0"}}, log: {{init: "[]"}}}}
setup: {setup}
flow:
  on_round_begin: {on_round_begin}
  on_round_end: {on_round_end}
  phases:
    - name: first
      actions: [inc]
      on_begin: {on_begin}
      on_end: {on_end}
      stages:
        st: {{actions: [special]}}
    - name: second
      actions: [inc]
    - name: third
      actions: [inc]
actions:
  inc: {{effects: "n += 1\\nappend [phase, stage, round] to log\\nend_phase\\nif n == 100 {{ stage st }}"}}
  special: {{effects: "n += 10"}}
end: [{{when: n >= 7}}]
"""
HOOKS = ("setup", "on_round_begin", "on_round_end", "on_begin", "on_end")
STATEMENTS = ("end_turn", "end_phase", "goto third", "stage st", "end_game")


def _text(hook: str | None, statement: str) -> str:
    return GAME.format(**{h: statement if h == hook else "pass" for h in HOOKS})


def _played(path) -> str:
    state = load_game(path).new_state(0)
    while not state.is_terminal():
        state = state.apply(state.legal_moves()[0])
    return json.dumps([state.data["vars"]["log"], state.data["flow"]["ended_by"]])


@pytest.mark.parametrize("hook", HOOKS)
@pytest.mark.parametrize("statement", STATEMENTS)
def test_a_hook_statement_is_refused_exactly_when_the_loop_ignores_it(tmp_path, monkeypatch, hook, statement):
    reference, probe = tmp_path / "reference.yaml", tmp_path / "probe.yaml"
    reference.write_text(_text(None, "pass"), encoding="utf-8")
    probe.write_text(_text(hook, statement), encoding="utf-8")
    try:
        load_game(probe)
        refused = None
    except RulesetError as err:
        refused = err.diagnostics[0]
    if refused is None:
        assert _played(probe) != _played(reference), f"`{statement}` in {hook} is accepted but does nothing"
        return
    assert refused.code == "RP324" and f"`{statement}` in" in refused.message
    # let the statement through, to see that it would have done nothing
    monkeypatch.setattr(validators, "CHECKS", [c for c in validators.CHECKS if c is not check_hook_statements])
    assert _played(probe) == _played(reference), f"`{statement}` in {hook} is refused but changes the game"
