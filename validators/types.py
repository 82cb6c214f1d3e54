"""Static type checking of every expression and effect in a ruleset.

The checker re-parses each piece of rule text (positions come from the
source map, so they point into whichever file the text came from), infers
a type for every node (`typelattice`) and reports only *definite* errors:
operations that fail for every value the operand types allow.  Whatever it
cannot be sure about is `any`, and `any` never causes a report.

  RP222  operator or statement applied to values of the wrong type
  RP223  builtin called with an argument of the wrong type, or naming a
         board, graph, component kind or direction that does not exist
  RP224  a condition that is always a list or map (a missing len() or any())
  RP225  a property that no component (of the possible kinds) has

State variable types come from `type:` when declared; otherwise from `init`
joined with everything the effects ever assign to the variable, found by
iterating the whole analysis to a fixpoint (`type_passes`).  `let` variables that are
changed after their declaration keep only their outer kind.
"""

from __future__ import annotations

import json
from typing import Any

from ruleplay.dsl import ast as A
from ruleplay.dsl.builtins import BUILTINS
from ruleplay.dsl.diagnostics import Diagnostic, SourceLines
from ruleplay.dsl.geometry import DIRECTIONS
from ruleplay.dsl.parser import DslSyntaxError, parse_effects, parse_expr
from ruleplay.dsl.yamlload import format_path, lookup

from . import signatures as S
from .callgraph import callees_first
from .inferred import InferredTypes
from .typelattice import (
    ANY,
    BOOL,
    INT,
    NEVER,
    NULL,
    NUMBER,
    NUMERIC,
    STRING,
    Type,
    describe_kinds,
    is_only,
    join,
    list_of,
    value_type,
    widened,
)

FLOW_TYPES: dict[str, Type] = {
    "current": INT, "players": INT, "round": INT, "phase": STRING, "stage": ANY, "start_player": INT, "turn": INT,
}

_NUM, _STR, _LIST, _MAP, _INT = NUMERIC, frozenset({"string"}), frozenset({"list"}), frozenset({"map"}), \
    frozenset({"int"})
_OPERANDS: dict[str, tuple[tuple[frozenset[str], frozenset[str]], ...]] = {
    "+": ((_NUM, _NUM), (_STR, _STR), (_LIST, _LIST)),
    "-": ((_NUM, _NUM),), "/": ((_NUM, _NUM),), "//": ((_NUM, _NUM),), "%": ((_NUM, _NUM),),
    "*": ((_NUM, _NUM), (_LIST, _INT)),
    "<": ((_NUM, _NUM), (_STR, _STR), (_LIST, _LIST)),
}
_INDEXABLE = ((_LIST, _INT), (_STR, _INT), (_MAP, _STR))
_ITERABLE = frozenset({"list", "map", "string"})

def _fits(pairs, a: Type, b: Type) -> bool:
    return any(a.kinds & left and b.kinds & right for left, right in pairs)


