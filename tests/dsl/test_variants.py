"""Variants as patches, `extends:` chains and `include:` files, with positions kept across files."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ruleplay import RulesetError, load_game
from ruleplay.dsl.variants import (
    PatchProblem, SourceMap, apply_patch, load_with_extends, parse_path,
)
from ruleplay.dsl.yamlload import MAX_FILE_BYTES, YamlProblem, load_document

BASE = """\
ruleplay: 1
game: counter
players: 2
constants:
  goal: 3
  steps: [1, 2]
  table: {a: 1, inner: {x: 1, y: 2}}
state:
  total: {init: "0"}
flow:
  phases:
    - name: play
      actions: [add]
actions:
  add:
    params:
      n: steps
    effects: |
      total += n
end:
  - when: total >= goal
scoring:
  score: "if current == p then 1 else 0"
variants:
  long:
    description: play to 5 with bigger steps
    patch:
      - {op: set, path: constants.goal, value: 5}
      - {op: append, path: constants.steps, value: 3}
  broken:
    patch:
      - {op: replace, path: constants.nothing, value: 1}
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


# ---------------------------------------------------------------- patch paths
@pytest.mark.parametrize("text, path", [
    ("constants.goal", ("constants", "goal")),
    ("actions.place.require[0].check", ("actions", "place", "require", 0, "check")),
    ("end[1]", ("end", 1)),
    ("state.my-var", ("state", "my-var")),
])
def test_parse_path(text, path):
    assert parse_path(text) == path


@pytest.mark.parametrize("text", ["", ".a", "a..b", "a[x]", "a b", "[0]x", "a.[0]"])
def test_malformed_paths(text):
    assert parse_path(text) is None


# ---------------------------------------------------------------- patch ops
def patch(ops_yaml: str, data: dict | None = None):
    base = load_document(BASE, "base.yaml")
    smap = SourceMap(base)
    patch_doc = load_document(textwrap.dedent(ops_yaml), "variant.yaml")
    result = apply_patch(data if data is not None else base.data, patch_doc.data["patch"], smap, patch_doc,
                         ("patch",))
    return result, smap


def test_set_replace_remove_merge_append():
    data, _ = patch("""\
        patch:
          - {op: set, path: constants.goal, value: 7}
          - {op: set, path: constants.fresh, value: [1]}
          - {op: replace, path: constants.steps, value: [4]}
          - {op: append, path: constants.steps, value: 5}
          - {op: merge, path: constants.table, value: {b: 2, inner: {y: 20, z: 30}}}
          - {op: remove, path: constants.table.a}
          - {op: remove, path: "end[0]"}
          - {op: set, path: "flow.phases[0].name", value: main}
    """)
    c = data["constants"]
    assert c["goal"] == 7 and c["fresh"] == [1] and c["steps"] == [4, 5]
    assert c["table"] == {"b": 2, "inner": {"x": 1, "y": 20, "z": 30}}
    assert data["end"] == [] and data["flow"]["phases"][0]["name"] == "main"


def test_patch_values_are_copies():
    data, _ = patch("""\
        patch:
          - {op: set, path: constants.a, value: &v [1]}
          - {op: set, path: constants.b, value: *v}
    """)
    data["constants"]["a"].append(2)
    assert data["constants"]["b"] == [1]


@pytest.mark.parametrize("op, message", [
    ("{op: replace, path: constants.nothing, value: 1}", "`replace` needs an existing value"),
    ("{op: remove, path: constants.nothing}", "`remove` needs an existing value"),
    ("{op: append, path: constants.nothing, value: 1}", "`append` needs an existing value"),
    ("{op: merge, path: constants.nothing, value: {}}", "`merge` needs an existing value"),
    ("{op: set, path: nothing.goal, value: 1}", "does not exist in the base (no 'nothing')"),
    ("{op: set, path: 'end[5].when', value: x}", "does not exist in the base (no 'end[5]')"),
    ("{op: set, path: 'end[3]', value: x}", "index 3 is out of range"),
    ("{op: set, path: 'constants..x', value: 1}", "malformed patch path"),
    ("{op: append, path: constants.goal, value: 1}", "`append` needs a list"),
    ("{op: merge, path: constants.steps, value: {a: 1}}", "`merge` needs mappings"),
    ("{op: set, path: constants.goal.deeper, value: 1}", "goes through a plain value"),
])
def test_patch_errors_point_at_the_operation_in_the_variant_file(op, message):
    with pytest.raises(PatchProblem) as err:
        patch(f"patch:\n  - {{op: set, path: constants.goal, value: 4}}\n  - {op}\n")
    d = err.value.diagnostic
    assert d.code == "RP401"
    assert message in d.message
    assert (d.file, d.line) == ("variant.yaml", 3)
    assert d.path == "patch[1].path"


