"""Components, boards and graphs: the game's static material, built once with networkx.

Graphs declared on a board, by adjacency or by edges are built as networkx
graphs (kept for export) and flattened into plain lookup tables, so play
never calls networkx.  Graphs whose edges come from a state (`state:`) are
compiled with the rest of the code, in the model builder.
"""

from __future__ import annotations

import json
from typing import Any

from ruleplay.dsl.checks import listing
from ruleplay.dsl.geometry import DIRECTION_SETS, Grid, step_vector
from ruleplay.dsl.runtime import type_name, value_key

from .context import BuildContext

MAX_BOARD_GRAPH_LINKS = 1_000_000  # a 256x256 king graph has 524288; building one takes about a second


class StaticModel:
    """The part of the model visible while static parameter domains (`of:`) are computed."""

    def __init__(self, ids: list, by_kind: dict, props: dict, boards: dict, graphs: dict):
        self.component_ids = ids
        self.components_by_kind = by_kind
        self.component_props = props
        self.boards = boards
        self.graphs = graphs


def build_components(b: BuildContext, limits: dict) -> tuple[list[str], dict[str, list[str]], dict[str, dict]]:
    """Component ids in declaration order (copies numbered), ids by kind, and each id's properties."""
    ids: list[str] = []
    by_kind: dict[str, list[str]] = {}
    props: dict[str, dict] = {}
    for kind, spec in (b.data.get("components") or {}).items():
        b.cite(spec.get("rule"), ("components", kind))
        declared = spec.get("properties") or {}
        for i, item in enumerate(spec.get("items") or []):
            path = ("components", kind, "items", i)
            base = {k: v for k, v in item.items() if k not in ("id", "copies")}
            _check_properties(b, kind, item, base, declared, path)
            copies = item.get("copies", 1)
            names = [item["id"]] if copies == 1 else [f"{item['id']}#{k + 1}" for k in range(copies)]
            for cid in names:
                if cid in props:
                    b.diag("RP216", f"component id {cid!r} is used twice", path + ("id",),
                           hint="ids must be unique; `copies: N` makes numbered copies of one item")
                    continue
                props[cid] = {**base, "kind": kind, "id": cid}
                ids.append(cid)
                by_kind.setdefault(kind, []).append(cid)
            if len(ids) > limits["max_components"]:
                b.diag("RP503", f"more than {limits['max_components']} components", path,
                       hint="raise limits.max_components if the game really needs it")
                return ids, by_kind, props
    return ids, by_kind, props


def _check_properties(b: BuildContext, kind: str, item: dict, base: dict, declared: dict, path: tuple) -> None:
    for key in ("kind",):
        if key in base or key in declared:
            b.diag("RP215", f"component property {key!r} is reserved (the engine sets it)",
                   path + (key,) if key in base else ("components", kind, "properties", key),
                   hint="rename the property; `x.kind` is the component's kind, `x.id` its id", key=True)
    for key in base:
        if declared and key not in declared:
            b.diag("RP215", f"property {key!r} is not declared for component kind {kind!r}",
                   path + (key,), hint=f"declared: {', '.join(declared) or 'none'}", key=True)
    for key in declared:
        if key not in base:
            b.diag("RP215", f"component {item['id']!r} lacks property {key!r}", path,
                   hint="give every item of the kind each declared property")


def build_boards(b: BuildContext) -> dict[str, Grid]:
    """Every board, with the step sets it declares (checked: a new name, no step twice, none standing still)."""
    boards = {}
    for name, spec in (b.data.get("boards") or {}).items():
        own = {}
        for set_name, steps in (spec.get("steps") or {}).items():
            path = ("boards", name, "steps", set_name)
            if set_name in DIRECTION_SETS:
                b.diag("RP306", f"board {name!r} declares a step set {set_name!r}, the name of a named "
                       f"direction set", path, key=True,
                       hint=f"the named sets ({', '.join(DIRECTION_SETS)}) are on every board; choose another name")
                continue
            vectors = _step_list(b, steps, path)
            if vectors is not None:
                own[set_name] = vectors
        boards[name] = Grid(name, spec["width"], spec["height"], own)
    return boards


