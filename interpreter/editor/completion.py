"""What may be typed at a cursor: a ruleset's fields, the names in scope in code, rule ids, declared names.

Fields and their meanings come from the JSON Schema; names from the index
of the last analysis (so they are there while the text being typed does not
load); the locals of the code being typed are read from its text up to the
cursor, since it seldom parses yet.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ruleplay.dsl.builtins import BUILTINS
from ruleplay.dsl.keywords import KEYWORDS
from ruleplay.dsl.scope import FLOW_NAMES

from .cursor import Cursor, cursor_at
from .fields import Field, field_at, named_kind
from .hover import FLOW, WORDS, rule_text, signature
from .index import Index, given_names

_LOCALS = re.compile(r"\blet\s+([A-Za-z_]\w*)|\bfor\s+([A-Za-z_]\w*)(?:\s*,\s*([A-Za-z_]\w*))?\s+in\b")
_WORD_BEFORE = re.compile(r"[A-Za-z_]\w*$")
_AFTER_KEYWORD = re.compile(r"\b(call|goto|stage)\s+\w*$")
_STATEMENTS = ("let", "if", "elif", "else", "for", "repeat", "append", "prepend", "remove", "move", "draw", "shuffle",
               "end_turn", "end_phase", "end_game", "stage", "goto", "call", "log", "fail", "pass")


@dataclass(frozen=True)
class Completion:
    """One thing that may be typed: `kind` is "field", a kind of `index.Symbol`, "builtin", "keyword" or
    "value"; `insert` is the text put in (the label when empty)."""

    label: str
    kind: str
    detail: str = ""
    documentation: str = ""
    insert: str = ""


def complete(text: str, line: int, col: int, ix: Index | None) -> list[Completion]:
    """What may be typed at `line`, `col` (from 1) of a ruleset's text."""
    where = cursor_at(text, line, col)
    if where.kind == "key":
        return _fields(field_at(where.path), where)
    here = field_at(where.path)
    if where.kind == "code" or here.code:
        return _code(where, ix, here.code == "effects")
    return _values(where, here, ix)


def _fields(here: Field, where: Cursor) -> list[Completion]:
    out = []
    for name, spec in sorted(here.properties().items()):
        if name in where.siblings:
            continue
        examples = spec.get("examples") or []
        example = f"\n\nexample: `{json.dumps(examples[0])}`" if examples else ""
        out.append(Completion(name, "field", _first_line(spec.get("description", "")),
                              spec.get("description", "") + example, f"{name}: "))
    return out


def _first_line(text: str) -> str:
    return text.split(". ", 1)[0].split("\n", 1)[0]


def _declared(ix: Index | None, kind: str) -> list[Completion]:
    if ix is None:
        return []
    return [Completion(s.name, kind, WORDS[kind]) for s in ix.declarations if s.kind == kind]


def _values(where: Cursor, here: Field, ix: Index | None) -> list[Completion]:
    kind = named_kind(where.path, here)
    if kind == "rule":
        return _rules(ix)
    if kind in ("action", "phase", "board"):
        return _declared(ix, kind)
    out = []
    for _, spec in here.alternatives:
        out += [Completion(str(v), "value", _first_line(spec.get("description", ""))) for v in spec.get("enum") or ()]
        if spec.get("type") == "boolean":
            out += [Completion("true", "value"), Completion("false", "value")]
    return out


def _rules(ix: Index | None) -> list[Completion]:
    if ix is None:
        return []
    out = []
    for symbol in ix.declarations:
        if symbol.kind == "rule":
            found = ix.rules.get(symbol.name)
            text = rule_text(found) if found else "an assumption of the ruleset"
            out.append(Completion(symbol.name, "rule", text[:80], text))
    return out


def _code(where: Cursor, ix: Index | None, effects: bool) -> list[Completion]:
    typed = where.typed
    if re.search(r"@[\w.-]*$", typed):
        return _rules(ix)
    keyword = _AFTER_KEYWORD.search(typed)
    if keyword is not None:
        kind = {"call": "procedure", "goto": "phase", "stage": "stage"}[keyword.group(1)]
        extra = [Completion("none", "keyword", "leave the stage")] if kind == "stage" else []
        return _declared(ix, kind) + extra
    if re.search(r"\.\w*$", typed) or _in_string(typed):
        return []
    return _names(where, ix, typed) + (_statements() if effects else [])


def _in_string(typed: str) -> bool:
    """Whether the cursor is inside a string literal of the code."""
    line = typed.rsplit("\n", 1)[-1]
    return line.count('"') % 2 == 1 or line.count("'") % 2 == 1


def _names(where: Cursor, ix: Index | None, typed: str) -> list[Completion]:
    """Every name code here may read: locals before the cursor, parameters, given names, then the ruleset's."""
    out: dict[str, Completion] = {}
    for m in _LOCALS.finditer(typed):
        for name in m.groups():
            if name:
                out.setdefault(name, Completion(name, "local", WORDS["local"]))
    for name, what in given_names(where.path).items():
        out.setdefault(name, Completion(name, "given", what))
    if ix is not None:
        owner = where.path[:2]
        for symbol in ix.declarations:
            if symbol.kind == "param" and symbol.owner == owner:
                out.setdefault(symbol.name, Completion(symbol.name, "param", f"parameter of {owner[1]}"))
        for symbol in ix.declarations:
            if symbol.kind in ("state", "constant", "derived"):
                out.setdefault(symbol.name, Completion(symbol.name, symbol.kind, WORDS[symbol.kind]))
            elif symbol.kind == "function":
                out.setdefault(symbol.name, Completion(symbol.name, "function", WORDS["function"],
                                                       insert=f"{symbol.name}("))
    for name in FLOW_NAMES:
        out.setdefault(name, Completion(name, "flow", FLOW.get(name, "")))
    for name, spec in BUILTINS.items():
        out.setdefault(name, Completion(name, "builtin", signature(name), spec.doc.split("\n", 1)[0],
                                        insert=f"{name}("))
    return list(out.values())


def _statements() -> list[Completion]:
    return [Completion(word, "keyword", "statement") for word in _STATEMENTS if word in KEYWORDS]


def word_before(text: str, line: int, col: int) -> str:
    """The part of a name written just before the cursor (what completions replace)."""
    lines = text.split("\n")
    current = lines[line - 1] if 0 < line <= len(lines) else ""
    found = _WORD_BEFORE.search(current[:col - 1])
    return found.group() if found else ""
