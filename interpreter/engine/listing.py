"""Generated legal-move listings: an action's parameter loops and checks as one Python function.

The reference listing (`legal._level`) walks an action's parameters with a
Python call per parameter level and one for every `where:` and `require:`
check of every candidate.  With the code generator (`dsl.codegen`) each
action gets one function instead: its parameters' loops nested in their
declared order, each check's code written out at the level where the
reference tests it, the move numbers worked out in the loops and the
interned moves read from the move table.  It does what the reference does,
step for step: the same `from:` and `of:` values in the same order, the same
charges (`charge_tries` per level, then each check's own), the same errors,
the same moves; `tests/interpreter/engine/test_listing.py` compares the two
on random playouts of every ruleset, budgets included.

A listing is made the first time its action is listed, not at load: a
validation, or a game that never offers the action, pays nothing for it,
and the trees it is made from (kept by the builders as `Code`) were
generated and verified at load already, as the check functions.  Python
refuses code nested past its limits (20 blocks, 100 indents), so an action
whose listing does not compile keeps the reference listing.
"""

from __future__ import annotations

import ast
import threading

from ruleplay.dsl import emit as E
from ruleplay.dsl.codegen import Codegen
from ruleplay.dsl.emit import assign, attr, call, const, name

from .legal import charge_tries, from_values, same_value
from .model import Action, Code, Fn, GameModel, Param
from .moves import interned, numbered

_UNMADE = object()


def _zero(e: ast.expr) -> bool:
    return isinstance(e, ast.Constant) and e.value == 0


class Listings:
    """The generated listing of each action of one model, made when first asked for.

    Games are shared between threads (agents, batches), so a listing is made
    under a lock; the generator keeps per-function state while it works.
    """

    def __init__(self, gen: Codegen):
        self._gen = gen
        self._made: dict[str, Fn | None] = {}
        self._lock = threading.Lock()

    def of(self, model: GameModel, action: Action) -> Fn | None:
        """`action`'s listing (called with the listing's context, it returns the moves), or None: the reference."""
        made = self._made.get(action.name, _UNMADE)
        if made is _UNMADE:
            with self._lock:
                made = self._made.get(action.name, _UNMADE)
                if made is _UNMADE:
                    made = self._made[action.name] = self._make(model, action)
        return made  # type: ignore[return-value]

    def _make(self, model: GameModel, action: Action) -> Fn | None:
        gen = self._gen
        try:
            gen.start()
            fn = gen.finish("_moves", _Writer(gen, model, action).body())
            return E.compiled(fn)
        except (SyntaxError, RecursionError):  # nested past Python's limits: the reference lists this action
            return None
        finally:
            gen.problems.clear()  # what the trees hold was reported when they were first compiled, at load


