"""The statements of effects texts as generated Python: the half of `dsl.codegen.Codegen` that writes effects.

`EffectsCodegen` is a part of `Codegen`, split off to keep each module to
one job and a readable size: it writes statements (`let`, assignments, `if`,
loops, list operations, flow control, procedure calls, `log`, `fail`) and
calls back into the expression half (`_e`, `_copied`, `_items`, `_bind`,
`_user_call`, `tmp`, `ref`, `ctx_local`) that `Codegen` defines.  The
rules of the generated code are the module docstring of `dsl.codegen`.
"""

from __future__ import annotations

import ast
from typing import Any

from . import ast as A
from . import emit as E
from .checks import cited_let
from .emit import assign, attr, call, const, name
from .scope import Callable_, Scope

Out = list  # the statements generated so far, in the order they run
Locals = dict  # user name -> the Python local that holds it in the function being generated


class EffectsCodegen:
    """Effects texts as statements; mixed into `Codegen`, whose expression methods it calls."""

    def _block(self, node: A.Block, scope: Scope, lv: Locals) -> Out:
        lv = dict(lv)  # a `let` ends with its block: the names it bound are forgotten here
        out: Out = []
        for stmt in node.stmts:
            let = stmt if isinstance(stmt, A.Let) else cited_let(stmt)
            if let is not None:
                value_out: Out = []
                value = self._e(let.value, scope, lv, value_out)
                if let is not stmt:
                    rule = stmt.rule  # type: ignore[attr-defined]
                    if rule in scope.disabled_rules:
                        continue  # switched off: as if the statement were not there
                    out.append(ast.Expr(call(attr(self.ctx_local("_fired"), "append"), const(rule))))
                out.extend(value_out)
                local = self.tmp("l")
                out.append(assign(local, self._copied(value, let.pos, out)))
                lv[let.name] = local
                scope = scope.with_let(let.name)
            else:
                out.extend(getattr(self, "_s_" + type(stmt).__name__)(stmt, scope, lv))
        return out

    def _s_Block(self, node: A.Block, scope: Scope, lv: Locals) -> Out:
        return self._block(node, scope, lv)

    def _s_Cited(self, node: A.Cited, scope: Scope, lv: Locals) -> Out:
        scope = scope.with_rule(node.rule)
        if isinstance(node.body, A.Block):
            body = self._block(node.body, scope, lv)
        else:
            body = getattr(self, "_s_" + type(node.body).__name__)(node.body, scope, lv)
        if node.rule in scope.disabled_rules:
            return []
        return [ast.Expr(call(attr(self.ctx_local("_fired"), "append"), const(node.rule)))] + body

    def _s_Assign(self, node: A.Assign, scope: Scope, lv: Locals) -> Out:
        target, pos = node.target, node.pos
        base = self._base(target, scope, writing=True)
        steps: list[tuple[Out, ast.expr]] = []
        if base is not None:
            for s in target.steps:
                step_out: Out = []
                steps.append((step_out, const(s) if isinstance(s, str) else self._e(s, scope, lv, step_out)))
        value_out: Out = []
        value = self._e(node.value, scope, lv, value_out)
        out: Out = []
        if node.op == "=":
            out.extend(value_out)
            new = self._copied(value, pos, out)
        else:
            getter = self._atom(self._e(self.target_expr(target), scope, lv, out), out)
            out.extend(value_out)
            result = self._arith(node.op[0], getter, self._atom(value, out), pos)
            new = self._copied(result, pos, out)
        if base is not None:
            out.extend(self._store(base, target, steps, new, lv, pos))
        return out

    def _place(self, kind: str, key: str, lv: Locals) -> tuple[ast.expr, str | None]:
        """Where a variable or `let` lives: (a subscript of its dict, None) or (its local, the local's name)."""
        if kind == "local" and key in lv:
            return name(lv[key]), lv[key]
        return ast.Subscript(self.ctx_local("_env" if kind == "local" else "_vars"), const(key), ast.Load()), None

    def _store(self, base: tuple[str, str], target: A.Target, steps: list[tuple[Out, ast.expr]], value: ast.expr,
               lv: Locals, pos: A.Pos) -> Out:
        place, local = self._place(*base, lv)
        if not steps:
            if local is not None:
                return [assign(local, value)]
            return [ast.Assign([ast.Subscript(place.value, place.slice, ast.Store())], value)]  # type: ignore
        out: Out = []
        obj = self.tmp()
        out.append(assign(obj, place))
        for (step_out, key), s in zip(steps[:-1], target.steps):
            out.extend(step_out)
            if isinstance(s, str):
                walk = call(name("_field"), name(obj), key, name("_no_components"), self.ctx_local("_b"),
                            self.ref(pos))
            else:
                walk = call(name("_index"), name(obj), self._atom(key, out), self.ref(pos))
            out.append(assign(obj, walk))
        step_out, key = steps[-1]
        out.extend(step_out)
        out.append(ast.Expr(call(name("_assign_item"), name(obj), key, value, self.ref(pos))))
        return out

    def _s_If(self, node: A.If, scope: Scope, lv: Locals) -> Out:
        branches = []
        for test, body in node.branches:
            test_out: Out = []
            branches.append((test_out, self._e(test, scope, lv, test_out), self._block(body, scope, lv)))
        out: Out = self._block(node.orelse, scope, lv) if node.orelse is not None else []
        if any(test_out for test_out, _, _ in branches[1:]):
            return self._flat_if(branches, out)
        for test_out, test_e, body in reversed(branches):
            out = test_out + [E.if_(test_e, body, out)]
        return out

    def _flat_if(self, branches: list[tuple[Out, ast.expr, Out]], orelse: Out) -> Out:
        """An `if … elif …` chain whose later tests need statements first, written flat: nested, each
        branch would sit in the `else:` of the one before, one level deeper, and Python refuses code
        indented more than 100 levels (a chain of 100 `elif`s).  A flag says whether a branch ran."""
        taken = self.tmp()
        out: Out = [assign(taken, const(False))]
        for k, (test_out, test_e, body) in enumerate(branches):
            branch = test_out + [E.if_(test_e, [assign(taken, const(True)), *body])]
            out.extend(branch if k == 0 else [E.if_(ast.UnaryOp(ast.Not(), name(taken)), branch)])
        if orelse:
            out.append(E.if_(ast.UnaryOp(ast.Not(), name(taken)), orelse))
        return out

    def _s_For(self, node: A.For, scope: Scope, lv: Locals) -> Out:
        out: Out = []
        items = self._items(self._e(node.source, scope, lv, out), node.pos, out)
        out.append(assign(items.id, call(name("list"), items)))  # a copy: the body may change the list
        target, unpack, inner_lv = self._bind(node.names, lv, node.pos)
        body = self._block(node.body, scope.with_locals(*node.names), inner_lv)
        out.append(ast.For(target, items, unpack + (body or [ast.Pass()]), []))
        return out

    def _s_Repeat(self, node: A.Repeat, scope: Scope, lv: Locals) -> Out:
        out: Out = []
        count = self._e(node.count, scope, lv, out)
        body = self._block(node.body, scope, lv)
        n = self.tmp()
        out.append(assign(n, call(name("_repeat_count"), count, self.ref(node.pos))))
        out.extend(self._spend(name(n), node.pos))
        out.append(ast.For(E.store(self.tmp()), call(name("range"), name(n)), body or [ast.Pass()], []))
        return out

    def _list(self, target: A.Target, scope: Scope, lv: Locals) -> tuple[Out, ast.expr]:
        """A list statement's place, read and checked to be a list (the closures' `list_getter`)."""
        out: Out = []
        get = self._e(self.target_expr(target), scope, lv, out)
        if self._base(target, scope, writing=True) is None:
            return out, get
        return out, call(name("_checked_list"), get, const(target.name), self.ref(target.pos))

    def _s_ListOp(self, node: A.ListOp, scope: Scope, lv: Locals) -> Out:
        op, pos, b = node.op, self.ref(node.pos), self.ctx_local("_b")
        value_out: Out = []
        value = self._e(node.value, scope, lv, value_out) if node.value is not None else const(None)
        src_out, src = self._list(node.source, scope, lv) if node.source is not None else ([], const(None))
        dst_out, dst = self._list(node.dest, scope, lv) if node.dest is not None else ([], const(None))
        out: Out = []
        if op == "append":  # the list is read before the value, as `dst(ctx).append(value)` does
            out.extend(dst_out)
            lst = self._atom(dst, out)
            out.extend(value_out)
            out.append(ast.Expr(call(attr(lst, "append"), self._copied(value, node.pos, out))))
        elif op == "prepend":
            out.extend(value_out)
            item = self._copied(value, node.pos, out)
            out.extend(dst_out)
            out.append(ast.Expr(call(name("_prepend"), b, dst, item, pos)))
        elif op == "shuffle":
            out.extend(src_out)
            out.append(ast.Expr(call(name("_shuffle"), attr(name(E.PARAM), "rng"), b, src, pos)))
        elif op in ("remove", "move"):
            out.extend(src_out)
            lst = self._atom(src, out)
            out.extend(value_out)
            taken = call(name("_take"), b, lst, value, const(node.source.name), pos)  # type: ignore[union-attr]
            if op == "remove":
                out.append(ast.Expr(taken))
            else:
                item = self._atom(taken, out)
                out.extend(dst_out)
                out.append(ast.Expr(call(attr(dst, "append"), item)))
        else:  # draw
            out.extend(value_out)
            n = self._atom(value, out)
            out.extend(src_out)
            drawn = self._atom(call(name("_draw"), b, n, src, const(node.source.name), pos), out)  # type: ignore
            out.extend(dst_out)
            out.append(ast.Expr(call(attr(dst, "extend"), drawn)))
        return out

    def _s_Control(self, node: A.Control, scope: Scope, lv: Locals) -> Out:
        op, arg = node.op, node.arg
        if op == "pass":
            return []
        sig = self.ctx_local("_sig")

        def put(field: str, value: Any) -> ast.stmt:
            return ast.Assign([attr(sig, field, ast.Store())], const(value))

        if op == "stage":
            return [put("stage", None if arg == "none" else arg), put("stage_set", True)]
        if op == "goto":
            return [put("goto", arg), put("end_phase", True)]
        return [put(op, True)]

    def _s_CallProc(self, node: A.CallProc, scope: Scope, lv: Locals) -> Out:
        proc = self.procedure_of(node, scope)
        if not isinstance(proc, Callable_):
            return [ast.Expr(self._broken(proc))]
        out: Out = []
        args = self._operands(list(node.args), scope, lv, out)
        out.extend(self._user_call("_pbodies", node.name, proc.params, args, node.pos, True,
                                   [ast.Expr(self._body_call("_pbodies", node.name))], out))
        return out

    def _s_Log(self, node: A.Log, scope: Scope, lv: Locals) -> Out:
        out: Out = []
        value = self._e(node.value, scope, lv, out)
        out.append(ast.Expr(call(attr(self.ctx_local("_log"), "append"), self._copied(value, node.pos, out))))
        return out

    def _s_Announce(self, node: A.Announce, scope: Scope, lv: Locals) -> Out:
        out: Out = []
        text = self._e(node.text, scope, lv, out)
        to = const(None) if node.to is None else self._e(node.to, scope, lv, out)
        players = ast.Subscript(self.ctx_local("_flow"), const("players"), ast.Load())
        out.append(ast.Expr(call(name("_announce"), self.ctx_local("_events"), players, text, to,
                                 const(scope.rule), self.ref(node.pos))))
        return out

    def _s_Fail(self, node: A.Fail, scope: Scope, lv: Locals) -> Out:
        out: Out = []
        message = self._e(node.message, scope, lv, out)
        out.append(ast.Raise(call(name("_RuleFailure"), call(name("_shown"), message), self.ref(node.pos)), None))
        return out