def test_patched_values_are_located_in_the_variant_file():
    ops = textwrap.dedent("""\
        patch:
          - op: set
            path: constants.goal
            value: 9
          - {op: append, path: constants.steps, value: 3}
          - {op: merge, path: constants.table, value: {b: 2}}
    """)
    _, smap = patch(ops)
    lines = ops.splitlines()
    assert smap.where(("constants", "goal"))[:3] == ("variant.yaml", 4, lines[3].index("9") + 1)
    assert smap.where(("constants", "steps", 2))[:3] == ("variant.yaml", 5, lines[4].index("3}") + 1)
    assert smap.where(("constants", "table", "b"))[:3] == ("variant.yaml", 6, lines[5].index("2}") + 1)
    assert smap.where(("constants", "steps", 0))[:3] == ("base.yaml", 6, 11)  # untouched: still the base


# ------------------------------------------------------------ extends, include
def test_extends_patches_the_base_and_maps_positions_into_the_variant_file(tmp_path):
    write(tmp_path, "base.yaml", BASE)
    child = write(tmp_path, "child.yaml", """\
        extends: base.yaml
        title: Counter to five
        patch:
          - op: replace
            path: actions.add.effects
            value: |
              total += n * 2
    """)
    data, smap = load_with_extends(child, 100_000)
    assert data["game"] == "counter" and data["title"] == "Counter to five"
    assert data["actions"]["add"]["effects"] == "total += n * 2\n"
    assert "variants" not in data  # a file's variants belong to that file
    origin = smap.origin(("actions", "add", "effects"))
    assert (origin.file, origin.line, origin.col) == (str(child), 7, 7)
    assert smap.where(("title",))[:2] == (str(child), 2)
    assert smap.where(("constants", "goal"))[:2] == (str(tmp_path / "base.yaml"), 5)
    assert [Path(d.file).name for d in smap.documents()] == ["base.yaml", "child.yaml"]


def test_errors_in_patched_text_point_into_the_variant_file(tmp_path):
    write(tmp_path, "base.yaml", BASE)
    child = write(tmp_path, "child.yaml", """\
        extends: base.yaml
        patch:
          - op: replace
            path: actions.add.effects
            value: |
              total += n * 2
              total += oops +
    """)
    with pytest.raises(RulesetError) as err:
        load_game(child)
    (d,) = err.value.diagnostics
    assert (d.code, d.file, d.line, d.col) == ("RP200", str(child), 7, 22)
    assert d.source_line == "      total += oops +"


def test_type_errors_in_patched_text_point_into_the_variant_file(tmp_path):
    write(tmp_path, "base.yaml", BASE)
    child = write(tmp_path, "child.yaml", """\
        extends: base.yaml
        patch:
          - {op: set, path: "end[0].when", value: 'total >= goal + "x"'}
    """)
    with pytest.raises(RulesetError) as err:
        load_game(child)
    (d,) = err.value.diagnostics
    assert (d.code, d.file, d.line) == ("RP222", str(child), 3)
    assert d.col == d.source_line.index("goal") + 1
    assert d.message == "cannot apply `+` to int and string"


def test_circular_extends(tmp_path):
    write(tmp_path, "a.yaml", "extends: b.yaml\n")
    write(tmp_path, "b.yaml", "ruleplay: 1\nextends: a.yaml\n")
    with pytest.raises(PatchProblem) as err:
        load_with_extends(tmp_path / "a.yaml", 100_000)
    d = err.value.diagnostic
    assert d.code == "RP402"
    assert d.message == "circular extends: a.yaml -> b.yaml -> a.yaml"
    assert d.line == 1 and d.path == "extends"


def test_a_file_cannot_extend_itself(tmp_path):
    write(tmp_path, "self.yaml", "extends: self.yaml\n")
    with pytest.raises(PatchProblem) as err:
        load_with_extends(tmp_path / "self.yaml", 100_000)
    assert err.value.diagnostic.code == "RP402"


@pytest.mark.parametrize("key, name, code", [
    ("include", "../outside.yaml", "RP403"),
    ("include", "sub/../../outside.yaml", "RP403"),
    ("include", "/etc/passwd", "RP403"),
    ("include", "~/secrets.yaml", "RP403"),
    ("include", "missing.yaml", "RP404"),
    ("extends", "../outside.yaml", "RP403"),
    ("extends", "missing.yaml", "RP404"),
])
def test_files_outside_the_ruleset_folder_are_refused(tmp_path, key, name, code):
    write(tmp_path, "outside.yaml", "constants: {leak: 1}\n")
    value = f"[{name!r}]" if key == "include" else repr(name)
    main = write(tmp_path, "game/main.yaml", f"ruleplay: 1\n{key}: {value}\n")
    with pytest.raises(PatchProblem) as err:
        load_with_extends(main, 100_000)
    d = err.value.diagnostic
    assert d.code == code
    assert d.file == str(main) and d.line == 2


