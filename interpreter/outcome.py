"""What counts as a win or a draw when tallying games.

A game's `returns()` may be ranks or declared utilities, with any number of
players, so "who won" is defined on returns alone: the winners are the seats
with the highest return, provided it beats someone's; when every return is
equal (including every one-player game) the game is a draw and nobody wins.
Agents and simulations share this one definition.
"""

from __future__ import annotations

from typing import Sequence


def is_draw(returns: Sequence[float]) -> bool:
    return max(returns) == min(returns)


def winning_seats(returns: Sequence[float]) -> list[int]:
    """Seats with the top return, or [] for a draw."""
    if is_draw(returns):
        return []
    best = max(returns)
    return [seat for seat, value in enumerate(returns) if value == best]
