"""Declared graphs as play reads them: nodes equal in the language are one node, others stay apart."""

from __future__ import annotations

import pytest

from ruleplay import RulesetError, load_game

RULESET = """\
ruleplay: 1
game: nodes
players: 2
graphs:
  net:
    edges: [[1, a], ["1", b], [2.5, c], [[0, 1], d], [1.0, e]]
  towns:
    adjacency: {"1": ["2"], "2": ["1"]}
state:
  seen: {init: "[]"}
flow:
  phases:
    - name: play
      actions: [look]
actions:
  look:
    effects: |
      seen = [adjacent("net", 1), adjacent("net", 1.0), adjacent("net", "1"), adjacent("net", true),
              adjacent("net", [0, 1]), adjacent("net", "[0, 1]"), distance("net", "a", "e"),
              adjacent("towns", "1"), adjacent("towns", 1), nodes("net")]
end:
  - when: len(seen) > 0
"""


def test_declared_graph_nodes_are_keyed_as_the_language_compares(tmp_path):
    path = tmp_path / "nodes.yaml"
    path.write_text(RULESET, encoding="utf-8")
    seen = load_game(path).new_state().apply("look").data["vars"]["seen"]
    assert seen[:6] == [["a", "e"], ["a", "e"], ["b"], [], ["d"], []]  # 1.0 joined the node 1
    assert seen[6] == 2  # a - 1 - e
    assert seen[7:9] == [["2"], []]  # adjacency keys are text: the number 1 is not the node "1"
    assert sorted(map(str, seen[9])) == sorted(map(str, [1, 2.5, "1", [0, 1], "a", "b", "c", "d", "e"]))


@pytest.mark.parametrize("graph, message", [
    ("edges: [[1, true]]", "a node must be a name, a number or a flat list of them"),
    ("edges: [[[1, false], 2]]", "a node must be a name, a number or a flat list of them"),
    ('adjacency: {"1": [2], "2": ["1"]}', "'1' lists the int 2, but the nodes of an adjacency graph are its keys"),
    ('adjacency: {"a": [true], "b": []}', "'a' lists the bool true"),
])
def test_nodes_the_language_could_not_tell_apart_are_refused(tmp_path, graph, message):
    path = tmp_path / "nodes.yaml"
    path.write_text(RULESET.replace('edges: [[1, a], ["1", b], [2.5, c], [[0, 1], d], [1.0, e]]', graph),
                    encoding="utf-8")
    with pytest.raises(RulesetError) as err:
        load_game(path)
    first = err.value.diagnostics[0]
    assert first.code == "RP304" and message in first.message and first.hint
