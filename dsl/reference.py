"""The reference evaluator: walks the AST directly, one node at a time.

It is deliberately naive — no closures, no fast paths — and exists so tests
can check that the compiled closures (`dsl.compiler`) compute the same value
for the same expression and context.  Operator meaning comes from
`dsl.runtime`, shared with the compiler.
"""

from __future__ import annotations

from typing import Any

from . import ast as A
from . import runtime as R
from .builtins import BUILTINS, invoke
from .scope import Scope


def _bound(env: dict, names: tuple[str, ...], item: Any, pos: A.Pos) -> dict:
    """The locals of one loop turn: `env` with `names` bound to `item` (a pair unpacked into two names)."""
    inner = dict(env)
    if len(names) == 1:
        inner[names[0]] = item
    else:
        inner.update(zip(names, R.unpack(item, len(names), pos)))
    return inner


class ReferenceEvaluator:
    def __init__(self, scope: Scope, function_defs: dict[str, tuple[tuple[str, ...], A.Expr]] | None = None):
        self.scope = scope
        self.function_defs = function_defs or {}

    def eval(self, node: A.Expr, ctx: R.Ctx, locals_: dict[str, Any] | None = None) -> Any:
        env = dict(ctx.env if locals_ is None else locals_)
        return self._eval(node, ctx, env)

    def _name(self, name: str, ctx: R.Ctx, env: dict, pos: A.Pos) -> Any:
        if name in env:
            return env[name]
        found = self.scope.resolve(name)
        if found is None or found[0] == "local":
            raise R.RuleRuntimeError(f"unknown name `{name}`", pos)
        kind, key = found
        if kind == "var":
            return ctx.vars[key]
        if kind == "flow":
            return ctx.flow[key]
        return key

    def _eval(self, node: A.Expr, ctx: R.Ctx, env: dict) -> Any:
        if isinstance(node, A.Literal):
            return node.value
        if isinstance(node, A.Name):
            return self._name(node.name, ctx, env, node.pos)
        if isinstance(node, A.ListLit):
            return [self._eval(i, ctx, env) for i in node.items]
        if isinstance(node, A.Comprehension):
            out: list = []

            def add(inner: dict) -> bool:
                out.append(self._eval(node.elem, ctx, inner))
                return False

            self._bindings(node, 0, ctx, env, add)
            ctx.budget.charge(out, node.pos)
            return out
        if isinstance(node, A.LetExpr):
            return self._eval(node.body, ctx, {**env, node.name: self._eval(node.value, ctx, env)})
        if isinstance(node, A.Attr):
            return R.field(self._eval(node.obj, ctx, env), node.name, ctx.model.component_props, ctx.budget,
                           node.pos)
        if isinstance(node, A.Index):
            return R.index(self._eval(node.obj, ctx, env), self._eval(node.index, ctx, env), node.pos)
        if isinstance(node, A.Slice):
            obj = self._eval(node.obj, ctx, env)
            lo = self._eval(node.lo, ctx, env) if node.lo is not None else None
            hi = self._eval(node.hi, ctx, env) if node.hi is not None else None
            return R.slice_of(obj, lo, hi, ctx.budget, node.pos)
        if isinstance(node, A.Unary):
            value = self._eval(node.operand, ctx, env)
            return (not value) if node.op == "not" else R.negate(value, node.pos)
        if isinstance(node, A.Binary):
            a, b = self._eval(node.left, ctx, env), self._eval(node.right, ctx, env)
            if node.op in ("==", "!=", "<", "<=", ">", ">=", "in", "not in"):
                return R.compare(node.op, a, b, ctx.budget, node.pos)
            return R.arith(node.op, a, b, ctx.budget, node.pos)
        if isinstance(node, A.BoolOp):
            if node.op == "and":
                return all(self._eval(o, ctx, env) for o in node.operands)
            return any(self._eval(o, ctx, env) for o in node.operands)
        if isinstance(node, A.Cond):
            branch = node.then if self._eval(node.test, ctx, env) else node.other
            return self._eval(branch, ctx, env)
        if isinstance(node, A.Call):
            if node.func in ("any", "all", "index_where") and len(node.args) == 1 \
                    and isinstance(node.args[0], A.Comprehension) and node.func not in self.function_defs:
                return self._quantifier(node.func, node.args[0], ctx, env)
            args = [self._eval(a, ctx, env) for a in node.args]
            if node.func in self.function_defs:
                params, body = self.function_defs[node.func]
                ctx.budget.spend(1, node.pos)
                result = self._eval(body, ctx, dict(zip(params, args)))
                ctx.budget.charge(result, node.pos)
                return result
            return invoke(BUILTINS[node.func], ctx, args, node.pos)
        raise R.RuleRuntimeError(f"cannot evaluate {type(node).__name__}", node.pos)

    def _bindings(self, comp: A.Comprehension, k: int, ctx: R.Ctx, env: dict, each) -> bool:
        """Every binding of the `for` clauses from the k-th inward that passes their filters, handed to
        `each` (with the locals it sees) until `each` says stop; True if it did."""
        names, source, cond, pos = comp.clauses[k]
        for item in R.iterate(self._eval(source, ctx, env), ctx.budget, pos):
            inner = _bound(env, names, item, pos)
            if cond is not None and not self._eval(cond, ctx, inner):
                continue
            if each(inner) if k == len(comp.clauses) - 1 else self._bindings(comp, k + 1, ctx, inner, each):
                return True
        return False

    def _quantifier(self, func: str, comp: A.Comprehension, ctx: R.Ctx, env: dict) -> Any:
        """`any(x for …)` / `all(x for …)` stop at the first deciding item (the language's meaning);
        `index_where(x for …)` gives the position of the first item of its one list whose `x` holds, or -1."""
        if func == "index_where":
            if comp.more:
                raise R.RuleRuntimeError("`index_where(… for …)` takes one `for`", comp.more[0].pos)
            source = R.iterate(self._eval(comp.source, ctx, env), ctx.budget, comp.pos)
            for i, item in enumerate(source):
                inner = _bound(env, comp.names, item, comp.pos)
                if comp.cond is not None and not self._eval(comp.cond, ctx, inner):
                    continue
                if self._eval(comp.elem, ctx, inner):
                    return i
            return -1
        want = func == "any"
        decided = self._bindings(comp, 0, ctx, env, lambda inner: bool(self._eval(comp.elem, ctx, inner)) is want)
        return want if decided else not want
