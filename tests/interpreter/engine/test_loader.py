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
