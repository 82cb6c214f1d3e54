"""Connect Four on 49-bit boards: the yardstick for the engine's `connect-four` ruleset.

The classic layout: column c owns bits 7c..7c+5 from the bottom up, with
bit 7c+6 an always-empty guard, so a four in a row is found by four
shift-and-AND steps whatever the direction, and the landing cell of a drop
is `(occupied + bottom) & column`.  The legal columns of every pattern of
full columns are a table built once.  Seat 0 drops first; four in a row
wins, a full frame without one is a draw (CF-2.1 to CF-3.2).
"""

from __future__ import annotations

WIDTH, HEIGHT = 7, 6
BOTTOM = tuple(1 << 7 * c for c in range(WIDTH))
COLUMN = tuple(0b111111 << 7 * c for c in range(WIDTH))
TOP = tuple(1 << 7 * c + HEIGHT - 1 for c in range(WIDTH))
OPEN_COLUMNS = tuple(tuple(c for c in range(WIDTH) if not full >> c & 1) for full in range(1 << WIDTH))
ALL_FULL = (1 << WIDTH) - 1


def four_in_a_row(discs: int) -> bool:
    """Whether `discs` hold four in a row: vertical (shift 1), horizontal (7) and both diagonals (6, 8)."""
    for shift in (1, 7, 6, 8):
        pairs = discs & discs >> shift
        if pairs & pairs >> 2 * shift:
            return True
    return False


class ConnectFour:
    """A position; `apply` returns a new one, like the engine's `State.apply`."""

    __slots__ = ("mover", "occupied", "full", "player", "winner", "over")

    def __init__(self, mover: int = 0, occupied: int = 0, full: int = 0, player: int = 0,
                 winner: int | None = None, over: bool = False):
        self.mover = mover  # discs of the player to move
        self.occupied = occupied
        self.full = full  # bit c: column c is full
        self.player = player
        self.winner = winner
        self.over = over

    def legal_moves(self) -> tuple[int, ...]:
        return () if self.over else OPEN_COLUMNS[self.full]

    def apply(self, col: int) -> ConnectFour:
        occupied = self.occupied
        disc = (occupied + BOTTOM[col]) & COLUMN[col]
        occupied |= disc
        mine = self.mover | disc
        full = self.full | (1 << col if disc == TOP[col] else 0)
        other = occupied ^ mine
        if four_in_a_row(mine):
            return ConnectFour(other, occupied, full, 1 - self.player, self.player, True)
        return ConnectFour(other, occupied, full, 1 - self.player, None, full == ALL_FULL)

    def is_terminal(self) -> bool:
        return self.over

    def returns(self) -> list[float]:
        """1 for the winner, as the ruleset scores (0 each in a draw)."""
        return [float(self.winner == p) for p in (0, 1)]


def new_game(rng: object = None) -> ConnectFour:
    """The empty frame (`rng` is unused: the game has no chance, but every baseline takes one)."""
    return ConnectFour()
