"""Parse expression and effect text into the typed AST (`dsl.ast`).

Positions are mapped from the text back to the ruleset file through an
`Origin`, so every node and every syntax error points at the author's file,
line and column.  The checks that need no grammar (length, nesting, lone
surrogates) and the cache of parsed trees live here; the Lark LALR parser
(`dsl.larkparse`) is imported with the first text that reaches it, and built
once per process then, so importing ruleplay does not load Lark.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from typing import Any

from . import ast as A
from .located import DslSyntaxError, Origin

__all__ = ["CODE_BREAK", "MAX_NESTING", "MAX_TEXT", "TOO_LONG_HINT", "DslSyntaxError", "Origin", "parse_effects",
           "parse_expr", "too_long"]

MAX_NESTING = 60  # brackets nested deeper than this are refused before parsing
MAX_TEXT = 20_000  # characters in one expression or effect block
# Line breaks of code, as YAML counts lines: reading a block scalar turns CR, CR LF and NEL into LF but keeps
# the line and paragraph separators, and an escape in a quoted scalar can put any of them in the text.
CODE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
_TO_LF = re.compile("\r(?!\n)|[\x85\u2028\u2029]")  # one character for one: columns stay where they were
_SURROGATE = re.compile("[\ud800-\udfff]")


def _check_nesting(text: str, origin: Origin) -> None:
    depth = 0
    line, col = 1, 0
    for ch in text:
        col += 1
        if ch == "\n":
            line, col = line + 1, 0
        elif ch in "([{":
            depth += 1
            if depth > MAX_NESTING:
                raise DslSyntaxError(
                    f"brackets nested more than {MAX_NESTING} deep",
                    origin.pos(line, col),
                    hint="split the expression with `let` or a named procedure",
                    code="RP203",
                )
        elif ch in ")]}":
            depth -= 1


def too_long(text: str, limit: int = MAX_TEXT, what: str = "the code") -> str:
    """The message for a text over its length limit (RP203 for code): its length, the limit, and only its start.

    Shared with the schema check, which meets such texts first: the whole text would bury the line.
    """
    return f"{what} is {len(text)} characters long, over the limit of {limit}: {text[:40]!r}…"


TOO_LONG_HINT = ("split it into named functions and procedures (`call name(...)`), or into shorter pieces "
                 "with `let`")


def _parse(text: str, origin: Origin, start: str):
    if len(text) > MAX_TEXT:
        raise DslSyntaxError(too_long(text), origin.pos(1, 1), hint=TOO_LONG_HINT, code="RP203")
    text = _TO_LF.sub("\n", text)  # Lark counts lines at LF only; YAML (and so the origin) at every break
    _check_nesting(text, origin)
    bad = _SURROGATE.search(text)  # YAML refuses them, but code also comes from move texts and scenario steps
    if bad:
        at = bad.start()
        line, col = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
        raise DslSyntaxError(f"the text holds a lone surrogate (\\u{ord(bad.group()):04x}), which is no character",
                             origin.pos(line, col), hint="the text was decoded wrongly; it must be valid Unicode")
    from .larkparse import parse_tree  # Lark loads with the first text parsed

    return parse_tree(text, origin, start)


class _ParseCache:
    """The trees of recently parsed texts, least recently used dropped first.

    Loading reads each text up to three times (model, reachability, types)
    and tests load the same rulesets again and again; the tree is immutable
    and carries its positions, so one parse serves all.  The cache is bounded
    by entries and by the characters of the texts it holds: a tree takes
    memory in proportion to its text, and 8192 texts of the maximal length
    would otherwise keep gigabytes alive.  Errors are not cached: they are
    rare and carry no state.
    """

    def __init__(self, entries: int, chars: int):
        self.entries, self.chars = entries, chars
        self.held = 0
        self.lock = threading.Lock()
        self.trees: OrderedDict[tuple[str, Origin, str], Any] = OrderedDict()

    def parse(self, text: str, origin: Origin, start: str) -> Any:
        key = (text, origin, start)
        with self.lock:
            tree = self.trees.get(key)
            if tree is not None:
                self.trees.move_to_end(key)
                return tree
        tree = _parse(text, origin, start)
        with self.lock:  # one table, shared by every thread that loads a ruleset
            if key not in self.trees:
                self.trees[key] = tree
                self.held += len(text)
            while len(self.trees) > self.entries or self.held > self.chars:
                (old, _, _), _ = self.trees.popitem(last=False)
                self.held -= len(old)
        return tree


# A tree and its origin take some 200 bytes per character of dense code, so this holds at most about 50 MB,
# yet more than the code of every built-in ruleset together (some 130 000 characters of YAML in all).
_CACHE = _ParseCache(entries=8192, chars=250_000)


def parse_expr(text: str, origin: Origin = Origin()) -> A.Expr:
    """Parse a single expression."""
    if not text.strip():
        raise DslSyntaxError("empty expression", origin.pos(1, 1), hint="write a value or a condition")
    return _CACHE.parse(text, origin, "expr_start")


def parse_effects(text: str, origin: Origin = Origin()) -> A.Block:
    """Parse a block of effect statements."""
    return _CACHE.parse(text, origin, "effects_start")

