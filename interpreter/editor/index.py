"""Every declaration in a ruleset and every place that uses it: names in code, rule ids, files.

Built from the ruleset's data and source map, and from the code parsed
again (the parser keeps each tree, so this costs little after a load), so
an index exists whenever the YAML reads, even while a name is misspelt
somewhere. Names in code are resolved as the compiler resolves them
(`dsl.scope`): a local (a `let`, a loop or comprehension name, a parameter,
a name the field gives such as `p`), a state variable, a flow value, a
constant; a call names a function of the ruleset, then a builtin.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from ruleplay.dsl import ast as A
from ruleplay.dsl.builtins import BUILTINS
from ruleplay.dsl.parser import DslSyntaxError, parse_effects, parse_expr
from ruleplay.dsl.scope import FLOW_NAMES
from ruleplay.dsl.variants import SourceMap
from ruleplay.dsl.yamlload import Document
from ruleplay.validators.citations import spec_path
from ruleplay.validators.signatures import accepts
from ruleplay.validators.spec import LINE_END, SpecRule, read_spec

from .fields import named_kind, scalars


@dataclass(frozen=True)
class Span:
    """A stretch of one line of a file: its line and the columns [col, end), counted in characters from 1."""

    file: str
    line: int
    col: int
    end: int

    def holds(self, file: str, line: int, col: int) -> bool:
        """Whether a cursor at `col` touches it (just after its last character counts)."""
        return self.file == file and self.line == line and self.col <= col <= self.end


@dataclass(frozen=True)
class Symbol:
    """What a name stands for: its kind, its name, and what it belongs to (a parameter's action, a local's
    binding place, the field that gives a name)."""

    kind: str
    name: str
    owner: tuple = ()


SECTIONS = (("state", "state"), ("constant", "constants"), ("derived", "derived"), ("function", "functions"),
            ("procedure", "procedures"), ("action", "actions"), ("board", "boards"), ("graph", "graphs"),
            ("kind", "components"), ("variant", "variants"), ("heuristic", "heuristics"))
# Names code in some fields may read besides the ruleset's own (the builders bind them): what each one is.
SEAT = "the seat this value is for"
ITEM = {"item": "the item seen (of a list, or a cell's value)", "index": "the item's position",
        "viewer": "the seat that looks", "owner": "the seat whose entry this is (per_player)"}
NAME_ARGUMENTS = {"board": "board", "graph": "graph", "component kind": "kind"}
_LET = re.compile(r"let\s+([A-Za-z_]\w*)")
_KEYWORD_NAME = {"call": re.compile(r"call\s+([A-Za-z_]\w*)"), "goto": re.compile(r"goto\s+([A-Za-z_]\w*)"),
                 "stage": re.compile(r"stage\s+([A-Za-z_]\w*)")}
_LOOP = re.compile(r"\bfor\s+([A-Za-z_]\w*)(?:\s*,\s*([A-Za-z_]\w*))?\s+in\b")


def given_names(path: tuple) -> dict[str, str]:
    """The names code at `path` may read that no declaration gives, with what each one is."""
    if path[:1] == ("state",) and path[-1] in ("visible_if", "back"):
        return ITEM
    if (path[:1] == ("state",) and path[-1] == "init") or path in (("flow", "skip_if"),) or path[:1] == ("scoring",):
        return {"p": SEAT}
    if path[:1] == ("heuristics",):
        return {"seat": "the seat whose standing is estimated"}
    if path[:1] == ("render",) and (path[-1] == "cell" or "picture" in path):
        return {k: ITEM[k] for k in ("item", "index")}
    return {}


@dataclass
class Index:
    """Declarations and uses, by symbol and by line; `paths` holds each declaration's YAML path."""

    declarations: dict[Symbol, Span] = field(default_factory=dict)
    paths: dict[Symbol, tuple] = field(default_factory=dict)
    uses: dict[Symbol, list[Span]] = field(default_factory=dict)
    by_line: dict[tuple[str, int], list[tuple[Span, Symbol]]] = field(default_factory=dict)
    code: dict[tuple, Span] = field(default_factory=dict)  # each code text's first character, by its path
    rules: dict[str, SpecRule] = field(default_factory=dict)
    spec_file: str | None = None
    spec_lines: list[str] = field(default_factory=list)

    def declare(self, symbol: Symbol, span: Span, path: tuple | None = None) -> None:
        if symbol in self.declarations:  # a stage name in two phases: the first is its declaration
            self.use(symbol, span)
            return
        self.declarations[symbol] = span
        if path is not None:
            self.paths[symbol] = path
        self.by_line.setdefault((span.file, span.line), []).append((span, symbol))

    def use(self, symbol: Symbol, span: Span) -> None:
        self.uses.setdefault(symbol, []).append(span)
        self.by_line.setdefault((span.file, span.line), []).append((span, symbol))

    def at(self, file: str, line: int, col: int) -> tuple[Span, Symbol] | None:
        """The name under a cursor, or None."""
        return next(((s, sym) for s, sym in self.by_line.get((file, line), ()) if s.holds(file, line, col)), None)

    def references(self, symbol: Symbol, with_declaration: bool = True) -> list[Span]:
        spans = list(self.uses.get(symbol, ()))
        if with_declaration and symbol in self.declarations:
            spans.insert(0, self.declarations[symbol])
        return spans


