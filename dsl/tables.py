"""Partial evaluation of filtered loops over constant data: `for line in lines if cell in line`.

A comprehension or quantifier whose source is a constant list and whose
filter reads only its loop names, constants and a few scalar locals (a
function's parameters, say) selects the same items every time those locals
have the same values.  `FilterTable` works the selection out once per
combination of values and keeps it, so the generated loop walks only the
selected items.

The game must stay exactly the same, budgets included.  The filter's work
is measured while the table is made: each selected item carries the
iterations the filter spent on it and on the rejected items before it (its
*lump*), and the loop charges that lump where the filter would have run.
A filter whose only charges are iterations made by at most one operator
(`in`, a comparison) can run out of budget only there, so a lump that does
not fit is taken back and the lump's filters are run for real, by the
closure compiler, on the move's own budget: the error is then raised
exactly where and as the loop would have raised it, with the same budget
left.  A filter that raises, builds a value (charges copies), or meets a
value that is not a plain scalar in its locals leaves the loop as it was
for those values: `entries` returns None and the generated code takes the
ordinary loop.

Builtins over the model's static geometry (`line_of`, `neighbors`, a
declared graph's `adjacent` or `reachable`, …) are tabled the same way, by
their arguments: `BuiltinTable`; so are the user functions that read
nothing but their arguments and constants: `static_functions`,
`FunctionTable`; and the components' properties, read from dicts made at
compile time: `property_tables`.
"""

from __future__ import annotations

from typing import Any, Callable

from . import ast as A
from . import runtime as R
from .builtins import BUILTINS, Builtin, invoke
from .compiler import Compiler
from .scope import Scope

MAX_KEYS = 1024  # combinations of locals kept per table; past it the loop runs as written
_KEY_TYPES = (int, str, bool, type(None))  # floats are left out: 0.0 and -0.0 are one key but two texts
_KEY_SET = frozenset(_KEY_TYPES)
_PLAIN_KEY = frozenset({int, str})  # arguments that are their own key: `BuiltinTable.plain`
_CHARGING_OPS = frozenset({"in", "not in", "==", "!=", "<", "<=", ">", ">="})
_PLAIN_OPS = frozenset({"+", "-", "*", "//", "%", "and", "or"})
_UNLIMITED = 1 << 62


def filter_names(cond: A.Expr, scope: Scope, loop_names: tuple[str, ...]) -> list[str] | None:
    """The locals (other than the loop's names) a filter reads, if it can be tabled; None if it cannot.

    It can when it reads no state, flow value or function, calls nothing and
    builds no list, and at most one of its operators can charge the budget.
    """
    charging = 0
    free: set[str] = set()
    for node in A.walk(cond):
        if isinstance(node, A.Name):
            found = scope.resolve(node.name)
            if found is None or found[0] not in ("local", "const"):
                return None
            if found[0] == "local" and node.name not in loop_names:
                free.add(node.name)
        elif isinstance(node, A.Binary):
            if node.op in _CHARGING_OPS:
                charging += not (node.op in ("==", "!=") and (_scalar(node.left) or _scalar(node.right)))
            elif node.op not in _PLAIN_OPS:
                return None
        elif not isinstance(node, (A.Literal, A.Unary, A.BoolOp, A.Cond, A.Index)):
            return None
    return sorted(free) if charging <= 1 else None


def _scalar(node: A.Expr) -> bool:
    """A literal that is no list: `==` with it compares without walking anything, so charges nothing."""
    return isinstance(node, A.Literal) and type(node.value) is not list


