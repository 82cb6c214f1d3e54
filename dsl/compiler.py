"""Compile AST nodes into Python closures, once, at load time.

Play then never re-parses text or re-walks the tree: a condition is a chain
of closures reading dict slots.  Problems found while compiling (unknown
names, unknown functions, wrong arity, unassignable targets) are collected
as `CompileProblem`s rather than raised, so the author sees all of them; the
offending node compiles to a closure that raises if it is ever run.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from . import ast as A
from . import runtime as R
from .builtins import Builtin, invoke
from .checks import Checks, Exec, Fn, Setter, block_lets, cited_let
from .scope import Callable_, Scope


def bind(env: dict, names: tuple[str, ...], item: Any, pos: A.Pos) -> None:
    """Bind a loop's name (or unpack a pair into its names) for one item."""
    if len(names) == 1:
        env[names[0]] = item
    else:
        for n, v in zip(names, R.unpack(item, len(names), pos)):
            env[n] = v


def shadowed(env: dict, names: Iterable[str]) -> dict:
    """The values `names` hold in `env` now, which an inner binding of the same names hides for a while."""
    return {n: env[n] for n in names if n in env}


def restore(env: dict, names: Iterable[str], saved: dict) -> None:
    """End the inner binding of `names`: each is gone again, or back to what `shadowed` saved."""
    for n in names:
        env.pop(n, None)
    env.update(saved)


def _scoped(body: Exec, lets: tuple[str, ...]) -> Exec:
    """`body` with its block's `let` names ending with the block, as the language says.

    A `let` in an inner block shadows an outer name of the same name only
    inside that block; afterwards the outer value is back (and a name the
    block introduced is gone), however the block was left.
    """
    def run(ctx: R.Ctx) -> None:
        env = ctx.env
        saved = shadowed(env, lets)
        try:
            body(ctx)
        finally:
            restore(env, lets, saved)

    return run


def _nested(ctx: R.Ctx, clauses: list[tuple], k: int, each: Callable[[], bool]) -> bool:
    """Run the `for` clauses from the k-th inward, calling `each` for every binding that passes every filter;
    True as soon as `each` says so (the loops stop there), False when they ran out.  Each clause's source is
    computed, and charged (`runtime.iterate`), once per binding of the clauses before it."""
    names, source, cond, pos = clauses[k]
    last = k == len(clauses) - 1
    env = ctx.env
    for item in R.iterate(source(ctx), ctx.budget, pos):
        bind(env, names, item, pos)
        if cond is None or cond(ctx):
            if each() if last else _nested(ctx, clauses, k + 1, each):
                return True
    return False