def test_a_symlink_out_of_the_folder_is_refused(tmp_path):
    write(tmp_path, "outside.yaml", "constants: {leak: 1}\n")
    (tmp_path / "game").mkdir()
    (tmp_path / "game" / "link.yaml").symlink_to(tmp_path / "outside.yaml")
    main = write(tmp_path, "game/main.yaml", "ruleplay: 1\ninclude: [link.yaml]\n")
    with pytest.raises(PatchProblem) as err:
        load_with_extends(main, 100_000)
    assert err.value.diagnostic.code == "RP403"


def test_include_adds_missing_keys_and_keeps_their_positions(tmp_path):
    write(tmp_path, "parts/data.yaml", "constants: {goal: 99, steps: [5]}\nboards:\n  grid: {width: 2, height: 2}\n")
    main = write(tmp_path, "main.yaml", "ruleplay: 1\ngame: g\nconstants: {goal: 1}\ninclude: [parts/data.yaml]\n")
    data, smap = load_with_extends(main, 100_000)
    assert data["constants"] == {"goal": 1}  # the including file wins
    assert data["boards"] == {"grid": {"width": 2, "height": 2}}
    assert smap.where(("boards", "grid"))[:3] == (str(tmp_path / "parts" / "data.yaml"), 3, 9)


def test_included_file_must_be_a_mapping(tmp_path):
    write(tmp_path, "list.yaml", "- 1\n")
    main = write(tmp_path, "main.yaml", "ruleplay: 1\ninclude: [list.yaml]\n")
    with pytest.raises(PatchProblem) as err:
        load_with_extends(main, 100_000)
    assert err.value.diagnostic.code == "RP006"


def test_yaml_problems_in_a_base_file_are_reported_in_that_file(tmp_path):
    write(tmp_path, "base.yaml", "a: 1\na: 2\n")
    child = write(tmp_path, "child.yaml", "extends: base.yaml\n")
    with pytest.raises(YamlProblem) as err:
        load_with_extends(child, 100_000)
    assert err.value.diagnostic.code == "RP003"
    assert err.value.diagnostic.file == str(tmp_path / "base.yaml")


# ----------------------------------------------------------- inline variants
def test_inline_variant_is_applied_when_chosen(tmp_path):
    path = write(tmp_path, "counter.yaml", BASE)
    assert load_game(path).model.constants["goal"] == 3
    game = load_game(path, variant="long")
    assert game.model.constants == {"goal": 5, "steps": [1, 2, 3], "table": {"a": 1, "inner": {"x": 1, "y": 2}}}
    assert game.info.variant == "long" and game.info.variants == ("broken", "long")
    assert [str(m) for m in game.new_state().legal_moves()] == ["add(1)", "add(2)", "add(3)"]


def test_a_file_is_parsed_once_for_all_its_variants_and_each_load_gets_its_own_data(tmp_path, monkeypatch):
    import ruleplay.dsl.variants as variants

    parsed = []
    monkeypatch.setattr(variants, "load_document",
                        lambda raw, file, **kw: parsed.append(file) or load_document(raw, file, **kw))
    path = write(tmp_path, "counter.yaml", BASE)
    first, _ = load_with_extends(path, MAX_FILE_BYTES)
    first["constants"]["goal"] = 99  # what one load does with its data is not seen by the next
    assert load_game(path, variant="long").model.constants["goal"] == 5
    assert load_game(path).model.constants["goal"] == 3 and parsed == [str(path)]
    path.write_text(BASE.replace("goal: 3", "goal: 4"), encoding="utf-8")  # a changed file is parsed again
    assert load_game(path).model.constants["goal"] == 4 and parsed == [str(path)] * 2


def test_unknown_variant(tmp_path):
    path = write(tmp_path, "counter.yaml", BASE)
    with pytest.raises(RulesetError) as err:
        load_game(path, variant="short")
    (d,) = err.value.diagnostics
    assert d.code == "RP405" and "broken, long" in d.hint


