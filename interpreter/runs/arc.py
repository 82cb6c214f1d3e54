"""The arc of one game: who led after each move, by how much, and when the winners' lead settled.

Game-design metrics that look inside a game (Browne's lead change, drama
and uncertainty; Ludii's LeadChange, Drama and DecisivenessMoves) need an
estimate of how each seat stands in a position that is not over.  Each
position of a game, from the first to the last, is judged here by a
`Judge`: the ruleset's heuristic (its first, or one named), read as the
search agents read it at a cut-off, or, in a ruleset without heuristics,
its scores as they stand (a score the rules cannot give before the end, a
rule error there, leaves every seat level in that position: scores are
only promised at the end, heuristics everywhere).  Either way a seat's
*standing* is the mean, over the other seats, of how it stands against
each: tanh(lead / scale) with the heuristic's `scale`, else +1 ahead, -1
behind, 0 level.  The last
position is judged by its returns, in the same way (their order alone), so
the final leaders are exactly the winners.

From the standings s_0 .. s_L of a game of L moves (chance's included):

* the *leaders* of a position are the seats of the highest standing, and
  nobody when every seat stands level;
* `lead_changes`: the positions whose leaders are not the last leaders
  before them (positions where nobody leads are passed over, and the first
  leaders are no change);
* `drama`, for a game someone won: the mean over the positions before each
  move, s_0 .. s_(L-1), of how far the winners stood behind the leader,
  (max s_t - mean of s_t over the winners) / 2, between 0 (the winners led
  throughout) and 1;
* `settled_at`, for a game someone won: k / L for the first position k from
  which the leaders are always some of the winners — 0 when the winners led
  from the start, 1 when they took the lead with the last move.

The evaluation reads the whole state, hidden cards included: it is an
observer's account of the game, not any seat's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from ..engine.errors import RuleRuntimeError
from ..engine.game import Game
from ..engine.legal import CHANCE
from ..engine.outcome import GameArc, winning_seats
from ..engine.scoring import heuristic_values
from ..engine.state import State

SCORES = "scores"  # what a ruleset without heuristics is judged by


@dataclass(frozen=True)
class Judge:
    """What positions are judged by: a heuristic of the ruleset (with the scale of a lead), or its scores."""

    heuristic: str | None
    scale: float | None

    @classmethod
    def of(cls, game: Game, heuristic: str | None = None) -> "Judge":
        """The heuristic named (ValueError naming those there are if the ruleset lacks it), else the
        ruleset's first, else the scores."""
        heuristics = game.model.heuristics
        if heuristic is not None and heuristic not in heuristics:
            known = ", ".join(heuristics) or "none: the scores judge its positions"
            raise ValueError(f"{game.name} has no heuristic {heuristic!r} (its heuristics: {known})")
        name = heuristic if heuristic is not None else next(iter(heuristics), None)
        return cls(name, game.model.heuristic_scales.get(name) if name is not None else None)

    @property
    def name(self) -> str:
        """The heuristic's name, or `scores`: how reports say what judged the positions."""
        return self.heuristic or SCORES

    def standings(self, state: State) -> list[float]:
        """Each seat's standing in `state` (see the module docstring)."""
        if state.is_terminal():
            return self.standing(state.returns(), final=True)
        if self.heuristic is None:
            try:
                return self.standing(state.scores())
            except RuleRuntimeError:  # a score defined only once the game is over (a pick not made yet)
                return [0.0] * state.data["flow"]["players"]
        return self.standing(heuristic_values(state.game.model, state.data, self.heuristic))

    def standing(self, values: Sequence[float], final: bool = False) -> list[float]:
        """The standings the judge's `values` make (a native playout's); `final`: the returns at the end."""
        return _standing(values, None if final else self.scale)


def _standing(values: Sequence[float], scale: float | None) -> list[float]:
    n = len(values)
    if n < 2:
        return [0.0] * n
    if not scale:
        return [sum((values[p] > values[q]) - (values[p] < values[q]) for q in range(n) if q != p) / (n - 1)
                for p in range(n)]
    return [sum(_lead(values[p] - values[q], scale) for q in range(n) if q != p) / (n - 1) for p in range(n)]


def _lead(difference: float, scale: float) -> float:
    try:
        return math.tanh(difference / scale)
    except OverflowError:  # a whole-number lead too large for a float is a whole lead
        return 1.0 if difference > 0 else -1.0


def leaders(standing: Sequence[float]) -> frozenset[int]:
    """The seats of the highest standing; nobody when every seat stands level."""
    top, bottom = max(standing), min(standing)
    return frozenset() if top == bottom else frozenset(p for p, v in enumerate(standing) if v == top)


def arc_of(standings: Sequence[Sequence[float]], first_mover: int | None) -> GameArc:
    """The arc of a game whose positions stood `standings` (the last one over, judged by its returns)."""
    led = [leaders(s) for s in standings]
    changes, last = 0, frozenset()
    for now in led:
        if now and last and now != last:
            changes += 1
        last = now or last
    winners = frozenset(winning_seats(standings[-1])) if standings else frozenset()
    moves = len(standings) - 1
    if not winners or moves < 1:
        return GameArc(first_mover, changes, None, None)
    behind = [(max(s) - sum(s[w] for w in winners) / len(winners)) / 2 for s in standings[:-1]]
    settled = len(led)
    while settled > 0 and led[settled - 1] and led[settled - 1] <= winners:
        settled -= 1
    return GameArc(first_mover, changes, math.fsum(behind) / len(behind), settled / moves)


class ArcRecorder:
    """A watcher of one game (`play_game(..., watch=...)`): the standing of every position, and who
    made the first decision; `arc()` once the game is over."""

    def __init__(self, judge: Judge):
        self.judge = judge
        self.standings: list[list[float]] = []
        self.first_mover: int | None = None

    def __call__(self, state: State) -> None:
        self.standings.append(self.judge.standings(state))
        if self.first_mover is None and not state.is_terminal() and state.current_player != CHANCE:
            self.first_mover = state.current_player

    def arc(self) -> GameArc:
        return arc_of(self.standings, self.first_mover)
