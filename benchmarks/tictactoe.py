"""Tic-tac-toe on two 9-bit boards: the yardstick for the engine's `tic-tac-toe` ruleset.

Cell k (row-major, as the ruleset's `cells("grid")`) is bit k.  The board of
the player to move and of the other are kept apart, so a move ORs one bit in
and checks only the lines through that cell; the legal moves of every
occupancy pattern are a table built once.  Seat 0 moves first; three in a
row wins, a full board without one is a draw (TT-2.1, TT-3.1, TT-3.2).
"""

from __future__ import annotations

LINES = (0b000000111, 0b000111000, 0b111000000, 0b001001001, 0b010010010, 0b100100100, 0b100010001, 0b001010100)
FULL = 0b111111111
LINES_THROUGH = tuple(tuple(line for line in LINES if line >> cell & 1) for cell in range(9))
EMPTY_CELLS = tuple(tuple(c for c in range(9) if not taken >> c & 1) for taken in range(FULL + 1))


class TicTacToe:
    """A position; `apply` returns a new one, like the engine's `State.apply`."""

    __slots__ = ("mover", "other", "player", "winner", "over")

    def __init__(self, mover: int = 0, other: int = 0, player: int = 0, winner: int | None = None,
                 over: bool = False):
        self.mover = mover  # cells of the player to move
        self.other = other
        self.player = player
        self.winner = winner
        self.over = over

    def legal_moves(self) -> tuple[int, ...]:
        return () if self.over else EMPTY_CELLS[self.mover | self.other]

    def apply(self, cell: int) -> TicTacToe:
        board = self.mover | 1 << cell
        for line in LINES_THROUGH[cell]:
            if board & line == line:
                return TicTacToe(self.other, board, 1 - self.player, self.player, True)
        return TicTacToe(self.other, board, 1 - self.player, None, board | self.other == FULL)

    def is_terminal(self) -> bool:
        return self.over

    def returns(self) -> list[float]:
        """1 for the winner, as the ruleset scores (0 each in a draw)."""
        return [float(self.winner == p) for p in (0, 1)]


def new_game(rng: object = None) -> TicTacToe:
    """The empty board (`rng` is unused: the game has no chance, but every baseline takes one)."""
    return TicTacToe()
