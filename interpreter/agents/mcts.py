"""MCTS: UCT for games of perfect information, with chance nodes sampled.

Each iteration walks down the tree by UCB1 (every decision node maximises
the return of the seat that moves there, so it plays any number of
players), adds one new child, plays a random rollout from it (to the end, or
`depth` moves and then the ruleset's heuristic), and adds the returns of
every seat to each node on the way.  At a chance node the outcome is drawn
by its probability with the agent's generator and followed to the child of
that outcome, so chance is averaged over iterations.  The move played is the
most visited child of the root.

The search reads the whole state, hidden data included: in a game with
hidden information it plays as if it could see everything (use `ismcts`).
"""

from __future__ import annotations

from ..engine.moves import Move
from ..engine.rng import Rng
from ..engine.state import State
from .search import CutOff, SearchAgent, rollout, sample_chance, ucb


class _Node:
    __slots__ = ("state", "children", "untried", "visits", "totals")

    def __init__(self, state: State, rng: Rng):
        self.state = state
        self.children: dict[Move, _Node] = {}
        self.untried: list[Move] = [] if state.is_terminal() or state.is_chance_node() else state.legal_moves()
        rng.shuffle(self.untried)
        self.visits = 0
        self.totals = [0.0] * state.data["flow"]["players"]


class MCTSAgent(SearchAgent):
    """UCT with an iteration budget (default) or a time budget; see the module docstring."""

    def search(self, state: State, moves: list[Move]) -> Move:
        cut = CutOff.of(state, self.settings)
        root = _Node(state, self.rng)
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
                    child = node.children[outcome] = _Node(node.state.apply(outcome), self.rng)
                node = child
                path.append(node)
                continue
            if node.untried:
                move = node.untried.pop()
                child = node.children[move] = _Node(node.state.apply(move), self.rng)
                path.append(child)
                node = child
                break
            node = self._select(node)
            path.append(node)
        returns = rollout(node.state, self.rng, self.settings.depth, cut)
        self.widen(returns)
        for visited in path:
            visited.visits += 1
            for seat, value in enumerate(returns):
                visited.totals[seat] += value

    def _select(self, node: _Node) -> _Node:
        mover, c, spread = node.state.current_player, self.settings.c, self.spread
        return max(node.children.values(), key=lambda ch: ucb(ch.totals[mover], ch.visits, node.visits, c, spread))
