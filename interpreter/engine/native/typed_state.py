"""Which state variables the native state may keep unboxed: proven lists of small ints and nulls.

A board of marks or discs is often a list of fixed length whose every item is null or a seat number.
Kept as tagged 16-byte values, each read of an item checks a tag; kept as one signed byte (or two) per item
with a code for null, the lowered code reads and compares it as a C int.  This module is the proof that
makes that sound: it finds the variables that every piece of the ruleset's code leaves either untouched or
a list of one fixed length holding only null or ints of a known range.

What is proven is a property of the rules' own writes, not of every state: the variable may be anything
before its first whole assignment (a board without `init` is null until `setup` makes it), and a state
handed in from outside (a `State` converted to the native one) may hold anything at all.  The native state
therefore keeps such a variable unboxed only while its value has the proven form, and converts exactly (or
keeps the boxed form) everywhere else; what this module guarantees is that the lowered code never has to
write a value the unboxed form cannot hold.

A variable is proven when all of these hold:
  - it is not per player and declares no `type:` other than a list;
  - every whole assignment to it (`init`, and `V = ...` anywhere) is `repeat(ITEM, N)` or a list literal of
    ITEMs, with the same constant length N everywhere;
  - every other write is `V[INDEX] = ITEM` (one index, plain `=`): an item write cannot change the length,
    and an index outside the list fails the step as it does today;
  - no list statement (append, prepend, remove, move, draw, shuffle) names it, as source or destination;
where an ITEM is `null`, an int literal, the seat to move (`current`), an int constant, or `if ... then ITEM
else ITEM`.  Anything else (a text, a float, a list, `+=`, a field or a nested index) makes the variable
stay boxed.  The proof reads every piece of code of the model, so writes in procedures, triggers and round
hooks count as well as those in actions.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Iterator

from ruleplay.dsl import ast as A
from ruleplay.dsl.scope import Scope

ITEM_BITS = (8, 16)  # the item widths the native state offers, smallest first


@dataclass(frozen=True)
class IntCells:
    """A state variable proven to be, whenever it is a list, `length` items each null or an int in
    [low, high]; `bits` is the narrowest item width holding that range and a code for null."""

    name: str
    length: int
    low: int
    high: int

    @property
    def bits(self) -> int:
        return next(b for b in ITEM_BITS if -(1 << (b - 1)) < self.low and self.high < (1 << (b - 1)))

    @property
    def null_code(self) -> int:
        """The item code of null: the smallest value of the width, outside the proven range."""
        return -(1 << (self.bits - 1))


@dataclass(frozen=True)
class Refusal:
    """Why a variable stays boxed: the first write (or declaration) the proof does not cover."""

    name: str
    reason: str
    pos: A.Pos | None = None


class _Unproven(Exception):
    def __init__(self, reason: str, pos: A.Pos | None = None):
        super().__init__(reason)
        self.reason, self.pos = reason, pos


def int_cells(model: Any) -> tuple[dict[str, IntCells], dict[str, Refusal]]:
    """The model's state variables the native state may keep unboxed, and why each other one may not."""
    state = model.data.get("state") or {}
    max_seat = max(model.max_players, model.players, 1) - 1
    proven: dict[str, IntCells] = {}
    refused: dict[str, Refusal] = {}
    for name, spec in state.items():
        try:
            proven[name] = _prove(name, spec or {}, model.code, max_seat)
        except _Unproven as why:
            refused[name] = Refusal(name, why.reason, why.pos)
    return proven, refused


def _prove(name: str, spec: dict, code: dict, max_seat: int) -> IntCells:
    if spec.get("per_player"):
        raise _Unproven("it is kept per player")
    if spec.get("type") not in (None, "list"):
        raise _Unproven(f"it is declared of type {spec.get('type')}")
    lengths: set[int] = set()
    low, high = 0, 0
    wholes = 0
    init = code.get(("state", name, "init"))
    if init is not None and not (isinstance(init[0], A.Literal) and init[0].value is None):
        n, lo, hi = _Items(init[1], init[0], max_seat).whole(init[0])
        lengths.add(n)
        low, high, wholes = min(low, lo), max(high, hi), wholes + 1
    for tree, scope in code.values():
        items = _Items(scope, tree, max_seat)
        for node in _statements(tree):
            if isinstance(node, A.ListOp):
                if any(t is not None and t.name == name for t in (node.source, node.dest)):
                    raise _Unproven(f"a list statement ({node.op}) changes it", node.pos)
            elif isinstance(node, A.Assign) and node.target.name == name:
                steps = node.target.steps
                if node.op != "=":
                    raise _Unproven(f"`{node.op}` writes it", node.pos)
                if not steps:
                    n, lo, hi = items.whole(node.value)
                    lengths.add(n)
                    wholes += 1
                elif len(steps) == 1 and not isinstance(steps[0], str):
                    lo, hi = items.item(node.value)
                else:
                    raise _Unproven("a nested index or a field of it is written", node.pos)
                low, high = min(low, lo), max(high, hi)
    if not wholes:
        raise _Unproven("nothing makes it a list")
    if len(lengths) != 1:
        raise _Unproven(f"it is made with different lengths ({', '.join(map(str, sorted(lengths)))})")
    if low <= -(1 << 15) or high >= (1 << 15) - 1:
        raise _Unproven(f"its ints ({low}..{high}) need more than {ITEM_BITS[-1]} bits")
    return IntCells(name, lengths.pop(), low, high)