class FilterTable:
    """The items of a constant list that pass a filter, per combination of the filter's scalar locals."""

    def __init__(self, items: list, names: tuple[str, ...], free: list[str], test: Callable[[R.Ctx], Any],
                 pos: A.Pos):
        self.items, self.names, self.free, self.test, self.pos = items, names, free, test, pos
        self._entries: dict[tuple, tuple | None] = {}

    @classmethod
    def for_loop(cls, comp: A.Comprehension, scope: Scope) -> "FilterTable | None":
        """The table of a filtered loop over a constant list whose filter reads only locals and constants."""
        source = comp.source
        found = scope.resolve(source.name) if isinstance(source, A.Name) else None
        items = source.value if isinstance(source, A.Literal) else found[1] if found and found[0] == "const" else None
        if type(items) is not list or comp.cond is None or comp.more:
            return None
        inner = scope.with_locals(*comp.names)
        free = filter_names(comp.cond, inner, comp.names)
        if free is None:
            return None
        test = Compiler().expr(comp.cond, inner)  # the closures: the oracle measures what the filter costs
        return cls(items, comp.names, free, test, comp.pos)

    def entries(self, ctx: R.Ctx, values: tuple) -> tuple[list[tuple[Any, int, tuple]], int, tuple] | None:
        """([(item, lump, lump's item indices)], trailing lump, its indices), or None: run the loop as written."""
        if not all(type(v) in _KEY_TYPES for v in values):
            return None
        key = tuple((type(v), v) for v in values)
        if key in self._entries:
            return self._entries[key]
        if len(self._entries) >= MAX_KEYS:
            return None
        made = self._entries[key] = self._select(ctx, values)
        return made

    def _select(self, ctx: R.Ctx, values: tuple) -> tuple | None:
        budget = R.Budget(_UNLIMITED, ctx.budget.max_depth, _UNLIMITED)
        probe = R.Ctx(ctx.vars, ctx.flow, ctx.model, budget=budget)
        selected: list[tuple[Any, int, tuple]] = []
        lump, pending = 0, []
        for i, item in enumerate(self.items):
            before = budget.iterations
            try:
                probe.env = self._env(values, item)
                passed = self.test(probe)
            except R.RuleRuntimeError:
                return None  # raised for these values: the loop raises it where it is written
            if budget.copies != _UNLIMITED:
                return None  # built a value: its copies would be charged elsewhere than they are
            lump += before - budget.iterations
            pending.append(i)
            if passed:
                selected.append((item, lump, tuple(pending)))
                lump, pending = 0, []
        return selected, lump, tuple(pending)

    def _env(self, values: tuple, item: Any) -> dict:
        env = dict(zip(self.free, values))
        if len(self.names) == 1:
            env[self.names[0]] = item
        else:
            env.update(zip(self.names, R.unpack(item, len(self.names), self.pos)))
        return env

    def replay(self, ctx: R.Ctx, values: tuple, indices: tuple) -> None:
        """Run the filters of one lump that did not fit, on the move's budget: they raise where the loop would."""
        real = R.Ctx(ctx.vars, ctx.flow, ctx.model, budget=ctx.budget)
        for i in indices:
            real.env = self._env(values, self.items[i])
            self.test(real)


def property_tables(components: dict[str, dict], prop: str, copies_limit: int) -> tuple[dict, dict] | None:
    """(component -> scalar value, component -> (list or map, the size a copy of it is charged)) for one
    property name, or None if no component has it.  A value nested too deep, or too large for any move to
    copy, is left out: `field` refuses it, with its position."""
    scalars: dict[str, Any] = {}
    containers: dict[str, tuple[Any, int]] = {}
    for cid, props in components.items():
        if prop not in props:
            continue
        value = props[prop]
        if type(value) in (type(None), bool, int, float, str):
            scalars[cid] = value
        elif type(value) in (list, dict):
            try:
                n = R.size(value, copies_limit)
            except R.LimitError:
                continue
            if n <= copies_limit:
                containers[cid] = (value, n)
    return (scalars, containers) if scalars or containers else None


# Builtins whose result and cost depend only on their arguments and the model's boards and declared graphs.
STATIC_BUILTINS = frozenset({"cell", "xy", "step", "ray", "neighbors", "dirs", "dir_vec", "perimeter", "line_of",
                             "offset", "cells", "area", "adjacent", "nodes", "reachable", "distance"})


class _CostTable:
    """Values kept by their scalar arguments, each with the iterations and copies its first computation
    charged: what the tables below share.  `_run` computes a value on the move's own budget."""

    def __init__(self) -> None:
        self._known: dict[tuple, tuple[Any, int, int]] = {}
        # The same entries, for arguments that are all whole numbers or texts, by the arguments alone: what
        # generated code reads inline (no bool or float among them, so no two values share a key).
        self.plain: dict[tuple, tuple[Any, int, int]] = {}

    def _run(self, ctx: R.Ctx, args: list, pos: A.Pos | None) -> Any:
        raise NotImplementedError

    def _lookup(self, ctx: R.Ctx, args: list, pos: A.Pos | None) -> Any:
        types = tuple(map(type, args))
        if not _KEY_SET.issuperset(types):
            return self._run(ctx, args, pos)
        key = (types, *args)  # the types keep `true` apart from 1
        budget = ctx.budget
        known = self._known.get(key)
        if known is None:
            iterations, copies = budget.iterations, budget.copies
            result = self._run(ctx, args, pos)
            if len(self._known) < MAX_KEYS:
                entry = self._known[key] = (R.clone(result), iterations - budget.iterations, copies - budget.copies)
                if _PLAIN_KEY.issuperset(types):
                    self.plain[key[1:]] = entry
            return result
        result, iterations, copies = known
        if budget.iterations < iterations or budget.copies < copies:
            return self._run(ctx, args, pos)  # does not fit: computed for real, it raises where it would
        budget.iterations -= iterations
        budget.copies -= copies
        return R.clone(result) if type(result) is list or type(result) is dict else result


class BuiltinTable(_CostTable):
    """The results of one static builtin (`STATIC_BUILTINS`), by its scalar arguments, with what they cost.

    A call first made runs the builtin (`invoke`) on the move's own budget
    and keeps its result and the iterations and copies it charged: costs a
    pure function of the arguments.  A later call with the same arguments
    charges the same amounts and hands out a copy of the result, as the
    builtin would have built one; if the charges do not fit, or an argument
    is no plain scalar, the builtin itself runs, and raises as it would.
    """

    def __init__(self, spec: Builtin):
        super().__init__()
        self.spec = spec

    def _run(self, ctx: R.Ctx, args: list, pos: A.Pos | None) -> Any:
        return invoke(self.spec, ctx, args, pos)

    call = _CostTable._lookup


