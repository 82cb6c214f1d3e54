"""A game's graphs as DOT, GraphML or plain JSON, for drawing and for other tools.

Graphs are taken *at a state*: most are declared statically in the ruleset
(`game.model.nx_graphs`), but a graph declared with `state:` (a station that
grows in play) gets its edges from that expression evaluated on the state,
and becomes a networkx graph only here, at export.  DOT is written here (no
pydot or graphviz needed); GraphML comes from networkx.
"""

from __future__ import annotations

import json
from typing import Any

import networkx as nx

from ruleplay.dsl import runtime as R

from .game import Game
from .model import node_key
from .state import State

FORMATS = ("dot", "graphml")


def graphs_at(game: Game, state: State | None = None) -> dict[str, Any]:
    """The game's graphs by name, as they are in `state` (the initial layout if None)."""
    if state is not None and state.game is not game:
        raise ValueError("the state belongs to another game")
    graphs = dict(game.model.nx_graphs)
    if game.model.state_graphs:
        data = (state or game.new_state()).data
        ctx = R.Ctx(data["vars"], data["flow"], game.model)
        for name, edges_of in game.model.state_graphs.items():
            graphs[name] = _edge_graph(name, edges_of(ctx), game.model.data["graphs"][name].get("directed", False))
    return graphs


def _edge_graph(name: str, edges: Any, directed: bool) -> Any:
    """A networkx graph from the [a, b] pairs a `state:` graph gave (list nodes become tuples)."""
    if type(edges) is not list or not all(type(e) is list and len(e) == 2 for e in edges):
        raise R.RuleRuntimeError(f"graph {name!r}: `state:` must give a list of [a, b] edges, not {edges!r:.60}")
    g: Any = nx.DiGraph() if directed else nx.Graph()
    for a, b in edges:
        g.add_edge(*(tuple(n) if isinstance(n, list) else n for n in (a, b)))
    return g


def _dot_id(value: Any) -> str:
    text = node_key(value)
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _dot_attrs(data: dict) -> str:
    if not data:
        return ""
    items = ", ".join(f"{_dot_id(k)}={_dot_id(v if isinstance(v, str) else json.dumps(v))}"
                      for k, v in sorted(data.items()))
    return f" [{items}]"


def to_dot(name: str, graph: Any) -> str:
    kind, edge = ("digraph", "->") if graph.is_directed() else ("graph", "--")
    lines = [f"{kind} {_dot_id(name)} {{"]
    for node, data in graph.nodes(data=True):
        lines.append(f"  {_dot_id(node)}{_dot_attrs(data)};")
    for a, b, data in graph.edges(data=True):
        lines.append(f"  {_dot_id(a)} {edge} {_dot_id(b)}{_dot_attrs(data)};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_graphml(graph: Any) -> str:
    """GraphML with node ids spelled as in DOT and in the engine (`[0, 1]`, not `(0, 1)`)."""
    named = nx.relabel_nodes(graph, {n: node_key(n) for n in graph.nodes})
    return "\n".join(nx.generate_graphml(named)) + "\n"


def to_plain(graph: Any) -> dict:
    """Nodes and edges as JSON values (tuple nodes become lists)."""
    def value(node: Any) -> Any:
        return list(node) if isinstance(node, tuple) else node

    return {"directed": graph.is_directed(), "nodes": [value(n) for n in graph.nodes],
            "edges": [[value(a), value(b)] for a, b in graph.edges]}
