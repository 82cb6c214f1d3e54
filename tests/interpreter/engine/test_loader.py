"""Loading: the cycle collector is paused for a load and left as the caller had it."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from ruleplay.dsl.diagnostics import Related, RulesetError
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


def test_a_files_schema_check_is_kept_for_its_variants(monkeypatch, tmp_path):
    """Validating a file with N variants loads it N + 1 times; the base's check is made once, and a
    variant's own check leaves out the variants, which it cannot change (the load was quadratic in N)."""
    from ruleplay.engine import loader

    checked: list[set] = []
    real = loader.check_schema
    monkeypatch.setattr(loader, "check_schema", lambda data, smap: checked.append(set(data)) or real(data, smap))
    text = (loader.find_ruleset("tic-tac-toe").read_text(encoding="utf-8").replace("spec: ../seeds/tic-tac-toe.md\n", "")
            + "variants:\n" + "".join(f"  v{i}: {{patch: []}}\n" for i in range(3)))
    path = tmp_path / "many.yaml"
    path.write_text(text, encoding="utf-8")
    for variant in (None, "v0", "v1", "v2"):
        load_model(path, variant=variant)
    assert len(checked) == 4 and "variants" in checked[0] and not any("variants" in keys for keys in checked[1:])
    path.write_text(text.replace("Three in a row", "Three in a line"), encoding="utf-8")  # other text: checked anew
    load_model(path)
    assert len(checked) == 5 and "variants" in checked[4]


COSTLY_LITTLE = "'[y for y in range(2) if len([w for w in range(9)]) < 0] + [1]'"


def test_once_the_loads_work_runs_out_the_parameters_after_it_are_not_blamed(tmp_path):
    """All parameters' `of:` share one move's work: the one where it runs out is RP220, and the ones after
    it are not computed, so not reported as if they had failed too."""
    shared = Path(__file__).parents[2] / "bad_rulesets" / "parameter_values_share_the_load_work.yaml"
    text = shared.read_text(encoding="utf-8").replace("actions: [tick, tock]", "actions: [tick, tock, tack]")
    tack = f"  tack:\n    params:\n      w: {COSTLY_LITTLE}\n      u: {COSTLY_LITTLE}\n    effects: count += w + u\n"
    path = tmp_path / "three.yaml"
    path.write_text(text.replace("end:\n", tack + "end:\n"), encoding="utf-8")
    with pytest.raises(RulesetError) as err:
        load_model(path)
    assert [(d.code, d.path) for d in err.value.diagnostics if d.severity == "error"] == [
        ("RP220", "actions.tock.params.v")]


BAD_RULESETS = Path(__file__).resolve().parents[2] / "bad_rulesets"
TICK = """ruleplay: 1
game: mini
players: 2
state:
  count:
    init: "0"
flow:
  phases:
    - name: play
      actions: [tick]
actions:
  tick:
    effects: count += 1
end:
  - when: count >= 3
"""


def _diagnostics(*args, **kwargs) -> list:
    with pytest.raises(RulesetError) as info:
        load_model(*args, **kwargs)
    return info.value.diagnostics


def test_a_name_given_twice_points_at_its_first_place_too():
    (d,) = _diagnostics(BAD_RULESETS / "constant_and_variable.yaml")
    assert d.related == (Related("the constant", str(BAD_RULESETS / "constant_and_variable.yaml"), 7, 3),)


def test_a_key_two_included_files_give_points_at_both():
    (d,) = _diagnostics(BAD_RULESETS / "include_key_twice" / "main.yaml")
    part = str(BAD_RULESETS / "include_key_twice" / "part.yaml")
    assert (Path(d.file).name, d.line, d.related) == ("other.yaml", 2, (Related("`scoring:` in part.yaml", part, 1, 1),))


def test_an_unsaved_text_is_read_instead_of_the_file(tmp_path):
    game = tmp_path / "game.yaml"
    game.write_text(TICK, encoding="utf-8")
    unsaved = {str(game.resolve()): TICK.replace("count += 1", "count += undefined_name")}
    (d,) = _diagnostics(game, unsaved=unsaved)
    assert (d.code, d.line, d.col) == ("RP210", 13, 23)
    assert load_model(game).name == "mini"  # the file itself is as it was


def test_files_that_exist_only_as_unsaved_texts_load_with_what_they_extend_and_include(tmp_path):
    main, base, part = tmp_path / "main.yaml", tmp_path / "base.yaml", tmp_path / "part.yaml"
    unsaved = {str(main.resolve()): "extends: base.yaml\ngame: child\n",
               str(base.resolve()): TICK.replace("end:", "include: [part.yaml]\nend:"),
               str(part.resolve()): "title: From the part\n"}
    model = load_model(main, unsaved=unsaved)
    assert (model.name, model.title) == ("child", "From the part")
    assert not main.exists()


def test_models_dropped_between_loads_do_not_pile_up(collector_restored, monkeypatch):
    """`validate` of four 0.9 MB rulesets peaked at 592 MB and grew with each file (one: 266 MB): each
    dropped model is cycles that only a full collection frees, and the collector, paused for every load,
    never counted enough objects to run one.  Loads now run one once they have made COLLECT_AFTER objects."""
    import weakref

    from ruleplay.engine import loader

    gc.enable()
    gc.collect()
    monkeypatch.setattr(loader, "COLLECT_AFTER", 5_000)  # a kuhn-poker load makes some 8 000
    kept = []
    for _ in range(5):
        kept.append(weakref.ref(load_model("kuhn-poker")))  # dropped at once, as validate drops each target
        assert sum(ref() is not None for ref in kept) <= 2, "models dropped before the last but one are kept"
