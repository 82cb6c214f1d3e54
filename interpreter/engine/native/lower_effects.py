"""Effects of the rules language lowered to C: the C counterpart of `dsl.codegen_effects`.

Statements change the state in place, as the Python engine changes a
move's copy of it: the same values are copied where it copies them
(`rp_copy`, a charged deep copy), and the same objects are shared where it
shares them, so a change seen through one name is seen through every name
that shares the value, exactly as in Python.  A name a statement binds (a
`let`, a loop's names, a procedure's parameters) holds a reference of its
own, so a later statement that replaces what it was read from cannot free
it.
"""

from __future__ import annotations

from ruleplay.dsl import ast as A
from ruleplay.dsl.checks import cited_let
from ruleplay.dsl.scope import Callable_, Scope

from .cdata import NotLowered
from .cfunc import Val
from .lower_announce import announce_text
from .lower_expr import ARITH_OPS, ExprLowering, Locals


class Lowering(ExprLowering):
    """Expressions and effects lowered into C functions."""

    def block(self, node: A.Block, scope: Scope, lv: Locals) -> None:
        lv = dict(lv)  # a `let` ends with its block
        f = self.f
        for at, stmt in enumerate(node.stmts):
            let = stmt if isinstance(stmt, A.Let) else cited_let(stmt)
            if let is not None:
                if let is not stmt:
                    rule = stmt.rule  # type: ignore[attr-defined]
                    if rule in scope.disabled_rules:
                        continue  # switched off by mutation testing: as if it were not there
                    f.emit(f"if (!rp_fire(C, {self.rule_index[rule]})) goto out;")
                with f.scope():
                    value = self.lower(let.value, scope, lv)
                    if value.kind == "int" and not _assigned(let.name, node.stmts[at + 1:]):
                        local = f.integer()  # an int no statement changes: a C int (its copy is itself)
                        f.emit(f"{local} = {value.code};")
                        lv[let.name] = Val(local, "int")
                    else:
                        local = f.local()
                        f.emit(f"rv_set(&{local}, rp_copy_fast(C, {value.rv}, {self.where(let.pos)}));")
                        f.check()
                        lv[let.name] = Val(local)
                scope = scope.with_let(let.name)
                continue
            with f.scope():
                self.stmt(stmt, scope, lv)

    def stmt(self, node: A.Stmt, scope: Scope, lv: Locals) -> None:
        method = getattr(self, "_s_" + type(node).__name__, None)
        if method is None:
            raise NotLowered(f"the statement {type(node).__name__}", node.pos)
        try:
            method(node, scope, lv)
        except NotLowered as err:
            if err.pos is None:
                err.pos = node.pos
            raise

    def _s_Block(self, node: A.Block, scope: Scope, lv: Locals) -> None:
        self.block(node, scope, lv)

    def _s_Cited(self, node: A.Cited, scope: Scope, lv: Locals) -> None:
        if node.rule in scope.disabled_rules:
            return
        self.f.emit(f"if (!rp_fire(C, {self.rule_index[node.rule]})) goto out;")
        if isinstance(node.body, A.Block):
            self.block(node.body, scope, lv)
        else:
            self.stmt(node.body, scope, lv)

    # ------------------------------------------------------------ assignment
    def _place(self, target: A.Target, scope: Scope, lv: Locals) -> str:
        """The C place of an assignment's variable: a state variable's slot or a `let`'s local."""
        base = self._base(target, scope, writing=True)
        if base is None:
            raise NotLowered(f"the target `{target.name}`", target.pos)
        kind, key = base
        if kind == "var":
            self._changes(key)
            return f"C->S->vars[{self.var_index[key]}]"
        if key not in lv:
            raise NotLowered(f"the local `{key}` outside its site", target.pos)
        return lv[key].code

    def _changes(self, var: str) -> None:
        """Mark state variable `var` changed (rp_state's `changed`) where an effect is about to write it, so that a
        batch's observation row rewrites its entries (rp_observe.c): a `let`, the only other target, is a copy."""
        self.f.emit(f"C->S->changed[{self.var_index[var]}] = 1;")

    def _s_Assign(self, node: A.Assign, scope: Scope, lv: Locals) -> None:
        f, target, w = self.f, node.target, self.where(node.pos)
        place = self._place(target, scope, lv)
        if node.op == "=":
            value = self.lower(node.value, scope, lv)
        else:
            current = self.lower(self.target_expr(target), scope, lv)
            operand = self.lower(node.value, scope, lv)
            value = f.assign_owned(f"rp_arith_fast(C, {ARITH_OPS[node.op[0]]}, {current.rv}, {operand.rv}, {w})")
        new = f.assign_owned(f"rp_copy_fast(C, {value.rv}, {w})")
        if not target.steps:
            f.emit(f"rv_set(&{place}, {new.code});")
            f.emit(f"{new.code} = rv_null();")
            return
        obj = f.borrowed()
        f.emit(f"{obj} = {place};")
        for step in target.steps[:-1]:
            if isinstance(step, str):
                f.emit(f"{obj} = rp_map_field(C, {obj}, {self.text(step)}, {w});")
                f.check()
            else:
                key = self.lower(step, scope, lv)
                f.fast(f"rp_index_try(&{obj}, {obj}, {key.rv})", f"{obj} = rp_index(C, {obj}, {key.rv}, {w});")
        last = target.steps[-1]
        key_rv = f"rv_str({self.text(last)})" if isinstance(last, str) else self.lower(last, scope, lv).rv
        # `new` is handed over, even when the assignment fails
        f.fast(f"rp_assign_try({obj}, {key_rv}, {new.code})",
               f"rp_assign_item(C, {obj}, {key_rv}, {new.code}, {w}); {new.code} = rv_null();")
        f.emit(f"{new.code} = rv_null();")

    # ------------------------------------------------------------ control
    def _s_If(self, node: A.If, scope: Scope, lv: Locals) -> None:
        self._branches(list(node.branches), node.orelse, scope, lv)

    def _branches(self, branches: list[tuple[A.Expr, A.Block]], orelse: A.Block | None, scope: Scope,
                  lv: Locals) -> None:
        """`if … elif … else`: each test runs only when the ones before it were false."""
        f = self.f
        (test, body), rest = branches[0], branches[1:]
        held = f.integer()
        with f.scope():
            f.emit(f"{held} = {self.lower(test, scope, lv).truth};")
        with f.block(f"if ({held})"):
            self.block(body, scope, lv)
        if rest or orelse is not None:
            with f.block("else"):
                if rest:
                    self._branches(rest, orelse, scope, lv)
                else:
                    self.block(orelse, scope, lv)  # type: ignore[arg-type]

    def _s_For(self, node: A.For, scope: Scope, lv: Locals) -> None:
        f = self.f
        items = self._items(node.source, node.pos, scope, lv, copy=True)
        i = f.index()
        with f.block(f"for ({i} = 0; {i} < {items.count}; {i}++)"):
            inner = self._bind_item(node.names, items, i, node.pos, lv, own=True)
            self.block(node.body, scope.with_locals(*node.names), inner)

    def _s_Repeat(self, node: A.Repeat, scope: Scope, lv: Locals) -> None:
        f = self.f
        w = self.where(node.pos)
        count = self.lower(node.count, scope, lv)
        n, i = f.integer(), f.index()
        f.emit(f"{n} = rp_repeat_count(C, {count.rv}, {w});")
        f.check()
        f.emit(f"if (!rp_spend(C, {n}, {w})) goto out;")
        with f.block(f"for ({i} = 0; {i} < {n}; {i}++)"):
            self.block(node.body, scope, lv)

    def _s_Control(self, node: A.Control, scope: Scope, lv: Locals) -> None:
        f, op, arg = self.f, node.op, node.arg
        if op == "pass":
            return
        if op == "stage":
            stage = -1 if arg == "none" else self.text(arg)  # type: ignore[arg-type]
            f.emit(f"C->sig.stage = {stage}; C->sig.stage_set = 1;")
        elif op == "goto":
            f.emit(f"C->sig.go = {self.phase_index.get(arg, -2)}; C->sig.end_phase = 1;")  # type: ignore[arg-type]
        elif op in ("end_turn", "end_phase", "end_game"):
            f.emit(f"C->sig.{op} = 1;")
        else:
            raise NotLowered(f"the statement {op}", node.pos)

    def _s_CallProc(self, node: A.CallProc, scope: Scope, lv: Locals) -> None:
        proc = self.procedure_of(node, scope)
        if not isinstance(proc, Callable_):
            raise NotLowered(f"the call of `{node.name}`", node.pos)
        f = self.f
        w = self.where(node.pos)
        args = [self.lower(a, scope, lv) for a in node.args]
        # The procedure's parameters hold references of their own, as a Python dict of locals does: its
        # effects may replace what they were read from.
        argv = f.array([f"rv_ref({a.rv})" for a in args]) if args else "NULL"
        self.enter(f"{self.procedures[node.name]}(C, {argv});", w)
        for k in range(len(args)):
            f.emit(f"rv_drop({argv}[{k}]);")
        f.check()

    def _s_Log(self, node: A.Log, scope: Scope, lv: Locals) -> None:
        # The log is no part of a state: the value is made and charged as the Python engine makes it.
        value = self.lower(node.value, scope, lv)
        self.f.assign_owned(f"rp_copy_fast(C, {value.rv}, {self.where(node.pos)})")

    def _s_Announce(self, node: A.Announce, scope: Scope, lv: Locals) -> None:
        """An event told to people at a table: checked as the Python engine makes it (the text as `shown` reads
        it, the seats as seats), and not kept: events are for tables, which play in Python.  A text built by
        `+`, str() or join() is only measured (lower_announce.py)."""
        f, w = self.f, self.where(node.pos)
        if not announce_text(self, node.text, scope, lv):
            text = self.lower(node.text, scope, lv)
            f.emit(f"rp_size(C, {text.rv}, 100, {w});")  # `shown` walks a value to write it: nested too deep fails
            f.check()
        if node.to is not None:
            seats = self.lower(node.to, scope, lv)
            f.emit(f"if (!rp_seats_check(C, {seats.rv}, {w})) goto out;")

    def _s_Fail(self, node: A.Fail, scope: Scope, lv: Locals) -> None:
        self.lower(node.message, scope, lv)  # made, as it would be, for its own errors and charges
        self.f.emit(f"rp_bail(C, RP_BAIL_RULE, RP_WHY_FAIL, {self.where(node.pos)});")
        self.f.emit("goto out;")

    # ------------------------------------------------------------ list statements
    def _list(self, target: A.Target, scope: Scope, lv: Locals) -> str:
        """A list statement's list, read as an expression and checked to be a list (`list_getter`)."""
        base = self._base(target, scope, writing=True)
        if base is None:
            raise NotLowered(f"the target `{target.name}`", target.pos)
        if base[0] == "var":
            self._changes(base[1])
        value = self.lower(self.target_expr(target), scope, lv)
        f = self.f
        held = f.borrowed()
        f.emit(f"{held} = {value.rv};")
        f.emit(f"if (!rp_checked_list(C, {held}, {self.where(target.pos)})) goto out;")
        return f"{held}.u.l"

    def _s_ListOp(self, node: A.ListOp, scope: Scope, lv: Locals) -> None:
        f, op, w = self.f, node.op, self.where(node.pos)
        if op == "append":  # the list is read before the value, as the closures read it
            dst = self._list(node.dest, scope, lv)  # type: ignore[arg-type]
            value = self.lower(node.value, scope, lv)  # type: ignore[arg-type]
            item = f.assign_owned(f"rp_copy_fast(C, {value.rv}, {w})")
            f.emit(f"if (!rp_list_push(C, {dst}, {item.code})) {{ {item.code} = rv_null(); goto out; }}")
            f.emit(f"{item.code} = rv_null();")
        elif op == "prepend":
            value = self.lower(node.value, scope, lv)  # type: ignore[arg-type]
            item = f.assign_owned(f"rp_copy_fast(C, {value.rv}, {w})")
            dst = self._list(node.dest, scope, lv)  # type: ignore[arg-type]
            f.emit(f"if (!rp_prepend(C, {dst}, {item.code}, {w})) {{ {item.code} = rv_null(); goto out; }}")
            f.emit(f"{item.code} = rv_null();")
        elif op == "shuffle":
            src = self._list(node.source, scope, lv)  # type: ignore[arg-type]
            f.emit(f"if (!rp_shuffle(C, {src}, {w})) goto out;")
        elif op in ("remove", "move"):
            src = self._list(node.source, scope, lv)  # type: ignore[arg-type]
            value = self.lower(node.value, scope, lv)  # type: ignore[arg-type]
            taken = f.assign_owned(f"rp_take(C, {src}, {value.rv}, {w})")
            if op == "move":
                dst = self._list(node.dest, scope, lv)  # type: ignore[arg-type]
                f.emit(f"if (!rp_list_push(C, {dst}, {taken.code})) {{ {taken.code} = rv_null(); goto out; }}")
                f.emit(f"{taken.code} = rv_null();")
        elif op == "draw":
            n = self.lower(node.value, scope, lv)  # type: ignore[arg-type]
            src = self._list(node.source, scope, lv)  # type: ignore[arg-type]
            taken = f.assign_owned(f"rp_draw_take(C, {n.rv}, {src}, {w})")
            dst = self._list(node.dest, scope, lv)  # type: ignore[arg-type]
            f.emit(f"if (!rp_extend(C, {dst}, {taken.code})) goto out;")
        else:
            raise NotLowered(f"the list statement {op}", node.pos)


def _assigned(name: str, stmts: tuple[A.Stmt, ...]) -> bool:
    """Whether any of `stmts` (or a statement within them) assigns to `name` or changes it as a list."""
    return any(isinstance(node, A.Target) and node.name == name for node in A.walk(stmts))
