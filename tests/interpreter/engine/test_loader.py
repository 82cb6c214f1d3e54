"""Loading: the cycle collector is paused for a load and left as the caller had it."""

from __future__ import annotations

import gc

import pytest

from ruleplay.dsl.diagnostics import RulesetError
from ruleplay.engine.loader import load_model


@pytest.fixture
def collector_restored():
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


def test_a_load_pauses_the_collector_and_turns_it_back_on(collector_restored, monkeypatch):
    seen = []
    from ruleplay.engine import loader

    def build(*args):
        seen.append(gc.isenabled())
        return real(*args)

    real = loader.build_model
    monkeypatch.setattr(loader, "build_model", build)
    gc.enable()
    load_model("tic-tac-toe")
    assert seen == [False]
    assert gc.isenabled()


def test_a_failed_load_turns_the_collector_back_on(collector_restored, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("ruleplay: 1\ngame: [\n", encoding="utf-8")
    gc.enable()
    with pytest.raises(RulesetError):
        load_model(bad)
    assert gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off(collector_restored):
    gc.disable()
    load_model("tic-tac-toe")
    assert not gc.isenabled()


def test_a_problem_in_code_an_alias_puts_in_two_places_names_each_place(make_game):
    """One text, one position, two uses: each report says which use it is (`at:`), not the same line twice."""
    with pytest.raises(RulesetError) as err:
        make_game("""
ruleplay: 1
game: aliased
players: 2
state: {n: {init: "0"}}
flow: {phases: [{name: p, actions: [inc, dec]}]}
actions:
  inc: {effects: &eff "n += undefined_name"}
  dec: {effects: *eff}
end: [{when: n >= 3}]
""")
    assert [(d.code, d.path) for d in err.value.diagnostics] == [("RP210", "actions.inc.effects"),
                                                                ("RP210", "actions.dec.effects")]
