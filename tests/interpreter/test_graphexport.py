"""Graphs declared with `state:` are built from a state when exported, not at load."""

from __future__ import annotations

import pytest

from ruleplay import RulesetError, load_game
from ruleplay.dsl.runtime import RuleRuntimeError
from ruleplay.graphexport import graphs_at, to_plain

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
    with pytest.raises(RuleRuntimeError, match="graph 'net': `state:` must give a list of \\[a, b\\] edges"):
        graphs_at(game, game.new_state().apply("link(2)"))


def test_a_graph_has_one_source(tmp_path):
    with pytest.raises(RulesetError) as err:
        load(tmp_path, LINKS.replace('net: {state:', 'net: {edges: [[1, 2]], state:'))
    assert "graphs.net" in err.value.format()
