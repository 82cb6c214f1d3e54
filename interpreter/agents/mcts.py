"""MCTS: UCT for games of perfect information, with chance nodes sampled.

Each iteration walks down the tree by UCB1 (every decision node maximises
the return of the seat that moves there, so it plays any number of
players), adds one new child, plays a random rollout from it (to the end, or
`depth` moves and then the ruleset's heuristic), and adds the returns of
every seat to each node on the way.  At a chance node the outcome is drawn
by its probability with the agent's generator and followed to the child of
that outcome, so chance is averaged over iterations.  A move (or outcome)
whose effects draw random numbers themselves (a shuffle) is chance inside a
move: it is made again on a generator drawn by the agent at every visit, and
followed to the node of the position it gives (`_Draw`).  The root is given a
generator of the agent's too, so nothing in the search comes from the game's
own generator: a search that read it would know how every future shuffle
comes out.  The move played is the most visited child of the root.

The search reads the whole state, hidden data included: in a game with
hidden information it plays as if it could see everything (use `ismcts`).
"""

from __future__ import annotations

from typing import Any, Hashable

from ..engine.moves import Move
from ..engine.rng import Rng
from ..engine.state import State
from .positions import Positions
from .search import ucb
from .searcher import SearchAgent


class _Node:
    __slots__ = ("position", "children", "untried", "visits", "totals")

    def __init__(self, position: Any, rng: Rng, at: Positions):
        self.position = position
        self.children: dict[Hashable, _Node | _Draw] = {}
        self.untried: list = [] if at.terminal(position) or at.chance(position) else at.shuffled(position, rng)
        self.visits = 0
        self.totals = [0.0] * at.players(position)


class _Draw:
    """A move from `before` whose effects draw random numbers: its positions so far, by their data."""

    __slots__ = ("before", "move", "outcomes", "visits", "totals")

    def __init__(self, before: Any, move: Hashable, players: int):
        self.before, self.move = before, move
        self.outcomes: dict[str, _Node] = {}
        self.visits = 0
        self.totals = [0.0] * players


class MCTSAgent(SearchAgent):
    """UCT with an iteration budget (default) or a time budget; see the module docstring."""

    def decide(self, at: Positions, state: State, moves: list[Move]) -> Move:
        root = _Node(at.reseeded(at.root(state), self.rng), self.rng, at)
        watch = self.settings.stopwatch()
        while watch.more():
            self._iterate(at, root)
            watch.tick()
        # Most visited, then the higher mean, then the rules' order: a fixed choice for a fixed tree.
        me = state.current_player
        names = at.moves(root.position)  # the real moves, as the positions name them, in the same order
        best = max(range(len(moves)), key=lambda k: (root.children[names[k]].visits, root.children[names[k]].totals[me])
                   if names[k] in root.children else (-1, 0.0))
        return moves[best]

    def _iterate(self, at: Positions, root: _Node) -> None:
        node, path = root, [root]
        while not at.terminal(node.position):
            if at.chance(node.position):
                outcome = at.sample_chance(node.position, self.rng)
                child = node.children.get(outcome)
                if child is None:
                    child = node.children[outcome] = self._child(at, node.position, outcome)
                node = self._follow(at, child, path)
                continue
            if node.untried:
                move = node.untried.pop()
                child = node.children[move] = self._child(at, node.position, move)
                node = self._follow(at, child, path)
                break
            node = self._follow(at, self._select(at, node), path)
        returns = at.rollout(node.position, self.rng)
        self.widen(returns)
        for visited in path:
            visited.visits += 1
            for seat, value in enumerate(returns):
                visited.totals[seat] += value

    def _child(self, at: Positions, position: Any, move: Hashable) -> _Node | _Draw:
        """The node after `move`, or a `_Draw` if its effects draw random numbers."""
        after = at.apply(position, move)
        if at.generator(after) != at.generator(position):
            return _Draw(position, move, at.players(position))
        return _Node(after, self.rng, at)

    def _follow(self, at: Positions, child: _Node | _Draw, path: list) -> _Node:
        """The node `child` leads to, added to `path`: `child` itself, or after a `_Draw` both it and the
        node of the position its move gives this time, on a generator of the agent's."""
        path.append(child)
        if isinstance(child, _Node):
            return child
        after = at.advance(at.reseeded(child.before, self.rng), child.move)
        key = at.key(after)
        node = child.outcomes.get(key)
        if node is None:
            node = child.outcomes[key] = _Node(after, self.rng, at)
        path.append(node)
        return node

    def _select(self, at: Positions, node: _Node) -> _Node | _Draw:
        mover, c, spread = at.mover(node.position), self.settings.c, self.spread
        return max(node.children.values(), key=lambda ch: ucb(ch.totals[mover], ch.visits, node.visits, c, spread))