class Compiler(Checks):
    """Compiles expressions and effect blocks against a `Scope` into closures (the oracle of `dsl.codegen`)."""

    # ------------------------------------------------------------ expressions
    def expr(self, node: A.Expr, scope: Scope) -> Fn:
        method = getattr(self, "_e_" + type(node).__name__)
        return method(node, scope)

    def _e_Literal(self, node: A.Literal, scope: Scope) -> Fn:
        value = node.value
        return lambda ctx: value

    def _e_Name(self, node: A.Name, scope: Scope) -> Fn:
        found = self.name_of(node, scope)
        if callable(found):
            return found
        kind, key = found
        if kind == "local":
            return lambda ctx: ctx.env[key]
        if kind == "var":
            return lambda ctx: ctx.vars[key]
        if kind == "flow":
            return lambda ctx: ctx.flow[key]
        value = key  # constants are never changed: no statement can target them
        return lambda ctx: value

    def _e_ListLit(self, node: A.ListLit, scope: Scope) -> Fn:
        items = [self.expr(i, scope) for i in node.items]
        return lambda ctx: [f(ctx) for f in items]

    def _clauses(self, node: A.Comprehension, scope: Scope) -> tuple[list[tuple], Scope]:
        """Each `for` clause compiled as (names, source, cond or None, position), each in the scope of the
        clauses before it, and the scope of the element."""
        clauses = []
        for names, source, cond, pos in node.clauses:
            source_fn = self.expr(source, scope)
            scope = scope.with_locals(*names)
            clauses.append((names, source_fn, self.expr(cond, scope) if cond is not None else None, pos))
        return clauses, scope

    def _e_Comprehension(self, node: A.Comprehension, scope: Scope) -> Fn:
        clauses, inner = self._clauses(node, scope)
        elem = self.expr(node.elem, inner)
        bound, pos = node.bound, node.pos
        if len(clauses) == 1:
            [(names, source, cond, _)] = clauses

            def run(ctx: R.Ctx) -> list:
                items = R.iterate(source(ctx), ctx.budget, pos)
                env = ctx.env
                saved = shadowed(env, names)
                out = []
                try:
                    for item in items:
                        bind(env, names, item, pos)
                        if cond is None or cond(ctx):
                            out.append(elem(ctx))
                finally:
                    restore(env, names, saved)
                ctx.budget.charge(out, pos)  # its items may share one list many times over
                return out

            return run

        def run_nested(ctx: R.Ctx) -> list:
            env = ctx.env
            saved = shadowed(env, bound)
            out: list = []

            def add() -> bool:
                out.append(elem(ctx))
                return False  # never stops the loops

            try:
                _nested(ctx, clauses, 0, add)
            finally:
                restore(env, bound, saved)
            ctx.budget.charge(out, pos)
            return out

        return run_nested
    def _e_Attr(self, node: A.Attr, scope: Scope) -> Fn:
        obj = self.expr(node.obj, scope)
        name, pos = node.name, node.pos
        return lambda ctx: R.field(obj(ctx), name, ctx.model.component_props, ctx.budget, pos)

    def _e_Index(self, node: A.Index, scope: Scope) -> Fn:
        obj, idx, pos = self.expr(node.obj, scope), self.expr(node.index, scope), node.pos

        def run(ctx: R.Ctx) -> Any:
            o, k = obj(ctx), idx(ctx)
            if type(o) is list and type(k) is int and 0 <= k < len(o):
                return o[k]
            return R.index(o, k, pos)

        return run

    def _e_Slice(self, node: A.Slice, scope: Scope) -> Fn:
        obj = self.expr(node.obj, scope)
        lo = self.expr(node.lo, scope) if node.lo is not None else (lambda ctx: None)
        hi = self.expr(node.hi, scope) if node.hi is not None else (lambda ctx: None)
        pos = node.pos
        return lambda ctx: R.slice_of(obj(ctx), lo(ctx), hi(ctx), ctx.budget, pos)

    def _e_Unary(self, node: A.Unary, scope: Scope) -> Fn:
        operand, pos = self.expr(node.operand, scope), node.pos
        if node.op == "not":
            return lambda ctx: not operand(ctx)
        return lambda ctx: R.negate(operand(ctx), pos)

    def _e_Binary(self, node: A.Binary, scope: Scope) -> Fn:
        left, right, op, pos = self.expr(node.left, scope), self.expr(node.right, scope), node.op, node.pos
        if op in ("==", "!=") and isinstance(node.right, A.Literal) and (
                node.right.value is None or type(node.right.value) is str):
            # Fast path: null and text compare equal only to themselves.
            lit, negate = node.right.value, op == "!="
            if lit is None:
                return (lambda ctx: left(ctx) is not None) if negate else (lambda ctx: left(ctx) is None)
            return (lambda ctx: left(ctx) != lit) if negate else (lambda ctx: left(ctx) == lit)
        if op in ("in", "not in"):
            negate = op == "not in"

            def member(ctx: R.Ctx) -> bool:
                item = left(ctx)  # left operand first, as everywhere: it decides which error is reported
                return R.contains(right(ctx), item, ctx.budget, pos) is not negate
            return member
        if op == "==":
            return lambda ctx: R.equals(left(ctx), right(ctx), ctx.budget, pos)
        if op == "!=":
            return lambda ctx: not R.equals(left(ctx), right(ctx), ctx.budget, pos)
        if op in ("<", "<=", ">", ">="):
            return lambda ctx: R.compare(op, left(ctx), right(ctx), ctx.budget, pos)
        # Fast paths for ints; a sum or difference must still be a number the rules can keep.
        if op == "+":
            def add(ctx: R.Ctx) -> Any:
                a, b = left(ctx), right(ctx)
                if type(a) is int and type(b) is int:
                    return R.number(a + b, "+", pos)
                return R.arith("+", a, b, ctx.budget, pos)
            return add
        if op == "-":
            def sub(ctx: R.Ctx) -> Any:
                a, b = left(ctx), right(ctx)
                if type(a) is int and type(b) is int:
                    return R.number(a - b, "-", pos)
                return R.arith("-", a, b, ctx.budget, pos)
            return sub
        return lambda ctx: R.arith(op, left(ctx), right(ctx), ctx.budget, pos)

    def _e_BoolOp(self, node: A.BoolOp, scope: Scope) -> Fn:
        parts = [self.expr(o, scope) for o in node.operands]
        if node.op == "and":
            return lambda ctx: all(p(ctx) for p in parts)
        return lambda ctx: any(p(ctx) for p in parts)

    def _e_Cond(self, node: A.Cond, scope: Scope) -> Fn:
        test, then, other = (self.expr(n, scope) for n in (node.test, node.then, node.other))
        return lambda ctx: then(ctx) if test(ctx) else other(ctx)

    def _quantifier(self, node: A.Call, scope: Scope) -> Fn:
        """`any(x for …)` / `all(x for …)` stop at the first deciding item, like Python; `index_where(x for …)`
        gives the position in its list of the first item whose `x` is true (and that passes the filter), or -1."""
        comp: A.Comprehension = node.args[0]  # type: ignore[assignment]
        broken = self.one_clause(node)
        if broken is not None:
            return broken
        clauses, inner = self._clauses(comp, scope)
        elem = self.expr(comp.elem, inner)
        bound, want = comp.bound, node.func == "any"
        if len(clauses) > 1:
            def run_nested(ctx: R.Ctx) -> bool:
                env = ctx.env
                saved = shadowed(env, bound)
                try:
                    return want if _nested(ctx, clauses, 0, lambda: bool(elem(ctx)) is want) else not want
                finally:
                    restore(env, bound, saved)

            return run_nested
        [(names, source, cond, pos)] = clauses
        if node.func == "index_where":
            def find(ctx: R.Ctx) -> int:
                items = R.iterate(source(ctx), ctx.budget, pos)
                env = ctx.env
                saved = shadowed(env, names)
                try:
                    for i, item in enumerate(items):
                        bind(env, names, item, pos)
                        if (cond is None or cond(ctx)) and elem(ctx):
                            return i
                    return -1
                finally:
                    restore(env, names, saved)

            return find

        def run(ctx: R.Ctx) -> bool:
            items = R.iterate(source(ctx), ctx.budget, pos)
            env = ctx.env
            saved = shadowed(env, names)
            try:
                for item in items:
                    bind(env, names, item, pos)
                    if (cond is None or cond(ctx)) and bool(elem(ctx)) is want:
                        return want
                return not want
            finally:
                restore(env, names, saved)

        return run

    def _e_LetExpr(self, node: A.LetExpr, scope: Scope) -> Fn:
        value = self.expr(node.value, scope)
        body = self.expr(node.body, scope.with_locals(node.name))
        name = node.name

        def run(ctx: R.Ctx) -> Any:
            bound = value(ctx)  # read-only, as a parameter: nothing can change it, so it is not copied
            env = ctx.env
            saved = shadowed(env, (name,))
            env[name] = bound
            try:
                return body(ctx)
            finally:
                restore(env, (name,), saved)

        return run

    def _e_Call(self, node: A.Call, scope: Scope) -> Fn:
        name, pos = node.func, node.pos
        if self.is_quantifier(node, scope):
            return self._quantifier(node, scope)
        args = [self.expr(a, scope) for a in node.args]
        spec = self.callee(node, scope)
        if isinstance(spec, Callable_):
            return self._user_call(name, spec.params, args, pos)
        if not isinstance(spec, Builtin):
            return spec

        def call(ctx: R.Ctx) -> Any:
            return invoke(spec, ctx, [a(ctx) for a in args], pos)
        return call

    def _user_call(self, name: str, params: tuple[str, ...], args: list[Fn], pos: A.Pos) -> Fn:
        bodies = self.function_bodies

        def run(ctx: R.Ctx) -> Any:
            values = [a(ctx) for a in args]
            budget = ctx.budget
            saved = ctx.env
            budget.depth += 1
            try:
                if budget.depth > budget.max_depth:
                    raise R.depth_exceeded(budget, name, False, pos)
                budget.spend(1, pos)  # two calls of itself per call double the work with each level
                ctx.env = dict(zip(params, values))
                result = bodies[name](ctx)
                budget.charge(result, pos)  # a result may share one list many times over (`[x, x]`)
                return result
            finally:
                ctx.env = saved
                budget.depth -= 1

        return run

    # ---------------------------------------------------------------- effects
    def block(self, node: A.Block, scope: Scope) -> Exec:
        runs: list[Exec] = []
        for stmt in node.stmts:
            run, scope = self.stmt(stmt, scope)
            runs.append(run)
        if not runs:
            return lambda ctx: None
        if len(runs) == 1:
            run_all = runs[0]
        else:
            def run_all(ctx: R.Ctx) -> None:
                for r in runs:
                    r(ctx)
        lets = block_lets(node)
        return _scoped(run_all, lets) if lets else run_all

    def stmt(self, node: A.Stmt, scope: Scope) -> tuple[Exec, Scope]:
        """Compile one statement; returns the scope seen by the statements after it."""
        if isinstance(node, A.Let):
            value = self.expr(node.value, scope)
            name = node.name

            pos = node.pos

            def let(ctx: R.Ctx) -> None:
                ctx.env[name] = ctx.budget.copy(value(ctx), pos)

            return let, scope.with_let(name)
        let_ = cited_let(node)
        if let_ is not None and node.rule not in scope.disabled_rules:  # type: ignore[attr-defined]
            run, after = self.stmt(let_, scope)
            rule = node.rule  # type: ignore[attr-defined]

            def cited(ctx: R.Ctx) -> None:
                ctx.fired.append(rule)
                run(ctx)

            return cited, after
        method = getattr(self, "_s_" + type(node).__name__)
        return method(node, scope), scope

    def _s_Block(self, node: A.Block, scope: Scope) -> Exec:
        return self.block(node, scope)

    def _s_Cited(self, node: A.Cited, scope: Scope) -> Exec:
        scope = scope.with_rule(node.rule)
        body = self.block(node.body, scope) if isinstance(node.body, A.Block) else self.stmt(node.body, scope)[0]
        if node.rule in scope.disabled_rules:
            return lambda ctx: None
        rule = node.rule

        def cited(ctx: R.Ctx) -> None:
            ctx.fired.append(rule)
            body(ctx)

        return cited

    def _s_Assign(self, node: A.Assign, scope: Scope) -> Exec:
        setter = self.setter(node.target, scope)
        value = self.expr(node.value, scope)
        op, pos = node.op[0], node.pos
        if node.op == "=":
            return lambda ctx: setter(ctx, ctx.budget.copy(value(ctx), pos))
        getter = self.target_getter(node.target, scope)

        def update(ctx: R.Ctx) -> None:
            # Assigned like `x = x + y`: a charged copy, so the result shares nothing with `y` or with `x`.
            budget = ctx.budget
            setter(ctx, budget.copy(R.arith(op, getter(ctx), value(ctx), budget, pos), pos))

        return update

    def _s_If(self, node: A.If, scope: Scope) -> Exec:
        branches = [(self.expr(t, scope), self.block(b, scope)) for t, b in node.branches]
        orelse = self.block(node.orelse, scope) if node.orelse is not None else None

        def run(ctx: R.Ctx) -> None:
            for test, body in branches:
                if test(ctx):
                    body(ctx)
                    return
            if orelse is not None:
                orelse(ctx)

        return run

    def _s_For(self, node: A.For, scope: Scope) -> Exec:
        source = self.expr(node.source, scope)
        body = self.block(node.body, scope.with_locals(*node.names))
        names, pos = node.names, node.pos

        def run(ctx: R.Ctx) -> None:
            items = list(R.iterate(source(ctx), ctx.budget, pos))  # a copy: the body may change the list
            env = ctx.env
            # The loop variable shadows a parameter or `let` of the same name only inside the loop.
            saved = shadowed(env, names)
            try:
                for item in items:
                    bind(env, names, item, pos)
                    body(ctx)
            finally:
                restore(env, names, saved)

        return run

    def _s_Repeat(self, node: A.Repeat, scope: Scope) -> Exec:
        count, body, pos = self.expr(node.count, scope), self.block(node.body, scope), node.pos

        def run(ctx: R.Ctx) -> None:
            n = R.repeat_count(count(ctx), pos)
            ctx.budget.spend(n, pos)
            for _ in range(n):
                body(ctx)

        return run

    def _s_ListOp(self, node: A.ListOp, scope: Scope) -> Exec:
        op, pos = node.op, node.pos
        value = self.expr(node.value, scope) if node.value is not None else None
        src = self.list_getter(node.source, scope) if node.source is not None else None
        dst = self.list_getter(node.dest, scope) if node.dest is not None else None
        if op == "append":
            return lambda ctx: dst(ctx).append(ctx.budget.copy(value(ctx), pos))
        if op == "prepend":
            def prepend(ctx: R.Ctx) -> None:
                item = ctx.budget.copy(value(ctx), pos)
                R.prepend(ctx.budget, dst(ctx), item, pos)
            return prepend
        if op == "shuffle":
            return lambda ctx: R.shuffle(ctx.rng, ctx.budget, src(ctx), pos)
        source = node.source.name
        if op == "remove":
            return lambda ctx: R.take(ctx.budget, src(ctx), value(ctx), source, pos) and None
        if op == "move":
            def move(ctx: R.Ctx) -> None:
                item = R.take(ctx.budget, src(ctx), value(ctx), source, pos)
                dst(ctx).append(item)
            return move

        def draw(ctx: R.Ctx) -> None:  # draw N from the top (front) of a list
            n = value(ctx)
            taken = R.draw(ctx.budget, n, src(ctx), source, pos)
            dst(ctx).extend(taken)

        return draw

    def _s_Control(self, node: A.Control, scope: Scope) -> Exec:
        op, arg = node.op, node.arg
        if op == "pass":
            return lambda ctx: None
        if op == "stage":
            stage = None if arg == "none" else arg

            def set_stage(ctx: R.Ctx) -> None:
                ctx.signals.stage = stage
                ctx.signals.stage_set = True
            return set_stage
        if op == "goto":
            def goto(ctx: R.Ctx) -> None:
                ctx.signals.goto = arg
                ctx.signals.end_phase = True
            return goto

        def signal(ctx: R.Ctx) -> None:
            setattr(ctx.signals, op, True)

        return signal

    def _s_CallProc(self, node: A.CallProc, scope: Scope) -> Exec:
        proc = self.procedure_of(node, scope)
        pos = node.pos
        if not isinstance(proc, Callable_):
            return proc
        args = [self.expr(a, scope) for a in node.args]
        bodies, name, params = self.procedure_bodies, node.name, proc.params

        def run(ctx: R.Ctx) -> None:
            values = [a(ctx) for a in args]
            budget = ctx.budget
            saved = ctx.env
            budget.depth += 1
            try:
                if budget.depth > budget.max_depth:
                    raise R.depth_exceeded(budget, name, True, pos)
                budget.spend(1, pos)  # two calls of itself per call double the work with each level
                ctx.env = dict(zip(params, values))
                bodies[name](ctx)
            finally:
                ctx.env = saved
                budget.depth -= 1

        return run

    def _s_Log(self, node: A.Log, scope: Scope) -> Exec:
        # A charged copy, as `append` makes: the log must show the value as it was when logged, not as later
        # statements of the move change it, and a log of one large value per loop turn must count as built.
        value, pos = self.expr(node.value, scope), node.pos
        return lambda ctx: ctx.log.append(ctx.budget.copy(value(ctx), pos))

    def _s_Announce(self, node: A.Announce, scope: Scope) -> Exec:
        text, rule, pos = self.expr(node.text, scope), scope.rule, node.pos
        to = None if node.to is None else self.expr(node.to, scope)
        return lambda ctx: R.announce(ctx.events, ctx.flow["players"], text(ctx),
                                      None if to is None else to(ctx), rule, pos)

    def _s_Fail(self, node: A.Fail, scope: Scope) -> Exec:
        message, pos = self.expr(node.message, scope), node.pos

        def fail(ctx: R.Ctx) -> None:
            raise R.RuleFailure(R.shown(message(ctx)), pos)

        return fail

    # ---------------------------------------------------------------- targets
    def _steps(self, target: A.Target, scope: Scope) -> list[tuple[bool, Any]]:
        return [(False, s) if isinstance(s, str) else (True, self.expr(s, scope)) for s in target.steps]

    def target_getter(self, target: A.Target, scope: Scope) -> Fn:
        return self.expr(self.target_expr(target), scope)

    def list_getter(self, target: A.Target, scope: Scope) -> Fn:
        get, pos, name = self.target_getter(target, scope), target.pos, target.name
        if self._base(target, scope, writing=True) is None:
            return get

        return lambda ctx: R.checked_list(get(ctx), name, pos)

    def setter(self, target: A.Target, scope: Scope) -> Setter:
        base = self._base(target, scope, writing=True)
        pos = target.pos
        if base is None:
            return lambda ctx, value: None
        kind, key = base
        steps = self._steps(target, scope)

        def container_of(ctx: R.Ctx) -> Any:
            return ctx.env if kind == "local" else ctx.vars

        if not steps:
            return lambda ctx, value: container_of(ctx).__setitem__(key, value)

        def run(ctx: R.Ctx, value: Any) -> None:
            obj = container_of(ctx)[key]
            for is_expr, step in steps[:-1]:
                k = step(ctx) if is_expr else step
                obj = R.index(obj, k, pos) if is_expr else R.field(obj, k, {}, ctx.budget, pos)
            is_expr, step = steps[-1]
            R.assign_item(obj, step(ctx) if is_expr else step, value, pos)

        return run