def _statements(node: Any) -> Iterator[A.Node]:
    """Every statement in a tree (expressions hold none), nested blocks included."""
    if isinstance(node, A.Block):
        for stmt in node.stmts:
            yield from _statements(stmt)
    elif isinstance(node, A.Cited):
        yield from _statements(node.body)
    elif isinstance(node, A.If):
        for _test, block in node.branches:
            yield from _statements(block)
        if node.orelse is not None:
            yield from _statements(node.orelse)
    elif isinstance(node, (A.For, A.Repeat)):
        yield from _statements(node.body)
    elif isinstance(node, A.Stmt):
        yield node


def _bound(node: Any) -> Iterator[str]:
    """Every name a `let`, a loop or a comprehension binds anywhere in a tree."""
    if isinstance(node, (A.Let, A.LetExpr)):
        yield node.name
    elif isinstance(node, (A.For, A.Comprehension, A.CompFor)):
        yield from node.names
    if isinstance(node, A.Node):
        for f in fields(node):
            yield from _bound(getattr(node, f.name))
    elif isinstance(node, tuple):
        for part in node:
            yield from _bound(part)


class _Items:
    """The items a piece of code may write, read in its scope.  A name bound anywhere in the piece counts as
    a local everywhere in it (a local may hold anything), so `current` or a constant is believed only where
    nothing in the piece could hide it."""

    def __init__(self, scope: Scope, tree: A.Node, max_seat: int):
        self.scope = scope.with_locals(*_bound(tree))
        self.max_seat = max_seat

    def whole(self, tree: A.Expr) -> tuple[int, int, int]:
        """The length and item range of a whole value the proof covers: `repeat(ITEM, N)` or `[ITEM, ...]`."""
        if isinstance(tree, A.Call) and tree.func == "repeat" and len(tree.args) == 2 and self._builtin("repeat"):
            n = self.constant_int(tree.args[1])
            if n is None or n < 0:
                raise _Unproven("it is made by repeat() of a length that is not a constant", tree.pos)
            lo, hi = self.item(tree.args[0])
            return n, lo, hi
        if isinstance(tree, A.ListLit):
            ranges = [self.item(item) for item in tree.items]
            return len(ranges), min((r[0] for r in ranges), default=0), max((r[1] for r in ranges), default=0)
        raise _Unproven("it is made by something other than repeat() or a list of items", tree.pos)

    def item(self, tree: A.Expr) -> tuple[int, int]:
        """The int range an item the proof covers may take (null takes none: (0, 0) widens nothing)."""
        if isinstance(tree, A.Literal) and tree.value is None:
            return 0, 0
        if isinstance(tree, A.Name) and self.scope.resolve(tree.name) == ("flow", "seat"):
            return 0, self.max_seat
        if isinstance(tree, A.Cond):
            (a, b), (c, d) = self.item(tree.then), self.item(tree.other)
            return min(a, c), max(b, d)
        value = self.constant_int(tree)
        if value is None:
            raise _Unproven("a value that may not be null or a small int is written into it", tree.pos)
        return value, value

    def constant_int(self, tree: A.Expr) -> int | None:
        """The int a constant expression of int literals, int constants and + - * has, or None."""
        if isinstance(tree, A.Literal):
            return tree.value if type(tree.value) is int else None
        if isinstance(tree, A.Name):
            found = self.scope.resolve(tree.name)
            return found[1] if found is not None and found[0] == "const" and type(found[1]) is int else None
        if isinstance(tree, A.Unary) and tree.op == "-":
            inner = self.constant_int(tree.operand)
            return None if inner is None else -inner
        if isinstance(tree, A.Binary) and tree.op in ("+", "-", "*"):
            a, b = self.constant_int(tree.left), self.constant_int(tree.right)
            if a is None or b is None:
                return None
            return a + b if tree.op == "+" else a - b if tree.op == "-" else a * b
        return None

    def _builtin(self, name: str) -> bool:
        """Whether `name(...)` here calls the builtin (no user function of that name hides it)."""
        return name not in self.scope.functions
