"""A game's graphs as DOT, GraphML or plain JSON, for drawing and for other tools.

Graphs are taken *at a state*: most are declared statically in the ruleset
(`game.model.nx_graphs`), but a graph declared with `state:` (a station that
grows in play) gets its edges from that expression evaluated on the state,
and becomes a networkx graph only here, at export.  DOT is written here (no
pydot or graphviz needed); GraphML comes from networkx.

A state graph's nodes are any rule values.  A text or a whole number is a
networkx node as itself; any other value (true, 1.0, null, a list, a map)
becomes a `ValueNode` keyed by its JSON text, so networkx neither refuses it
(null, unhashable lists and maps) nor merges it with a value Python calls
equal (true == 1 == 1.0).  In DOT and GraphML every node is named by
`node_id`, which gives distinct nodes distinct names.

Names are text from a ruleset or a saved state, so they may hold control
characters.  XML 1.0 cannot hold most of C0 at all, not even as `&#1;`, so
GraphML of such a graph is refused, naming the node, rather than written
as a file no XML parser reads.  What XML can hold but a terminal would act
on (CR, DEL, C1, bidi controls) is written as a character reference, the
same text to a parser.  DOT writes control characters and `&` as HTML
entities (`&#x1b;`, `&amp;`), which Graphviz decodes in labels: the export
stays printable, and distinct names stay distinct.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass
from typing import Any

import networkx as nx

from ..engine.errors import RuleplayError
from ..engine.game import Game
from ..engine.state import State

FORMATS = ("dot", "graphml")
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_TERMINAL = "\r\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069"  # XML holds them; terminals act on them
_AS_REFERENCE = re.compile(f"[{_TERMINAL}]")
_DOT_ENTITY = re.compile(f"[&\x00-\x08\x0b-\x1f{_TERMINAL}]")


def graphs_at(game: Game, state: State | None = None) -> dict[str, Any]:
    """The game's graphs by name, as they are in `state` (the initial layout if None)."""
    if state is not None and state.game is not game:
        raise ValueError("the state belongs to another game")
    graphs = dict(game.model.nx_graphs)
    if game.model.state_graphs:
        for name, edges in (state or game.new_state()).graph_edges().items():
            graphs[name] = _edge_graph(edges, game.model.data["graphs"][name].get("directed", False))
    return graphs


@dataclass(frozen=True)
class ValueNode:
    """A node value that networkx cannot hold as itself, compared by its canonical JSON text."""

    json: str

    def value(self) -> Any:
        return json.loads(self.json)


def _node(value: Any) -> Any:
    """A rule value as a networkx node; values equal in the rules are one node (`1.0` is the node 1)."""
    if type(value) is float and value.is_integer():
        value = int(value)
    if isinstance(value, str) or (type(value) is int):
        return value
    return ValueNode(json.dumps(value, sort_keys=True, ensure_ascii=False))


def _edge_graph(edges: list, directed: bool) -> Any:
    """A networkx graph from the [a, b] pairs a `state:` graph gave."""
    g: Any = nx.DiGraph() if directed else nx.Graph()
    for a, b in edges:
        g.add_edge(_node(a), _node(b))
    return g


def plain(node: Any) -> Any:
    """A node as a JSON value (a static graph's cells are tuples)."""
    if isinstance(node, ValueNode):
        return node.value()
    return [plain(n) for n in node] if isinstance(node, tuple) else node


def node_id(node: Any) -> str:
    """A node's name in DOT and GraphML: a text as itself, anything else as JSON (`[0, 1]`, `true`).

    A text that reads as JSON is quoted (`"1"`, `"true"`), so it never takes
    the name of the number or value it spells: distinct nodes, distinct names.
    """
    if isinstance(node, str):
        try:
            json.loads(node)
        except ValueError:
            return node
        return json.dumps(node, ensure_ascii=False)
    if isinstance(node, ValueNode):
        return node.json
    return json.dumps(plain(node), sort_keys=True, ensure_ascii=False)


def _reference(match: re.Match[str]) -> str:
    return "&amp;" if match.group() == "&" else f"&#x{ord(match.group()):x};"


def _dot_id(text: str) -> str:
    text = _DOT_ENTITY.sub(_reference, text)
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _dot_attrs(data: dict) -> str:
    if not data:
        return ""
    items = ", ".join(f"{_dot_id(str(k))}={_dot_id(v if isinstance(v, str) else json.dumps(v))}"
                      for k, v in sorted(data.items()))
    return f" [{items}]"


def to_dot(name: str, graph: Any) -> str:
    kind, edge = ("digraph", "->") if graph.is_directed() else ("graph", "--")
    lines = [f"{kind} {_dot_id(name)} {{"]
    for node, data in graph.nodes(data=True):
        lines.append(f"  {_dot_id(node_id(node))}{_dot_attrs(data)};")
    for a, b, data in graph.edges(data=True):
        lines.append(f"  {_dot_id(node_id(a))} {edge} {_dot_id(node_id(b))}{_dot_attrs(data)};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_graphml(graph: Any, name: str = "graph") -> str:
    """GraphML with node ids spelled as in DOT (`[0, 1]`, not `(0, 1)`); valid XML 1.0 or RuleplayError."""
    named = nx.relabel_nodes(graph, {n: node_id(n) for n in graph.nodes})
    # Not nx.generate_graphml: it splits the document with str.splitlines, which also breaks at FF, FS-RS,
    # NEL and U+2028/9 inside names and joins the pieces with newlines, so such a name would come out changed.
    buffer = io.BytesIO()
    nx.write_graphml(named, buffer, encoding="utf-8", prettyprint=True)
    text = buffer.getvalue().decode("utf-8")
    text = text[text.index("<graphml"):] if text.startswith("<?xml") else text
    bad = _NOT_XML.search(text)
    if bad is not None:
        char = f"U+{ord(bad.group()):04X}"
        where = next((f"node {n!r}" for n in named.nodes if _NOT_XML.search(n)), "an attribute")
        raise RuleplayError(f"graph {name!r}: {where} holds {char}, a character XML 1.0 cannot hold at all, "
                            f"so it has no GraphML; export it as DOT (--format dot) or JSON (--json)")
    return _AS_REFERENCE.sub(lambda m: f"&#x{ord(m.group()):x};", text)


def to_plain(graph: Any) -> dict:
    """Nodes and edges as JSON values."""
    return {"directed": graph.is_directed(), "nodes": [plain(n) for n in graph.nodes],
            "edges": [[plain(a), plain(b)] for a, b in graph.edges]}