def test_inline_variant_with_a_missing_path_points_at_its_patch(tmp_path):
    path = write(tmp_path, "counter.yaml", BASE)
    with pytest.raises(RulesetError) as err:
        load_game(path, variant="broken")
    (d,) = err.value.diagnostics
    assert d.code == "RP401"
    line = BASE.splitlines().index("      - {op: replace, path: constants.nothing, value: 1}") + 1
    assert (d.file, d.line) == (str(path), line)
    assert d.path == "variants.broken.patch[0].path"


@pytest.mark.parametrize("op", ["delete", "5"])
def test_an_unknown_op_is_one_error_at_the_op(tmp_path, op):
    """It was also told "`delete` needs a `value:`", as if `delete` were an operation that takes one."""
    path = write(tmp_path, "counter.yaml", BASE.replace("{op: replace, path: constants.nothing, value: 1}",
                                                        f"{{op: {op}, path: constants.goal}}"))
    with pytest.raises(RulesetError) as err:
        load_game(path, variant="broken")
    (d,) = err.value.diagnostics
    assert d.code == "RP104" and d.path == "variants.broken.patch[0].op"


# ------------------------------------------------------------ totals across files, and what is not a file
@pytest.mark.timeout(30)  # reading a FIFO would wait for a writer for ever
@pytest.mark.parametrize("key", ["include", "extends"])
@pytest.mark.parametrize("make, kind", [
    (lambda p: __import__("os").mkfifo(p), "a FIFO (named pipe)"),
    (lambda p: p.mkdir(), "a folder"),
])
def test_a_fifo_or_folder_is_named_as_such_not_as_missing(tmp_path, key, make, kind):
    make(tmp_path / "part.yaml")
    value = "[part.yaml]" if key == "include" else "part.yaml"
    main = write(tmp_path, "main.yaml", f"ruleplay: 1\n{key}: {value}\n")
    with pytest.raises(PatchProblem) as err:
        load_with_extends(main, 100_000)
    d = err.value.diagnostic
    assert (d.code, d.message, d.line) == ("RP404", f"{key} 'part.yaml' is {kind}, not a regular file", 2)


def test_one_file_included_many_times_is_read_once_and_the_uses_are_bounded(tmp_path, monkeypatch):
    import ruleplay.dsl.variants as variants

    parsed = []
    monkeypatch.setattr(variants, "load_document",
                        lambda raw, file, **kw: parsed.append(file) or load_document(raw, file, **kw))
    write(tmp_path, "part.yaml", "constants: {goal: 1}\n")
    main = write(tmp_path, "main.yaml", "ruleplay: 1\ninclude: [" + ", ".join(["part.yaml"] * 50) + "]\n")
    data, _ = load_with_extends(main, 100_000)
    assert data["constants"] == {"goal": 1} and parsed.count(str(tmp_path / "part.yaml")) == 1
    main.write_text("ruleplay: 1\ninclude: [" + ", ".join(["part.yaml"] * 500) + "]\n", encoding="utf-8")
    with pytest.raises(PatchProblem) as err:
        load_with_extends(main, 100_000)
    d = err.value.diagnostic
    assert d.code == "RP005" and d.message.startswith("the ruleset is made of more than 100 files")
    assert (d.file, d.line, d.path) == (str(main), 2, "include[99]")


def test_the_bytes_of_all_files_are_bounded_together(tmp_path):
    names = []
    for k in range(5):
        write(tmp_path, f"p{k}.yaml", f"k{k}: '{'x' * 900}'\n")
        names.append(f"p{k}.yaml")
    main = write(tmp_path, "main.yaml", f"ruleplay: 1\ninclude: [{', '.join(names)}]\n")
    with pytest.raises(PatchProblem) as err:
        load_with_extends(main, 1000)  # each file fits the 1000-byte limit; all five do not fit 4 x 1000
    d = err.value.diagnostic
    assert (d.code, d.message, d.path) == ("RP005", "the ruleset's files together are over 4000 bytes", "include[4]")


def test_a_long_extends_chain_is_a_clear_error_not_a_recursion(tmp_path):
    for k in range(3000):
        write(tmp_path, f"f{k}.yaml", f"extends: f{k + 1}.yaml\nk{k}: 1\n")
    write(tmp_path, "f3000.yaml", "ruleplay: 1\n")
    with pytest.raises(PatchProblem) as err:
        load_with_extends(tmp_path / "f0.yaml", 100_000)
    d = err.value.diagnostic
    assert d.code == "RP005" and "more than 100 files" in d.message and d.file == str(tmp_path / "f99.yaml")
    data, _ = load_with_extends(tmp_path / "f2950.yaml", 100_000)  # 51 files: fine, merged in order
    assert data["ruleplay"] == 1 and all(data[f"k{k}"] == 1 for k in range(2950, 3000))
