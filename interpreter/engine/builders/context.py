"""What every part of the model builder shares: the ruleset data, the compiler and the diagnostics.

The builders for components, state and flow, actions, scoring and render
each read their own part of the ruleset through one `BuildContext`, so a
problem anywhere becomes a located diagnostic in one list (reported all at
once, never raised one by one) and every citation lands in one table.
"""

from __future__ import annotations

import json
from typing import Any

from ruleplay.dsl import ast as A
from ruleplay.dsl.codegen import make_compiler
from ruleplay.dsl.checks import CompileProblem
from ruleplay.dsl.diagnostics import Diagnostic, Related, SourceLines
from ruleplay.dsl.parser import DslSyntaxError, parse_effects, parse_expr
from ruleplay.dsl.scope import Scope
from ruleplay.dsl.variants import SourceMap
from ruleplay.dsl.yamlload import format_path, lookup

from ..model import Code, Exec, Fn, first_rule, rule_list

UNKNOWN_NAME_HINT = ("a name is a state variable, a constant, a parameter, a `let` or loop name, "
                     "or a flow value such as `current`")


def noop(ctx: Any) -> None:
    """The effects of an empty (or missing) effects text."""
    return None


LITERALS = frozenset({"true", "false", "null"})  # words that read as values wherever a name could stand


