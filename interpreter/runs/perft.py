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

A long count can report how far it has got through `progress`, called with
the number of states reached so far every `PROGRESS_EVERY` states; the
counts never depend on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

from ..engine.native import NativeGame, perft_counts
from ..engine.state import State


PROGRESS_EVERY = 4096  # states between two progress reports: rare enough to cost nothing next to applying moves

Progress = Callable[[int], None]


@dataclass
class PerftResult:
    depth: int
    nodes: int
    terminals: int

    def to_dict(self) -> dict:
        return {"depth": self.depth, "nodes": self.nodes, "terminals": self.terminals}


def _reported(reached: Iterator[tuple[State, int]], progress: Progress | None) -> Iterator[tuple[State, int]]:
    """`reached`, calling `progress` with the count so far every `PROGRESS_EVERY` states."""
    if progress is None:
        yield from reached
        return
    for count, item in enumerate(reached, 1):
        if count % PROGRESS_EVERY == 0:
            progress(count)
        yield item


def _reached(state: State, depth: int) -> Iterator[tuple[State, int]]:
    """Every decision or terminal state within `depth` decisions, with its number of decisions.

    Depth first on one copy of `state`, changed in place and taken back
    (`apply_in_place` / `undo`), so no state is made per node; with a stack
    of its own, not Python recursion, as chance moves use no depth and a game
    can pass thousands of them between decisions.  Each frame is a node
    reached by one move (but the first): the children still to try, and the
    decisions they are at.  The state yielded is the walk's own and changes
    as soon as the walk goes on.
    """
    s = state.copy()
    frames: list[tuple[Iterator, int]] = []
    k = 0
    while True:
        if s.is_chance_node():
            frames.append((iter(s.legal_moves()), k))
        else:
            yield s, k
            frames.append((iter(s.legal_moves() if not s.is_terminal() and k < depth else ()), k + 1))
        while frames:
            children, at = frames[-1]
            move = next(children, None)
            if move is not None:
                s.apply_in_place(move)
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
    for s, k in _reported(_reached(state, depth), progress):
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
        for s, k in _reported(_reached(state, depth), progress):
            nodes[k] += 1
            ends[k] += s.is_terminal()
    return [PerftResult(d, nodes[d], sum(ends[: d + 1])) for d in range(1, depth + 1)]
