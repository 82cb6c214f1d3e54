"""Typed, frozen syntax tree of the expression and effect language.

Every node keeps the line and column where it starts *in the ruleset file*
(the parser shifts positions by the YAML scalar's own position), so a type
error or a runtime fault found long after loading still points at the text
the author wrote.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Pos:
    """A position in a source file (1-based line and column)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


NOWHERE = Pos("<none>", 0, 0)


@dataclass(frozen=True)
class Node:
    pos: Pos = field(compare=False, repr=False)


# ------------------------------------------------------------------ expressions
@dataclass(frozen=True)
class Expr(Node):
    pass


@dataclass(frozen=True)
class Literal(Expr):
    value: Any = None


@dataclass(frozen=True)
class Name(Expr):
    name: str = ""


@dataclass(frozen=True)
class ListLit(Expr):
    items: tuple[Expr, ...] = ()


@dataclass(frozen=True)
class CompFor(Node):
    """A further clause `for a, b in source if cond` of a comprehension, nested in the clauses before it."""

    names: tuple[str, ...] = ()
    source: Expr | None = None
    cond: Expr | None = None


@dataclass(frozen=True)
class Comprehension(Expr):
    """`[elem for a, b in source if cond]`; also the argument form `f(elem for …)`.

    The first `for` clause is `names`, `source` and `cond`; `more` holds the
    clauses after it, each looping inside the ones before it (its source and
    filter see their names), so `[e for a in xs for b in ys]` is empty when
    the first clause is, and a comprehension of one clause has `more == ()`.
    """

    elem: Expr | None = None
    names: tuple[str, ...] = ()
    source: Expr | None = None
    cond: Expr | None = None
    more: tuple[CompFor, ...] = ()

    @property
    def clauses(self) -> tuple[tuple[tuple[str, ...], Expr | None, Expr | None, Pos], ...]:
        """Every `for` clause as (names, source, cond, position), outermost first."""
        return ((self.names, self.source, self.cond, self.pos),) + tuple(
            (c.names, c.source, c.cond, c.pos) for c in self.more)

    @property
    def bound(self) -> tuple[str, ...]:
        """Every name the clauses bind, in order."""
        return self.names + tuple(n for c in self.more for n in c.names)


@dataclass(frozen=True)
class Attr(Expr):
    obj: Expr | None = None
    name: str = ""


@dataclass(frozen=True)
class Index(Expr):
    obj: Expr | None = None
    index: Expr | None = None


@dataclass(frozen=True)
class Slice(Expr):
    obj: Expr | None = None
    lo: Expr | None = None
    hi: Expr | None = None


@dataclass(frozen=True)
class Call(Expr):
    func: str = ""
    args: tuple[Expr, ...] = ()


@dataclass(frozen=True)
class Unary(Expr):
    op: str = ""  # "-" or "not"
    operand: Expr | None = None


@dataclass(frozen=True)
class Binary(Expr):
    op: str = ""  # arithmetic or comparison operator
    left: Expr | None = None
    right: Expr | None = None


@dataclass(frozen=True)
class BoolOp(Expr):
    op: str = ""  # "and" / "or"
    operands: tuple[Expr, ...] = ()


@dataclass(frozen=True)
class Cond(Expr):
    test: Expr | None = None
    then: Expr | None = None
    other: Expr | None = None


@dataclass(frozen=True)
class LetExpr(Expr):
    """`let name = value; body`: `body` with `name` bound to `value`, computed once (the name is read-only)."""

    name: str = ""
    value: Expr | None = None
    body: Expr | None = None


# --------------------------------------------------------------------- effects
@dataclass(frozen=True)
class Target(Node):
    """An assignable place: a variable followed by `[index]` / `.field` steps."""

    name: str = ""
    steps: tuple[Expr | str, ...] = ()  # Expr for [index], str for .field


@dataclass(frozen=True)
class Stmt(Node):
    pass


@dataclass(frozen=True)
class Block(Node):
    stmts: tuple[Stmt, ...] = ()


@dataclass(frozen=True)
class Cited(Stmt):
    """A statement or block that cites a rule id (`@NC-4.2 stmt`)."""

    rule: str = ""
    body: Stmt | Block | None = None


@dataclass(frozen=True)
class Assign(Stmt):
    target: Target | None = None
    op: str = "="  # "=", "+=", "-=", "*="
    value: Expr | None = None


@dataclass(frozen=True)
class Let(Stmt):
    name: str = ""
    value: Expr | None = None


@dataclass(frozen=True)
class If(Stmt):
    branches: tuple[tuple[Expr, Block], ...] = ()
    orelse: Block | None = None


@dataclass(frozen=True)
class For(Stmt):
    names: tuple[str, ...] = ()
    source: Expr | None = None
    body: Block | None = None


@dataclass(frozen=True)
class Repeat(Stmt):
    count: Expr | None = None
    body: Block | None = None


@dataclass(frozen=True)
class ListOp(Stmt):
    """append / prepend / remove / move / draw / shuffle on list-valued places."""

    op: str = ""
    value: Expr | None = None
    source: Target | None = None
    dest: Target | None = None


@dataclass(frozen=True)
class Control(Stmt):
    """Flow control: end_turn, end_phase, end_game, stage NAME, goto NAME, pass."""

    op: str = ""
    arg: str | None = None


@dataclass(frozen=True)
class CallProc(Stmt):
    name: str = ""
    args: tuple[Expr, ...] = ()


@dataclass(frozen=True)
class Log(Stmt):
    value: Expr | None = None


@dataclass(frozen=True)
class Announce(Stmt):
    """`announce TEXT [to SEATS]`: an event a person at the table is told, with the rule around it."""

    text: Expr | None = None
    to: Expr | None = None


@dataclass(frozen=True)
class Fail(Stmt):
    message: Expr | None = None


def walk(node: Any):
    """Yield every node below (and including) `node`, depth first."""
    if isinstance(node, Node):
        yield node
        for name in node.__dataclass_fields__:
            if name == "pos":
                continue
            yield from walk(getattr(node, name))
    elif isinstance(node, tuple):
        for item in node:
            yield from walk(item)
