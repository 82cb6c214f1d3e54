"""What every compiler of the language decides the same way: names, calls, targets, and their problems.

The closure compiler (`dsl.compiler`) and the code generator (`dsl.codegen`)
both derive from `Checks`, so the two report the same problems in the same
order, and a node they refuse fails at run time with the same error in both.
The hint helpers (`suggest`, `listing`, `Suggester`) serve every check of a
ruleset that names things.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from . import ast as A
from . import runtime as R
from .builtins import BUILTINS, Builtin
from .scope import Callable_, Scope

Fn = Callable[[R.Ctx], Any]
Exec = Callable[[R.Ctx], None]
Setter = Callable[[R.Ctx, Any], None]
# The builtins whose generator form `f(x for …)` stops at the first item that decides the result.
QUANTIFIERS = ("any", "all", "index_where")


@dataclass(frozen=True)
class CompileProblem:
    code: str
    message: str
    pos: A.Pos
    hint: str = ""


def _broken(message: str, pos: A.Pos, hint: str = "") -> Fn:
    """Code that could not be compiled: it is never run, as its ruleset does not load, but it has to exist."""
    def broken(ctx: R.Ctx) -> Any:
        raise R.RuleRuntimeError(message, pos, hint)

    return broken


def suggest(name: str, candidates: list[str]) -> str:
    close = difflib.get_close_matches(name, candidates, n=3)
    return f"did you mean {', '.join(repr(c) for c in close)}?" if close else ""


def listing(names: Iterable[object], none: str = "none") -> str:
    """Names for a hint: the first ten, so a hint stays one line however many there are."""
    names = list(names)
    shown = ", ".join(str(n) for n in names[:10])
    return (shown + (f", … ({len(names)} in all)" if len(names) > 10 else "")) or none


class Suggester:
    """Did-you-mean hints for the first `limit` unknown names only.

    Each hint compares a name with every known one, so a file full of unknown
    names among many known ones would otherwise load in time quadratic in its
    size; past the first hundred mistakes the author needs no more hints.
    """

    def __init__(self, limit: int = 100) -> None:
        self.left = limit

    def __call__(self, name: str, candidates: Callable[[], list[str]]) -> str:
        if self.left <= 0:
            return ""
        self.left -= 1
        return suggest(name, candidates())


class Checks:
    """What every compiler of the language decides the same way: names, calls, targets and their problems.

    The closure compiler (`dsl.compiler`) and the code generator (`dsl.codegen`) both
    ask these methods, so the two report the same problems in the same order
    and a broken node fails at run time with the same error in both.
    `function_bodies` and `procedure_bodies` hold the compiled bodies of user
    functions and procedures; calls look them up at run time so that
    (bounded) recursion works.
    """

    def __init__(self) -> None:
        self.problems: list[CompileProblem] = []
        self.function_bodies: dict[str, Fn] = {}
        self.procedure_bodies: dict[str, Exec] = {}
        self.suggest = Suggester()

    def know_components(self, props: dict[str, dict], copies_limit: int) -> None:
        """The model's components, for a compiler that reads their properties from tables; the closures
        read `ctx.model.component_props` as they run, so this base keeps nothing."""

    def table_functions(self, heights: dict[str, int], params: dict[str, tuple[str, ...]]) -> None:
        """The static user functions and their heights (`dsl.tables.static_functions`), for a compiler that
        keeps their values; the closures run every call, so this base keeps nothing."""

    def problem(self, code: str, message: str, pos: A.Pos, hint: str = "") -> Fn:
        problem = CompileProblem(code, message, pos, hint)
        if problem not in self.problems:  # `x += 1` reads and writes `x`: an unknown `x` is one mistake
            self.problems.append(problem)
        return _broken(message, pos, hint)

    def name_of(self, node: A.Name, scope: Scope) -> tuple[str, Any] | Fn:
        """What a name reads, (kind, key) as `Scope.resolve` says, or a broken Fn for an unknown one."""
        found = scope.resolve(node.name)
        if found is None and node.name in scope.unavailable:  # reported where its value failed
            return _broken(f"`{node.name}` has no value", node.pos)
        if found is None:
            return self.problem("RP210", f"unknown name `{node.name}`", node.pos,
                                self.suggest(node.name, scope.known_names))
        return found

    @staticmethod
    def is_quantifier(node: A.Call, scope: Scope) -> bool:
        """`any(x for …)`, `all(x for …)`, `index_where(x for …)`: a loop that stops at the first deciding
        item."""
        return node.func in QUANTIFIERS and len(node.args) == 1 and isinstance(node.args[0], A.Comprehension) \
            and node.func not in scope.functions

    def one_clause(self, node: A.Call) -> Fn | None:
        """A broken Fn for `index_where(… for …)` with more than one `for` (its index is a position in one
        list); None when the call is fine."""
        comp: A.Comprehension = node.args[0]  # type: ignore[assignment]
        if node.func != "index_where" or not comp.more:
            return None
        return self.problem("RP200", "`index_where(… for …)` takes one `for`: the index it gives is a position in "
                            "that one list", comp.more[0].pos,
                            hint="loop over one list of pairs instead, or nest: index_where(any(… for b in ys) for "
                                 "a in xs)")

    def callee(self, node: A.Call, scope: Scope) -> Callable_ | Builtin | Fn:
        """The user function or builtin a call names, or a broken Fn (unknown name, wrong arity)."""
        name, pos, nargs = node.func, node.pos, len(node.args)
        user = scope.functions.get(name)
        if user is not None:
            if nargs != len(user.params):
                return self.problem("RP212", f"`{name}` takes {len(user.params)} argument(s), "
                                    f"got {nargs}", pos,
                                    f"it is declared under `functions:` as {name}({', '.join(user.params)})")
            return user
        spec = BUILTINS.get(name)
        if spec is None:
            return self.problem("RP211", f"unknown function `{name}`", pos,
                                self.suggest(name, lambda: sorted(BUILTINS) + sorted(scope.functions))
                                or "call a builtin function, or declare it under `functions:`")
        if not spec.min_args <= nargs <= spec.max_args:
            want = str(spec.min_args) if spec.min_args == spec.max_args else f"{spec.min_args}-{spec.max_args}"
            return self.problem("RP212", f"`{name}` takes {want} argument(s), got {nargs}", pos,
                                f"{name}(): {spec.doc}")
        return spec

    def procedure_of(self, node: A.CallProc, scope: Scope) -> Callable_ | Fn:
        """The procedure a statement calls, or a broken Fn (unknown procedure, wrong arity)."""
        proc = scope.procedures.get(node.name)
        pos = node.pos
        if proc is None:
            return self.problem("RP211", f"unknown procedure `{node.name}`", pos,
                                self.suggest(node.name, lambda: sorted(scope.procedures))
                                or "declare it under `procedures:`")
        if len(node.args) != len(proc.params):
            return self.problem("RP212", f"procedure `{node.name}` takes {len(proc.params)} argument(s), "
                                f"got {len(node.args)}", pos,
                                f"it is declared under `procedures:` as {node.name}({', '.join(proc.params)})")
        return proc

    def _base(self, target: A.Target, scope: Scope, writing: bool) -> tuple[str, str] | None:
        found = scope.resolve(target.name)
        if found is None and target.name in scope.unavailable:
            return None
        if found is None:
            self.problem("RP210", f"unknown name `{target.name}`", target.pos,
                         self.suggest(target.name, scope.known_names)
                         or f"declare `{target.name}` under `state:` to make it a variable, or write "
                            f"`let {target.name} = ...` for a name of this block alone")
            return None
        kind, key = found
        if kind == "var" or (kind == "local" and key in scope.lets):
            return kind, key
        if kind == "local" and writing:
            self.problem("RP213", f"`{target.name}` is a parameter or loop variable and cannot be changed",
                         target.pos, hint=f"copy it first: let my_{target.name} = {target.name}")
            return None
        if writing or kind == "flow":
            self.problem("RP213", f"`{target.name}` cannot be changed by effects ({kind})", target.pos,
                         hint="declare it under `state:` to make it a variable")
            return None
        return kind, key

    @staticmethod
    def target_expr(target: A.Target) -> A.Expr:
        """A target read as an expression: how `x[i] += 1` and list statements read the place."""
        expr: A.Expr = A.Name(target.pos, target.name)
        for s in target.steps:
            expr = A.Attr(target.pos, expr, s) if isinstance(s, str) else A.Index(target.pos, expr, s)
        return expr


def cited_let(node: A.Stmt) -> A.Let | None:
    """The `let` of `@R let x = v`: a `let` like any other, bound for the rest of its block."""
    return node.body if isinstance(node, A.Cited) and isinstance(node.body, A.Let) else None


def block_lets(node: A.Block) -> tuple[str, ...]:
    """The names a block's own `let`s bind (cited ones too): they end with the block."""
    lets = (s if isinstance(s, A.Let) else cited_let(s) for s in node.stmts)
    return tuple(dict.fromkeys(s.name for s in lets if s is not None))