# Builtins that take `ctx` only for the model's fixed data (boards, components) or to charge what they build.
_FIXED_DATA_BUILTINS = frozenset({"range", "join", "repeat", "components", "kind", "is_component", "cells", "cell",
                                  "xy", "step", "ray", "neighbors", "dirs", "dir_vec", "perimeter", "line_of",
                                  "offset", "area", "flood"})


def static_functions(bodies: dict[str, A.Expr], scope: Scope) -> dict[str, int]:
    """The user functions worth tabling whose value and cost follow from their arguments alone, each with its
    *height*: the deepest nesting of user calls its body makes (0 for none).

    Such a body reads no state variable or flow value, and calls only builtins
    that read nothing but their arguments and the model's fixed data, and
    other such functions.  A function that calls itself, directly or through
    others, is never one: its depth is not bounded by its text.  A body that
    makes fewer than two calls and runs no loop (`a // width`, `kind(c) ==
    "red"`) costs less than looking its value up, so it is left as it is.
    """
    # Each function after the functions it calls, without recursion (a ruleset may chain thousands): a
    # function in a cycle, or calling one whose body did not compile, is never ready, so never static.
    calls = {f: {n.func for n in A.walk(body) if isinstance(n, A.Call) and n.func in scope.functions}
             for f, body in bodies.items()}
    waiting = {f: set(callees) for f, callees in calls.items()}
    callers: dict[str, set[str]] = {}
    for f, callees in calls.items():
        for callee in callees:
            callers.setdefault(callee, set()).add(f)
    ready = [f for f, callees in waiting.items() if not callees]
    heights: dict[str, int | None] = {}
    while ready:
        f = ready.pop()
        heights[f] = _height(bodies[f], scope, frozenset(scope.functions[f].params), heights.get)
        for caller in callers.get(f, ()):
            waiting[caller].discard(f)
            if not waiting[caller]:
                ready.append(caller)
    return {f: h for f, h in heights.items() if h is not None and _work(bodies[f]) >= 2}


def _work(body: A.Expr) -> int:
    """A rough count of the work a body does beyond arithmetic: a call counts 1, a loop 2."""
    return sum(1 if isinstance(n, A.Call) else 2 if isinstance(n, A.Comprehension) else 0 for n in A.walk(body))


def _height(node: Any, scope: Scope, bound: frozenset[str], callee: Callable[[str], int | None]) -> int | None:
    """The deepest nesting of user calls below `node`, or None if `node` reads the state or calls what might."""
    if isinstance(node, tuple):
        parts = [_height(item, scope, bound, callee) for item in node]
        return None if None in parts else max(parts, default=0)
    if not isinstance(node, A.Node):
        return 0
    if isinstance(node, A.Name):
        found = scope.resolve(node.name)
        return 0 if node.name in bound or (found is not None and found[0] == "const") else None
    if isinstance(node, A.Comprehension):  # each clause's source is read outside its names, the rest inside
        parts = []
        for names, source, cond, _ in node.clauses:
            parts.append(_height(source, scope, bound, callee))
            bound = bound | frozenset(names)
            parts.append(_height(cond, scope, bound, callee))
        parts.append(_height(node.elem, scope, bound, callee))
        return None if None in parts else max(parts)
    if isinstance(node, A.LetExpr):  # its value is read outside its name, its body inside
        parts = [_height(node.value, scope, bound, callee), _height(node.body, scope, bound | {node.name}, callee)]
        return None if None in parts else max(parts)
    below = _height(tuple(getattr(node, f) for f in node.__dataclass_fields__ if f != "pos"), scope, bound, callee)
    if below is None or not isinstance(node, A.Call):
        return below
    if node.func in scope.functions:
        own = callee(node.func)
        return None if own is None else max(below, own + 1)
    spec = BUILTINS.get(node.func)
    return below if spec is not None and (not spec.needs_ctx or node.func in _FIXED_DATA_BUILTINS) else None


class FunctionTable(_CostTable):
    """The values of one static user function (`static_functions`), by its arguments, with what they cost.

    It stands in for the function's body, called as the body is (the call
    protocol has bound the parameters in `ctx.env`, charged the call and
    counted its depth).  The first call with some arguments runs the body and
    keeps its value with the iterations and copies it charged; a later one
    charges the same and hands out a copy.  The body runs again instead when
    an argument is no plain scalar, or when the charges or the `height` more
    levels of calls would not fit: it then raises where it would.
    """

    def __init__(self, body: Callable[[R.Ctx], Any], params: tuple[str, ...], height: int):
        super().__init__()
        self.body, self.params, self.height = body, params, height

    def _run(self, ctx: R.Ctx, args: list, pos: A.Pos | None) -> Any:
        return self.body(ctx)

    def call(self, ctx: R.Ctx) -> Any:
        budget = ctx.budget
        if budget.depth + self.height > budget.max_depth:  # its calls might go too deep: run, and raise there
            return self.body(ctx)
        env = ctx.env
        return self._lookup(ctx, [env[p] for p in self.params], None)
