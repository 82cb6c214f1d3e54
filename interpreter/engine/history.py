"""A game's move history that grows in constant time per move.

States are values, so each applied move makes a new state with a history
one move longer.  Copying a tuple for that is quadratic over a long game
(thousands of moves); here each state holds one immutable link back to
the history it grew from, shared by every state after it, and the tuples
are built once, on first access, and kept.  Each entry also keeps who saw
each of the move's private arguments (`views.Seen`), fixed when it was made.
"""

from __future__ import annotations

from .moves import Move
from .views import Seen


class History:
    """An immutable sequence of moves: `then(move)` is O(1), `moves()` is O(length) once."""

    __slots__ = ("_previous", "_move", "_seen", "_length", "_moves", "_seens")

    def __init__(self, previous: "History | None" = None, move: Move | None = None, seen: Seen | None = None):
        self._previous = previous
        self._move = move
        self._seen = seen
        self._length = 0 if previous is None else previous._length + 1
        self._moves: tuple[Move, ...] | None = () if previous is None else None
        self._seens: tuple[Seen | None, ...] | None = () if previous is None else None

    @classmethod
    def of(cls, moves: tuple[Move, ...], seens: tuple[Seen | None, ...] | None = None) -> "History":
        history = cls()
        for move, seen in zip(moves, seens or (None,) * len(moves)):
            history = history.then(move, seen)
        return history

    def then(self, move: Move, seen: Seen | None = None) -> "History":
        return History(self, move, seen)

    def __len__(self) -> int:
        return self._length

    def last(self) -> Move | None:
        return self._move

    def last_seen(self) -> Seen | None:
        return self._seen

    def moves(self) -> tuple[Move, ...]:
        self._materialize()
        return self._moves  # type: ignore[return-value]

    def seens(self) -> tuple[Seen | None, ...]:
        """Per move, who saw each private argument (None for a move without any)."""
        self._materialize()
        return self._seens  # type: ignore[return-value]

    def _materialize(self) -> None:
        if self._moves is not None:
            return
        moves: list[Move] = []
        seens: list[Seen | None] = []
        node: History | None = self
        while node is not None and node._moves is None:
            moves.append(node._move)  # type: ignore[arg-type]  # only the empty root has no move
            seens.append(node._seen)
            node = node._previous
        known_moves = node._moves if node is not None else ()
        known_seens = node._seens if node is not None else ()
        self._moves = known_moves + tuple(reversed(moves))  # type: ignore[operator]
        self._seens = known_seens + tuple(reversed(seens))  # type: ignore[operator]
