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

from ..engine.legal import CHANCE
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
    __slots__ = ("edges", "offers")

    def __init__(self) -> None:
        self.edges: dict[str, _Edge] = {}
        self.offers: dict[int, _Offer] = {}  # what a views grouping offers here, by the grouping's identity


class _Offer:
    """What one grouping of the legal moves by view (`Positions.views`) offers at one node: its views (at the root
    only those of the real moves), their moves, and the node's edge of each view (None for the untried ones,
    looked up again only after the node gains an edge); `edges` once every view has one.  Native positions hand
    back the same grouping for the same legal moves, so an iteration that meets one again counts availability
    and picks by UCB in one pass over a list, with no lookup by view; the grouping is kept here so its identity
    stays its own for the decision."""

    __slots__ = ("grouping", "views", "choices", "slots", "untried", "known", "edges")

    def __init__(self, grouping: dict[str, list], views: list[str], choices: list[list], edges: dict[str, _Edge]):
        self.grouping, self.views, self.choices = grouping, views, choices
        self.slots: list[_Edge | None] = list(map(edges.get, views))
        self.untried = [k for k, edge in enumerate(self.slots) if edge is None] if None in self.slots else []
        self.known = len(edges)  # the node's edges when `slots` was last brought up to date
        self.edges = None if self.untried else self.slots


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
            self._iterate(at, root, sampler.sample(self.rng), me, views)
            watch.tick()
        edges = root.edges
        best = max(views, key=lambda v: (edges[v].visits, edges[v].totals[me]) if v in edges else (-1, 0.0))
        return views[best]

    def _iterate(self, at: Positions, root: _Node, position: Any, me: int, root_views: dict[str, Move]) -> None:
        node, path = root, []
        players = at.players(position)
        expanded = False
        rng = self.rng
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
            offer = node.offers.get(id(by_view))
            if offer is None:
                if node is root:
                    views = [v for v in by_view if v in root_views]
                    offer = _Offer(by_view, views, [by_view[v] for v in views], node.edges)
                else:
                    offer = _Offer(by_view, list(by_view), list(by_view.values()), node.edges)
                node.offers[id(by_view)] = offer
            if not offer.views:
                return  # this determinization allows none of the real moves: it teaches nothing
            k = -1 if offer.edges is not None else self._expand(node, offer, players)
            if k >= 0:
                edge, expanded = offer.slots[k], True
            else:
                k = _count_and_pick(offer.edges, mover, self.settings.c, self.spread)
                edge = offer.edges[k]
            choices = offer.choices[k]
            path.append(edge)
            position, node = at.advance(position, choices[rng.below(len(choices))]), edge.child
        returns = at.rollout(position, rng)
        self.widen(returns)
        for edge in path:
            edge.visits += 1
            for seat, value in enumerate(returns):
                edge.totals[seat] += value

    def _expand(self, node: _Node, offer: _Offer, players: int) -> int:
        """Where some views of `offer` have no edge at `node`: count the others available and give one of those
        without, picked at random, a new edge (available once), and give its place in the offer.  Else -1, and the
        offer keeps its edges for the UCB choice."""
        edges, slots, untried = node.edges, offer.slots, offer.untried
        if offer.known != len(edges):
            views = offer.views
            for k in untried:
                slots[k] = edges.get(views[k])
            untried = offer.untried = [k for k in untried if slots[k] is None]
        if not untried:
            offer.edges = slots
            return -1
        for edge in slots:
            if edge is not None:
                edge.available += 1
        k = untried.pop(self.rng.below(len(untried)))
        edge = slots[k] = edges[offer.views[k]] = _Edge(players)
        edge.available = 1
        offer.known = len(edges)
        return k


def _count_and_pick(edges: list[_Edge], mover: int, c: float, spread: float) -> int:
    """Count every edge available once more, and give the place of the one that then scores highest by
    `search.ucb` for `mover`, the first of equals (as `max` picks).

    `ucb` is written out here, operation for operation (so each score is the same float), since this runs at
    every node of every iteration and a call per edge was a tenth of a native search's time."""
    log, sqrt, inf = math.log, math.sqrt, math.inf
    chosen, top = 0, -inf
    for k, edge in enumerate(edges):
        available = edge.available = edge.available + 1
        visits = edge.visits
        score = edge.totals[mover] / visits / spread + c * sqrt(log(available) / visits) if visits else inf
        if score > top or k == 0:
            chosen, top = k, score
    return chosen
