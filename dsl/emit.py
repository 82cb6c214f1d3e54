"""Building, checking and compiling the Python trees that `dsl.codegen` generates.

User text reaches generated code only as data: a literal or a name's key is
an `ast.Constant`, anything else (a position, a constant list, a builtin's
spec) a global of the generated function under a name made here.  `verify`
proves that of every tree before it is compiled: only the node types the
generator emits, only names it made, only the attributes of `Ctx`, `Budget`,
`Signals` and lists it uses.  The source (`dsl.pysource`) is registered with
`linecache`, so a traceback through generated code shows readable lines, and
compiled code objects are cached by the hash of that source, in this process
only; nothing is ever written to or loaded from a file.  A function's text is
written and compiled when it is first called, not when it is generated.
"""

from __future__ import annotations

import ast
import hashlib
import linecache
import re
from types import CodeType, FunctionType
from typing import Any, Callable

from .pysource import source as python_source

# Every node type the generator emits; anything else in a tree is a generator bug.
NODE_TYPES = frozenset({
    ast.Module, ast.FunctionDef, ast.arguments, ast.arg, ast.Return, ast.Assign, ast.AugAssign, ast.For,
    ast.If, ast.Try, ast.Raise, ast.Expr, ast.Pass, ast.Break, ast.Name, ast.Constant, ast.Attribute,
    ast.Subscript, ast.Call, ast.List, ast.Dict, ast.Tuple, ast.IfExp, ast.BoolOp, ast.UnaryOp,
    ast.BinOp, ast.Compare, ast.NamedExpr, ast.Load, ast.Store, ast.And, ast.Or, ast.Not, ast.USub, ast.Add,
    ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Is,
    ast.IsNot, ast.In,
})
# The attributes generated code reads or writes: of Ctx, Budget, Signals, the model and lists.
ATTRIBUTES = frozenset({
    "vars", "flow", "env", "model", "component_props", "budget", "fired", "signals", "log", "events", "rng",
    "iterations", "copies", "depth", "max_depth", "charge", "copy", "append", "extend", "get", "pop", "entries",
    "replay", "call", "end_turn", "end_phase", "end_game", "stage", "stage_set", "goto",
})
LOCAL = re.compile(r"_[a-z]\d+")  # the temporaries and user locals the generator numbers
PARAM = "ctx"
SAFE_BUILTINS: dict[str, Any] = {"type": type, "len": len, "list": list, "range": range, "int": int, "str": str,
                                 "dict": dict}
SCALARS = (type(None), bool, int, float, str)

_CODE: dict[str, CodeType] = {}


class GeneratedCodeError(AssertionError):
    """A generated tree broke one of the rules `verify` checks: a bug in the generator, never in a ruleset."""


# ------------------------------------------------------------------ builders
def name(id_: str) -> ast.Name:
    return ast.Name(id_, ast.Load())


def store(id_: str) -> ast.Name:
    return ast.Name(id_, ast.Store())


def const(value: Any) -> ast.Constant:
    return ast.Constant(value)


def attr(obj: ast.expr, field: str, ctx: ast.expr_context | None = None) -> ast.Attribute:
    return ast.Attribute(obj, field, ctx or ast.Load())


def call(func: ast.expr, *args: ast.expr) -> ast.Call:
    return ast.Call(func, list(args), [])


def assign(target: str, value: ast.expr) -> ast.Assign:
    return ast.Assign([store(target)], value)


def is_(left: ast.expr, right: ast.expr) -> ast.Compare:
    return ast.Compare(left, [ast.Is()], [right])


def type_is(value: ast.expr, type_name: str) -> ast.Compare:
    """`type(value) is T`: the exact-type test of every fast path (a bool is never an int here)."""
    return is_(call(name("type"), value), name(type_name))


def and_(*values: ast.expr) -> ast.expr:
    return values[0] if len(values) == 1 else ast.BoolOp(ast.And(), list(values))


def if_(test: ast.expr, body: list[ast.stmt], orelse: list[ast.stmt] | None = None) -> ast.If:
    return ast.If(test, body or [ast.Pass()], orelse or [])


def is_container(value: ast.expr) -> ast.expr:
    """`type(v) is list or type(v) is dict`: only these are charged, copied or walked."""
    return ast.BoolOp(ast.Or(), [type_is(value, "list"), type_is(value, "dict")])


def function(fn_name: str, body: list[ast.stmt]) -> ast.Module:
    args = ast.arguments(posonlyargs=[], args=[ast.arg(PARAM)], kwonlyargs=[], kw_defaults=[], defaults=[])
    fn = ast.FunctionDef(fn_name, args, body or [ast.Pass()], [], None)
    return ast.Module([fn], [])


# ------------------------------------------------------------- verification
_CONTEXTS = frozenset({ast.Load, ast.Store})
_WITH_CONTEXT = frozenset({ast.Name, ast.Attribute, ast.Subscript, ast.List, ast.Tuple})
_TEXT_FIELDS = frozenset({"id", "attr", "name", "arg", "type_comment", "kind"})  # texts, checked where they matter
# Per node type, the fields that can hold nodes: a `ctx` is checked in place, not walked as a node of its own.
_CHILD_FIELDS = {kind: tuple(f for f in kind._fields if f not in _TEXT_FIELDS and f != "ctx") for kind in NODE_TYPES}


