"""One game's result as batches count it, and what counts as a win or a draw.

A game's `returns()` may be ranks or declared utilities, with any number of
players, so "who won" is defined on returns alone: the winners are the seats
with the highest return, provided it beats someone's; when every return is
equal (including every one-player game) the game is a draw and nobody wins.
Agents and simulations share this one definition.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence


def is_draw(returns: Sequence[float]) -> bool:
    return max(returns) == min(returns)


def winning_seats(returns: Sequence[float]) -> list[int]:
    """Seats with the top return, or [] for a draw."""
    if is_draw(returns):
        return []
    best = max(returns)
    return [seat for seat, value in enumerate(returns) if value == best]


@dataclass(frozen=True)
class GameFailure:
    """The rule error that stopped game `index`; `seed` replays it alone."""

    index: int
    seed: int
    code: str
    message: str
    hint: str = ""

    def to_dict(self) -> dict:
        return {"index": self.index, "seed": self.seed, "code": self.code, "message": self.message,
                "hint": self.hint}


@dataclass(frozen=True)
class GameArc:
    """How one game went, as an evaluation of each position saw it (`runs.arc`): who made its first
    decision, how often the lead changed hands, how far behind the eventual winners stood on average
    (drama), and when the lead passed to them for good (the share of the game played by then).  The
    last two are None in a drawn game, where nobody won."""

    first_mover: int | None
    lead_changes: int
    drama: float | None
    settled_at: float | None


@dataclass(frozen=True)
class GameOutcome:
    """Game `index` of a batch: its result, or the rule error that stopped it.

    Nothing here depends on time or on the worker that played it, so two runs
    of the same batch produce equal outcomes — what lets an interrupted run be
    resumed into exactly the results of an uninterrupted one.
    """

    index: int
    seed: int
    length: int = 0
    scores: tuple[float, ...] = ()
    returns: tuple[float, ...] = ()
    digest: str = ""  # of the move texts: equal digests mean the same game
    ended_by: str | None = None  # the end condition (rule id) that ended it
    failure: GameFailure | None = None
    decisions: int = 0  # moves chosen by an agent (chance outcomes left out)
    branching: int = 0  # legal moves offered over those decisions: branching / decisions is the mean choice
    fired: tuple[tuple[str, int], ...] = ()  # (rule id, moves it fired in), sorted by id
    arc: GameArc | None = None  # when the batch measures arcs (`runs.arc`)
