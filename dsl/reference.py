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
            items = R.iterate(self._eval(node.source, ctx, env), ctx.budget, node.pos)
            out = []
            for item in items:
                inner = dict(env)
                if len(node.names) == 1:
                    inner[node.names[0]] = item
                else:
                    inner.update(zip(node.names, R.unpack(item, len(node.names), node.pos)))
                if node.cond is None or self._eval(node.cond, ctx, inner):
                    out.append(self._eval(node.elem, ctx, inner))
            ctx.budget.charge(out, node.pos)
            return out
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
            if node.func in ("any", "all") and len(node.args) == 1 and isinstance(node.args[0], A.Comprehension) \
                    and node.func not in self.function_defs:
                return self._quantifier(node.func == "any", node.args[0], ctx, env)
            args = [self._eval(a, ctx, env) for a in node.args]
            if node.func in self.function_defs:
                params, body = self.function_defs[node.func]
                ctx.budget.spend(1, node.pos)
                result = self._eval(body, ctx, dict(zip(params, args)))
                ctx.budget.charge(result, node.pos)
                return result
            return invoke(BUILTINS[node.func], ctx, args, node.pos)
        raise R.RuleRuntimeError(f"cannot evaluate {type(node).__name__}", node.pos)

    def _quantifier(self, want: bool, comp: A.Comprehension, ctx: R.Ctx, env: dict) -> bool:
        """`any(x for …)` / `all(x for …)` stop at the first deciding item (the language's meaning)."""
        items = R.iterate(self._eval(comp.source, ctx, env), ctx.budget, comp.pos)
        for item in items:
            inner = dict(env)
            if len(comp.names) == 1:
                inner[comp.names[0]] = item
            else:
                inner.update(zip(comp.names, R.unpack(item, len(comp.names), comp.pos)))
            if comp.cond is not None and not self._eval(comp.cond, ctx, inner):
                continue
            if bool(self._eval(comp.elem, ctx, inner)) is want:
                return want
        return not want
