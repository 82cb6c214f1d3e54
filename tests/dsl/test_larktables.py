"""The parser's kept tables (`dsl.larktables`): the grammar's own, read without pickle, and parsing alike."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import lark
import pytest
import yaml
from lark import Lark, Tree
from lark.exceptions import UnexpectedInput

from ruleplay.dsl import larktables

RULESETS = Path(__file__).resolve().parents[2] / "rulesets"


@pytest.fixture(scope="module")
def built() -> Lark:
    return larktables.build(larktables.GRAMMAR.read_text(encoding="utf-8"))


def test_kept_tables_are_the_grammars() -> None:
    """The tables record the grammar they were worked out from (their numbering follows the process's hash
    order, so they are compared by what they parse, below, not item by item)."""
    kept = json.loads(larktables.TABLES.read_text(encoding="utf-8"))
    grammar = larktables.GRAMMAR.read_text(encoding="utf-8")
    assert kept["grammar_sha256"] == hashlib.sha256(grammar.encode("utf-8")).hexdigest(), \
        "grammar.lark changed: run `python -m ruleplay.dsl.larktables` to write its tables"


def test_the_kept_tables_are_used(monkeypatch: pytest.MonkeyPatch) -> None:
    kept = json.loads(larktables.TABLES.read_text(encoding="utf-8"))
    assert kept["lark"] == lark.__version__, \
        f"the tables were written with Lark {kept['lark']}: run `python -m ruleplay.dsl.larktables` with this one"
    monkeypatch.setattr(larktables, "build", lambda grammar: pytest.fail("the parser was built, not loaded"))
    assert larktables.parser().options.parser == "lalr"


@pytest.mark.parametrize("content", ["", "{not json", "[]", '{"grammar_sha256": "0", "lark": "0"}'])
def test_tables_not_of_this_grammar_are_not_used(content: str, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    stale = tmp_path / "tables.json"
    stale.write_text(content, encoding="utf-8")
    monkeypatch.setattr(larktables, "TABLES", stale)
    made: list[str] = []
    real_build = larktables.build
    monkeypatch.setattr(larktables, "build", lambda grammar: made.append(grammar) or real_build(grammar))
    parser = larktables.parser()
    assert made == [larktables.GRAMMAR.read_text(encoding="utf-8")]
    assert parser.parse("1 + 2", start="expr_start").data == "expr_start"


def test_missing_tables_are_built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(larktables, "TABLES", tmp_path / "absent.json")
    assert larktables.parser().parse("x = 1", start="effects_start").data == "effects_start"


def _texts() -> list[str]:
    out: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for path in sorted(RULESETS.glob("*.yaml")):
        walk(yaml.safe_load(path.read_text(encoding="utf-8")))
    return out + ["1 +", "x = = 2", "f(", "a and or b", "if x { y = 1", "\"unterminated", "3 $ 4"]


def _outcome(parser: Lark, text: str, start: str) -> object:
    try:
        tree = parser.parse(text, start=start)
    except UnexpectedInput as err:
        expected = frozenset(getattr(err, "expected", None) or ())  # a set: its order is the process's hash order
        return "refused", type(err).__name__, str(getattr(err, "token", "")), err.line, err.column, expected
    return "parsed", _with_positions(tree)


def _with_positions(node: object) -> object:
    if not isinstance(node, Tree):
        return node, getattr(node, "line", None), getattr(node, "column", None)
    meta = node.meta
    where = None if getattr(meta, "empty", True) else (meta.line, meta.column, meta.end_line, meta.end_column)
    return node.data, where, [_with_positions(c) for c in node.children]


def test_loaded_parser_parses_every_builtin_text_as_the_built_one(built: Lark) -> None:
    loaded = larktables.parser()
    texts = _texts()
    assert len(texts) > 1000
    parsed = 0
    for text in texts:
        for start in ("expr_start", "effects_start"):
            got, want = _outcome(loaded, text, start), _outcome(built, text, start)
            assert got == want, (text, start)
            parsed += want[0] == "parsed"
    assert parsed > 1000  # most texts are code: the comparison is not only of errors