def _step_list(b: BuildContext, steps: list, path: tuple) -> tuple[tuple[int, int], ...] | None:
    """The vectors of a list of steps (the schema admits only names and [dx, dy]); None if one is unusable."""
    vectors = tuple(v for v in map(step_vector, steps) if v is not None)
    for i, v in enumerate(vectors):
        if v == (0, 0):
            b.diag("RP306", "a step [0, 0] does not move: a cell would be its own neighbour", path + (i,),
                   hint="remove it; every step must change the cell")
            return None
        if v in vectors[:i]:
            b.diag("RP306", f"the step {list(v)} is listed twice", path + (i,),
                   hint="a named direction and its vector are one step (NE is [1, -1]); list each once")
            return None
    return vectors


def _graph_steps(b: BuildContext, grid: Grid, spec: dict, path: tuple) -> tuple[tuple[int, int], ...] | None:
    """The steps of a board graph: a direction set the board knows, or a list; None (reported) if unknown."""
    steps = spec.get("steps", "king")
    if isinstance(steps, list):
        return _step_list(b, steps, path + ("steps",))
    found = grid.step_set(steps)
    if found is None:
        b.diag("RP210", f"board {grid.name!r} has no direction set {steps!r}", path + ("steps",),
               hint=f"direction sets of {grid.name!r}: {', '.join(grid.set_names())}; "
                    f"or list the steps, e.g. [N, E, S, W]")
    return found


def build_graphs(b: BuildContext, boards: dict[str, Grid]) -> tuple[dict[str, dict], dict[str, Any]]:
    """Every static graph as lookup tables (for play) and as a networkx graph (for export)."""
    out: dict[str, dict] = {}
    nxs: dict[str, Any] = {}
    graphs = b.data.get("graphs") or {}
    if not graphs or not _board_graphs_fit(b, boards) or all("state" in spec for spec in graphs.values()):
        return out, nxs  # graphs made from a state are built when exported: no networkx at load for them
    import networkx as nx  # here, not at the top: a game without static graphs (and `import ruleplay`) never loads it

    for name, spec in graphs.items():
        path = ("graphs", name)
        if "state" in spec:
            continue  # built from a state when exported, see `GameModel.state_graphs`
        directed = bool(spec.get("directed", False))
        g: Any = nx.DiGraph() if directed else nx.Graph()
        if "board" in spec:
            grid = boards.get(spec["board"])
            if grid is None:
                b.diag("RP210", f"graph {name!r} names unknown board {spec['board']!r}", path + ("board",),
                       hint=f"boards: {listing(boards, 'none declared')}")
                continue
            steps = None if spec.get("perimeter") else _graph_steps(b, grid, spec, path)
            if steps is None and not spec.get("perimeter"):
                continue
            g = _board_graph(g, grid, spec, steps or ())
        elif "adjacency" in spec:
            _add_adjacency(b, g, name, spec["adjacency"], directed, path)
        elif not _add_edges(b, g, name, spec, path):
            continue
        nxs[name] = g
        out[name] = flatten_graph(g)
    return out, nxs


def _board_graph(g: Any, grid: Grid, spec: dict, steps: tuple[tuple[int, int], ...]) -> Any:
    g.add_nodes_from(range(grid.size))
    if spec.get("perimeter"):
        ring = grid.perimeter()
        g.add_edges_from(zip(ring, ring[1:] + ring[:1]))
        return g.subgraph(ring).copy()
    g.add_edges_from(grid.edges(steps))
    return g


def _add_adjacency(b: BuildContext, g: Any, name: str, adjacency: dict, directed: bool, path: tuple) -> None:
    """The nodes are the keys, which YAML gives as text (`1:` is the text "1"), so a listed node must be
    text too: the number 1 is not the node "1" in the language, and turning it into one would be a guess."""
    untexts = [(a, i, t) for a, targets in adjacency.items() for i, t in enumerate(targets) if type(t) is not str]
    for a, i, t in untexts:
        b.diag("RP304", f"graph {name!r}: {a!r} lists the {type_name(t)} {json.dumps(t)}, but the nodes of an "
               f"adjacency graph are its keys, which are text", path + ("adjacency", a, i),
               hint=f'quote it ("{t}") to name that node, or list numbered nodes with `edges:`'
               if type(t) in (int, float) and str(t) in adjacency else "list the nodes by their keys")
    if untexts:
        return  # the checks below would only repeat the mistake as missing ways back
    g.add_nodes_from(adjacency)
    for a, targets in adjacency.items():
        for t in targets:
            if t not in adjacency:
                b.diag("RP304", f"graph {name!r}: {a!r} lists unknown node {t!r}",
                       path + ("adjacency", a), hint="every node listed needs its own entry")
            elif not directed and a not in adjacency[t]:
                b.diag("RP303", f"graph {name!r} is undirected but {a!r} -> {t!r} has no "
                       f"way back", path + ("adjacency", a),
                       hint=f"add {a!r} to the list of {t!r}, or set directed: true")
            g.add_edge(a, t)


