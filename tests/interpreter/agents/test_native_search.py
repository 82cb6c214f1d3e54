"""Search agents on the native backend make the Python engine's decisions, for the same seed and budget.

Every built-in game is played by `mcts` and `ismcts` on both backends,
seat by seat with the same seeds, and the moves must agree move for move;
on the native backend every decision must have been searched in the module
(none handed back), so the agreement is the module's.  A ruleset whose
ints pass 64 bits makes the module give up on positions and rollouts: the
Python engine takes those over and the decisions still agree.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from ruleplay import load_game
from ruleplay.agents import make_agent, native_tree
from ruleplay.agents.native_positions import NativePositions
from ruleplay.agents.ismcts import _Tree
from ruleplay.agents.native_tree import NativeTree
from ruleplay.agents.positions import EnginePositions
from ruleplay.agents.search import CutOff, rollout
from ruleplay.engine.loader import builtin_games
from ruleplay.engine.rng import Rng

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine" / "native"))
from native_support import native_of  # noqa: E402

DECISIONS = 10  # decisions with a choice per game and agent


def _play(game, spec: str, backend: str, seed: int = 3) -> tuple[list[str], list]:
    """The moves of one game (at most DECISIONS searched decisions), every seat played by `spec`."""
    state = game.new_state(seed)
    agents = [make_agent(spec, 11 + k, backend) for k in range(game.info.players)]
    moves, searched = [], 0
    while not state.is_terminal() and searched < DECISIONS:
        if state.is_chance_node():
            state.apply_chance_in_place()
            continue
        searched += len(state.legal_moves()) > 1
        move = agents[state.current_player].choose(state)
        moves.append(str(move))
        state.apply_in_place(move)
    return moves, agents


@pytest.mark.parametrize("name", sorted(builtin_games()))
@pytest.mark.parametrize("spec", ["mcts:iterations=40:depth=6", "ismcts:iterations=40:depth=6", "mcts:iterations=25"])
def test_native_search_decides_as_python(name, spec):
    game = load_game(name)
    native_of(game)
    python_moves, _ = _play(game, spec, "python")
    native_moves, agents = _play(game, spec, "native")
    assert native_moves == python_moves
    assert sum(a.bails for a in agents) == 0
    assert sum(a.natively for a in agents) >= min(DECISIONS, 1)


def test_native_search_scale_and_order_only():
    game = load_game("nautilus-cards")
    native_of(game)
    for spec in ("mcts:iterations=30:depth=3:scale=0", "mcts:iterations=30:depth=3:scale=0.5"):
        assert _play(game, spec, "native")[0] == _play(game, spec, "python")[0]


BIG = """\
ruleplay: 1
game: big-ints
players: 2
state:
  x: {init: "1"}
  n: {init: "0"}
flow:
  phases:
    - {name: play, order: alternate, actions: [grow, keep]}
actions:
  grow:
    effects: |
      n += 1
      x = x * 1000
  keep:
    params:
      v: {of: "[1, 2]"}
    effects: |
      n += v
end:
  - when: n >= 16
scoring:
  score: "if x > 1000000000000000000 then 1 else 0"
