"""A game's move history that grows in constant time per move.

States are values, so each applied move makes a new state with a history
one move longer.  Copying a tuple for that is quadratic over a long game
(thousands of moves); here each state holds one immutable link back to
the history it grew from, shared by every state after it, and the tuple of
moves is built once, on first access, and kept.
"""

from __future__ import annotations

from .moves import Move


class History:
    """An immutable sequence of moves: `then(move)` is O(1), `moves()` is O(length) once."""

    __slots__ = ("_previous", "_move", "_length", "_moves")

    def __init__(self, previous: "History | None" = None, move: Move | None = None):
        self._previous = previous
        self._move = move
        self._length = 0 if previous is None else previous._length + 1
        self._moves: tuple[Move, ...] | None = () if previous is None else None

    @classmethod
    def of(cls, moves: tuple[Move, ...]) -> "History":
        history = cls()
        for move in moves:
            history = history.then(move)
        history._moves = tuple(moves)
        return history

    def then(self, move: Move) -> "History":
        return History(self, move)

    def __len__(self) -> int:
        return self._length

    def last(self) -> Move | None:
        return self._move

    def moves(self) -> tuple[Move, ...]:
        if self._moves is None:
            out: list[Move] = []
            node: History | None = self
            while node is not None and node._moves is None:
                out.append(node._move)  # type: ignore[arg-type]  # only the empty root has no move
                node = node._previous
            known = node._moves if node is not None else ()
            self._moves = known + tuple(reversed(out))
        return self._moves
