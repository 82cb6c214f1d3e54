"""Build the frozen game model from ruleset data: names resolved, code compiled.

Loading happens once: every expression and effect is parsed and compiled
here, static parameter domains are evaluated, graphs are built with networkx
and flattened into lookup tables.  Play only calls the resulting closures.
Every problem becomes a located diagnostic; nothing is raised one by one.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Callable

import networkx as nx

from ruleplay.dsl import ast as A
from ruleplay.dsl import runtime as R
from ruleplay.dsl.compiler import CompileProblem, Compiler, listing
from ruleplay.dsl.diagnostics import Diagnostic, SourceLines
from ruleplay.dsl.geometry import DIRECTION_SETS, Grid
from ruleplay.dsl.parser import DslSyntaxError, parse_effects, parse_expr
from ruleplay.dsl.scope import Callable_, Scope
from ruleplay.dsl.variants import SourceMap
from ruleplay.dsl.yamlload import format_path, lookup

Fn = Callable[[R.Ctx], Any]
Exec = Callable[[R.Ctx], None]

MAX_BOARD_GRAPH_LINKS = 1_000_000  # a 256x256 king graph has 524288; building one takes about a second

DEFAULT_LIMITS = {"max_steps": 10_000, "iterations_per_move": 200_000, "max_depth": 64,
                  "max_components": 100_000, "copies_per_move": R.DEFAULT_COPIES}


UNKNOWN_NAME_HINT = ("a name is a state variable, a constant, a parameter, a `let` or loop name, "
                     "or a flow value such as `current`")


def _noop(ctx: R.Ctx) -> None:
    return None


def rule_list(value: str | list | None) -> list[str]:
    """A `rule:` value (one id or a list of ids) as a list."""
    if value is None:
        return []
    return [value] if isinstance(value, str) else [r for r in value if isinstance(r, str)]


def first_rule(value: str | list | None) -> str | None:
    rules = rule_list(value)
    return rules[0] if rules else None


@dataclass
class VarDecl:
    name: str
    per_player: bool
    visibility: str
    init: Fn
    visible_if: Fn | None
    back: Fn | None
    type: str


@dataclass
class Param:
    name: str
    universe: list
    source: Fn | None  # `from:` candidates computed from the state
    where: Fn | None
    path: tuple


@dataclass
class Requirement:
    check: Fn
    rule: str | None
    message: str
    path: tuple
    level: int = -1  # index of the last parameter it reads: checked as soon as that one is bound


@dataclass
class Action:
    name: str
    rules: list[str]
    chance: bool
    weight: Fn | None
    params: list[Param]
    requires: list[Requirement]
    effects: Exec
    disabled: bool
    path: tuple
    first_index: int = 0  # position of this action's first move in the global numbering

    @property
    def size(self) -> int:
        n = 1
        for p in self.params:
            n *= len(p.universe)
        return n


@dataclass
class Stage:
    name: str
    actions: list[str]
    chance: bool


@dataclass
class Phase:
    name: str
    order: str
    first: Fn | None
    actions: list[str]
    turn: str
    stages: dict[str, Stage]
    end_if: Fn | None
    on_begin: Exec
    on_end: Exec
    next: str | None
    when_stuck: str
    rule: str | None
    path: tuple


@dataclass
class EndCondition:
    when: Fn
    at: str
    rule: str | None
    disabled: bool
    path: tuple


@dataclass
class Trigger:
    when: Fn
    effects: Exec
    rules: list[str]
    path: tuple


@dataclass
class Invariant:
    check: Fn
    message: str
    rule: str | None
    path: tuple


@dataclass
class RenderItem:
    show: Fn
    kind: str
    board: str | None
    label: str
    cell: Fn | None
    width: int


@dataclass
class GameModel:
    name: str
    title: str
    description: str
    players: int
    min_players: int
    max_players: int
    variant: str | None
    variants: list[str]
    data: dict
    source: SourceMap
    constants: dict[str, Any]
    component_ids: list[str]
    components_by_kind: dict[str, list[str]]
    component_props: dict[str, dict]
    boards: dict[str, Grid]
    graphs: dict[str, dict]
    nx_graphs: dict[str, Any]
    vars: dict[str, VarDecl]
    setup: Exec
    start_player: Fn | None
    rotate_start: bool
    skip_if: Fn | None
    on_round_begin: Exec
    on_round_end: Exec
    phases: dict[str, Phase]
    phase_order: list[str]
    actions: dict[str, Action]
    end: list[EndCondition]
    score: Fn | None
    tiebreak: list[Fn]
    returns: Fn | None
    invariants: list[Invariant]
    triggers: list[Trigger]
    render: list[RenderItem]
    assumptions: list[dict]
    spec: str | None
    cited_rules: dict[str, list[tuple]]
    mutable_rules: set[str]
    limits: dict[str, int]
    ruleset_hash: str
    uses_chance: bool
    hidden_info: bool
    diagnostics: list[Diagnostic] = field(default_factory=list)
    num_actions: int = 0
    scope: Scope = field(default_factory=Scope)
    function_bodies: dict[str, Fn] = field(default_factory=dict)
    procedure_bodies: dict[str, Exec] = field(default_factory=dict)
    state_graphs: dict[str, Fn] = field(default_factory=dict)  # graphs whose edges are computed from a state

    def budget(self) -> R.Budget:
        """A fresh work budget for one move (or one setup, or one legal-move listing)."""
        limits = self.limits
        return R.Budget(limits["iterations_per_move"], limits["max_depth"], limits["copies_per_move"])

    def compiler(self) -> Compiler:
        """A compiler for code written outside the ruleset (scenario checks) that calls its functions.

        Compile with `self.scope`; user function and procedure calls then find the
        bodies compiled at load time, so extra code sees exactly the game's names.
        """
        compiler = Compiler()
        compiler.function_bodies = self.function_bodies
        compiler.procedure_bodies = self.procedure_bodies
        return compiler


class ModelBuilder:
    """Compiles ruleset data into a `GameModel`, collecting diagnostics."""

    def __init__(self, data: dict, smap: SourceMap, players: int | None, variant: str | None,
                 disabled_rules: frozenset[str] = frozenset()):
        self.data = data
        self.smap = smap
        self.variant = variant
        self.diags: list[Diagnostic] = []
        self.compiler = Compiler()
        self.disabled = disabled_rules
        self.cited: dict[str, list[tuple]] = {}
        self.mutable: set[str] = set()
        self.requested_players = players
        self.lines = SourceLines()
        for doc in smap.documents():
            self.lines.add(doc.file, doc.text)

    # --------------------------------------------------------------- helpers
    def diag(self, code: str, message: str, path: tuple, hint: str = "", severity: str = "error",
             key: bool = False) -> None:
        file, line, col, source = self.smap.where(path, key=key)
        self.diags.append(Diagnostic(code, message, file, line, col, severity, hint, format_path(path), source))

    def _problem(self, p: CompileProblem) -> None:
        hint = p.hint or (UNKNOWN_NAME_HINT if p.code == "RP210" else "")
        self.diags.append(Diagnostic(p.code, p.message, p.pos.file, p.pos.line, p.pos.col, hint=hint,
                                     source_line=self.lines.line(p.pos.file, p.pos.line)))

    def _flush_problems(self) -> None:
        for p in self.compiler.problems:
            self._problem(p)
        self.compiler.problems.clear()

    def cite(self, rules: str | list | None, path: tuple, mutable: bool = False) -> None:
        """Record citations; `mutable` ones sit where mutation testing can switch them off."""
        for rule in rule_list(rules):
            self.cited.setdefault(rule, []).append(path)
            if mutable:
                self.mutable.add(rule)

    def off(self, rules: str | list | None) -> bool:
        return any(r in self.disabled for r in rule_list(rules))

    def _cites_in(self, node: Any, path: tuple) -> None:
        for n in A.walk(node):
            if isinstance(n, A.Cited):
                self.cite(n.rule, path, mutable=True)

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
        self._cites_in(node, path)
        return node

    def expr(self, path: tuple, scope: Scope, default: Fn | None = None) -> Fn | None:
        node = self.parse(path, effects=False)
        if node is None:
            return default
        fn = self.compiler.expr(node, scope)
        self._flush_problems()
        return fn

    def effects(self, path: tuple, scope: Scope) -> Exec:
        node = self.parse(path, effects=True)
        if node is None:
            return _noop
        fn = self.compiler.block(node, scope)
        self._flush_problems()
        return fn

    # ----------------------------------------------------------------- build
    def build(self) -> GameModel | None:
        d = self.data
        name = d.get("game", "game")
        prange = d.get("players", 2)
        if isinstance(prange, dict):
            lo, hi = prange.get("min", 2), prange.get("max", 2)
            default = prange.get("default", lo)
        else:
            lo = hi = default = prange
        if lo > hi:
            self.diag("RP301", f"players: min {lo} is greater than max {hi}", ("players",),
                      hint="swap the two numbers")
        players = self.requested_players if self.requested_players is not None else default
        if not lo <= players <= hi:
            self.diag("RP302", f"{name} is for {lo}-{hi} players, not {players}", ("players",),
                      hint=f"use --players between {lo} and {hi}")
            return None

        if not (d.get("flow") or {}).get("phases"):
            self.diag("RP102", "`flow:` is missing: a game needs at least one phase to be played", (),
                      hint="add flow: {phases: [{name: play, actions: [...]}]}")
        limits = dict(DEFAULT_LIMITS)
        limits.update(d.get("limits") or {})
        constants = dict(d.get("constants") or {})
        comp_ids, by_kind, props = self.components(limits)
        boards = {n: Grid(n, b["width"], b["height"]) for n, b in (d.get("boards") or {}).items()}
        graphs, nx_graphs = self.graphs(boards)

        state_names = frozenset((d.get("state") or {}).keys())
        clash = state_names & frozenset(constants)
        for n in sorted(clash):
            self.diag("RP214", f"`{n}` is both a constant and a state variable", ("state", n), key=True,
                      hint="rename one of the two")
        functions = {n: Callable_(n, tuple(f.get("params") or ())) for n, f in (d.get("functions") or {}).items()}
        procedures = {n: Callable_(n, tuple(f.get("params") or ())) for n, f in (d.get("procedures") or {}).items()}
        scope = Scope(state_names, constants, frozenset(), functions, procedures, self.disabled)

        for n, f in (d.get("functions") or {}).items():
            self.cite(f.get("rule"), ("functions", n))
            body = self.expr(("functions", n, "value"), scope.only_locals(*functions[n].params))
            self.compiler.function_bodies[n] = body or (lambda ctx: None)
        for n, f in (d.get("procedures") or {}).items():
            self.cite(f.get("rule"), ("procedures", n), mutable=True)
            body = self.effects(("procedures", n, "effects"), scope.only_locals(*procedures[n].params))
            self.compiler.procedure_bodies[n] = _noop if self.off(f.get("rule")) else body

        vars_ = self.variables(scope)
        setup = self.effects(("setup",), scope)
        actions = self.actions(scope, players, props, comp_ids, by_kind, boards, graphs, constants)
        flow = d.get("flow") or {}
        phases = self.phases(scope, actions)
        end = []
        for i, e in enumerate(d.get("end") or []):
            self.cite(e.get("rule"), ("end", i), mutable=True)
            fn = self.expr(("end", i, "when"), scope)
            if fn is not None:
                end.append(EndCondition(fn, e.get("at", "now"), first_rule(e.get("rule")),
                                        self.off(e.get("rule")), ("end", i)))
        scoring = d.get("scoring") or {}
        self.cite(scoring.get("rule"), ("scoring",))
        pscope = scope.with_locals("p")
        score = self.expr(("scoring", "score"), pscope)
        tiebreak = [f for i in range(len(scoring.get("tiebreak") or []))
                    if (f := self.expr(("scoring", "tiebreak", i), pscope)) is not None]
        returns = self.expr(("scoring", "returns"), pscope)
        invariants = []
        for i, inv in enumerate(d.get("invariants") or []):
            self.cite(inv.get("rule"), ("invariants", i))
            fn = self.expr(("invariants", i, "check"), scope)
            if fn is not None:
                invariants.append(Invariant(fn, inv.get("message", inv["check"]), first_rule(inv.get("rule")),
                                            ("invariants", i)))
        triggers = []
        for i, t in enumerate(d.get("triggers") or []):
            self.cite(t.get("rule"), ("triggers", i), mutable=True)
            when = self.expr(("triggers", i, "when"), scope)
            effects = self.effects(("triggers", i, "effects"), scope)
            if when is not None and not self.off(t.get("rule")):
                triggers.append(Trigger(when, effects, rule_list(t.get("rule")), ("triggers", i)))
        render = self.render(scope)
        for i, a in enumerate(d.get("assumptions") or []):
            res = a.get("resolves")
            for r in ([res] if isinstance(res, str) else res or []):
                self.cite(r, ("assumptions", i))

        if any(e.severity == "error" for e in self.diags):
            return None

        hidden = any(v.visibility != "public" or v.visible_if is not None for v in vars_.values())
        uses_chance = any(a.chance for a in actions.values()) or any(
            isinstance(n, A.ListOp) and n.op == "shuffle"
            for text_path in self._effect_paths() for n in A.walk(self.parse(text_path, True)))
        texts = "\n".join(doc.text for doc in self.smap.documents())
        model = GameModel(
            name=name, title=d.get("title", name), description=d.get("description", ""),
            players=players, min_players=lo, max_players=hi, variant=self.variant,
            variants=sorted((d.get("variants") or {}).keys()), data=d, source=self.smap,
            constants=constants, component_ids=comp_ids, components_by_kind=by_kind,
            component_props=props, boards=boards, graphs=graphs, nx_graphs=nx_graphs, vars=vars_,
            setup=setup, start_player=self.expr(("flow", "start_player"), scope),
            rotate_start=bool(flow.get("rotate_start", False)),
            skip_if=self.expr(("flow", "skip_if"), scope.with_locals("p")),
            on_round_begin=self.effects(("flow", "on_round_begin"), scope),
            on_round_end=self.effects(("flow", "on_round_end"), scope),
            phases=phases, phase_order=[p["name"] for p in flow.get("phases") or []],
            actions=actions, end=end, score=score, tiebreak=tiebreak, returns=returns,
            invariants=invariants, triggers=triggers, render=render, assumptions=list(d.get("assumptions") or []),
            spec=d.get("spec"), cited_rules=self.cited, mutable_rules=self.mutable, limits=limits,
            ruleset_hash=hashlib.sha256(
                (texts + json.dumps([self.variant, players], sort_keys=True)).encode()).hexdigest()[:16],
            uses_chance=uses_chance, hidden_info=hidden, scope=scope,
            function_bodies=self.compiler.function_bodies, procedure_bodies=self.compiler.procedure_bodies,
        )
        model.state_graphs = {n: fn for n, spec in (d.get("graphs") or {}).items() if "state" in spec
                              and (fn := self.expr(("graphs", n, "state"), scope)) is not None}
        index = 0
        for a in actions.values():
            a.first_index = index
            index += a.size
        model.num_actions = index
        return model

    def _effect_paths(self) -> list[tuple]:
        d = self.data
        paths: list[tuple] = [("setup",)]
        paths += [("actions", n, "effects") for n in d.get("actions") or {}]
        paths += [("procedures", n, "effects") for n in d.get("procedures") or {}]
        for i, p in enumerate((d.get("flow") or {}).get("phases") or []):
            paths += [("flow", "phases", i, "on_begin"), ("flow", "phases", i, "on_end")]
        paths += [("flow", "on_round_begin"), ("flow", "on_round_end")]
        paths += [("triggers", i, "effects") for i in range(len(d.get("triggers") or []))]
        return paths

    # ------------------------------------------------------------ components
    def components(self, limits: dict) -> tuple[list[str], dict[str, list[str]], dict[str, dict]]:
        ids: list[str] = []
        by_kind: dict[str, list[str]] = {}
        props: dict[str, dict] = {}
        for kind, spec in (self.data.get("components") or {}).items():
            self.cite(spec.get("rule"), ("components", kind))
            declared = spec.get("properties") or {}
            for i, item in enumerate(spec.get("items") or []):
                path = ("components", kind, "items", i)
                base = {k: v for k, v in item.items() if k not in ("id", "copies")}
                for key in ("kind",):
                    if key in base or key in declared:
                        self.diag("RP215", f"component property {key!r} is reserved (the engine sets it)",
                                  path + (key,) if key in base else ("components", kind, "properties", key),
                                  hint="rename the property; `x.kind` is the component's kind, `x.id` its id",
                                  key=True)
                for key in base:
                    if declared and key not in declared:
                        self.diag("RP215", f"property {key!r} is not declared for component kind {kind!r}",
                                  path + (key,), hint=f"declared: {', '.join(declared) or 'none'}", key=True)
                for key in declared:
                    if key not in base:
                        self.diag("RP215", f"component {item['id']!r} lacks property {key!r}", path,
                                  hint="give every item of the kind each declared property")
                copies = item.get("copies", 1)
                names = [item["id"]] if copies == 1 else [f"{item['id']}#{k + 1}" for k in range(copies)]
                for cid in names:
                    if cid in props:
                        self.diag("RP216", f"component id {cid!r} is used twice", path + ("id",),
                                  hint="ids must be unique; `copies: N` makes numbered copies of one item")
                        continue
                    props[cid] = {**base, "kind": kind, "id": cid}
                    ids.append(cid)
                    by_kind.setdefault(kind, []).append(cid)
                if len(ids) > limits["max_components"]:
                    self.diag("RP503", f"more than {limits['max_components']} components", path,
                              hint="raise limits.max_components if the game really needs it")
                    return ids, by_kind, props
        return ids, by_kind, props

    # ---------------------------------------------------------------- graphs
    def graphs(self, boards: dict[str, Grid]) -> tuple[dict[str, dict], dict[str, Any]]:
        out: dict[str, dict] = {}
        nxs: dict[str, Any] = {}
        if not self._board_graphs_fit(boards):
            return out, nxs
        for name, spec in (self.data.get("graphs") or {}).items():
            path = ("graphs", name)
            if "state" in spec:
                continue  # built from a state when exported, see `state_graphs`
            directed = bool(spec.get("directed", False))
            g: Any = nx.DiGraph() if directed else nx.Graph()
            if "board" in spec:
                grid = boards.get(spec["board"])
                if grid is None:
                    self.diag("RP210", f"graph {name!r} names unknown board {spec['board']!r}", path + ("board",),
                              hint=f"boards: {listing(boards, 'none declared')}")
                    continue
                g.add_nodes_from(range(grid.size))
                if spec.get("perimeter"):
                    ring = grid.perimeter()
                    g.add_edges_from(zip(ring, ring[1:] + ring[:1]))
                    g = g.subgraph(ring).copy()
                else:
                    g.add_edges_from(grid.edges(spec.get("steps", "king")))
            elif "adjacency" in spec:
                adjacency = spec["adjacency"]
                g.add_nodes_from(adjacency)
                for a, targets in adjacency.items():
                    for b in targets:
                        if str(b) not in adjacency:
                            self.diag("RP304", f"graph {name!r}: {a!r} lists unknown node {b!r}",
                                      path + ("adjacency", a), hint="every node listed needs its own entry")
                        elif not directed and a not in [str(t) for t in adjacency[str(b)]]:
                            self.diag("RP303", f"graph {name!r} is undirected but {a!r} -> {b!r} has no "
                                      f"way back", path + ("adjacency", a),
                                      hint=f"add {a!r} to the list of {b!r}, or set directed: true")
                        g.add_edge(a, str(b))
            else:
                nodes = spec.get("nodes")
                places = [(("nodes", i), n) for i, n in enumerate(nodes or [])]
                places += [(("edges", i, j), n) for i, e in enumerate(spec.get("edges") or []) for j, n in enumerate(e)]
                bad = [where for where, n in places if self._node(n) is None]
                if bad:
                    self.diag("RP304", f"graph {name!r}: a node must be a name, a number or a flat list of them",
                              path + bad[0], hint="maps, null and nested lists cannot be graph nodes")
                    continue
                if nodes is not None:
                    g.add_nodes_from(self._node(n) for n in nodes)
                for i, (a, b) in enumerate(spec.get("edges") or []):
                    a, b = self._node(a), self._node(b)
                    if nodes is not None and (a not in g or b not in g):
                        self.diag("RP304", f"graph {name!r}: edge {[a, b]} uses a node not in `nodes`",
                                  path + ("edges", i), hint="add the node to `nodes:`, or fix the edge")
                    g.add_edge(a, b)
            nxs[name] = g
            out[name] = flatten_graph(g)
        return out, nxs

    def _board_graphs_fit(self, boards: dict[str, Grid]) -> bool:
        """Refuse, before building any, board graphs too big to build: one short line can ask for a huge one."""
        links = 0  # cells times step directions, over every board graph
        for name, spec in (self.data.get("graphs") or {}).items():
            grid = boards.get(spec.get("board")) if isinstance(spec.get("board"), str) else None
            if grid is None:
                continue
            links += grid.size * (1 if spec.get("perimeter") else len(DIRECTION_SETS[spec.get("steps", "king")]))
            if links > MAX_BOARD_GRAPH_LINKS:
                self.diag("RP503", f"the board graphs have more than {MAX_BOARD_GRAPH_LINKS} links in all",
                          ("graphs", name), hint="each graph on a board costs time and memory per cell; "
                          "use fewer graphs or smaller boards")
                return False
        return True

    @staticmethod
    def _node(v: Any) -> Any:
        """A graph node as networkx keeps it (hashable: a list becomes a tuple), or None if it cannot be one."""
        flat = (str, int, float)
        if isinstance(v, flat):
            return v
        if isinstance(v, list) and all(isinstance(x, flat) for x in v):
            return tuple(v)
        return None

    # ------------------------------------------------------------- variables
    def variables(self, scope: Scope) -> dict[str, VarDecl]:
        out = {}
        for name, spec in (self.data.get("state") or {}).items():
            path = ("state", name)
            per = bool(spec.get("per_player", False))
            vis = spec.get("visibility", "public")
            if vis == "owner" and not per:
                self.diag("RP305", f"`{name}`: visibility owner needs per_player: true", path + ("visibility",),
                          hint="owner visibility shows each player their own entry")
            init_scope = scope.with_locals("p") if per else scope
            init = self.expr(path + ("init",), init_scope, default=lambda ctx: None)
            item_scope = scope.with_locals("item", "index", "viewer", "owner")
            out[name] = VarDecl(name, per, vis, init, self.expr(path + ("visible_if",), item_scope),
                                self.expr(path + ("back",), item_scope), spec.get("type", "any"))
        return out

    # --------------------------------------------------------------- actions
    def actions(self, scope: Scope, players: int, props: dict, comp_ids: list, by_kind: dict,
                boards: dict, graphs: dict, constants: dict) -> dict[str, Action]:
        static = _StaticModel(comp_ids, by_kind, props, boards, graphs)
        out = {}
        for name, spec in (self.data.get("actions") or {}).items():
            path = ("actions", name)
            self.cite(spec.get("rule"), path, mutable=True)
            params: list[Param] = []
            local: list[str] = []
            for pname, pspec in (spec.get("params") or {}).items():
                ppath = path + ("params", pname)
                of_path = ppath if isinstance(pspec, str) else ppath + ("of",)
                of_fn = self.expr(of_path, scope.only_locals())
                universe: list = []
                if of_fn is not None:
                    ctx = R.Ctx({}, {"players": players}, static)
                    try:
                        with R.recursion_guard():  # deep calls inside deep expressions pass Python's limit
                            universe = of_fn(ctx)
                    except KeyError:
                        self.diag("RP220", f"the values of parameter {pname!r} must not depend on the state",
                                  of_path, hint="put the full set of values in `of:` and narrow it with `from:`"
                                  " or `where:`")
                    except R.RuleRuntimeError as err:
                        self.diag("RP220", f"cannot compute the values of parameter {pname!r}: {err.message}",
                                  of_path, hint=err.hint or "`of:` is computed once, when the game loads")
                    if not isinstance(universe, list):
                        self.diag("RP221", f"`of:` of parameter {pname!r} must be a list", of_path,
                                  hint="write the values as a list, e.g. range(7) or cells(\"grid\")")
                        universe = []
                    elif not universe and not self.diags:
                        self.diag("RP221", f"parameter {pname!r} has no possible values", of_path,
                                  severity="warning")
                    elif len(universe) != len({json.dumps(v, sort_keys=True) for v in universe}):
                        self.diag("RP221", f"`of:` of parameter {pname!r} lists a value twice", of_path,
                                  hint="each value is one move; remove the repeats, e.g. with unique()")
                pscope = scope.with_locals(*local)
                source = where = None
                if isinstance(pspec, dict):
                    source = self.expr(ppath + ("from",), pscope)
                    where = self.expr(ppath + ("where",), pscope.with_locals(pname))
                local.append(pname)
                params.append(Param(pname, universe, source, where, ppath))
            ascope = scope.with_locals(*local)
            requires = []
            for i, r in enumerate(spec.get("require") or []):
                rpath = path + ("require", i)
                if isinstance(r, str):
                    fn = self.expr(rpath, ascope)
                    rule, message = None, r
                else:
                    fn = self.expr(rpath + ("check",), ascope)
                    rule, message = r.get("rule"), r.get("message") or r.get("check")
                    self.cite(rule, rpath, mutable=True)
                if fn is not None:
                    if self.off(rule):
                        fn = lambda ctx: True  # noqa: E731 - mutation testing: the rule is switched off
                    check_path = rpath if isinstance(r, str) else rpath + ("check",)
                    level = self.param_level(check_path, local)
                    requires.append(Requirement(fn, first_rule(rule), message, rpath, level))
            weight = self.expr(path + ("weight",), ascope)
            effects = self.effects(path + ("effects",), ascope)
            out[name] = Action(name, rule_list(spec.get("rule")), bool(spec.get("chance", False)), weight,
                               params, requires, effects, self.off(spec.get("rule")), path)
        return out

    def param_level(self, path: tuple, params: list[str]) -> int:
        """The last parameter an expression reads, so legal-move search can test it early."""
        text = self.get(path)
        try:
            node = parse_expr(text, self.smap.origin(path))
        except DslSyntaxError:
            return len(params) - 1
        used = {n.name for n in A.walk(node) if isinstance(n, A.Name)}
        return max((i for i, name in enumerate(params) if name in used), default=-1)

    # ---------------------------------------------------------------- phases
    def phases(self, scope: Scope, actions: dict[str, Action]) -> dict[str, Phase]:
        flow = self.data.get("flow") or {}
        out: dict[str, Phase] = {}
        for i, spec in enumerate(flow.get("phases") or []):
            path = ("flow", "phases", i)
            name = spec["name"]
            if name in out:
                self.diag("RP216", f"phase {name!r} is declared twice", path + ("name",),
                          hint="phase names must be unique")
            self.cite(spec.get("rule"), path)
            for j, a in enumerate(spec.get("actions") or []):
                if a not in actions:
                    self.diag("RP210", f"phase {name!r} lists unknown action {a!r}", path + ("actions", j),
                              hint=self.compiler.suggest(str(a), lambda: sorted(actions))
                              or f"actions: {listing(actions)}")
            stages = {}
            for sname, sspec in (spec.get("stages") or {}).items():
                for j, a in enumerate(sspec.get("actions") or []):
                    if a not in actions:
                        self.diag("RP210", f"stage {sname!r} lists unknown action {a!r}",
                                  path + ("stages", sname, "actions", j),
                                  hint=self.compiler.suggest(str(a), lambda: sorted(actions))
                                  or f"actions: {listing(actions)}")
                stages[sname] = Stage(sname, list(sspec.get("actions") or []), bool(sspec.get("chance", False)))
            order = spec.get("order", "alternate")
            out[name] = Phase(
                name=name, order=order, first=self.expr(path + ("first",), scope),
                actions=list(spec.get("actions") or []), turn=spec.get("turn", "single"), stages=stages,
                end_if=self.expr(path + ("end_if",), scope), on_begin=self.effects(path + ("on_begin",), scope),
                on_end=self.effects(path + ("on_end",), scope), next=spec.get("next"),
                when_stuck=spec.get("when_stuck", "error"), rule=first_rule(spec.get("rule")), path=path)
        for p in out.values():
            if p.next is not None and p.next not in out:
                self.diag("RP210", f"phase {p.name!r}: next phase {p.next!r} does not exist", p.path + ("next",),
                          hint=self.compiler.suggest(p.next, lambda: sorted(out)) or f"phases: {listing(out)}")
        return out

    # ---------------------------------------------------------------- render
    def render(self, scope: Scope) -> list[RenderItem]:
        out = []
        for i, spec in enumerate(self.data.get("render") or []):
            path = ("render", i)
            show = self.expr(path + ("show",), scope)
            cell = self.expr(path + ("cell",), scope.with_locals("item", "index"))
            kind = spec.get("as", "grid" if spec.get("board") else "value")
            if kind == "grid" and spec.get("board") not in (self.data.get("boards") or {}):
                self.diag("RP210", f"render item {i}: `as: grid` needs an existing `board:`", path,
                          hint="name a board declared under `boards:`")
            if show is not None:
                out.append(RenderItem(show, kind, spec.get("board"), spec.get("label", spec["show"]), cell,
                                      spec.get("width", 3)))
        return out


class _StaticModel:
    """The part of the model visible while static parameter domains are computed."""

    def __init__(self, ids: list, by_kind: dict, props: dict, boards: dict, graphs: dict):
        self.component_ids = ids
        self.components_by_kind = by_kind
        self.component_props = props
        self.boards = boards
        self.graphs = graphs


def node_key(node: Any) -> str:
    if isinstance(node, tuple):
        return str(list(node))
    return node if isinstance(node, str) else str(node)


def flatten_graph(g: Any) -> dict:
    """A networkx graph as plain lookup tables: no networkx call during play."""
    def value(n: Any) -> Any:
        return list(n) if isinstance(n, tuple) else n

    ordered = sorted(g.nodes, key=lambda n: (str(type(n)), n if not isinstance(n, tuple) else tuple(map(str, n))))
    adj = {}
    for n in ordered:
        succ = g.successors(n) if g.is_directed() else g.neighbors(n)
        adj[node_key(n)] = [value(m) for m in sorted(succ, key=lambda m: (str(type(m)), str(m)))]
    return {"nodes": [value(n) for n in ordered], "adj": adj, "value": {node_key(n): value(n) for n in ordered}}