def build_index(data: dict, smap: SourceMap) -> Index:
    """The index of a ruleset as loaded (its files merged, no variant applied)."""
    ix = Index()
    docs = {doc.file: doc for doc in smap.documents()}
    _declare(ix, data, smap)
    _read_spec(ix, data, smap)
    for path, here, value in scalars(data):
        if here.code and isinstance(value, str):
            _Code(ix, data, docs, path).run(value, smap, here.code == "effects")
        elif isinstance(value, str):
            kind = named_kind(path, here)
            if kind == "file":
                target = _beside(smap, path, value)
                if target is not None:
                    ix.use(Symbol("file", target), _value_span(smap, path, value))
            elif kind is not None and not (kind == "rule" and (path[:1] == ("variants",) or path[-1] == "id")):
                ix.use(Symbol(kind, value), _value_span(smap, path, value))
    for doc in smap.documents():  # `extends:` is followed, not kept in the merged data
        name = doc.data.get("extends") if isinstance(doc.data, dict) else None
        target = _beside(SourceMap(doc), ("extends",), name) if isinstance(name, str) else None
        if target is not None:
            ix.use(Symbol("file", target), _value_span(SourceMap(doc), ("extends",), str(name)))
    return ix


def _beside(smap: SourceMap, path: tuple, name: str) -> str | None:
    """The file a `spec:`, `extends:` or `include:` entry names, beside the file that names it."""
    doc, _ = smap.locate(path)
    if os.path.isabs(name):
        return None
    return os.path.normpath(Path(doc.file).resolve().parent / name)


def _declare(ix: Index, data: dict, smap: SourceMap) -> None:
    for kind, section in SECTIONS:
        entries = data.get(section)
        for name in entries if isinstance(entries, dict) else ():
            ix.declare(Symbol(kind, name), _key_span(smap, (section, name)), (section, name))
    for action, spec in (data.get("actions") or {}).items():
        params = spec.get("params") if isinstance(spec, dict) else None
        for name in params if isinstance(params, dict) else ():
            path = ("actions", action, "params", name)
            ix.declare(Symbol("param", name, ("actions", action)), _key_span(smap, path), path)
    for section in ("functions", "procedures"):
        for fname, spec in (data.get(section) or {}).items():
            params = spec.get("params") if isinstance(spec, dict) else None
            for i, name in enumerate(params if isinstance(params, list) else ()):
                if isinstance(name, str):
                    ix.declare(Symbol("param", name, (section, fname)),
                               _value_span(smap, (section, fname, "params", i), name), (section, fname))
    phases = (data.get("flow") or {}).get("phases")
    for i, phase in enumerate(phases if isinstance(phases, list) else ()):
        if isinstance(phase, dict) and isinstance(phase.get("name"), str):
            path = ("flow", "phases", i)
            ix.declare(Symbol("phase", phase["name"]), _value_span(smap, path + ("name",), phase["name"]), path)
        for stage in (phase.get("stages") or {}) if isinstance(phase, dict) else ():
            path = ("flow", "phases", i, "stages", stage)
            ix.declare(Symbol("stage", stage), _key_span(smap, path), path)


def _read_spec(ix: Index, data: dict, smap: SourceMap) -> None:
    """The spec's rules, declared where their ids are written; assumption ids are declared as rules too."""
    spec = data.get("spec")
    path, _ = spec_path(SimpleNamespace(spec=spec if isinstance(spec, str) else None, source=smap))
    if path is not None:
        try:
            rules = read_spec(path)
            ix.spec_lines = LINE_END.split(path.read_text(encoding="utf-8-sig"))
        except (OSError, UnicodeDecodeError):
            rules = []
        ix.spec_file = str(path)
        for r in rules:
            text = ix.spec_lines[r.line - 1] if r.line <= len(ix.spec_lines) else ""
            col = text.find(f"**{r.id}**") + 3
            ix.rules.setdefault(r.id, r)
            ix.declare(Symbol("rule", r.id), Span(str(path), r.line, col, col + len(r.id)))
    for i, a in enumerate(data.get("assumptions") or []):
        if isinstance(a, dict) and isinstance(a.get("id"), str) and a["id"] not in ix.rules:
            at = ("assumptions", i)
            ix.declare(Symbol("rule", a["id"]), _value_span(smap, at + ("id",), a["id"]), at)


