"""The text of an expression tree as the language writes it: for messages that name a part of the code.

A scenario check that fails shows the value of each of its parts
(`authoring.why`); this writes each part back as code, with the brackets its
place needs and no more, so `a == 3 and "x" in legal` shows its parts as
`a == 3` and `"x" in legal`.  Parsing the text again gives the same tree.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from . import ast as A

# How tightly each kind of expression binds (higher: tighter), as `grammar.lark` nests them.
_LOOSEST, _OR, _AND, _NOT, _COMPARE, _SUM, _PRODUCT, _UNARY, _POSTFIX = range(9)
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t"}  # the language's escapes, in reverse
_LEVEL = {"+": _SUM, "-": _SUM, "*": _PRODUCT, "/": _PRODUCT, "//": _PRODUCT, "%": _PRODUCT}


def unparse(node: A.Expr) -> str:
    """`node` as code."""
    return _text(node)[0]


def _literal(value: Any) -> str:
    if value is None:
        return "null"
    if type(value) is bool:
        return "true" if value else "false"
    if type(value) is float:
        return format(Decimal(repr(value)), "f")  # the language writes no exponent
    if type(value) is str:
        return '"' + "".join(_ESCAPES.get(c) or (f"\\u{ord(c):04x}" if c < " " else c) for c in value) + '"'
    if type(value) is list:
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    return str(value)


def _at(node: A.Expr, level: int) -> str:
    """`node` where an operand of binding strength `level` stands: bracketed if it binds more loosely."""
    text, own = _text(node)
    return f"({text})" if own < level else text


def _clause(names: tuple[str, ...], source: A.Expr, cond: A.Expr | None) -> str:
    out = f"for {', '.join(names)} in {_at(source, _OR)}"
    return out + (f" if {_at(cond, _OR)}" if cond is not None else "")


def _text(node: A.Expr) -> tuple[str, int]:
    """The text of `node` and how tightly it binds."""
    if isinstance(node, A.Literal):
        value = node.value
        negative = type(value) in (int, float) and value < 0
        return _literal(value), _UNARY if negative else _POSTFIX
    if isinstance(node, A.Name):
        return node.name, _POSTFIX
    if isinstance(node, A.ListLit):
        return "[" + ", ".join(_at(i, _LOOSEST) for i in node.items) + "]", _POSTFIX
    if isinstance(node, A.Comprehension):
        clauses = " ".join(_clause(names, source, cond) for names, source, cond, _ in node.clauses)
        return f"[{_at(node.elem, _LOOSEST)} {clauses}]", _POSTFIX
    if isinstance(node, A.Attr):
        return f"{_at(node.obj, _POSTFIX)}.{node.name}", _POSTFIX
    if isinstance(node, A.Index):
        return f"{_at(node.obj, _POSTFIX)}[{_at(node.index, _LOOSEST)}]", _POSTFIX
    if isinstance(node, A.Slice):
        lo = _at(node.lo, _LOOSEST) if node.lo is not None else ""
        hi = _at(node.hi, _LOOSEST) if node.hi is not None else ""
        return f"{_at(node.obj, _POSTFIX)}[{lo}:{hi}]", _POSTFIX
    if isinstance(node, A.Call):
        if len(node.args) == 1 and isinstance(node.args[0], A.Comprehension):  # `any(x for x in xs)`
            return f"{node.func}({unparse(node.args[0])[1:-1]})", _POSTFIX
        return f"{node.func}({', '.join(_at(a, _LOOSEST) for a in node.args)})", _POSTFIX
    if isinstance(node, A.Unary):
        if node.op == "not":
            return f"not {_at(node.operand, _NOT)}", _NOT
        return f"-{_at(node.operand, _UNARY)}", _UNARY
    if isinstance(node, A.Binary):
        level = _LEVEL.get(node.op, _COMPARE)
        # Comparisons do not chain, and arithmetic groups to the left: the right operand binds tighter.
        left = _at(node.left, level + 1 if level == _COMPARE else level)
        return f"{left} {node.op} {_at(node.right, level + 1)}", level
    if isinstance(node, A.BoolOp):
        level = _AND if node.op == "and" else _OR
        return f" {node.op} ".join(_at(o, level + 1) for o in node.operands), level
    if isinstance(node, A.Cond):
        return (f"if {_at(node.test, _LOOSEST)} then {_at(node.then, _LOOSEST)} else {_at(node.other, _LOOSEST)}",
                _LOOSEST)
    if isinstance(node, A.LetExpr):
        return f"let {node.name} = {_at(node.value, _LOOSEST)}; {_at(node.body, _LOOSEST)}", _LOOSEST
    raise TypeError(f"no text for a {type(node).__name__}")