"""


def test_positions_and_rollouts_the_module_gives_up_on_are_searched_on_python(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_text(textwrap.dedent(BIG), encoding="utf-8")
    game = load_game(str(path))
    native_of(game)
    python_moves, _ = _play(game, "mcts:iterations=30", "python")
    native_moves, agents = _play(game, "mcts:iterations=30", "native")
    assert native_moves == python_moves
    assert sum(a.natively for a in agents) > 0  # the first positions are searched in the module
    assert sum(a.bails for a in agents) > 0  # later ones (ints past 64 bits) on the Python engine


def test_advance_makes_the_move_in_place_where_apply_makes_it_on_a_copy():
    game = load_game("nautilus-cards")
    at = NativePositions(native_of(game), CutOff(None, None), None)
    rng = Rng(5)
    walked, steps = at.root(game.new_state(5)), 0
    while not at.terminal(walked):
        if at.chance(walked):
            move = at.sample_chance(walked, rng)
        else:
            moves = at.moves(walked)
            move = moves[rng.below(len(moves))]
        before = at.key(walked)
        copied = at.apply(walked, move)
        assert at.key(walked) == before
        assert at.advance(walked, move) is walked
        assert at.key(walked) == at.key(copied) != before
        steps += 1
    assert steps > 20


def _root_statistics(state, backend: str, iterations: int) -> tuple[dict, float]:
    """Each root view's (visits, total for the seat) after `iterations` of one ismcts decision's tree, and the
    spread, searched over `backend`'s positions."""
    agent = make_agent(f"ismcts:iterations={iterations}", 3, backend)
    cut = CutOff.of(state, agent.settings)
    at = agent._native(state, cut) if backend == "native" else EnginePositions(cut, None)
    me = state.current_player
    views = {state.move_view(move, me): move for move in state.legal_moves()}
    tree = NativeTree(at, me, views, agent.settings.c) if backend == "native" else _Tree(agent, at, me, views)
    sampler = at.sampler(state, me)
    for _ in range(iterations):
        tree.iterate(sampler.sample(agent.rng), agent.rng)
    return {view: tree.root_edge(view) for view in views}, tree.spread


def test_ismcts_rollouts_the_module_gives_up_on_are_played_on_python_and_backed_up(tmp_path, monkeypatch):
    """Rollouts to the end of this game pass 64 bits (the module gives up on them): the Python engine plays them
    from the same generator state, and the tree backs their returns up as the Python tree does."""
    path = tmp_path / "big.yaml"
    path.write_text(textwrap.dedent(BIG).replace("then 1 else 0", "then p else 1 - p"), encoding="utf-8")
    game = load_game(str(path))
    native_of(game)
    played = []

    def counted(*args):
        played.append(args)
        return rollout(*args)

    monkeypatch.setattr(native_tree, "rollout", counted)
    state = game.new_state(1)
    native, python = _root_statistics(state, "native", 60), _root_statistics(state, "python", 60)
    assert native == python and played
    assert len({total for _, total in native[0].values()}) > 1
    python_moves, _ = _play(game, "ismcts:iterations=30", "python")
    native_moves, agents = _play(game, "ismcts:iterations=30", "native")
    assert native_moves == python_moves and sum(a.natively for a in agents) > 0


@pytest.mark.parametrize("name", ["nautilus-cards", "kuhn-poker", "lovci-pokladu"])
def test_ismcts_tree_walks_stopped_at_every_new_view_decide_as_python(name, monkeypatch):
    """One (move, mask) pair named a stop: every node with views the tree has not met stops the walk again and
    again, and it goes on from where it stopped (a chance outcome drawn before a stop is not drawn again)."""
    game = load_game(name)
    native_of(game)
    monkeypatch.setattr(native_tree, "ASKED", 1)
    spec = "ismcts:iterations=40:depth=6"
    native_moves, agents = _play(game, spec, "native", seed=5)
    assert native_moves == _play(game, spec, "python", seed=5)[0]
    assert sum(a.bails for a in agents) == 0 and sum(a.natively for a in agents) > 0


@pytest.mark.parametrize("name", sorted(builtin_games()))
def test_ismcts_native_tree_keeps_the_python_tree_statistics(name):
    """Every root edge's visits and total, and the spread, to the last bit, a few moves into each built-in game."""
    game = load_game(name)
    native_of(game)
    walk, rng, state = game.new_state(4), Rng(4), None
    while not walk.is_terminal() and walk.data["flow"]["steps"] < 6:  # the last choice of the first six steps
        if walk.is_chance_node():
            walk.apply_chance_in_place()
            continue
        moves = walk.legal_moves()
        state = walk.copy() if len(moves) > 1 else state
        walk.apply_in_place(moves[rng.below(len(moves))])
    native = _root_statistics(state, "native", 80)
    assert native == _root_statistics(state, "python", 80)
    assert sum(visits for visits, _ in filter(None, native[0].values())) > 0