class BuildContext:
    """The ruleset being compiled, with helpers that turn problems into diagnostics."""

    def __init__(self, data: dict, smap: SourceMap, disabled_rules: frozenset[str] = frozenset()):
        self.data = data
        self.smap = smap
        self.diags: list[Diagnostic] = []
        self.compiler = make_compiler()  # generated code, or closures with RULEPLAY_COMPILER=closures
        self.disabled = disabled_rules
        self.cited: dict[str, list[tuple]] = {}
        self.code: dict[tuple, Code] = {}  # every text compiled for play, by its path: what the native backend lowers
        self.mutable: set[str] = set()
        self.written: set[str] = set()  # names that effects run in play assign or change as lists
        # Per effects text run in play: the names it assigns or changes as lists, and the procedures it calls.
        self.writes: dict[tuple, tuple[frozenset[str], frozenset[str]]] = {}
        self.lines = SourceLines()
        for doc in smap.documents():
            self.lines.add(doc.file, doc.text)

    # ----------------------------------------------------------- diagnostics
    def diag(self, code: str, message: str, path: tuple, hint: str = "", severity: str = "error",
             key: bool = False, related: tuple[Related, ...] = ()) -> None:
        file, line, col, source = self.smap.where(path, key=key)
        self.diags.append(Diagnostic(code, message, file, line, col, severity, hint, format_path(path), source,
                                     related))

    def related(self, message: str, path: tuple) -> Related:
        """Another place in the ruleset a diagnostic is about: the key at `path`."""
        file, line, col, _ = self.smap.where(path, key=True)
        return Related(message, file, line, col)

    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.diags)

    def _flush_problems(self, path: tuple | None = None) -> None:
        for p in self.compiler.problems:
            self._problem(p, path)
        self.compiler.problems.clear()

    def diag_at(self, code: str, message: str, pos: A.Pos, path: tuple, hint: str) -> None:
        """A diagnostic at a position inside the code at `path` (a name it reads), not at the whole value."""
        self.diags.append(Diagnostic(code, message, pos.file, pos.line, pos.col, hint=hint, path=format_path(path),
                                     source_line=self.lines.line(pos.file, pos.line)))

    def _problem(self, p: CompileProblem, path: tuple | None) -> None:
        """A problem of the code at `path`: named by the path too, since a YAML alias can put one text (and
        so one position) in several places, each compiled, and each one's report should say which it is."""
        hint = p.hint or (UNKNOWN_NAME_HINT if p.code == "RP210" else "")
        self.diags.append(Diagnostic(p.code, p.message, p.pos.file, p.pos.line, p.pos.col, hint=hint,
                                     path=format_path(path) if path is not None else "",
                                     source_line=self.lines.line(p.pos.file, p.pos.line)))

    # -------------------------------------------------------------- citations
    def cite(self, rules: str | list | None, path: tuple, mutable: bool = False) -> None:
        """Record citations; `mutable` ones sit where mutation testing can switch them off."""
        for rule in rule_list(rules):
            self.cited.setdefault(rule, []).append(path)
            if mutable:
                self.mutable.add(rule)

    def off(self, rules: str | list | None) -> bool:
        """Whether mutation testing switched off one of these rules."""
        return any(r in self.disabled for r in rule_list(rules))

    def _check_tree(self, node: Any, path: tuple) -> None:
        """One walk of parsed code: the rules it cites (`@ID`), and the names it binds (`let`, loop and
        comprehension names): a literal (`let true = 5`) binds a name no code can read, as it reads the
        literal; a loop naming one variable twice keeps only the last."""
        for n in A.walk(node):
            if isinstance(n, A.Cited):
                self.cite(n.rule, path, mutable=True)
            names = (n.name,) if isinstance(n, (A.Let, A.LetExpr)) else n.bound if isinstance(n, A.Comprehension) \
                else n.names if isinstance(n, A.For) else ()
            for i, name in enumerate(names):
                if name in LITERALS:
                    self.diag_at("RP219", f"`{name}` cannot be bound: code that reads it reads the literal",
                                 n.pos, path, f"choose another name, e.g. `{name}_`")
                elif name in names[:i] and name != "_":
                    what = "comprehension" if isinstance(n, A.Comprehension) else "loop"
                    self.diag_at("RP216", f"the {what} names `{name}` twice", n.pos, path,
                                 "give each item a name of its own, or `_` for one you do not use")

    # ------------------------------------------------------------------ code
    def get(self, path: tuple, default: Any = None) -> Any:
        return lookup(self.data, path, default)

    def parse(self, path: tuple, effects: bool) -> A.Node | None:
        text = self.get(path)
        if text is None:
            return None
        if not isinstance(text, str):
            text = json.dumps(text) if not effects else str(text)
        origin = self.smap.origin(path)
        try:
            node = parse_effects(text, origin) if effects else parse_expr(text, origin)
        except DslSyntaxError as err:
            pos = err.pos
            self.diags.append(Diagnostic(err.code, err.message, pos.file, pos.line, pos.col, hint=err.hint,
                                         path=format_path(path), source_line=self.lines.line(pos.file, pos.line)))
            return None
        self._check_tree(node, path)
        return node

    def expr(self, path: tuple, scope: Scope, default: Fn | None = None) -> Fn | None:
        return self.expr_code(path, scope, default)[0]

    def expr_code(self, path: tuple, scope: Scope, default: Fn | None = None) -> tuple[Fn | None, Code | None]:
        """`expr`, with the tree it compiled and its scope, for code generated later from the same tree."""
        node = self.parse(path, effects=False)
        if node is None:
            return default, None
        fn = self.compile(node, scope, path)
        return fn, (None if fn is None else (node, scope))

    def compile(self, node: A.Node, scope: Scope, path: tuple | None = None) -> Fn | None:
        """An expression already parsed (and checked) by its builder, compiled; its problems reported (as
        at `path`, the code's place in the ruleset, when the caller knows it)."""
        fn = self.compiler.expr(node, scope)
        self._flush_problems(path)
        if path is not None:
            self.code[path] = (node, scope)
        return fn

    def effects(self, path: tuple, scope: Scope) -> Exec:
        node = self.parse(path, effects=True)
        if node is None:
            return noop
        if path != ("setup",):  # setup runs once, on a state of its own: nothing it writes is shared
            targets = frozenset(n.name for n in A.walk(node) if isinstance(n, A.Target))
            self.written |= targets
            self.writes[path] = (targets, frozenset(n.name for n in A.walk(node) if isinstance(n, A.CallProc)))
        owner = lookup(self.data, path[:-1])  # the action, procedure or phase whose code this is
        declared = first_rule(owner.get("rule")) if isinstance(owner, dict) else None
        fn = self.compiler.block(node, scope if declared is None else scope.with_rule(declared))
        self._flush_problems(path)
        self.code[path] = (node, scope)
        return fn

    def written_by_action(self, actions: list[str], state_vars: set[str]) -> dict[str, frozenset[str]]:
        """The state variables a move of each action can change: what its effects write, what the
        procedures they call write (and those they call), and whatever the flow's hooks and triggers,
        which may run after any move, write."""
        procedures = {path[1]: w for path, w in self.writes.items() if path[0] == "procedures"}

        def closure(targets: frozenset[str], calls: frozenset[str]) -> set[str]:
            out, todo, seen = set(targets), list(calls), set()
            while todo:
                name = todo.pop()
                if name in seen or name not in procedures:
                    continue
                seen.add(name)
                out |= procedures[name][0]
                todo.extend(procedures[name][1])
            return out

        by_path = {path: closure(*w) for path, w in self.writes.items()}
        flow = set().union(*(w for path, w in by_path.items() if path[0] not in ("procedures", "actions")))
        return {a: frozenset((by_path.get(("actions", a, "effects"), set()) | flow) & state_vars) for a in actions}

    def names_read(self, path: tuple) -> set[str] | None:
        """The names an expression reads, or None if it does not parse."""
        try:
            node = parse_expr(self.get(path), self.smap.origin(path))
        except DslSyntaxError:
            return None
        return {n.name for n in A.walk(node) if isinstance(n, A.Name)}
