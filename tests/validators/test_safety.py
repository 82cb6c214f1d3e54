"""Loading a ruleset is safe: it runs no Python, imports nothing, and reads only its own folder.

Rulesets are data.  YAML's Python tags would construct objects, call
functions or import modules; the DSL could try to reach Python attributes
(`x.__class__`, `"".join`); paths could climb out of the ruleset's folder.
Each of these must end in a located `RulesetError` (or, for values only known
at run time, a `RuleRuntimeError`) and leave no trace behind.
"""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest

from ruleplay import RulesetError, load_game
from ruleplay.dsl import runtime as R
from ruleplay.dsl.compiler import Compiler
from ruleplay.dsl.parser import parse_expr
from ruleplay.dsl.reference import ReferenceEvaluator
from ruleplay.dsl.scope import Scope

BODY = """\
ruleplay: 1
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
SENTINEL = "ruleplay_safety_sentinel"


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def fails_with(path: Path, code: str) -> str:
    with pytest.raises(RulesetError) as info:
        load_game(path)
    first = next(d for d in info.value.diagnostics if d.severity == "error")
    assert first.code == code, first.format()
    return first.format()


@pytest.fixture
def sentinel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An importable module that leaves a marker file if it is ever imported or called."""
    marker = tmp_path / "imported.txt"
    module = tmp_path / "modules" / f"{SENTINEL}.py"
    module.parent.mkdir()
    module.write_text(f"from pathlib import Path\nPath({str(marker)!r}).write_text('imported')\n"
                      f"def run(*args):\n    Path({str(marker)!r}).write_text('called')\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(module.parent))
    monkeypatch.delitem(sys.modules, SENTINEL, raising=False)
    return marker


# --------------------------------------------------------------- YAML tags

@pytest.mark.parametrize("value", [
    f"!!python/object/apply:{SENTINEL}.run [x]",
    f"!!python/object/new:{SENTINEL}.run [x]",
    f"!!python/object:{SENTINEL}.run {{a: 1}}",
    f"!!python/name:{SENTINEL}.run",
    f"!!python/module:{SENTINEL}",
    "!!python/object/apply:os.system [\"echo owned\"]",
    "!!binary aGVsbG8=",
    "!!set {a, b}",
    "!custom value",
])
def test_yaml_tags_are_refused_and_nothing_is_imported_or_run(tmp_path: Path, sentinel: Path, value: str):
    path = write(tmp_path, "tagged.yaml", BODY + f"constants:\n  payload: {value}\n")
    text = fails_with(path, "RP007")
    assert f"{path}:17:12: error RP007" in text
    assert not sentinel.exists(), "the tag ran Python"
    assert SENTINEL not in sys.modules, "the tag imported a module"


def test_a_tag_on_a_key_or_an_anchored_value_is_refused(tmp_path: Path, sentinel: Path):
    key = write(tmp_path, "key.yaml", BODY + f"constants:\n  !!python/name:{SENTINEL}.run : 1\n")
    fails_with(key, "RP007")
    anchored = write(tmp_path, "anchor.yaml",
                     BODY + f"constants:\n  a: &x !!python/name:{SENTINEL}.run\n  b: *x\n")
    fails_with(anchored, "RP007")
    assert not sentinel.exists() and SENTINEL not in sys.modules


# ------------------------------------------------- the expression language

@pytest.mark.parametrize("expression, code", [
    ("__import__('os') == 1", "RP211"),
    (f"__import__(\"{SENTINEL}\") == 1", "RP211"),
    ("eval(\"1\") == 1", "RP211"),
    ("open(\"x\") == 1", "RP211"),
    ("getattr(count, \"__class__\") == 1", "RP211"),
    ("__class__ == 1", "RP210"),
    ("__builtins__ == 1", "RP210"),
    ("\"\".join([\"a\"]) == \"a\"", "RP200"),  # a call needs a function name; methods do not exist
    ("count.__class__.__subclasses__() == []", "RP200"),
])
def test_python_is_out_of_reach_of_expressions(tmp_path: Path, sentinel: Path, expression: str, code: str):
    quoted = "'" + expression.replace("'", "''") + "'"  # a YAML single-quoted scalar holds any text
    path = write(tmp_path, "reach.yaml", BODY.replace("count >= 3", quoted))
    fails_with(path, code)
    assert not sentinel.exists() and SENTINEL not in sys.modules


@pytest.mark.parametrize("expression", [
    "m.__class__", "m.__dict__", "m.keys", "m.__class__.__name__", "s.__len__", "s.upper", "n.__class__",
    "m[\"__class__\"]", "l.__class__",
])
def test_dunder_fields_are_just_missing_fields_at_run_time(expression: str):
    """Fields are looked up in the data (maps, component properties), never on Python objects."""
    constants = {"m": {"a": 1}, "s": "text", "n": 3, "l": [1]}
    scope = Scope(constants=constants)
    node = parse_expr(expression)
    compiled = Compiler().expr(node, scope)
    ctx = R.Ctx({}, {}, _NoComponents())
    with pytest.raises(R.RuleRuntimeError):
        compiled(ctx)
    with pytest.raises(R.RuleRuntimeError):
        ReferenceEvaluator(scope).eval(node, ctx)


class _NoComponents:
    component_props: dict = {}


def test_a_map_key_named_like_a_dunder_is_plain_data():
    scope = Scope(constants={"m": {"__class__": "just text"}})
    node = parse_expr("m.__class__")
    assert Compiler().expr(node, scope)(R.Ctx({}, {}, _NoComponents())) == "just text"


# ------------------------------------------------------------ file access

@pytest.mark.parametrize("key, name, code", [
    ("include", "../outside.yaml", "RP403"),
    ("include", "sub/../../outside.yaml", "RP403"),
    ("include", "/etc/hosts", "RP403"),
    ("include", "~/outside.yaml", "RP403"),
    ("extends", "../outside.yaml", "RP403"),
    ("extends", "/etc/hosts", "RP403"),
])
def test_includes_and_extends_stay_in_the_ruleset_folder(tmp_path: Path, key: str, name: str, code: str):
    write(tmp_path, "outside.yaml", "constants:\n  secret: 90817263\n")  # a number no temporary path holds
    folder = tmp_path / "games"
    if key == "include":
        path = write(folder, "main.yaml", BODY + f"include: [{name!r}]\n")
    else:
        path = write(folder, "main.yaml", f"extends: {name!r}\ntitle: x\n")
    text = fails_with(path, code)
    assert "secret" not in text and "90817263" not in text


def test_a_symlink_out_of_the_folder_is_refused(tmp_path: Path):
    outside = write(tmp_path, "outside.yaml", "constants:\n  secret: 42\n")
    folder = tmp_path / "games"
    folder.mkdir()
    try:
        os.symlink(outside, folder / "part.yaml")
    except (OSError, NotImplementedError):
        pytest.skip("symbolic links are not available here")
    fails_with(write(folder, "main.yaml", BODY + "include: [part.yaml]\n"), "RP403")


@pytest.mark.parametrize("spec, code", [
    ("../elsewhere/rules.md", "RP403"),
    ("../seeds/../elsewhere/rules.md", "RP403"),
    ("/etc/passwd", "RP403"),
    ("../seeds/missing.md", "RP404"),
])
def test_a_spec_must_be_in_the_folder_or_the_seeds_beside_it(tmp_path: Path, spec: str, code: str):
    write(tmp_path, "elsewhere/rules.md", "- **MINI-1** A rule.\n")
    path = write(tmp_path / "games", "main.yaml", BODY + f"spec: {spec}\n")
    fails_with(path, code)


def test_a_seeds_folder_that_links_out_of_the_rulesets_tree_is_not_followed(tmp_path: Path):
    write(tmp_path, "elsewhere/rules.md", "- **MINI-1** A rule.\n")
    (tmp_path / "tree" / "games").mkdir(parents=True)
    (tmp_path / "tree" / "seeds").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    fails_with(write(tmp_path / "tree" / "games", "main.yaml", BODY + "spec: ../seeds/rules.md\n"), "RP403")


@pytest.mark.parametrize("spec", ["rules.md", "../seeds/rules.md"])
def test_the_allowed_spec_places_are_read(tmp_path: Path, spec: str):
    write(tmp_path, "games/rules.md", "- **MINI-1** The count goes up.\n")
    write(tmp_path, "seeds/rules.md", "- **MINI-1** The count goes up.\n")
    path = write(tmp_path / "games", "main.yaml", BODY.replace("effects:", "rule: MINI-1\n    effects:") +
                 f"spec: {spec}\n")
    game = load_game(path)
    assert [d.code for d in game.model.diagnostics] == []


@pytest.mark.timeout(30)
@pytest.mark.parametrize("make, shown", [
    ("fifo", "spec 'rules.md' is a FIFO (named pipe), not a regular file"),
    ("folder", "spec 'rules.md' is a folder, not a regular file"),
    ("huge", "spec file 'rules.md' cannot be read"),
    ("binary", "spec file 'rules.md' cannot be read"),
])
def test_a_spec_that_is_no_readable_text_file_is_one_diagnostic(tmp_path: Path, make: str, shown: str):
    spec = tmp_path / "games" / "rules.md"
    spec.parent.mkdir()
    if make == "fifo":
        os.mkfifo(spec)  # reading it would wait for a writer for ever
    elif make == "folder":
        spec.mkdir()
    elif make == "huge":
        spec.write_bytes(b"- **MINI-1** x\n" * 300_000)
    else:
        spec.write_bytes(b"\xff\xfe- **MINI-1**\n")
    path = write(tmp_path / "games", "main.yaml", BODY + "spec: rules.md\n")
    message = fails_with(path, "RP404")
    assert shown in message  # named for what it is, not as missing