def _key_span(smap: SourceMap, path: tuple) -> Span:
    file, line, col, source = smap.where(path, key=True)
    name = str(path[-1])
    if source[col - 1:col] in ("'", '"') and source[col:col + len(name)] == name:
        col += 1
    return Span(file, line, col, col + len(name))


def _value_span(smap: SourceMap, path: tuple, value: str) -> Span:
    origin = smap.origin(path)
    pos = origin.pos(1, 1)
    first = value.split("\n", 1)[0]
    return Span(pos.file, pos.line, pos.col, pos.col + len(first))


class _Code:
    """One text of code walked with the names in scope at each point, each name added to the index."""

    def __init__(self, ix: Index, data: dict, docs: dict[str, Document], path: tuple):
        self.ix, self.data, self.docs, self.path = ix, data, docs, path
        self.state = data.get("state") or {}
        self.constants = data.get("constants") or {}
        self.derived = data.get("derived") or {}
        self.functions = data.get("functions") or {}
        self.procedures = data.get("procedures") or {}

    def run(self, text: str, smap: SourceMap, effects: bool) -> None:
        origin = smap.origin(self.path)
        try:
            node = parse_effects(text, origin) if effects else parse_expr(text, origin)
        except DslSyntaxError:
            return  # the load reports it
        self.ix.code[self.path] = Span(origin.file, origin.line, origin.col, origin.col)
        self.visit(node, self.outer_names())

    def outer_names(self) -> dict[str, Symbol]:
        """The names a text starts with in scope: its action's or function's parameters, the field's names."""
        env = {name: Symbol("given", name, (what,)) for name, what in given_names(self.path).items()}
        owner = self.path[:2]
        if owner[:1] == ("actions",) and len(owner) == 2:
            spec = self.data["actions"].get(owner[1])
            params = spec.get("params") if isinstance(spec, dict) else None
            env.update((n, Symbol("param", n, owner)) for n in (params if isinstance(params, dict) else ()))
        elif owner[:1] in (("functions",), ("procedures",)) and len(owner) == 2:
            spec = self.data[owner[0]].get(owner[1])
            params = spec.get("params") if isinstance(spec, dict) else None
            env.update((n, Symbol("param", n, owner)) for n in (params if isinstance(params, list) else ())
                       if isinstance(n, str))
        return env

    # ------------------------------------------------------------ places
    def _line(self, file: str, line: int) -> str:
        doc = self.docs.get(file)
        return doc.source_line(line) if doc is not None else ""

    def after(self, pos: A.Pos, pattern: re.Pattern[str]) -> Iterator[Span]:
        """The names `pattern` captures, searched from `pos` on (the statement's keyword) to its line's end."""
        text = self._line(pos.file, pos.line)
        found = pattern.match(text, pos.col - 1)
        for g in range(1, (pattern.groups + 1) if found else 1):
            if found.group(g):
                yield Span(pos.file, pos.line, found.start(g) + 1, found.end(g) + 1)

    def loop_names(self, names: tuple[str, ...], source: A.Pos) -> dict[str, Span]:
        """Where the names of `for NAMES in SOURCE` are written: the last `for … in` before the source."""
        for line in range(source.line, max(source.line - 3, 0), -1):
            text = self._line(source.file, line)
            limit = source.col - 1 if line == source.line else len(text)
            found = [m for m in _LOOP.finditer(text, 0, limit) if tuple(n for n in m.groups() if n) == names]
            if found:
                m = found[-1]
                return {m.group(g): Span(source.file, line, m.start(g) + 1, m.end(g) + 1)
                        for g in (1, 2) if m.group(g)}
        return {n: Span(source.file, source.line, source.col, source.col) for n in names}

    # ------------------------------------------------------------ names
    def resolve(self, name: str, env: dict[str, Symbol]) -> Symbol | None:
        if name in env:
            return env[name]
        if name in self.state:
            return Symbol("state", name)
        if name in FLOW_NAMES:
            return Symbol("flow", name)
        if name in self.constants:
            return Symbol("constant", name)
        if name in self.derived:
            return Symbol("derived", name)
        return None

    def bind(self, names: dict[str, Span], env: dict[str, Symbol], statement: A.Pos) -> None:
        """Declare local names; each belongs to the statement that binds it (where the checker types it)."""
        for name, span in names.items():
            symbol = Symbol("local", name, (statement.file, statement.line, statement.col))
            self.ix.declare(symbol, span, self.path)
            env[name] = symbol

    def name(self, name: str, pos: A.Pos, env: dict[str, Symbol]) -> None:
        symbol = self.resolve(name, env)
        if symbol is not None:
            self.ix.use(symbol, Span(pos.file, pos.line, pos.col, pos.col + len(name)))

    # ------------------------------------------------------------ the walk
    def visit(self, node: Any, env: dict[str, Symbol]) -> None:
        if isinstance(node, tuple):
            for item in node:
                self.visit(item, env)
            return
        if not isinstance(node, A.Node):
            return
        method = getattr(self, "_" + type(node).__name__, None)
        if method is not None:
            method(node, env)
            return
        for name in node.__dataclass_fields__:
            if name != "pos":
                self.visit(getattr(node, name), env)

    def _Name(self, node: A.Name, env: dict[str, Symbol]) -> None:
        self.name(node.name, node.pos, env)

    def _Target(self, node: A.Target, env: dict[str, Symbol]) -> None:
        self.name(node.name, node.pos, env)
        self.visit(tuple(s for s in node.steps if isinstance(s, A.Node)), env)

    def _Call(self, node: A.Call, env: dict[str, Symbol]) -> None:
        span = Span(node.pos.file, node.pos.line, node.pos.col, node.pos.col + len(node.func))
        if node.func in self.functions:
            self.ix.use(Symbol("function", node.func), span)
        elif node.func in BUILTINS:
            self.ix.use(Symbol("builtin", node.func), span)
            for arg, spec in zip(node.args, accepts(node.func, len(node.args))):
                kind = NAME_ARGUMENTS.get(spec.names or "")
                if kind and isinstance(arg, A.Literal) and isinstance(arg.value, str):
                    at = arg.pos
                    self.ix.use(Symbol(kind, arg.value), Span(at.file, at.line, at.col + 1, at.col + 1 + len(arg.value)))
        self.visit(node.args, env)

    def _Comprehension(self, node: A.Comprehension, env: dict[str, Symbol]) -> None:
        inner = dict(env)
        for names, source, cond, pos in node.clauses:  # each clause sees the names of the clauses before it
            self.visit(source, inner)
            self.bind(self.loop_names(names, source.pos), inner, pos)
            self.visit(cond, inner)
        self.visit(node.elem, inner)

    def _LetExpr(self, node: A.LetExpr, env: dict[str, Symbol]) -> None:
        self.visit(node.value, env)
        inner = dict(env)
        self.bind(self.let_name(node), inner, node.pos)
        self.visit(node.body, inner)

    def _Block(self, node: A.Block, env: dict[str, Symbol]) -> None:
        inner = dict(env)  # a `let` is seen by the statements after it in its block, and in theirs
        for stmt in node.stmts:
            self.visit(stmt, inner)

    def _Let(self, node: A.Let, env: dict[str, Symbol]) -> None:
        self.visit(node.value, env)
        self.bind(self.let_name(node), env, node.pos)

    def let_name(self, node: A.Let | A.LetExpr) -> dict[str, Span]:
        """Where the name of `let NAME = …` (a statement or an expression) is written."""
        spans = list(self.after(node.pos, _LET))
        return {node.name: spans[0] if spans else Span(node.pos.file, node.pos.line, node.pos.col, node.pos.col)}

    def _For(self, node: A.For, env: dict[str, Symbol]) -> None:
        self.visit(node.source, env)
        inner = dict(env)
        self.bind(self.loop_names(node.names, node.source.pos), inner, node.pos)
        self.visit(node.body, inner)

    def _CallProc(self, node: A.CallProc, env: dict[str, Symbol]) -> None:
        for span in self.after(node.pos, _KEYWORD_NAME["call"]):
            self.ix.use(Symbol("procedure", node.name), span)
        self.visit(node.args, env)

    def _Control(self, node: A.Control, env: dict[str, Symbol]) -> None:
        if node.op in ("goto", "stage") and node.arg != "none":
            for span in self.after(node.pos, _KEYWORD_NAME[node.op]):
                self.ix.use(Symbol("phase" if node.op == "goto" else "stage", str(node.arg)), span)

    def _Cited(self, node: A.Cited, env: dict[str, Symbol]) -> None:
        at = node.pos
        self.ix.use(Symbol("rule", node.rule), Span(at.file, at.line, at.col, at.col + 1 + len(node.rule)))
        self.visit(node.body, env)
