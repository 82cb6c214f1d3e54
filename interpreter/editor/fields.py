"""What each field of a ruleset is, read from the JSON Schema: code, a name of something declared, or data.

The schema (`dsl/schema.json`) already says, field by field, which values
are expressions and effects (`$defs/expression`, `$defs/effects`), which
are rule ids, and what each field means; the editor reads it rather than
keeping a second list.  A few fields name things declared elsewhere in the
ruleset (a phase's `actions:`, `next:`, a graph's `board:`); `NAMED` says
which.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ruleplay.validators.schema import schema

# (the definition holding the field, the field) -> the kind of declaration its value (or each item) names
NAMED = {("phase", "actions"): "action", ("stage", "actions"): "action", ("phase", "next"): "phase",
         ("graph", "board"): "board", ("render_item", "board"): "board"}
FILES = ("spec", "extends", "include")  # top-level fields naming a file beside the ruleset
CODE = ("expression", "effects")


@dataclass(frozen=True)
class Field:
    """The schema of one place in a ruleset: its alternatives, and the definition each came from."""

    alternatives: tuple[tuple[str, dict], ...]  # (definition name or "", schema)
    parent: str = ""  # the definition of the mapping that holds it

    @property
    def code(self) -> str | None:
        """"expression" or "effects" when the field holds code."""
        return next((name for name, _ in self.alternatives if name in CODE), None)

    def has(self, definition: str) -> bool:
        return any(name == definition for name, _ in self.alternatives)

    @property
    def description(self) -> str:
        return next((s["description"] for _, s in self.alternatives if s.get("description")), "")

    def properties(self) -> dict[str, dict]:
        """The keys a mapping here may have, each with its schema."""
        out: dict[str, dict] = {}
        for _, s in self.alternatives:
            out.update(s.get("properties") or {})
        return out

    def child(self, step: Any, value: Any = None) -> Field:
        """The field one step down: a key of a mapping, or an item of a list."""
        parent = self.parent if isinstance(step, int) else next(  # a list's items are held where the list is
            (name for name, s in self.alternatives if s.get("type") == "object" or "properties" in s), "")
        found: list[tuple[str, dict]] = []
        for _, s in self.alternatives:
            if isinstance(step, int):
                sub = s.get("items")
            else:
                sub = (s.get("properties") or {}).get(step, s.get("additionalProperties"))
            if isinstance(sub, dict):
                found.extend(_alternatives(sub, value))
        return Field(tuple(found), parent)


def _fits(s: dict, value: Any) -> bool:
    """Whether an alternative of a `oneOf` can describe `value` (by its JSON type only)."""
    kind = s.get("type")
    if kind is None or value is None:
        return True
    kinds = {"object": dict, "array": list, "string": str, "boolean": bool, "integer": int, "number": (int, float)}
    wanted = [kinds[k] for k in (kind if isinstance(kind, list) else [kind]) if k in kinds]
    return any(isinstance(value, w) for w in wanted)


def _alternatives(s: dict, value: Any = None, name: str = "") -> list[tuple[str, dict]]:
    """A schema with its `$ref`s followed and its `oneOf`/`anyOf` spread out, the ones `value` cannot be left out."""
    ref = s.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        target = ref.rsplit("/", 1)[1]
        merged = {**schema()["$defs"][target], **{k: v for k, v in s.items() if k != "$ref"}}
        return _alternatives(merged, value, target)
    choices = s.get("oneOf") or s.get("anyOf")
    if choices:
        out = [alt for c in choices for alt in _alternatives(c, value, name)]
        fitting = [(n, c) for n, c in out if _fits(c, value)]
        described = {k: v for k, v in s.items() if k not in ("oneOf", "anyOf")}
        return [(n, {**described, **c}) for n, c in (fitting or out)]
    return [(name, s)]


@lru_cache(maxsize=1)
def root() -> Field:
    return Field(tuple(_alternatives(schema())))


def field_at(path: tuple, data: Any = None) -> Field:
    """The field at a YAML path (`data`, when known, picks among alternatives by what is written)."""
    here = root()
    node = data
    for step in path:
        node = node[step] if isinstance(node, (dict, list)) and _has(node, step) else None
        here = here.child(step, node)
    return here


def _has(node: dict | list, step: Any) -> bool:
    if isinstance(node, dict):
        return step in node
    return isinstance(step, int) and 0 <= step < len(node)


def scalars(data: Any) -> Iterator[tuple[tuple, Field, Any]]:
    """Every text (and number) in the data, with its path and field."""
    todo: list[tuple[tuple, Field, Any]] = [((), root(), data)]
    while todo:
        path, here, value = todo.pop()
        if isinstance(value, dict):
            todo.extend((path + (k,), here.child(k, v), v) for k, v in reversed(list(value.items())))
        elif isinstance(value, list):
            todo.extend((path + (i,), here.child(i, v), v) for i, v in reversed(list(enumerate(value))))
        else:
            yield path, here, value


def named_kind(path: tuple, here: Field) -> str | None:
    """What a text at `path` names: "rule", "file", or a kind of declaration in `NAMED`; None for other text."""
    if here.has("rule_id"):
        return "rule"
    if path and path[0] in FILES and len(path) <= 2:
        return "file"
    key = next((step for step in reversed(path) if isinstance(step, str)), None)
    return NAMED.get((here.parent, key)) if key is not None else None