def verify(tree: ast.Module, globals_: dict[str, Any], locals_: frozenset[str] = frozenset()) -> None:
    """Refuse a tree with a node, name, attribute or constant the generator never emits.

    A name is the parameter, a global of the function, a safe builtin, one of
    the generator's numbered locals or one of `locals_` (what its prologue loads).
    The walk reads each node's fields directly, only those that can hold
    nodes: `ast.walk` makes two generator steps and an `isinstance` per field,
    and it cost a seed game's load more than compiling did; a third of the
    nodes are the `Load` and `Store` marks of names, checked where they stand.
    """
    first = tree.body[0] if tree.body else None
    stack: list[Any] = [tree]
    pop, push, extend = stack.pop, stack.append, stack.extend
    child_fields, with_context, contexts = _CHILD_FIELDS, _WITH_CONTEXT, _CONTEXTS
    while stack:
        node = pop()
        kind = type(node)
        fields = child_fields.get(kind)
        if fields is None:
            raise GeneratedCodeError(f"generated code holds a {kind.__name__} node")
        if kind in with_context and type(node.ctx) not in contexts:
            raise GeneratedCodeError(f"generated code holds a {type(node.ctx).__name__} context")
        if kind is ast.Name:
            id_ = node.id
            if not (id_ == PARAM or id_ in globals_ or id_ in locals_ or id_ in SAFE_BUILTINS
                    or LOCAL.fullmatch(id_)):
                raise GeneratedCodeError(f"generated code names {id_!r}, which the generator did not make")
            continue
        if kind is ast.Attribute and node.attr not in ATTRIBUTES:
            raise GeneratedCodeError(f"generated code reads the attribute {node.attr!r}")
        if kind is ast.Constant:
            if type(node.value) not in SCALARS:
                raise GeneratedCodeError(f"generated code holds a {type(node.value).__name__} constant")
            continue
        if kind is ast.FunctionDef and node is not first:
            raise GeneratedCodeError("generated code defines a nested function")
        for field in fields:
            value = getattr(node, field, None)
            if type(value) is list:
                extend(value)
            elif value is not None:
                push(value)


# ---------------------------------------------------------------- compiling
_PENDING = "__ruleplay_pending__"  # a function's global until its first call: [tree, its name, the function]
_FIRST_CALL_SOURCE = "def first_call(ctx):\n    return __ruleplay_compile__(__ruleplay_pending__)(ctx)\n"
_FIRST_CALL_FILE = "<ruleplay-generated-first-call>"
_FIRST_CALL = next(c for c in compile(_FIRST_CALL_SOURCE, _FIRST_CALL_FILE, "exec").co_consts
                   if isinstance(c, CodeType))
linecache.cache[_FIRST_CALL_FILE] = (len(_FIRST_CALL_SOURCE), None, _FIRST_CALL_SOURCE.splitlines(True),
                                     _FIRST_CALL_FILE)  # a first call's frame shows in a traceback through it


def build(tree: ast.Module, globals_: dict[str, Any], fn_name: str,
          locals_: frozenset[str] = frozenset()) -> Callable[..., Any]:
    """Verify one generated function now; write, compile (cached by source) and load it when first called.

    A ruleset generates a function for every text it holds, and a load that
    wrote and compiled them all spent a third of its time on functions that
    a validation, or a game that never reaches them, does not run.  The
    function returned is the caller's to keep: its first call puts the
    compiled code in its place (`compile_now`), so later calls run that code
    directly, with no step between.  The tree is verified here, so a
    generator bug still surfaces at load.
    """
    verify(tree, globals_, locals_)
    namespace = dict(globals_, **SAFE_BUILTINS)
    namespace["__builtins__"] = {}
    namespace["__ruleplay_compile__"] = compile_now
    fn = FunctionType(_FIRST_CALL, namespace, fn_name)
    namespace[_PENDING] = [tree, fn_name, fn]
    return fn


def compiled(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A function from `build`, compiled now instead of at its first call: a caller that can do without it
    (a fast path beside a reference one) sees here that Python refuses it (nested past its limits)."""
    return compile_now(fn.__globals__[_PENDING])


def compile_pending(fn: Callable[..., Any]) -> None:
    """Compile now a function from `build` that has not run yet; leave any other callable as it is (a profile
    times what code costs to run, not to compile on its first call)."""
    pending = getattr(fn, "__globals__", {}).get(_PENDING)
    if pending is not None:
        compile_now(pending)


def compile_now(pending: list) -> Callable[..., Any]:
    """Give a function from `build` its compiled code (once; a second caller finds it done) and return it."""
    tree, fn_name, fn = pending
    if tree is None:
        return fn
    source = python_source(tree)
    digest = hashlib.sha256(source.encode()).hexdigest()
    filename = f"<ruleplay-generated-{digest[:16]}>"
    code = _CODE.get(digest)
    if code is None:
        # Compiled from the unparsed text, so the line numbers of a traceback match what linecache shows.
        code = _CODE[digest] = compile(source, filename, "exec")
    if filename not in linecache.cache:
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = fn.__globals__
    exec(code, namespace)
    fn.__code__ = namespace[fn_name].__code__
    namespace[fn_name] = fn
    pending[0] = None  # after the code is in place: a call that reads this finds the function ready
    return fn
