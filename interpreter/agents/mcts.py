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

import json

from ..engine.moves import Move
from ..engine.rng import Rng
from ..engine.state import State
from .search import CutOff, SearchAgent, rollout, sample_chance, ucb


class _Node:
    __slots__ = ("state", "children", "untried", "visits", "totals")

    def __init__(self, state: State, rng: Rng):
        self.state = state
        self.children: dict[Move, _Node | _Draw] = {}
        self.untried: list[Move] = [] if state.is_terminal() or state.is_chance_node() else state.legal_moves()
        rng.shuffle(self.untried)
        self.visits = 0
        self.totals = [0.0] * state.data["flow"]["players"]


class _Draw:
    """A move from `before` whose effects draw random numbers: its positions so far, by their data."""

    __slots__ = ("before", "move", "outcomes", "visits", "totals")

    def __init__(self, before: State, move: Move):
        self.before, self.move = before, move
        self.outcomes: dict[str, _Node] = {}
        self.visits = 0
        self.totals = [0.0] * before.data["flow"]["players"]


def _reseeded(state: State, rng: Rng) -> State:
    """`state` with a generator drawn from `rng` in place of its own."""
    return state.with_data(dict(state.data, rng=rng.next64()))


class MCTSAgent(SearchAgent):
    """UCT with an iteration budget (default) or a time budget; see the module docstring."""

    def search(self, state: State, moves: list[Move]) -> Move:
        cut = CutOff.of(state, self.settings)
        root = _Node(_reseeded(state, self.rng), self.rng)
        watch = self.settings.stopwatch()
        while watch.more():
            self._iterate(root, cut)
            watch.tick()
        # Most visited, then the higher mean, then the rules' order: a fixed choice for a fixed tree.
        me = state.current_player
        return max(moves, key=lambda m: (root.children[m].visits, root.children[m].totals[me])
                   if m in root.children else (-1, 0.0))

    def _iterate(self, root: _Node, cut: CutOff) -> None:
        node, path = root, [root]
        while not node.state.is_terminal():
            if node.state.is_chance_node():
                outcome = sample_chance(node.state, self.rng)
                child = node.children.get(outcome)
                if child is None:
                    child = node.children[outcome] = self._child(node.state, outcome)
                node = self._follow(child, path)
                continue
            if node.untried:
                move = node.untried.pop()
                child = node.children[move] = self._child(node.state, move)
                node = self._follow(child, path)
                break
            node = self._follow(self._select(node), path)
        returns = rollout(node.state, self.rng, self.settings.depth, cut)
        self.widen(returns)
        for visited in path:
            visited.visits += 1
            for seat, value in enumerate(returns):
                visited.totals[seat] += value

    def _child(self, state: State, move: Move) -> _Node | _Draw:
        """The node after `move`, or a `_Draw` if its effects draw random numbers."""
        after = state.apply(move)
        if after.data["rng"] != state.data["rng"]:
            return _Draw(state, move)
        return _Node(after, self.rng)

    def _follow(self, child: _Node | _Draw, path: list) -> _Node:
        """The node `child` leads to, added to `path`: `child` itself, or after a `_Draw` both it and the
        node of the position its move gives this time, on a generator of the agent's."""
        path.append(child)
        if isinstance(child, _Node):
            return child
        after = _reseeded(child.before, self.rng).apply(child.move)
        key = json.dumps([after.data["vars"], after.data["flow"]], sort_keys=True)
        node = child.outcomes.get(key)
        if node is None:
            node = child.outcomes[key] = _Node(after, self.rng)
        path.append(node)
        return node

    def _select(self, node: _Node) -> _Node | _Draw:
        mover, c, spread = node.state.current_player, self.settings.c, self.spread
        return max(node.children.values(), key=lambda ch: ucb(ch.totals[mover], ch.visits, node.visits, c, spread))