class Checker:
    """One pass over the whole ruleset.

    A pass widens `var_types` in place whenever it meets a value stored in a
    state variable that its type does not hold yet (`grew` tells); only a
    pass with `lines` reports, and it runs once the types are settled.
    """

    def __init__(self, model: Any, var_types: dict[str, Type], lines: SourceLines | None,
                 parsed: dict[tuple, A.Node | None], declared: frozenset[str] = frozenset(),
                 param_types: dict[tuple[str, str], dict[str, Type]] | None = None):
        self.model = model
        # (functions|procedures, name) -> each parameter's type, widened at every call like `var_types`;
        # None: every parameter may be anything
        self.param_types = param_types
        self.declared = declared  # variables whose type is written in the ruleset, never widened
        self.parsed = parsed  # path -> syntax tree, shared by the passes so each text is parsed once
        self.var_types = var_types
        self.lines = lines  # None: a silent pass that only gathers types
        self.data: dict = model.data
        self.constants: dict = model.constants
        self.found: dict[tuple, Diagnostic] = {}
        self.grew = False  # did this pass widen a variable's type?
        self.function_types: dict[str, Type] = {}
        self.props = self._property_types()
        self.path: tuple = ()  # the ruleset path of the text being checked
        self.changed_lets: dict[str, str] = {}  # let name -> "whole" | "inside", for the current text
        self.noted: InferredTypes | None = None  # filled in, when given, as the pass goes

    # ------------------------------------------------------------ reporting
    def report(self, code: str, message: str, pos: A.Pos, hint: str) -> None:
        if self.lines is None:
            return
        key = (code, pos.file, pos.line, pos.col, message)
        if key not in self.found:
            self.found[key] = Diagnostic(code, message, pos.file, pos.line, pos.col, hint=hint,
                                         path=format_path(self.path),
                                         source_line=self.lines.line(pos.file, pos.line))

    # ------------------------------------------------------------ the ruleset
    def _text(self, path: tuple) -> Any:
        return lookup(self.data, path)

    def _parse(self, path: tuple, effects: bool) -> A.Node | None:
        if path in self.parsed:
            return self.parsed[path]
        text = self._text(path)
        node = None
        if text is not None:
            if not isinstance(text, str):
                text = str(text) if effects else json.dumps(text)
            try:
                origin = self.model.source.origin(path)
                node = parse_effects(text, origin) if effects else parse_expr(text, origin)
            except DslSyntaxError:  # reported by the model builder already
                node = None
        self.parsed[path] = node
        return node

    def check_expr(self, path: tuple, env: dict[str, Type], condition: str | None = None) -> Type:
        node = self._parse(path, effects=False)
        if node is None:
            return ANY
        self.path = path
        self.changed_lets = {}
        t = self.expr(node, env)
        if condition is not None and is_only(t, _LIST | _MAP):
            self.report("RP224", f"this {condition} is always {t}, never a true/false test", node.pos,
                        "a list or map counts as true when it is not empty; say what you mean with "
                        "len(...) > 0, any(...) or all(...)")
        return t

    def check_effects(self, path: tuple, env: dict[str, Type]) -> None:
        node = self._parse(path, effects=True)
        if node is None:
            return
        self.path = path
        self.changed_lets = _changed_lets(node)
        self.block(node, dict(env))

    def run(self) -> None:
        d = self.data
        p_env = {"p": INT}
        for group in self._functions_callees_first():
            for name in group:  # functions calling each other: each sees the others' calls as `any`
                self.function_types.setdefault(name, ANY)
            for name in group:
                self.function_types.pop(name)
                self.function_type(name)
                self.function_types.setdefault(name, ANY)
        for name, spec in (d.get("procedures") or {}).items():
            self.check_effects(("procedures", name, "effects"), self.params_env("procedures", name))
        for name, spec in (d.get("state") or {}).items():
            per = bool(spec.get("per_player", False))
            has_init = self._text(("state", name, "init")) is not None
            init = self.check_expr(("state", name, "init"), p_env if per else {}) if has_init else NULL
            self.widen_var(name, list_of(init) if per else init)
            entry = self.var_types.get(name, ANY)
            entry = entry.items() if per else entry
            item_env = {"item": entry.items() if entry.kind == "list" else ANY, "index": INT, "viewer": INT,
                        "owner": ANY}
            self.check_expr(("state", name, "visible_if"), item_env, "visible_if condition")
            self.check_expr(("state", name, "back"), item_env)
        self.check_effects(("setup",), {})
        flow = d.get("flow") or {}
        self.check_expr(("flow", "start_player"), {})
        self.check_expr(("flow", "skip_if"), p_env, "skip_if condition")
        self.check_effects(("flow", "on_round_begin"), {})
        self.check_effects(("flow", "on_round_end"), {})
        for i, _ in enumerate(flow.get("phases") or []):
            path = ("flow", "phases", i)
            self.check_expr(path + ("first",), {})
            self.check_expr(path + ("end_if",), {}, "end_if condition")
            self.check_effects(path + ("on_begin",), {})
            self.check_effects(path + ("on_end",), {})
        for name, spec in (d.get("actions") or {}).items():
            self.action(name, spec)
        for i, _ in enumerate(d.get("end") or []):
            self.check_expr(("end", i, "when"), {}, "end condition")
        for key in ("score", "returns"):
            self.check_expr(("scoring", key), p_env)
        for i, _ in enumerate((d.get("scoring") or {}).get("tiebreak") or []):
            self.check_expr(("scoring", "tiebreak", i), p_env)
        for i, _ in enumerate(d.get("invariants") or []):
            self.check_expr(("invariants", i, "check"), {}, "invariant")
        for i, _ in enumerate(d.get("triggers") or []):
            self.check_expr(("triggers", i, "when"), {}, "trigger condition")
            self.check_effects(("triggers", i, "effects"), {})
        for i, spec in enumerate(d.get("render") or []):
            shown = self.check_expr(("render", i, "show"), {})
            kind = spec.get("as", "grid" if spec.get("board") else "value")
            item = shown if kind == "value" else shown.items() if shown.kind == "list" else ANY
            self.check_expr(("render", i, "cell"), {"item": item, "index": INT})

    def action(self, name: str, spec: dict) -> None:
        path = ("actions", name)
        compiled = self.model.actions.get(name)
        env: dict[str, Type] = {}
        for i, (pname, pspec) in enumerate((spec.get("params") or {}).items()):
            ppath = path + ("params", pname)
            self.check_expr(ppath if isinstance(pspec, str) else ppath + ("of",), {})
            universe = compiled.params[i].universe if compiled is not None and i < len(compiled.params) else []
            ptype = value_type(universe, self.model.component_props).items() if universe else ANY
            if isinstance(pspec, dict):
                self.check_expr(ppath + ("from",), env)
                self.check_expr(ppath + ("where",), {**env, pname: ptype}, "where condition")
            env[pname] = ptype
            if self.noted is not None:
                self.noted.params[name, pname] = ptype
        for i, r in enumerate(spec.get("require") or []):
            rpath = path + ("require", i)
            self.check_expr(rpath if isinstance(r, str) else rpath + ("check",), env, "requirement")
        self.check_expr(path + ("weight",), env)
        self.check_effects(path + ("effects",), env)

    def _functions_callees_first(self) -> list[list[str]]:
        """User functions in groups that call each other, each group after the groups it calls.

        Typing a function types the functions it calls first; in this order
        they are typed already, so a long chain of calls is a loop here, not
        one Python call per link.
        """
        functions = self.data.get("functions") or {}
        calls = {}
        for name in functions:
            node = self._parse(("functions", name, "value"), effects=False)
            calls[name] = [n.func for n in A.walk(node) if isinstance(n, A.Call) and n.func in functions]
        return [sorted(group, key=list(functions).index) for group in callees_first(calls)]

    def _params(self, kind: str, name: str) -> list[str]:
        """The parameter names of function or procedure `name` (`kind`: functions or procedures)."""
        return ((self.data.get(kind) or {}).get(name) or {}).get("params") or []

    def params_env(self, kind: str, name: str) -> dict[str, Type]:
        """The names a function's or procedure's body starts with: its parameters, `any` unless their calls'
        arguments are gathered (`param_types`)."""
        params = self._params(kind, name)
        if self.param_types is None:
            return {n: ANY for n in params}
        seen = self.param_types.get((kind, name), {})
        return {n: seen.get(n, NEVER) for n in params}

    def widen_params(self, kind: str, name: str, args: list[Type]) -> None:
        """Record that a call passes `args` to function or procedure `name`."""
        if self.param_types is None:
            return
        seen = self.param_types.setdefault((kind, name), {})
        for param, t in zip(self._params(kind, name), args):
            new = join(seen.get(param, NEVER), t)
            if new != seen.get(param, NEVER):
                seen[param] = new
                self.grew = True

    def function_type(self, name: str) -> Type:
        """The result type of a user function (its parameters as `params_env` says)."""
        if name in self.function_types:
            return self.function_types[name]
        self.function_types[name] = ANY  # a recursive call sees `any`
        saved = (self.path, self.changed_lets)
        t = self.check_expr(("functions", name, "value"), self.params_env("functions", name))
        self.path, self.changed_lets = saved
        self.function_types[name] = t
        return t

    # ----------------------------------------------------------- components
    def _property_types(self) -> dict[str, dict[str, Type]]:
        out: dict[str, dict[str, Type]] = {}
        for props in self.model.component_props.values():
            table = out.setdefault(props["kind"], {})
            for key, value in props.items():
                t = value_type(value, self.model.component_props)
                table[key] = join(table[key], t) if key in table else t
        return out

    def property_type(self, obj: Type, name: str, pos: A.Pos) -> Type:
        kinds = obj.of_kinds if obj.kind == "component" and obj.of_kinds else frozenset(self.props)
        found = [self.props[k][name] for k in sorted(kinds) if name in self.props.get(k, {})]
        if not found:
            known = sorted({p for k in kinds for p in self.props.get(k, {})})
            what = "no component" if kinds == frozenset(self.props) else \
                f"no component of kind {', '.join(repr(k) for k in sorted(kinds))}"
            self.report("RP225", f"{what} has a property {name!r}", pos,
                        f"properties: {', '.join(known)}" if known else "declare components under `components:`")
            return NEVER
        out = NEVER
        for t in found:
            out = join(out, t)
        return out

    # ----------------------------------------------------------- expressions
    def expr(self, node: A.Expr, env: dict[str, Type]) -> Type:
        t = getattr(self, "_e_" + type(node).__name__)(node, env)
        if self.noted is not None and type(node) is A.Name:
            self.noted.names[node.pos] = t
        return t

    def _e_Literal(self, node: A.Literal, env: dict[str, Type]) -> Type:
        return value_type(node.value, self.model.component_props)

    def name_type(self, name: str, env: dict[str, Type]) -> Type:
        if name in env:
            return env[name]
        if name in self.var_types:
            return self.var_types[name]
        if name in FLOW_TYPES:
            return FLOW_TYPES[name]
        if name in self.constants:
            return value_type(self.constants[name], self.model.component_props)
        return ANY

    def _e_Name(self, node: A.Name, env: dict[str, Type]) -> Type:
        return self.name_type(node.name, env)

    def literal_text(self, node: A.Expr, env: dict[str, Type]) -> str | None:
        """The text of a string literal, or of a constant holding text."""
        if isinstance(node, A.Literal) and isinstance(node.value, str):
            return node.value
        if isinstance(node, A.Name) and node.name not in env and node.name not in self.var_types \
                and node.name not in FLOW_TYPES and isinstance(self.constants.get(node.name), str):
            return self.constants[node.name]
        return None

    def _e_ListLit(self, node: A.ListLit, env: dict[str, Type]) -> Type:
        item = NEVER
        for i in node.items:
            item = join(item, self.expr(i, env))
        return list_of(item)

    def iterate(self, source: Type, pos: A.Pos, what: str) -> Type:
        if source.known and not source.kinds & _ITERABLE:
            self.report("RP222", f"cannot iterate over {source}", pos,
                        f"{what} needs a list, a map (its keys) or a string")
            return NEVER
        return source.items()

    def bind(self, names: tuple[str, ...], item: Type, env: dict[str, Type], pos: A.Pos) -> None:
        each = item if len(names) == 1 else item.items() if item.kind == "list" else ANY
        for n in names:
            env[n] = each
            if self.noted is not None:
                self.noted.bound[pos, n] = each

    def _e_Comprehension(self, node: A.Comprehension, env: dict[str, Type]) -> Type:
        inner = dict(env)
        for names, source, cond, pos in node.clauses:  # each clause sees the names of the clauses before it
            item = self.iterate(self.expr(source, inner), source.pos, "`for … in`")
            self.bind(names, item, inner, pos)
            if cond is not None:
                self.expr(cond, inner)
        return list_of(self.expr(node.elem, inner))

    def _e_LetExpr(self, node: A.LetExpr, env: dict[str, Type]) -> Type:
        inner = dict(env)
        self.bind((node.name,), self.expr(node.value, env), inner, node.pos)
        return self.expr(node.body, inner)

    def _e_Attr(self, node: A.Attr, env: dict[str, Type]) -> Type:
        obj = self.expr(node.obj, env)
        return self.field(obj, node.name, node.pos, components=True)

    def field(self, obj: Type, name: str, pos: A.Pos, components: bool) -> Type:
        if obj == NEVER:
            return NEVER
        allowed = frozenset({"map", "string"}) if components else _MAP
        if obj.known and not obj.kinds & allowed:
            self.report("RP222", f"{obj} has no fields, so `.{name}` fails", pos,
                        "fields belong to maps and components; index a list with [i]")
            return NEVER
        if components and is_only(obj, _STR):
            return self.property_type(obj, name, pos)
        return ANY

    def index(self, obj: Type, key: Type, pos: A.Pos) -> Type:
        if NEVER in (obj, key):
            return NEVER
        if obj.known and not obj.kinds & (_LIST | _STR | _MAP):
            self.report("RP222", f"cannot index {obj}", pos, "only lists, strings and maps have items")
            return NEVER
        if not _fits(_INDEXABLE, obj, key):
            if is_only(obj, _MAP):
                rule = "a map key must be a string"
            elif is_only(obj, _LIST | _STR):
                rule = f"a {'list' if obj.kind == 'list' else 'string'} index must be an int"
            else:
                rule = "an index must be an int (list, string) or a string (map)"
            self.report("RP222", f"{rule}, not {key}", pos, "lists and strings are indexed by position, maps by key")
            return NEVER
        if obj.kind == "list":
            return obj.item or ANY
        if is_only(obj, _STR):
            return STRING
        return ANY

    def _e_Index(self, node: A.Index, env: dict[str, Type]) -> Type:
        return self.index(self.expr(node.obj, env), self.expr(node.index, env), node.pos)

    def _e_Slice(self, node: A.Slice, env: dict[str, Type]) -> Type:
        obj = self.expr(node.obj, env)
        for bound in (node.lo, node.hi):
            if bound is not None:
                t = self.expr(bound, env)
                if t.known and not t.kinds & {"int", "null"}:
                    self.report("RP222", f"slice bounds must be ints, not {t}", bound.pos,
                                "write xs[a:b] with int positions")
                    obj = NEVER
        if obj == NEVER:
            return NEVER
        if obj.known and not obj.kinds & (_LIST | _STR):
            self.report("RP222", f"cannot slice {obj}", node.pos, "only lists and strings can be sliced")
            return NEVER
        if obj.kind in ("list", "never"):
            return obj
        return STRING if is_only(obj, _STR) else ANY

    def _e_Unary(self, node: A.Unary, env: dict[str, Type]) -> Type:
        t = self.expr(node.operand, env)
        if node.op == "not":
            return BOOL
        if t.known and not t.kinds & NUMERIC:
            self.report("RP222", f"cannot negate {t}", node.pos, "`-` applies to numbers")
            return NEVER
        return t if t.kind in ("int", "number", "never") else ANY

    def arith(self, op: str, a: Type, b: Type, pos: A.Pos) -> Type:
        if not _fits(_OPERANDS[op], a, b):
            self.report("RP222", f"cannot apply `{op}` to {a} and {b}", pos, _arith_hint(op, a, b))
            return NEVER
        if NEVER in (a, b):
            return NEVER  # no value reaches here (yet, while variable types are being inferred)
        if all(pair == (_NUM, _NUM) for pair in _OPERANDS[op] if a.kinds & pair[0] and b.kinds & pair[1]):
            # only numbers work here (`-`, or `+` with a number on one side): what it makes is a number
            return INT if a.kind == b.kind == "int" and op != "/" else NUMBER
        if not (a.known and b.known):
            return ANY
        if a.kinds <= NUMERIC and b.kinds <= NUMERIC:
            return INT if a.kind == b.kind == "int" and op != "/" else NUMBER
        if op == "+" and a.kinds <= _STR and b.kinds <= _STR:
            return STRING
        if op == "+" and a.kind == "list" and b.kind == "list":
            return join(a, b)
        if op == "*" and a.kind == "list":
            return a
        return ANY

    def _e_Binary(self, node: A.Binary, env: dict[str, Type]) -> Type:
        a, b, op = self.expr(node.left, env), self.expr(node.right, env), node.op
        if op in ("==", "!="):
            return BOOL
        if op in ("in", "not in"):
            if b.known and not b.kinds & (_LIST | _MAP | _STR):
                self.report("RP222", f"`{op}` needs a list, map or string on the right, not {b}", node.pos,
                            "test membership in a list, the keys of a map or the text of a string")
                return NEVER
            if not (b.kinds & (_LIST | _MAP) or a.kinds & _STR):
                self.report("RP222", f"`{op}` a string needs a string on the left, not {a}", node.pos,
                            "convert with str(...) first")
                return NEVER
            return BOOL
        if op in ("<", "<=", ">", ">="):
            if not _fits(_OPERANDS["<"], a, b):
                self.report("RP222", f"cannot compare {a} with {b} using `{op}`", node.pos,
                            "order compares two numbers, two strings or two lists")
                return NEVER
            return BOOL
        return self.arith(op, a, b, node.pos)

    def _e_BoolOp(self, node: A.BoolOp, env: dict[str, Type]) -> Type:
        for o in node.operands:
            self.expr(o, env)
        return BOOL

    def _e_Cond(self, node: A.Cond, env: dict[str, Type]) -> Type:
        self.expr(node.test, env)
        return join(self.expr(node.then, env), self.expr(node.other, env))

    def _e_Call(self, node: A.Call, env: dict[str, Type]) -> Type:
        name = node.func
        args = [self.expr(a, env) for a in node.args]
        if name in (self.data.get("functions") or {}):
            self.widen_params("functions", name, args)
            return self.function_type(name)
        if name not in BUILTINS:
            return ANY
        failed = False
        accepts = S.accepts(name, len(args))
        on_board = accepts[:1] == (S.BOARD,)
        sets = S.direction_sets(self.model.boards, self.literal_text(node.args[0], env) if on_board else None,
                                on_board)
        for i, (spec, arg, t) in enumerate(zip(accepts, node.args, args)):
            if spec.kinds is not None and t.known and not t.kinds & spec.kinds:
                self.report("RP223", f"argument {i + 1} of `{name}()` must be {describe_kinds(spec.kinds)}, not {t}",
                            arg.pos, f"{name}(): {BUILTINS[name].doc}")
                failed = True
            elif spec.names is not None:
                failed = not self.check_name(spec.names, self.literal_text(arg, env), arg.pos, sets) or failed
        if failed:
            return NEVER  # the call always fails, so nothing after it runs
        kind = self.literal_text(node.args[0], env) if name == "components" and node.args else None
        if kind not in self.model.components_by_kind:
            kind = None
        return S.result(name, args, kind)

    def check_name(self, what: str, text: str | None, pos: A.Pos, sets: list[str]) -> bool:
        """False (and a report) when `text` is a literal name that `what` does not declare."""
        if text is None:
            return True
        table = {"board": self.model.boards, "graph": self.model.graphs,
                 "component kind": self.model.components_by_kind, "direction": DIRECTIONS,
                 "direction set": dict.fromkeys(sets)}[what]
        if text not in table:
            known = ", ".join(repr(k) for k in table) or "none declared"
            self.report("RP223", f"there is no {what} {text!r}", pos, f"{what}s: {known}")
            return False
        return True

    # -------------------------------------------------------------- effects
    def block(self, node: A.Block, env: dict[str, Type]) -> None:
        for stmt in node.stmts:
            self.stmt(stmt, env)

    def stmt(self, node: A.Stmt, env: dict[str, Type]) -> None:
        getattr(self, "_s_" + type(node).__name__)(node, env)

    def _s_Block(self, node: A.Block, env: dict[str, Type]) -> None:
        self.block(node, dict(env))

    def _s_Cited(self, node: A.Cited, env: dict[str, Type]) -> None:
        if isinstance(node.body, A.Block):
            self.block(node.body, dict(env))
        elif node.body is not None:
            self.stmt(node.body, env)

    def _s_Let(self, node: A.Let, env: dict[str, Type]) -> None:
        t = self.expr(node.value, env)
        change = self.changed_lets.get(node.name)
        if change == "whole":
            t = ANY
        elif change == "inside":
            t = list_of(ANY) if t.kind == "list" else t if t.kind == "map" else ANY
        env[node.name] = t
        if self.noted is not None:
            self.noted.bound[node.pos, node.name] = t

    def target(self, target: A.Target, env: dict[str, Type], final: bool) -> Type:
        """The type at a target; with `final`, checks that its last step can be assigned.

        An assignment walks its steps through maps only, while a list statement
        reads its target like an expression (where `.name` may be a component's).
        """
        t = self.name_type(target.name, env)
        steps = target.steps[:-1] if final else target.steps
        for s in steps:
            t = self.field(t, s, target.pos, components=not final) if isinstance(s, str) \
                else self.index(t, self.expr(s, env), target.pos)
        if final and target.steps:
            last = target.steps[-1]
            key = STRING if isinstance(last, str) else self.expr(last, env)
            if t.known and not _fits(((_LIST, _INT), (_MAP, _STR)), t, key):
                self.report("RP222", f"cannot assign into {t} at {key}", target.pos,
                            "assign list items by int position and map fields by name")
                return NEVER
            return (t.item or ANY) if t.kind == "list" else ANY
        return t

    def _s_Assign(self, node: A.Assign, env: dict[str, Type]) -> None:
        current = self.target(node.target, env, final=True)
        value = self.expr(node.value, env)
        if node.op != "=":
            value = self.arith(node.op[0], current, value, node.pos)
        self.assign(node.target, env, value, item=False)

    def assign(self, target: A.Target, env: dict[str, Type], value: Type, item: bool) -> None:
        """Record that the state variable under `target` may now hold `value` there."""
        if target.name in env or target.name not in self.var_types:
            return
        steps = ["item" if not isinstance(s, str) else "field" for s in target.steps] + (["item"] if item else [])
        self.widen_var(target.name, widened(self.var_types[target.name], steps, value))

    def widen_var(self, name: str, t: Type) -> None:
        if name in self.declared:
            return
        old = self.var_types.get(name, NEVER)
        new = join(old, t)
        if new != old:
            self.var_types[name] = new
            self.grew = True

    def list_target(self, target: A.Target, env: dict[str, Type], verb: str) -> Type:
        t = self.target(target, env, final=False)
        if t.known and "list" not in t.kinds:
            self.report("RP222", f"`{verb}` needs a list, but `{target.name}` here is {t}", target.pos,
                        "list statements (append, remove, move, draw, shuffle) work on lists")
        return t

    def _s_ListOp(self, node: A.ListOp, env: dict[str, Type]) -> None:
        value = self.expr(node.value, env) if node.value is not None else ANY
        source = self.list_target(node.source, env, node.op) if node.source is not None else ANY
        if node.dest is not None:
            self.list_target(node.dest, env, node.op)
        if node.op == "draw" and value.known and "int" not in value.kinds:
            self.report("RP222", f"`draw` needs an int count, not {value}", node.value.pos,
                        "write draw N from pile to hand")
        if node.op in ("append", "prepend"):
            self.assign(node.dest, env, value, item=True)
        elif node.op in ("move", "draw"):
            self.assign(node.dest, env, source.items() if source.kind == "list" else ANY, item=True)

    def _s_If(self, node: A.If, env: dict[str, Type]) -> None:
        for test, body in node.branches:
            self.expr(test, env)
            self.block(body, dict(env))
        if node.orelse is not None:
            self.block(node.orelse, dict(env))

    def _s_For(self, node: A.For, env: dict[str, Type]) -> None:
        item = self.iterate(self.expr(node.source, env), node.source.pos, "`for … in`")
        inner = dict(env)
        self.bind(node.names, item, inner, node.pos)
        self.block(node.body, inner)

    def _s_Repeat(self, node: A.Repeat, env: dict[str, Type]) -> None:
        t = self.expr(node.count, env)
        if t.known and "int" not in t.kinds:
            self.report("RP222", f"`repeat` needs an int count, not {t}", node.count.pos,
                        "write repeat N { … }")
        self.block(node.body, dict(env))

    def _s_Control(self, node: A.Control, env: dict[str, Type]) -> None:
        return None

    def _s_CallProc(self, node: A.CallProc, env: dict[str, Type]) -> None:
        self.widen_params("procedures", node.name, [self.expr(a, env) for a in node.args])

    def _s_Log(self, node: A.Log, env: dict[str, Type]) -> None:
        self.expr(node.value, env)

    def _s_Announce(self, node: A.Announce, env: dict[str, Type]) -> None:
        self.expr(node.text, env)
        if node.to is not None:
            self.expr(node.to, env)

    def _s_Fail(self, node: A.Fail, env: dict[str, Type]) -> None:
        self.expr(node.message, env)


