"""perft: count move sequences, the classic move-generator correctness check.

`nodes` counts sequences of exactly `depth` decisions (a game that ends
earlier contributes nothing, as in chess perft); `terminals` counts terminal
states reached within `depth` decisions.  Chance nodes with listed outcomes
are expanded over every outcome; sampled ones draw from the state's seed.
Neither uses depth.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from ..engine.state import State


@dataclass
class PerftResult:
    depth: int
    nodes: int
    terminals: int

    def to_dict(self) -> dict:
        return {"depth": self.depth, "nodes": self.nodes, "terminals": self.terminals}


def _children(state: State, moves: Iterable[Any], step: int, depth: int) -> Iterator[tuple[State, int]]:
    """The states `moves` lead to from `state`, each with the decision count `depth + step`, made one by one."""
    for move in moves:
        yield state.apply(move), depth + step


def _walk(state: State, start: int, step: int) -> Iterator[tuple[State, int]]:
    """Every decision node and terminal state under `state`, each with its decision count (`start`, then
    `step` more per decision); chance nodes are passed through, expanded over their listed outcomes.

    The caller answers each node it is given with `send(True)` to descend into it, or `send(False)`
    to leave its children out.  A stack of generators rather than recursion, so a game long enough to
    pass Python's recursion limit (a forced line, a high `--depth`) is walked like any other.
    """
    stack: list[Iterator[tuple[State, int]]] = [iter([(state, start)])]
    while stack:
        item = next(stack[-1], None)
        if item is None:
            stack.pop()
            continue
        s, k = item
        if s.is_chance_node():
            outcomes = s.chance_outcomes()
            stack.append(iter([(s.apply_chance(), k)]) if outcomes is None else
                         _children(s, [move for move, _ in outcomes], 0, k))
            continue
        descend = yield s, k
        if descend and not s.is_terminal():
            stack.append(_children(s, s.legal_moves(), step, k))


def perft(state: State, depth: int) -> PerftResult:
    result = PerftResult(depth, 0, 0)
    walk = _walk(state, depth, -1)  # counts the decisions left
    descend = None
    while True:
        try:
            s, left = walk.send(descend)
        except StopIteration:
            return result
        if left == 0:
            result.nodes += 1
        if s.is_terminal():
            result.terminals += 1
        descend = left > 0


def perft_table(state: State, depth: int) -> list[PerftResult]:
    """perft for every depth 1..depth in one walk (each level counted on the way down)."""
    nodes = [0] * (depth + 1)
    ends = [0] * (depth + 1)  # terminal states reached after exactly k decisions
    walk = _walk(state, 0, 1)
    descend = None
    while True:
        try:
            s, k = walk.send(descend)
        except StopIteration:
            break
        nodes[k] += 1
        if s.is_terminal():
            ends[k] += 1
        descend = k < depth
    return [PerftResult(d, nodes[d], sum(ends[: d + 1])) for d in range(1, depth + 1)]
