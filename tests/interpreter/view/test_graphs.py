"""Graphs declared with `state:` are built from a state when exported, not at load, from any rule values."""

from __future__ import annotations

import json
import re

import networkx as nx
import pytest

from ruleplay import RuleplayError, RulesetError, load_game
from ruleplay.dsl.runtime import RuleRuntimeError
from ruleplay.view.graphs import graphs_at, node_id, to_dot, to_graphml, to_plain

LINKS = """\
ruleplay: 1
game: links
players: 1
graphs:
  net: {state: "[[a, a + 1] for a in made]"}
state:
  made: {init: "[]"}
flow:
  phases:
    - name: play
      actions: [link]
actions:
  link:
    params:
      a: range(3)
    require: ["a not in made"]
    effects: append a to made
end:
  - when: len(made) == 3
"""


def load(tmp_path, text: str = LINKS):
    path = tmp_path / "links.yaml"
    path.write_text(text, encoding="utf-8")
    return load_game(path)


@pytest.fixture
def game(tmp_path):
    return load(tmp_path)


def test_a_state_graph_is_not_a_static_graph(game):
    assert "net" not in game.model.graphs and "net" not in game.model.nx_graphs
    assert set(game.model.state_graphs) == {"net"}


def test_a_state_graph_follows_the_state(game):
    state = game.new_state()
    start = {n: g for n, g in graphs_at(game, state).items() if n == "net"}
    assert to_plain(start["net"]) == {"directed": False, "nodes": [], "edges": []}
    state = state.apply("link(1)").apply("link(0)")
    net = graphs_at(game, state)["net"]
    assert sorted(tuple(sorted(e)) for e in net.edges) == [(0, 1), (1, 2)]
    assert graphs_at(game)["net"].number_of_edges() == 0  # no state: the initial one


def test_a_state_graph_must_give_edges(tmp_path):
    game = load(tmp_path, LINKS.replace('"[[a, a + 1] for a in made]"', '"made"'))
    assert graphs_at(game)["net"].number_of_edges() == 0
    with pytest.raises(RuleRuntimeError, match="graph 'net': `state:` must give a list of \\[a, b\\] edges") as err:
        graphs_at(game, game.new_state().apply("link(2)"))
    # where the ruleset writes it, and the value as the language writes it (it was Python's repr, unplaced)
    assert (err.value.pos.line, err.value.pos.col) == (5, 17) and str(err.value).endswith("edges, not [2]")
    game = load(tmp_path, LINKS.replace('"[[a, a + 1] for a in made]"', '"[[true, null]] + [made]"'))
    with pytest.raises(RuleRuntimeError, match='not \\[\\[true, null\\], \\[\\]\\]$'):
        graphs_at(game)


def test_a_graph_has_one_source(tmp_path):
    with pytest.raises(RulesetError) as err:
        load(tmp_path, LINKS.replace('net: {state:', 'net: {edges: [[1, 2]], state:'))
    assert "graphs.net" in err.value.format()


def test_any_rule_value_can_be_a_node_and_values_equal_in_the_rules_merge(tmp_path):
    """true and 1 are equal in Python (and to networkx) but not in the rules: two nodes; 1.0 == 1 in the
    rules as in play, so it is the node 1; null, lists and maps export."""
    edges = [[True, 1], [1.0, 2], [None, "1"], [[[1], 2], {"a": [1, 2]}], ["true", "null"]]
    game = load(tmp_path, LINKS.replace('"[[a, a + 1] for a in made]"', '"made"'))
    saved = game.new_state().to_json()
    saved["data"]["vars"]["made"] = edges  # as a saved state (`ruleplay graph --state`) may hold
    net = graphs_at(game, game.state_from_json(json.dumps(saved)))["net"]
    plain = to_plain(net)
    assert plain["nodes"] == [True, 1, 2, None, "1", [[1], 2], {"a": [1, 2]}, "true", "null"]
    assert [type(n) for n in plain["nodes"][:2]] == [bool, int]
    assert plain["edges"] == [[True, 1], [1, 2], [None, "1"], [[[1], 2], {"a": [1, 2]}], ["true", "null"]]
    ids = [node_id(n) for n in net.nodes]
    assert ids == ["true", "1", "2", "null", '"1"', "[[1], 2]", '{"a": [1, 2]}', '"true"', '"null"']
    dot = to_dot("net", net)
    assert '  "true" -- "1";\n  "1" -- "2";\n  "null" -- "\\"1\\"";\n' in dot
    assert dot.count(";") == 9 + 5
    parsed = nx.parse_graphml(to_graphml(net))
    assert sorted(parsed.nodes) == sorted(ids) and parsed.number_of_edges() == 5