def _arith_hint(op: str, a: Type, b: Type) -> str:
    if op == "+" and (a.kind == "list" or b.kind == "list"):
        return "`+` joins two lists; to add one item write xs + [x]"
    if op == "+" and (a.kinds & _STR or b.kinds & _STR):
        return "join text with text: str(x) turns a number into text, int(t) text into a number"
    if op == "*":
        return "`*` multiplies numbers, or repeats a list: xs * n"
    return f"`{op}` works on numbers"


def _changed_lets(block: A.Block) -> dict[str, str]:
    """Names changed after a `let` in this text: "whole" (reassigned or re-declared) or "inside"."""
    lets: dict[str, int] = {}
    out: dict[str, str] = {}
    for n in A.walk(block):
        if isinstance(n, A.Let):
            lets[n.name] = lets.get(n.name, 0) + 1
        elif isinstance(n, A.Assign) and n.target is not None:
            out[n.target.name] = "whole" if not n.target.steps or out.get(n.target.name) == "whole" else "inside"
        elif isinstance(n, A.ListOp):
            for t in (n.source, n.dest):
                if t is not None:
                    out.setdefault(t.name, "inside")
    for name, count in lets.items():
        if count > 1:  # a `let` in an inner block overwrites the outer one at run time
            out[name] = "whole"
    return {n: c for n, c in out.items() if n in lets}

