"""Python source text of a generated tree: `ast.unparse` for the node types `dsl.emit` allows, made fast.

A load unparses one function per expression and effects text (some 200 for
a seed game), and the standard unparser, made for every Python tree, spent
more time on them than compiling the text back did: it dispatches each node
through three calls and a method name built from the class, and it tracks
operator precedence through a context manager per operand.  Here each node
type has one function, and every operator expression is parenthesised, so
no precedence needs tracking (parentheses never change the tree Python
parses back).  Trees come from `dsl.codegen` and have passed `emit.verify`:
a node type outside `emit.NODE_TYPES` (or a part of a node this module
does not write, such as a keyword argument) is a generator bug, and
`source` refuses it rather than drop it.  Constants are written with
`repr`, as `ast.unparse` writes them, infinities and NaN excepted (`repr`
gives names for them).
"""

from __future__ import annotations

import ast
import sys
from typing import Callable

INDENT = "    "
_INF = "1e" + repr(sys.float_info.max_10_exp + 1)  # a literal too large for a float: it reads back as inf
BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%"}
UNARY = {ast.Not: "not ", ast.USub: "-"}
COMPARE = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
           ast.Is: "is", ast.IsNot: "is not", ast.In: "in"}
BOOL = {ast.And: " and ", ast.Or: " or "}


def source(tree: ast.Module) -> str:
    """The text of a generated module, one statement per line, ending with a line break."""
    lines: list[str] = []
    _body(tree.body, 0, lines)
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- expressions
def expr(node: ast.expr) -> str:
    try:
        write = _EXPR[type(node)]
    except KeyError:
        raise ValueError(f"no source for a {type(node).__name__} expression") from None
    return write(node)


def _constant(node: ast.Constant) -> str:
    value = node.value
    if type(value) is float:
        text = repr(value).replace("inf", _INF)
        return f"({_INF}-{_INF})" if text == "nan" else f"({text})"
    if type(value) is int:
        return f"({value!r})" if value < 0 else repr(value)
    return repr(value)


def _attribute(node: ast.Attribute) -> str:
    base = expr(node.value)
    if type(node.value) is ast.Constant and type(node.value.value) is int:
        base = f"({base})"  # `1.x` would read as a float
    return f"{base}.{node.attr}"


def _sequence(items: list[ast.expr]) -> str:
    return ", ".join(expr(item) for item in items)


def _tuple(node: ast.Tuple) -> str:
    if len(node.elts) == 1:
        return f"({expr(node.elts[0])},)"
    return f"({_sequence(node.elts)})"


def _dict(node: ast.Dict) -> str:
    return "{" + ", ".join(f"**{expr(v)}" if k is None else f"{expr(k)}: {expr(v)}"
                           for k, v in zip(node.keys, node.values)) + "}"


def _call(node: ast.Call) -> str:
    if node.keywords:
        raise ValueError("no source for a call with keyword arguments")
    return f"{expr(node.func)}({_sequence(node.args)})"


def _compare(node: ast.Compare) -> str:
    parts = [expr(node.left)]
    for op, right in zip(node.ops, node.comparators):
        parts.append(f"{COMPARE[type(op)]} {expr(right)}")
    return f"({' '.join(parts)})"


_EXPR: dict[type, Callable] = {
    ast.Name: lambda n: n.id,
    ast.Constant: _constant,
    ast.Attribute: _attribute,
    ast.Subscript: lambda n: f"{expr(n.value)}[{expr(n.slice)}]",
    ast.Call: _call,
    ast.List: lambda n: f"[{_sequence(n.elts)}]",
    ast.Tuple: _tuple,
    ast.Dict: _dict,
    ast.IfExp: lambda n: f"({expr(n.body)} if {expr(n.test)} else {expr(n.orelse)})",
    ast.BoolOp: lambda n: "(" + BOOL[type(n.op)].join(expr(v) for v in n.values) + ")",
    ast.UnaryOp: lambda n: f"({UNARY[type(n.op)]}{expr(n.operand)})",
    ast.BinOp: lambda n: f"({expr(n.left)} {BINARY[type(n.op)]} {expr(n.right)})",
    ast.Compare: _compare,
    ast.NamedExpr: lambda n: f"({expr(n.target)} := {expr(n.value)})",
}