def _add_edges(b: BuildContext, g: Any, name: str, spec: dict, path: tuple) -> bool:
    """Nodes and edges as listed; False (with a diagnostic) if a node cannot be a graph node."""
    nodes = spec.get("nodes")
    places = [(("nodes", i), n) for i, n in enumerate(nodes or [])]
    places += [(("edges", i, j), n) for i, e in enumerate(spec.get("edges") or []) for j, n in enumerate(e)]
    bad = [where for where, n in places if _node(n) is None]
    if bad:
        b.diag("RP304", f"graph {name!r}: a node must be a name, a number or a flat list of them",
               path + bad[0], hint="booleans, maps, null and nested lists cannot be graph nodes")
        return False
    if nodes is not None:
        g.add_nodes_from(_node(n) for n in nodes)
    for i, (x, y) in enumerate(spec.get("edges") or []):
        x, y = _node(x), _node(y)
        if nodes is not None and (x not in g or y not in g):
            b.diag("RP304", f"graph {name!r}: edge {[x, y]} uses a node not in `nodes`",
                   path + ("edges", i), hint="add the node to `nodes:`, or fix the edge")
        g.add_edge(x, y)
    return True


def _board_graphs_fit(b: BuildContext, boards: dict[str, Grid]) -> bool:
    """Refuse, before building any, board graphs too big to build: one short line can ask for a huge one."""
    links = 0  # cells times step directions, over every board graph
    for name, spec in (b.data.get("graphs") or {}).items():
        grid = boards.get(spec.get("board")) if isinstance(spec.get("board"), str) else None
        if grid is None:
            continue
        steps = spec.get("steps", "king")
        count = len(steps) if isinstance(steps, list) else len(grid.step_set(steps) or ())
        links += grid.size * (1 if spec.get("perimeter") else count)
        if links > MAX_BOARD_GRAPH_LINKS:
            b.diag("RP503", f"the board graphs have more than {MAX_BOARD_GRAPH_LINKS} links in all",
                   ("graphs", name), hint="each graph on a board costs time and memory per cell; "
                   "use fewer graphs or smaller boards")
            return False
    return True


_FLAT = (str, int, float)


def _node(v: Any) -> Any:
    """A graph node as networkx keeps it (hashable: a list becomes a tuple), or None if it cannot be one.

    networkx merges nodes Python calls equal, which is right for 1 and 1.0 (equal in the language too)
    but would make `true` the node 1; booleans are refused, as are lists holding one, so every merge
    networkx makes is one the language makes as well.
    """
    if type(v) in _FLAT:
        return v
    if type(v) is list and all(type(x) in _FLAT for x in v):
        return tuple(v)
    return None


def node_key(node: Any) -> Any:
    """The key a node is looked up by during play: `value_key` of its value, as the graph builtins use."""
    return value_key(list(node) if isinstance(node, tuple) else node)


def flatten_graph(g: Any) -> dict:
    """A networkx graph as plain lookup tables: no networkx call during play.

    `adj` and `value` are keyed by `node_key`, so 1 and 1.0 find one node while 1 and "1" find two.
    """
    def value(n: Any) -> Any:
        return list(n) if isinstance(n, tuple) else n

    ordered = sorted(g.nodes, key=lambda n: (str(type(n)), n if not isinstance(n, tuple) else tuple(map(str, n))))
    adj = {}
    for n in ordered:
        succ = g.successors(n) if g.is_directed() else g.neighbors(n)
        adj[node_key(n)] = [value(m) for m in sorted(succ, key=lambda m: (str(type(m)), str(m)))]
    return {"nodes": [value(n) for n in ordered], "adj": adj, "value": {node_key(n): value(n) for n in ordered}}
