"""ISMCTS: single-observer information-set MCTS (Cowling, Powley and Whitehouse, 2012).

Each iteration draws a determinization — a full state the agent cannot tell
from the real one (`engine.determinize`) — and walks one shared tree with
it.  The tree is the agent's own view of the game: an edge is a move as the
agent is shown it (`move_view`), so an opponent's `keep_special(?)` is one
edge whatever card was kept, and a deal the agent sees half of is keyed by
that half.  Following an edge in a determinization plays one of the moves
legal there that look that way.  Edges not legal in every determinization
are chosen by UCB over the iterations in which they were available.

The search never reads the real state's hidden data: only the
determinizations, which agree with what the agent observes.
"""

from __future__ import annotations

import math
from typing import Any

from ..engine.moves import Move
from ..engine.state import State
from .positions import Positions
from .searcher import SearchAgent


class _Edge:
    __slots__ = ("child", "visits", "available", "totals")

    def __init__(self, players: int):
        self.child = _Node()
        self.visits = 0
        self.available = 0
        self.totals = [0.0] * players


class _Node:
    __slots__ = ("edges",)

    def __init__(self) -> None:
        self.edges: dict[str, _Edge] = {}


class ISMCTSAgent(SearchAgent):
    """Single-observer ISMCTS over determinizations; budgets and rollouts as in `mcts`."""

    def decide(self, at: Positions, state: State, moves: list[Move]) -> Move:
        me = state.current_player
        views = {}  # the real moves by how this seat sees them: the root's edges
        for move in moves:
            views.setdefault(state.move_view(move, me), move)
        sampler = at.sampler(state, me)
        root = _Node()
        watch = self.settings.stopwatch()
        while watch.more():
            self._iterate(at, root, sampler.sample(self.rng), me, set(views))
            watch.tick()
        edges = root.edges
        best = max(views, key=lambda v: (edges[v].visits, edges[v].totals[me]) if v in edges else (-1, 0.0))
        return views[best]

    def _iterate(self, at: Positions, root: _Node, position: Any, me: int, root_views: set[str]) -> None:
        node, path = root, []
        players = at.players(position)
        expanded = False
        while not at.terminal(position) and not expanded:
            if at.chance(position):
                move = at.sample_chance(position, self.rng)
                view = at.view(position, move, me)
                edge = node.edges.get(view)
                if edge is None:
                    edge = node.edges[view] = _Edge(players)
                path.append(edge)
                position, node = at.apply(position, move), edge.child
                continue
            by_view = at.views(position, me)
            if node is root:
                by_view = {v: ms for v, ms in by_view.items() if v in root_views}
                if not by_view:
                    return  # this determinization allows none of the real moves: it teaches nothing
            untried = []
            for view in by_view:
                edge = node.edges.get(view)
                if edge is None:
                    untried.append(view)
                else:
                    edge.available += 1
            if untried:
                view = untried[self.rng.below(len(untried))]
                edge = node.edges[view] = _Edge(players)
                edge.available = 1
                expanded = True
            else:
                view = _most_promising(node.edges, by_view, at.mover(position), self.settings.c, self.spread)
                edge = node.edges[view]
            choices = by_view[view]
            path.append(edge)
            position, node = at.apply(position, choices[self.rng.below(len(choices))]), edge.child
        returns = at.rollout(position, self.rng)
        self.widen(returns)
        for edge in path:
            edge.visits += 1
            for seat, value in enumerate(returns):
                edge.totals[seat] += value


def _most_promising(edges: dict[str, _Edge], views: dict[str, list], mover: int, c: float, spread: float) -> str:
    """The view whose edge scores highest by `search.ucb` for `mover`, the first of equals (as `max` picks).

    `ucb` is written out here, operation for operation (so each score is the same float), since this runs at
    every node of every iteration and a call per edge was a tenth of a native search's time."""
    log, sqrt = math.log, math.sqrt
    chosen, top = None, 0.0
    for view in views:
        edge = edges[view]
        visits = edge.visits
        score = (edge.totals[mover] / visits / spread + c * sqrt(log(edge.available) / visits) if visits
                 else math.inf)
        if chosen is None or score > top:
            chosen, top = view, score
    assert chosen is not None
    return chosen
