"""perft: count move sequences, the classic move-generator correctness check.

`nodes` counts sequences of exactly `depth` decisions (a game that ends
earlier contributes nothing, as in chess perft); `terminals` counts terminal
states reached within `depth` decisions.  Chance nodes with listed outcomes
are expanded over every outcome; sampled ones draw from the state's seed.
Neither uses depth.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine.state import State


@dataclass
class PerftResult:
    depth: int
    nodes: int
    terminals: int

    def to_dict(self) -> dict:
        return {"depth": self.depth, "nodes": self.nodes, "terminals": self.terminals}


def perft(state: State, depth: int) -> PerftResult:
    result = PerftResult(depth, 0, 0)

    def walk(s: State, left: int) -> None:
        if s.is_chance_node():
            outcomes = s.chance_outcomes()
            if outcomes is None:
                walk(s.apply_chance(), left)
            else:
                for move, _ in outcomes:
                    walk(s.apply(move), left)
            return
        if left == 0:
            result.nodes += 1
        if s.is_terminal():
            result.terminals += 1
            return
        if left == 0:
            return
        for move in s.legal_moves():
            walk(s.apply(move), left - 1)

    walk(state, depth)
    return result


def perft_table(state: State, depth: int) -> list[PerftResult]:
    """perft for every depth 1..depth in one walk (each level counted on the way down)."""
    nodes = [0] * (depth + 1)
    ends = [0] * (depth + 1)  # terminal states reached after exactly k decisions

    def walk(s: State, k: int) -> None:
        if s.is_chance_node():
            outcomes = s.chance_outcomes()
            if outcomes is None:
                walk(s.apply_chance(), k)
            else:
                for move, _ in outcomes:
                    walk(s.apply(move), k)
            return
        nodes[k] += 1
        if s.is_terminal():
            ends[k] += 1
            return
        if k == depth:
            return
        for move in s.legal_moves():
            walk(s.apply(move), k + 1)

    walk(state, 0)
    return [PerftResult(d, nodes[d], sum(ends[: d + 1])) for d in range(1, depth + 1)]
