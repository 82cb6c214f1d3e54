"""What a batch of games measured, beyond wins: returns, scores, lengths, branching, decisiveness, rules.

`Measures` takes one finished game at a time in any order and keeps only
counts of distinct values, so it costs the same memory for any batch size
and its summary does not depend on the order games finished in (nor on
the workers or executor that played them).  `summary()` turns it into the
document `simulate --json` prints under `statistics`, and `compare` reads
the same counts to test differences.
"""

from __future__ import annotations

from collections import Counter
from typing import Mapping, Sequence

from ..engine.outcome import GameOutcome, is_draw, winning_seats
from . import stats
from .coverage import coverage

BRANCHING_DIGITS = 6  # a game's mean branching factor is kept rounded, so equal games share one count


def game_values(outcome: GameOutcome, players: int) -> tuple[dict[str, bool], dict[str, float]]:
    """One finished game's part in each proportion and mean `Measures` reports, by the same names: what a
    comparison pairs game by game (its branching is left out when the game had no decision, its drama
    and when its lead settled when nobody won).  A game measured with its arc (`runs.arc`) adds whether
    the seat that made the first decision won, its lead changes, drama and when the lead settled."""
    winners = winning_seats(outcome.returns)
    flags = {f"win_rate[{seat}]": seat in winners for seat in range(players)}
    flags.update({"draw_rate": is_draw(outcome.returns), "decisiveness": len(winners) == 1})
    values = {f"mean_return[{seat}]": outcome.returns[seat] for seat in range(players)}
    values.update({f"mean_score[{seat}]": outcome.scores[seat] for seat in range(players)})
    values["mean_length"] = outcome.length
    if outcome.decisions:
        values["mean_branching"] = round(outcome.branching / outcome.decisions, BRANCHING_DIGITS)
    arc = outcome.arc
    if arc is not None:
        flags["first_mover_win"] = arc.first_mover is not None and arc.first_mover in winners
        values["lead_changes"] = arc.lead_changes
        for name, share in (("drama", arc.drama), ("settled_at", arc.settled_at)):
            if share is not None:
                values[name] = round(share, BRANCHING_DIGITS)
    return flags, values


ARC_VALUES = ("lead_changes", "drama", "settled_at")


class Measures:
    """The distributions of one batch's finished games (rule errors are counted elsewhere); with `arcs`,
    those of their arcs too (every game then holds one)."""

    def __init__(self, players: int, arcs: bool = False):
        self.players = players
        self.arcs = arcs
        self.first_mover_wins = 0
        self.arc_values: dict[str, Counter] = {name: Counter() for name in ARC_VALUES}
        self.games = 0
        self.wins = [0] * players
        self.draws = 0
        self.decisive = 0  # games with exactly one winner
        self.lengths: Counter = Counter()
        self.scores = [Counter() for _ in range(players)]
        self.returns = [Counter() for _ in range(players)]
        self.branching: Counter = Counter()  # per game: legal moves per decision, on average
        self.decisions = 0
        self.offered = 0
        self.fired: Counter = Counter()  # rule -> moves that fired it
        self.fired_in_games: Counter = Counter()  # rule -> games in which it fired
        self.winner_sets: Counter = Counter()  # the seats that won a game, as a tuple -> games (balance's bootstrap)

    def add(self, outcome: GameOutcome) -> None:
        flags, values = game_values(outcome, self.players)  # the one definition `compare` pairs by as well
        self.games += 1
        self.lengths[outcome.length] += 1
        for seat in range(self.players):
            self.scores[seat][outcome.scores[seat]] += 1
            self.returns[seat][outcome.returns[seat]] += 1
            self.wins[seat] += flags[f"win_rate[{seat}]"]
        self.draws += flags["draw_rate"]
        self.decisive += flags["decisiveness"]
        self.winner_sets[tuple(seat for seat in range(self.players) if flags[f"win_rate[{seat}]"])] += 1
        if "mean_branching" in values:
            self.branching[values["mean_branching"]] += 1
        self.decisions += outcome.decisions
        self.offered += outcome.branching
        for rule, moves in outcome.fired:
            self.fired[rule] += moves
            self.fired_in_games[rule] += 1
        if self.arcs:
            self.first_mover_wins += flags["first_mover_win"]
            for name in ARC_VALUES:
                if name in values:
                    self.arc_values[name][values[name]] += 1

    def proportions(self) -> dict[str, int]:
        """Every proportion's numerator (over `games`), by the name reports give it."""
        named = {f"win_rate[{seat}]": wins for seat, wins in enumerate(self.wins)}
        named.update({"draw_rate": self.draws, "decisiveness": self.decisive})
        return {**named, "first_mover_win": self.first_mover_wins} if self.arcs else named

    def means(self) -> dict[str, Counter]:
        """Every per-game value whose mean reports give, by name."""
        named = {f"mean_return[{seat}]": values for seat, values in enumerate(self.returns)}
        named.update({f"mean_score[{seat}]": values for seat, values in enumerate(self.scores)})
        named.update({"mean_length": self.lengths, "mean_branching": self.branching})
        return {**named, **self.arc_values} if self.arcs else named

    def summary(self, cited: Mapping, spec_ids: Sequence[str] | None) -> dict:
        n = self.games
        return {
            "mean_returns": [stats.mean(r) for r in self.returns],
            "win_rate": [{"rate": w / n if n else 0.0, "wins": w, "ci95": list(stats.wilson(w, n))}
                         for w in self.wins],
            "draw_rate": {"rate": self.draws / n if n else 0.0, "ci95": list(stats.wilson(self.draws, n))},
            "decisiveness": {"rate": self.decisive / n if n else 0.0,
                             "ci95": list(stats.wilson(self.decisive, n))},
            "scores": [stats.distribution(s) for s in self.scores],
            "length": stats.distribution(self.lengths),
            "branching": {"mean_per_decision": self.offered / self.decisions if self.decisions else 0.0,
                          "per_game": stats.distribution(self.branching)},
            "rules": coverage(cited, self.fired, self.fired_in_games, n, spec_ids),
            **({"arc": self._arc_summary()} if self.arcs else {}),
        }

    def _arc_summary(self) -> dict:
        n = self.games
        return {"first_mover_win": {"rate": self.first_mover_wins / n if n else 0.0,
                                    "ci95": list(stats.wilson(self.first_mover_wins, n))},
                **{name: stats.distribution(values) for name, values in self.arc_values.items()}}