def test_node_ids_of_distinct_nodes_differ():
    values = ["a", "1", "true", "null", '"a"', "[1]", "NaN", " 1", 1, -1, (0, 1), ("a",), "[0, 1]", '["a"]']
    ids = [node_id(v) for v in values]
    assert len(set(ids)) == len(values)
    assert ids[:2] == ["a", '"1"'] and node_id((0, 1)) == "[0, 1]"  # cells read as the engine writes them


# ------------------------------------------------------------ names with control characters
def graph_of(names: list[str]) -> nx.Graph:
    g = nx.Graph()
    for a in names:
        g.add_edge(a, "end")
    return g


def test_graphml_is_valid_xml_or_refused_naming_the_node():
    import xml.etree.ElementTree as ET

    kept = ["esc\x1b[2J", "csi\x9b", "bidi\u202eevil", "cr\rlf", "del\x7f", "tab\tx", "amp&lt;", "plain",
            "nel\x85", "ls\u2028"]  # NEL and U+2028 once split names apart (networkx's splitlines)
    text = to_graphml(graph_of([n for n in kept if "\x1b" not in n]), "g")
    tree = ET.fromstring(text)  # valid XML
    ids = {node.get("id") for node in tree.iter("{http://graphml.graphdrawing.org/xmlns}node")}
    assert ids == {n for n in kept if "\x1b" not in n} | {"end"}  # the same names, read back exactly
    assert not any(ch in text for ch in "\x9b\u202e\r\x7f")  # written as references: printable
    for name in ("esc\x1b[2J", "nul\x00", "bell\x07", "ff\x0c", "fs\x1c"):
        with pytest.raises(RuleplayError, match=rf"graph 'g': node {re.escape(repr(name))} holds U\+00"):
            to_graphml(graph_of([name]), "g")


def test_dot_writes_control_characters_as_entities_and_keeps_names_distinct():
    names = ["esc\x1b[2J", "&#x1b;[2J", "amp&", "amp&amp;", "bidi\u202e", "quote\"", "new\nline"]
    dot = to_dot("g", graph_of(names))
    assert not any(ch in dot for ch in "\x1b\u202e")
    assert '"esc&#x1b;[2J"' in dot and '"&amp;#x1b;[2J"' in dot and '"amp&amp;amp;"' in dot
    assert '"quote\\""' in dot and '"new\\nline"' in dot
    node_lines = [line for line in dot.splitlines() if line.endswith(";") and "--" not in line]
    assert len(set(node_lines)) == len(names) + 1


def test_the_graph_command_refuses_graphml_it_cannot_write(tmp_path):
    from click.testing import CliRunner

    from ruleplay.cli import main

    path = tmp_path / "g.yaml"
    path.write_text(LINKS.replace('net: {state: "[[a, a + 1] for a in made]"}',
                                  'net: {edges: [["a\\e[2J", b]]}'), encoding="utf-8")
    result = CliRunner().invoke(main, ["graph", str(path), "--format", "graphml"])
    assert result.exit_code == 1 and "holds U+001B, a character XML 1.0 cannot hold" in result.output
    dot = CliRunner().invoke(main, ["graph", str(path)])
    assert dot.exit_code == 0 and '"a&#x1b;[2J"' in dot.output and "\x1b" not in dot.output