# ----------------------------------------------------------------- statements
def _body(stmts: list[ast.stmt], depth: int, lines: list[str]) -> None:
    for stmt in stmts:
        try:
            write = _STMT[type(stmt)]
        except KeyError:
            raise ValueError(f"no source for a {type(stmt).__name__} statement") from None
        write(stmt, depth, lines)


def _line(text: str) -> Callable[[ast.stmt, int, list[str]], None]:
    """A simple statement: one line, `text(node)` indented."""
    return lambda node, depth, lines: lines.append(INDENT * depth + text(node))


def _function(node: ast.FunctionDef, depth: int, lines: list[str]) -> None:
    a = node.args
    if (node.decorator_list or node.returns or getattr(node, "type_params", None) or a.posonlyargs or a.vararg
            or a.kwonlyargs or a.kwarg or a.defaults):
        raise ValueError("no source for a function with more than plain parameters")
    lines.append(f"{INDENT * depth}def {node.name}({', '.join(a.arg for a in node.args.args)}):")
    _body(node.body, depth + 1, lines)


def _for(node: ast.For, depth: int, lines: list[str]) -> None:
    lines.append(f"{INDENT * depth}for {expr(node.target)} in {expr(node.iter)}:")
    _body(node.body, depth + 1, lines)
    _else(node.orelse, depth, lines)


def _if(node: ast.If, depth: int, lines: list[str], keyword: str = "if") -> None:
    lines.append(f"{INDENT * depth}{keyword} {expr(node.test)}:")
    _body(node.body, depth + 1, lines)
    orelse = node.orelse
    if len(orelse) == 1 and type(orelse[0]) is ast.If:
        _if(orelse[0], depth, lines, "elif")
    else:
        _else(orelse, depth, lines)


def _else(orelse: list[ast.stmt], depth: int, lines: list[str], keyword: str = "else") -> None:
    if orelse:
        lines.append(f"{INDENT * depth}{keyword}:")
        _body(orelse, depth + 1, lines)


def _try(node: ast.Try, depth: int, lines: list[str]) -> None:
    lines.append(f"{INDENT * depth}try:")
    _body(node.body, depth + 1, lines)
    for handler in node.handlers:
        head = "except"
        if handler.type is not None:
            head += f" {expr(handler.type)}"
            if handler.name:
                head += f" as {handler.name}"
        lines.append(f"{INDENT * depth}{head}:")
        _body(handler.body, depth + 1, lines)
    _else(node.orelse, depth, lines)
    _else(node.finalbody, depth, lines, "finally")


def _raise(node: ast.Raise) -> str:
    text = "raise" if node.exc is None else f"raise {expr(node.exc)}"
    return text if node.cause is None else f"{text} from {expr(node.cause)}"


_STMT: dict[type, Callable[..., None]] = {
    ast.FunctionDef: _function,
    ast.Return: _line(lambda n: "return" if n.value is None else f"return {expr(n.value)}"),
    ast.Assign: _line(lambda n: " = ".join(expr(t) for t in n.targets) + f" = {expr(n.value)}"),
    ast.AugAssign: _line(lambda n: f"{expr(n.target)} {BINARY[type(n.op)]}= {expr(n.value)}"),
    ast.Expr: _line(lambda n: expr(n.value)),
    ast.Pass: _line(lambda n: "pass"),
    ast.Break: _line(lambda n: "break"),
    ast.Raise: _line(_raise),
    ast.For: _for,
    ast.If: _if,
    ast.Try: _try,
}
