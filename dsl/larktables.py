"""The LALR parser's tables, kept beside the grammar as JSON, so a process need not work them out again.

Building the parser from `grammar.lark` (the LALR states of the whole
language) took about 90-120 ms of CPU in every process that parsed a text,
a fifth of loading a seed game.  Lark can save a built parser and load it
again; its own `save` writes a pickle, which can run code when read, so the
tables are written here as JSON instead (`Lark.load` takes the same data as
a dict) and read with `json`, which cannot.  They are used only while they
match: the file records the SHA-256 of the grammar text and Lark's version,
and a parser for any other grammar or Lark is built from the grammar as
before.  `tests/dsl/test_larktables.py` fails when the kept tables are not
the ones the grammar gives; `python -m ruleplay.dsl.larktables` writes them.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import lark
from lark import Lark
from lark.grammar import Rule
from lark.lexer import TerminalDef

HERE = Path(__file__).parent
GRAMMAR = HERE / "grammar.lark"
TABLES = HERE / "grammar-tables.json"
OPTIONS: dict[str, Any] = {"parser": "lalr", "start": ["expr_start", "effects_start"], "propagate_positions": True,
                           "maybe_placeholders": True}
_INT_KEYS = "__int_keys__"  # JSON keys are texts: a map keyed by numbers is written as its pairs under this


def build(grammar: str) -> Lark:
    """The parser, worked out from the grammar."""
    return Lark(grammar, **OPTIONS)


def _fingerprint(grammar: str) -> dict[str, str]:
    return {"grammar_sha256": hashlib.sha256(grammar.encode("utf-8")).hexdigest(), "lark": lark.__version__}


def _encode(value: Any) -> Any:
    if isinstance(value, dict):
        if all(type(k) is str for k in value):
            return {k: _encode(v) for k, v in value.items()}
        return {_INT_KEYS: [[k, _encode(v)] for k, v in value.items()]}
    if isinstance(value, (list, tuple)):
        return [_encode(v) for v in value]
    return value


def _decode(value: Any) -> Any:
    if type(value) is dict:
        if _INT_KEYS in value:
            return {k: _decode(v) for k, v in value[_INT_KEYS]}
        return {k: _decode(v) for k, v in value.items()}
    if type(value) is list:
        return [_decode(v) for v in value]
    return value


def tables(parser: Lark, grammar: str) -> dict[str, Any]:
    """What the tables file holds for `parser`, built from `grammar`."""
    data, memo = parser.memo_serialize([TerminalDef, Rule])
    return {**_fingerprint(grammar), "data": _encode(data), "memo": _encode(memo)}


def parser() -> Lark:
    """The parser: from the kept tables when they are this grammar's and this Lark's, else built."""
    grammar = GRAMMAR.read_text(encoding="utf-8")
    try:
        kept = json.loads(TABLES.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return build(grammar)
    if not isinstance(kept, dict) or any(kept.get(k) != v for k, v in _fingerprint(grammar).items()):
        return build(grammar)
    return Lark.load({"data": _decode(kept["data"]), "memo": _decode(kept["memo"])})


def write() -> Path:
    """Work the tables out from the grammar and keep them; the path written."""
    grammar = GRAMMAR.read_text(encoding="utf-8")
    TABLES.write_text(json.dumps(tables(build(grammar), grammar), separators=(",", ":")) + "\n", encoding="utf-8")
    return TABLES


if __name__ == "__main__":
    print(f"wrote {write()}")