class _Writer:
    """The statements of one action's listing function."""

    def __init__(self, gen: Codegen, model: GameModel, action: Action):
        self.gen, self.model, self.action = gen, model, action
        self.checks: list[list[Code]] = [[] for _ in range(len(action.params) + 1)]
        for r in action.requires:
            if r.code is not None:  # None: switched off by mutation testing, so it always passes
                self.checks[r.level + 1].append(r.code)
        self.moves = gen.tmp("o")
        self.chosen = gen.tmp("c")
        self.bound: dict[str, str] = {}  # parameter -> the loop's Python local that holds its value

    def body(self) -> list[ast.stmt]:
        gen, action = self.gen, self.action
        stmts: list[ast.stmt] = [assign(self.moves, ast.List([], ast.Load()))]
        if action.params:
            chosen = ast.BinOp(ast.List([const(None)], ast.Load()), ast.Mult(), const(len(action.params)))
            stmts.append(assign(self.chosen, chosen))
            inner = self._level(0, const(0), None)
        else:
            only = call(gen.ref(interned), gen.ref(self.model.move_table), const(action.first_index),
                        const(action.name), ast.Tuple([], ast.Load()))
            inner = [self._append(only)]
        stmts += self._guarded(self.checks[0], inner)
        stmts.append(ast.Return(name(self.moves)))
        return stmts

    def _append(self, move: ast.expr) -> ast.stmt:
        return ast.Expr(call(attr(name(self.moves), "append"), move))

    def _guarded(self, tests: list[Code], inner: list[ast.stmt]) -> list[ast.stmt]:
        """`inner` when every test is true, tried in order up to the first false one."""
        if not tests:
            return inner
        ok = self.gen.tmp()
        out: list[ast.stmt] = []
        for k, (node, scope) in enumerate(tests):
            stmts: list[ast.stmt] = []
            value = self.gen.inline(node, scope, stmts, self.bound)
            stmts.append(assign(ok, value))
            out += stmts if k == 0 else [E.if_(name(ok), stmts)]
        out.append(E.if_(name(ok), inner))
        return out

    def _level(self, i: int, prefix: ast.expr, exact: ast.expr | None) -> list[ast.stmt]:
        """The loop over parameter `i`'s values, numbered from `prefix`; `exact` (None: statically true) says
        the arguments before it are their `of:` values themselves, so the moves are the interned ones."""
        gen, model, action = self.gen, self.model, self.action
        p = action.params[i]
        radix = len(p.universe)
        stmts: list[ast.stmt] = []
        candidates = gen.tmp()
        if p.source_code is not None:
            values = gen.inline(*p.source_code, stmts, dict(self.bound))
            stmts.append(assign(candidates, call(gen.ref(from_values), gen.ref(model), gen.ref(action), const(i),
                                                 values)))
            tries = gen.tmp()
            stmts.append(assign(tries, call(name("len"), name(candidates))))
            count: ast.expr = name(tries)
        else:
            stmts.append(assign(candidates, gen.ref(list(enumerate(p.universe)))))
            count = const(radix)
        stmts += self._charge_tries(p, count)
        k, v = gen.tmp("i"), gen.tmp("v")  # not "k": `_k` names are the generator's globals
        if _zero(prefix):
            at: ast.expr = name(k)
        else:
            base = gen.tmp()
            stmts.append(assign(base, ast.BinOp(prefix, ast.Mult(), const(radix))))
            at = ast.BinOp(name(base), ast.Add(), name(k))
        self.bound[p.name] = v
        env = gen.ctx_local("_env")
        body: list[ast.stmt] = [ast.Assign([ast.Subscript(env, const(p.name), ast.Store())], name(v))]
        same, after = self._exactness(p, exact, name(k), name(v))
        keep = ast.Assign([ast.Subscript(name(self.chosen), const(i), ast.Store())], name(v))
        if i + 1 < len(action.params):
            inner = same + [keep] + self._level(i + 1, at, after)
        else:
            inner = same + self._moves_at(at, keep, after)
        tests = ([p.where_code] if p.where_code is not None else []) + self.checks[i + 1]
        body += self._guarded(tests, inner)
        stmts.append(ast.For(ast.Tuple([E.store(k), E.store(v)], ast.Store()), name(candidates), body, []))
        stmts.append(ast.Expr(call(attr(env, "pop"), const(p.name), const(None))))
        del self.bound[p.name]
        return stmts

    def _charge_tries(self, p: Param, count: ast.expr) -> list[ast.stmt]:
        """`charge_tries` inline (`count` a constant or a local); the helper is called only to raise, after the
        charge is taken back."""
        gen = self.gen
        b = gen.ctx_local("_b")
        raise_ = ast.Expr(call(gen.ref(charge_tries), gen.ref(self.model), gen.ref(self.action), gen.ref(p), count, b))
        return [ast.AugAssign(attr(b, "iterations", ast.Store()), ast.Sub(), count),
                E.if_(ast.Compare(attr(b, "iterations"), [ast.Lt()], [const(0)]),
                      [ast.AugAssign(attr(b, "iterations", ast.Store()), ast.Add(), count), raise_])]

    def _exactness(self, p: Param, exact: ast.expr | None, k: ast.expr,
                   v: ast.expr) -> tuple[list[ast.stmt], ast.expr | None]:
        """The statements that work out whether the arguments so far are their `of:` values, and the name
        that then holds it (None: statically true).  A value of `of:` itself always is one."""
        if p.source_code is None:
            return [], exact
        known = ast.Subscript(self.gen.ref(p.universe), k, ast.Load())
        same: ast.expr = ast.BoolOp(ast.Or(), [E.is_(v, known), call(self.gen.ref(same_value), v, known)])
        if exact is not None:
            same = ast.BoolOp(ast.And(), [exact, same])
        x = self.gen.tmp("x")
        return [assign(x, same)], name(x)

    def _moves_at(self, offset: ast.expr, keep: ast.stmt, exact: ast.expr | None) -> list[ast.stmt]:
        """The move of the last parameter's value: the interned one when `exact`, else a new one."""
        gen, action = self.gen, self.action
        index, move = gen.tmp(), gen.tmp("m")
        table = gen.ref(self.model.move_table)
        shared = [assign(move, call(attr(table, "get"), name(index))),
                  E.if_(E.is_(name(move), const(None)),
                        [keep, assign(move, call(gen.ref(interned), table, name(index), const(action.name),
                                                 name(self.chosen)))]),
                  self._append(name(move))]
        first = const(action.first_index)
        stmts: list[ast.stmt] = [assign(index, offset if action.first_index == 0 else ast.BinOp(first, ast.Add(),
                                                                                                 offset))]
        if exact is None:
            return stmts + shared
        new = call(gen.ref(numbered), name(index), const(action.name), name(self.chosen))
        return stmts + [E.if_(exact, shared, [keep, self._append(new)])]
