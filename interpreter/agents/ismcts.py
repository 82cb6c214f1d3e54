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

Over the Python engine the tree is `_Tree`'s; over a game's native module
the module holds and walks the same tree (`NativeTree`, an iteration a
call), drawing the same numbers, so the decisions are the same.
"""

from __future__ import annotations

import math

from ..engine.legal import CHANCE
from ..engine.moves import Move
from ..engine.rng import Rng
from ..engine.state import State
from .native_positions import NativePositions
from .native_tree import NativeTree
from .positions import EnginePositions, Positions
from .search import ucb
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
        native = isinstance(at, NativePositions)
        tree = NativeTree(at, me, views, self.settings.c) if native else _Tree(self, at, me, views)
        watch = self.settings.stopwatch()
        while watch.more():
            tree.iterate(sampler.sample(self.rng), self.rng)
            watch.tick()
        self.spread = tree.spread
        best = max(views, key=lambda v: tree.root_edge(v) or (-1, 0.0))
        return views[best]


class _Tree:
    """The tree of one decision over the Python engine's positions; `NativeTree` walks the same tree in the game's
    native module."""

    def __init__(self, agent: SearchAgent, at: EnginePositions, me: int, root_views: dict[str, Move]):
        self.agent, self.at, self.me, self.root_views = agent, at, me, root_views
        self.root = _Node()

    @property
    def spread(self) -> float:
        return self.agent.spread

    def root_edge(self, view: str) -> tuple[int, float] | None:
        """The visits of the root's edge of `view` and its total for the searching seat, or None: no such edge."""
        edge = self.root.edges.get(view)
        return None if edge is None else (edge.visits, edge.totals[self.me])

    def iterate(self, position: State, rng: Rng) -> None:
        """One iteration over determinization `position`, drawing from `rng`: down the tree by the views of the
        moves (at the root only the real moves' views) to a view without an edge, given one, or the end; a rollout
        from there, backed up along the way."""
        at, me, agent = self.at, self.me, self.agent
        node, path = self.root, []
        players = at.players(position)
        expanded = False
        while not expanded:
            mover = at.turn(position)
            if mover is None:
                break
            if mover == CHANCE:
                move = at.sample_chance(position, rng)
                view = at.view(position, move, me)
                edge = node.edges.get(view)
                if edge is None:
                    edge = node.edges[view] = _Edge(players)
                path.append(edge)
                position, node = at.advance(position, move), edge.child
                continue
            by_view = at.views(position, me)
            views = [v for v in by_view if v in self.root_views] if node is self.root else list(by_view)
            if not views:
                return  # this determinization allows none of the real moves: it teaches nothing
            edges = list(map(node.edges.get, views))
            untried = [k for k, edge in enumerate(edges) if edge is None]
            if untried:  # the others counted available, and one of those without an edge, at random, given one
                for edge in edges:
                    if edge is not None:
                        edge.available += 1
                k = untried[rng.below(len(untried))]
                edge = node.edges[views[k]] = _Edge(players)
                edge.available, expanded = 1, True
            else:
                k = _count_and_pick(edges, mover, agent.settings.c, agent.spread)
                edge = edges[k]
            choices = by_view[views[k]]
            path.append(edge)
            position, node = at.advance(position, choices[rng.below(len(choices))]), edge.child
        returns = at.rollout(position, rng)
        agent.widen(returns)
        for edge in path:
            edge.visits += 1
            for seat, value in enumerate(returns):
                edge.totals[seat] += value


def _count_and_pick(edges: list[_Edge], mover: int, c: float, spread: float) -> int:
    """Count every edge available once more, and give the place of the one that then scores highest by
    `search.ucb` for `mover` over the iterations it was available in, the first of equals (as `max` picks)."""
    chosen, top = 0, -math.inf
    for k, edge in enumerate(edges):
        edge.available += 1
        score = ucb(edge.totals[mover], edge.visits, edge.available, c, spread)
        if score > top or k == 0:
            chosen, top = k, score
    return chosen
