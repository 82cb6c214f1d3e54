"""Moves: small frozen values with a text form that parses back.

`place(4)`, `bet`, `deal("J", "K")` — the action name, then its arguments.
Names that look like identifiers print bare; other strings are quoted.  The
same text parses back to an equal `Move` with `parse_move`, and the JSON form
is `{"action": ..., "args": [...]}`.
"""

from __future__ import annotations

import json
import math
import re
import reprlib
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from typing import Any

from ruleplay.dsl import ast as A
from ruleplay.dsl.keywords import KEYWORDS
from ruleplay.dsl.parser import DslSyntaxError, parse_expr

from .errors import MoveParseError

MAX_MOVE_TEXT = 2000
_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_RESERVED = {"true", "false", "null", "if", "then", "else", "not", "and", "or", "in", "for"}


def format_value(value: Any) -> str:
    if isinstance(value, str):
        return value if _BARE.fullmatch(value) and value not in _RESERVED else _quoted(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    if type(value) is float and math.isfinite(value):
        return _decimal_text(value)
    return json.dumps(value)


def _quoted(text: str) -> str:
    """A text in quotes, escaped as JSON escapes it, but for a character beyond U+FFFF (an emoji), written
    as itself: JSON writes it as a pair of surrogate escapes, which the move reader, as the language's
    reader, refuses (`\\ud83d` is no character), so a ruleset offering "😀" as a value was refused."""
    if not text or max(text) <= "\uffff":
        return json.dumps(text)
    return '"' + "".join(c if c > "\uffff" else json.dumps(c)[1:-1] for c in text) + '"'


def _decimal_text(value: float) -> str:
    """A float in plain decimals (`0.0000001`, not `1e-07`): the move language has no exponents.

    The digits are those of `repr`, the shortest text that reads back to the
    same float, so the text parses back to exactly this value.
    """
    text = format(Decimal(repr(value)), "f")
    return text if "." in text else text + ".0"


@dataclass(frozen=True)
class Move:
    """An action and its arguments; equal as the rules' `==` says (`true` is never `1`).

    Python alone would find `pick(true) == pick(1)`, and an illegal move
    would pass for a legal one; the key compares booleans apart.
    """

    action: str
    args: tuple = ()
    _key: Any = field(default=None, init=False, repr=False, compare=False)
    # Its number in the game's action numbering, for the moves the legal-move listing makes (`interned`);
    # None for a move made any other way (parsed, built by hand), which `Game.move_to_index` looks up.
    index: int | None = field(default=None, init=False, repr=False, compare=False)
    _text: str | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_key", (self.action, arg_key(self.args)))

    def __eq__(self, other: object) -> bool:
        return type(other) is Move and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __str__(self) -> str:
        """The move's text, formatted once: a listed move is shared by every state, and saving a state
        writes its whole history, so each move would otherwise be formatted again with every save."""
        text = self._text
        if text is None:
            text = f"{self.action}({', '.join(format_value(a) for a in self.args)})" if self.args else self.action
            object.__setattr__(self, "_text", text)
        return text

    def to_json(self) -> dict:
        return {"action": self.action, "args": [_thaw(a) for a in self.args]}

    @classmethod
    def from_json(cls, data: Any) -> "Move":
        if not isinstance(data, dict) or not isinstance(data.get("action"), str) \
                or not isinstance(data.get("args", []), list):
            raise MoveParseError(f"not a move: {json.dumps(data)[:80]}")
        return cls(data["action"], tuple(_freeze(a) for a in data.get("args", [])))


def interned(table: dict[int, Move], index: int, action: str, args: tuple) -> Move:
    """The one `Move` of `action(*args)`, number `index` of its game, made the first time it is asked for.

    A game's moves form a fixed universe, so a listing hands out these shared
    values instead of building a move per candidate per listing; `args` must
    be the parameters' own `of:` values (the move every listing would build).
    """
    move = table.get(index)
    if move is None:
        move = table[index] = numbered(index, action, args)
    return move


def numbered(index: int, action: str, args: Any) -> Move:
    """A new `Move` of `action(*args)` that knows its number `index` in its game's numbering."""
    move = Move(action, tuple(_freeze(a) for a in args))
    object.__setattr__(move, "index", index)
    return move


def _freeze(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        raise MoveParseError("move arguments cannot be maps")
    return value


def _thaw(value: Any) -> Any:
    return [_thaw(v) for v in value] if isinstance(value, tuple) else value


def _literal(node: A.Expr, text: str) -> Any:
    if isinstance(node, A.Literal):
        return node.value
    if isinstance(node, A.Name):
        return node.name
    if isinstance(node, A.ListLit):
        return tuple(_literal(i, text) for i in node.items)
    raise MoveParseError(f"cannot read move {text!r}: arguments must be plain values")


def parse_move(text: str) -> Move:
    """Parse `action` or `action(arg, …)`; raises MoveParseError."""
    if not isinstance(text, str):
        raise MoveParseError(f"not a move text: {type(text).__name__} {reprlib.repr(text)}")
    if not text.strip():
        raise MoveParseError("empty move text")
    return _parse_text(text)


@lru_cache(maxsize=8192)
def _parse_text(text: str) -> Move:
    """Cached because reloading a saved state parses its whole history, and long games repeat moves."""
    if len(text) > MAX_MOVE_TEXT:
        raise MoveParseError(f"move text is too long (over {MAX_MOVE_TEXT} characters)")
    stripped = text.strip()
    move = _plain_move(stripped)
    if move is not None:
        return move
    try:
        node = parse_expr(stripped)
    except DslSyntaxError as err:
        raise MoveParseError(f"cannot read move {text!r}: {err.message} at column {err.pos.col}") from None
    if isinstance(node, A.Name):
        return Move(node.name)
    if isinstance(node, A.Call):
        return Move(node.func, tuple(_literal(a, text) for a in node.args))
    raise MoveParseError(f"cannot read move {text!r}: write `action` or `action(arg, ...)`")


# The plainest move texts, read without the parser: an action name, then (optionally) arguments that are
# whole numbers as the parser takes them (no leading zero, at most 300 digits), double-quoted strings of
# printable ASCII without quotes, backslashes or brackets (no escapes to undo, nothing the parser's bracket
# count would see), or flat lists of those, written as `format_value` writes them.
_INT = r"(?:0|[1-9][0-9]{0,299})"
_ITEM = rf"""(?:{_INT}|"[ !#-'*-Z^-z|~]*")"""
_ARG = rf"(?:{_ITEM}|\[(?:{_ITEM}(?:, {_ITEM})*)?\])"
_PLAIN = re.compile(rf"([A-Za-z_][A-Za-z0-9_]*)(?:\(({_ARG}(?:, {_ARG})*)\))?")
_PLAIN_TOKEN = re.compile(rf'{_INT}|"[^"]*"|\[|\]')


def _plain_move(text: str) -> Move | None:
    """The move a plain text stands for, exactly as the parser reads it; None for any other text.

    Loading checks that each value of every `of:` set reads back from its move
    text, and reading a seed game's 100-odd cells through the parser was a
    tenth of its load.  An action named by one of the grammar's words is left
    to the parser, which may read it as that keyword.
    """
    found = _PLAIN.fullmatch(text)
    if found is None:
        return None
    action, args = found.groups()
    if action in KEYWORDS:
        return None
    if args is None:
        return Move(action)
    values: list[Any] = []
    stack: list[list[Any]] = []
    for token in _PLAIN_TOKEN.findall(args):
        if token == "[":
            stack.append(values)
            values = []
        elif token == "]":
            items, values = tuple(values), stack.pop()
            values.append(items)
        else:
            values.append(token[1:-1] if token[0] == '"' else int(token))
    return Move(action, tuple(values))


def arg_key(value: Any) -> Any:
    """A hashable key for a move argument or a parameter value."""
    if isinstance(value, (list, tuple)):
        return tuple(arg_key(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    if isinstance(value, bool):
        return ("bool", value)
    return value
