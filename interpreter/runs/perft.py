"""perft: count move sequences, the classic move-generator correctness check.

`nodes` counts sequences of exactly `depth` decisions (a game that ends
earlier contributes nothing, as in chess perft); `terminals` counts the
games that ended within `depth` decisions: terminal states reached after
0 to `depth` decisions, so a game over at exactly `depth` is counted in both
and one over before it only in `terminals`.  Chance nodes are expanded
over every outcome (their legal moves: an outcome of weight 0 is none),
however many there are, and use no depth.  (`chance_outcomes()` gives up
above `game.max_chance_outcomes`, as OpenSpiel's explicit chance lists do;
a count cannot, or it would count one drawn outcome as the only one.)

A long count can report how far it has got through `progress`, called every
`PROGRESS_EVERY` states with the number of states reached so far and an
estimate of the share of the tree walked: the position of the walk among
each level's moves, each level weighing as one move of the level above
(Knuth's estimate, exact for a tree of even branching); the counts never
depend on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

from ..engine.native import NativeGame, perft_counts
from ..engine.state import State


PROGRESS_EVERY = 4096  # states between two progress reports: rare enough to cost nothing next to applying moves

Progress = Callable[[int, float], None]  # states reached, estimated share of the tree walked


@dataclass
class PerftResult:
    depth: int
    nodes: int
    terminals: int

    def to_dict(self) -> dict:
        return {"depth": self.depth, "nodes": self.nodes, "terminals": self.terminals}


def _reported(walk: "_Walk", progress: Progress | None) -> Iterator[tuple[State, int]]:
    """The walk's states, calling `progress` with the count so far and the share walked every
    `PROGRESS_EVERY` states."""
    if progress is None:
        yield from walk
        return
    for count, item in enumerate(walk, 1):
        if count % PROGRESS_EVERY == 0:
            progress(count, walk.share())
        yield item


class _Walk:
    """Every decision or terminal state within `depth` decisions, with its number of decisions.

    Depth first on one copy of `state`, changed in place and taken back
    (`apply_in_place` / `undo`), so no state is made per node; with a stack
    of its own, not Python recursion, as chance moves use no depth and a game
    can pass thousands of them between decisions.  Each frame is a node
    reached by one move (but the first): its children, how many of them have
    been tried, and the decisions they are at.  The state yielded is the
    walk's own and changes as soon as the walk goes on.
    """

    def __init__(self, state: State, depth: int):
        self.state, self.depth = state, depth
        self.frames: list[list] = []  # [children, tried so far, decisions]

    def share(self) -> float:
        """The share of the tree walked so far, estimated from the walk's place among each level's moves."""
        done, weight = 0.0, 1.0
        for children, tried, _ in self.frames:
            if not children:
                break
            done += weight * max(0, tried - 1) / len(children)
            weight /= len(children)
        return done

    def __iter__(self) -> Iterator[tuple[State, int]]:
        s, depth, frames = self.state.copy(), self.depth, self.frames
        k = 0
        while True:
            if s.is_chance_node():
                frames.append([s.legal_moves(), 0, k])
            else:
                yield s, k
                frames.append([s.legal_moves() if not s.is_terminal() and k < depth else [], 0, k + 1])
            while frames:
                frame = frames[-1]
                children, tried, at = frame
                if tried < len(children):
                    frame[1] += 1
                    s.apply_in_place(children[tried])
                    k = at
                    break
                frames.pop()
                if frames:
                    s.undo()  # back to the node this one was reached from
            else:
                return


def perft(state: State, depth: int, progress: Progress | None = None, native: NativeGame | None = None) -> PerftResult:
    """The counts at `depth`; with `native`, counted in the game's native module (the same counts; no
    progress is reported then, and a tree the module gives up on is counted here instead)."""
    counts = perft_counts(native, state, depth) if native is not None else None
    if counts is not None:
        nodes, ends = counts
        return PerftResult(depth, nodes[depth] if depth < len(nodes) else 0, sum(ends))
    result = PerftResult(depth, 0, 0)
    for s, k in _reported(_Walk(state, depth), progress):
        result.nodes += k == depth
        result.terminals += s.is_terminal()
    return result


def perft_table(state: State, depth: int, progress: Progress | None = None,
                native: NativeGame | None = None) -> list[PerftResult]:
    """perft for every depth 1..depth in one walk (each level counted on the way down)."""
    counts = perft_counts(native, state, depth) if native is not None else None
    if counts is not None:
        nodes, ends = (c + [0] * (depth + 1 - len(c)) for c in counts)
    else:
        nodes = [0] * (depth + 1)
        ends = [0] * (depth + 1)  # terminal states reached after exactly k decisions
        for s, k in _reported(_Walk(state, depth), progress):
            nodes[k] += 1
            ends[k] += s.is_terminal()
    return [PerftResult(d, nodes[d], sum(ends[: d + 1])) for d in range(1, depth + 1)]
