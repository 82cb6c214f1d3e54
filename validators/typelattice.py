"""The static types of ruleset values, and how they combine.

A type names the set of runtime values an expression may produce.  The
checker only reports an error when *no* value of the operand types could
make an operation succeed, so every type maps to the set of runtime kinds it
allows (`kinds`), and each operation is written as the kind combinations
that work at run time (`dsl.runtime`).  `any` allows everything, which is
what keeps the checker silent wherever it cannot be sure.

`never` is the item type of an empty list: it joins to whatever is added
later, and, since the items of an empty list are never evaluated, it is
never the cause of an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

NUMERIC = frozenset({"int", "float"})
ALL_KINDS = frozenset({"null", "bool", "int", "float", "string", "list", "map"})

_KINDS: dict[str, frozenset[str]] = {
    "any": ALL_KINDS,
    "never": ALL_KINDS,
    "null": frozenset({"null"}),
    "bool": frozenset({"bool"}),
    "int": frozenset({"int"}),
    "number": NUMERIC,
    "string": frozenset({"string"}),
    "component": frozenset({"string"}),
    "list": frozenset({"list"}),
    "map": frozenset({"map"}),
}


@dataclass(frozen=True)
class Type:
    """`kind` is one of any, never, null, bool, int, number, string, component, list, map.

    `item` is the item type of a list; `of_kinds` the possible component kinds
    of a component id (None when it may be of any kind).
    """

    kind: str
    item: "Type | None" = None
    of_kinds: frozenset[str] | None = None

    @property
    def kinds(self) -> frozenset[str]:
        """The runtime kinds (`dsl.runtime.type_name`, with float apart from int) a value may have."""
        return _KINDS[self.kind]

    @property
    def known(self) -> bool:
        return self.kind not in ("any", "never")

    def items(self) -> "Type":
        """The type of one item when iterating over a value of this type."""
        if self.kind == "list":
            return self.item or ANY
        if self.kind == "never":
            return NEVER
        if self.kind in ("string", "component", "map"):
            return STRING  # a map iterates over its keys, a string over its characters
        return ANY

    def __str__(self) -> str:
        if self.kind == "list":
            return "list" if self.item is None or not self.item.known else f"list of {self.item}"
        if self.kind == "component":
            if self.of_kinds:
                return f"component id ({', '.join(sorted(self.of_kinds))})"
            return "component id"
        return self.kind


ANY = Type("any")
NEVER = Type("never")
NULL = Type("null")
BOOL = Type("bool")
INT = Type("int")
NUMBER = Type("number")
STRING = Type("string")
MAP = Type("map")


MAX_LIST_DEPTH = 6  # deeper nesting is typed `list of any`, so inference always terminates


def _depth(t: Type) -> int:
    return 1 + _depth(t.item) if t.kind == "list" and t.item is not None else 0


def list_of(item: Type) -> Type:
    return Type("list", item if _depth(item) < MAX_LIST_DEPTH else ANY)


def component(kinds: frozenset[str] | None) -> Type:
    return Type("component", of_kinds=kinds)


def join(a: Type, b: Type) -> Type:
    """The least type holding the values of both (the type of `if c then a else b`)."""
    if a == b or b.kind == "never":
        return a
    if a.kind == "never":
        return b
    if a.kind == "any" or b.kind == "any":
        return ANY
    pair = {a.kind, b.kind}
    if pair <= {"int", "number"}:
        return NUMBER
    if a.kind == "list" and b.kind == "list":
        return list_of(join(a.item or ANY, b.item or ANY))
    if pair == {"component"}:
        kinds = None if a.of_kinds is None or b.of_kinds is None else a.of_kinds | b.of_kinds
        return component(kinds)
    if pair == {"component", "string"}:
        return STRING
    return ANY


def is_only(t: Type, kinds: frozenset[str] | set[str]) -> bool:
    """True when every value of `t` has one of `kinds` (and `t` is definitely known)."""
    return t.known and t.kinds <= kinds


def may_hold_text(t: Type) -> bool:
    """Whether a value of `t` may be or hold a text anywhere (itself, list items, map keys or values, nested):
    false only for null, bools, numbers and lists of those.  `any` and `never` may (`never` is no value only
    where the inference is complete; when unsure, a text is assumed)."""
    if t.kind == "list":
        return t.item is None or may_hold_text(t.item)
    return t.kind not in ("null", "bool", "int", "number")


def value_type(value: Any, component_ids: dict | None = None, depth: int = 0) -> Type:
    """The type of a known value (a constant, a component property)."""
    if value is None:
        return NULL
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INT
    if isinstance(value, float):
        return NUMBER
    if isinstance(value, str):
        if component_ids and value in component_ids:
            return component(frozenset({component_ids[value]["kind"]}))
        return STRING
    if isinstance(value, dict):
        return MAP
    if isinstance(value, list):
        if depth > 8:
            return list_of(ANY)
        item = NEVER
        for v in value:
            item = join(item, value_type(v, component_ids, depth + 1))
            if item == ANY:
                break
        return list_of(item)
    return ANY


DECLARED: dict[str, Type] = {
    "int": INT, "number": NUMBER, "bool": BOOL, "string": STRING, "list": list_of(ANY), "map": MAP, "any": ANY,
}
"""Types written in a ruleset (`state.x.type`, component `properties:`)."""


KIND_WORDS = {"null": "null", "bool": "a bool", "int": "an int", "float": "a number", "string": "a string",
              "list": "a list", "map": "a map"}


def describe_kinds(kinds: frozenset[str]) -> str:
    """The kinds in words, as a message says them: "an int or a string"."""
    if kinds == NUMERIC:
        return "a number"
    words = [KIND_WORDS[k] for k in ("int", "float", "string", "list", "map", "bool", "null") if k in kinds]
    if NUMERIC <= kinds:
        words = ["a number"] + [w for w in words if w not in ("an int", "a number")]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def widened(t: Type, steps: list[str], value: Type) -> Type:
    """`t` after storing `value` at the place reached by `steps` (item or field steps)."""
    if not steps:
        return join(t, value)
    if t.kind == "list" and steps[0] == "item":
        return list_of(widened(t.item or ANY, steps[1:], value))
    return t  # maps keep no field types; anything else fails at run time
