"""What makes a game good, measured: the metrics game designers and general-game-playing research use.

Each metric is named once here, with its definition and where it comes from
(`METRICS`); `docs/variants.md` explains them for users, and a test checks
it names every one.  They are read off a batch's `Measures` (`runs.summary`;
the arc metrics need a batch played with arcs, `runs.arc`), except strategic
depth, which plays matches of its own (`runs.depth`).  Most are a proportion
or a mean of per-game values, with the batch's 95% interval (Wilson, or the
normal approximation of a mean, kept within the range the values can take);
two are properties of the whole batch,
balance and the spread of lengths, whose intervals are a percentile
bootstrap of the batch's games (seeded, so a report is reproducible).

Sources: Browne, *Automatic Generation and Evaluation of Recombination
Games* (PhD thesis, QUT, 2008), whose criteria include balance, advantage,
drawishness, duration, lead change, drama, uncertainty and depth; Ludii's
metrics (`Evaluation/src/metrics` in Ludeme/Ludii: Balance, AdvantageP1,
Drawishness, Completion, DurationMoves, DurationTurnsStdDev,
BranchingFactorAvg, LeadChange, Drama, DecisivenessMoves, SkillTrace); and
Lantz, Isaksen, Jaffe, Nealen and Togelius, "Depth in Strategic Games"
(2017), for depth as the chain of ever stronger players the game tells
apart.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Sequence

from . import stats
from .summary import Measures

BOOTSTRAP_RESAMPLES = 1000


@dataclass(frozen=True)
class Metric:
    """One metric: its name in reports, a short label, what it is, its sources, and the statistic of
    `compare` that tests it (None: compare does not play what it needs)."""

    name: str
    label: str
    definition: str
    source: str
    compared_as: str | None
    arc: bool = False  # needs the games' arcs (`runs.arc`)


METRICS = (
    Metric("balance", "balance across seats",
           "1 minus the largest difference between two seats' win rates: 1 when every seat wins as often",
           "Browne (balance); Ludii Balance", "balance"),
    Metric("first_move_advantage", "first-move advantage",
           "the share of games won by the seat that made the first decision (1/players when moving first "
           "neither helps nor hurts and nobody draws)", "Browne (advantage); Ludii AdvantageP1", "first_mover_win",
           arc=True),
    Metric("drawishness", "drawishness", "the share of games that end level, every seat's return equal",
           "Browne (drawishness); Ludii Drawishness", "draw_rate"),
    Metric("decisiveness", "decisiveness", "the share of games with exactly one winner",
           "Ludii Completion (a game with a winner), here with one winner", "decisiveness"),
    Metric("duration", "game length", "the mean number of moves a game lasts, chance's included",
           "Browne (duration); Ludii DurationMoves", "mean_length"),
    Metric("duration_spread", "spread of game length",
           "the standard deviation of the games' lengths, in moves", "Ludii DurationTurnsStdDev", "length_spread"),
    Metric("branching", "branching factor", "the mean number of legal moves at a decision, per game",
           "Ludii BranchingFactorAvg", "mean_branching"),
    Metric("lead_changes", "lead changes",
           "how many times a game the lead passed to another seat, by the judge of positions (runs.arc)",
           "Browne (lead change); Ludii LeadChange", "lead_changes", arc=True),
    Metric("drama", "drama",
           "how far behind the leader the eventual winners stood, on average over a won game's positions "
           "(0: they led throughout; 1: as far behind as the judge can tell)", "Browne (drama); Ludii Drama",
           "drama", arc=True),
    Metric("settled_at", "uncertainty late in the game",
           "the share of a won game played before the lead passed to the winners for good (0: decided from "
           "the start; 1: only the last move decided it)", "Browne (uncertainty); Ludii DecisivenessMoves",
           "settled_at", arc=True),
    Metric("strategic_depth", "strategic depth",
           "how many steps of a chain of ever stronger agents (random < mcts-50 < mcts-500) the stronger agent "
           "wins significantly more than half of its games (draws count half)",
           "Lantz et al. 2017; Browne (depth); Ludii SkillTrace", None),
)
BY_NAME = {m.name: m for m in METRICS}


def balance(win_counts: Sequence[float], games: int) -> float:
    """1 - (the highest win rate - the lowest); 1 with no games or one seat."""
    if not games or len(win_counts) < 2:
        return 1.0
    return 1 - (max(win_counts) - min(win_counts)) / games


def spread(values: Counter) -> float:
    """The standard deviation of counted values (n - 1 in the denominator); 0 for fewer than two."""
    n = sum(values.values())
    if n < 2:
        return 0.0
    m = stats.mean(values)
    try:
        return math.sqrt(math.fsum(k * (v - m) ** 2 for v, k in values.items()) / (n - 1))
    except OverflowError:
        return stats.FLOAT_MAX


def winner_balance(winner_sets: Counter, players: int) -> float:
    """`balance` of games counted by their sets of winning seats."""
    wins = [0] * players
    for seats, k in winner_sets.items():
        for seat in seats:
            wins[seat] += k
    return balance(wins, sum(winner_sets.values()))


def bootstrap(values: Counter, statistic: Callable[[Counter], float], seed: int,
              confidence: float = stats.CONFIDENCE, resamples: int = BOOTSTRAP_RESAMPLES) -> tuple[float, float]:
    """Percentile bootstrap interval of `statistic` over the counted games `values`; the statistic itself
    at both ends for fewer than two games."""
    n = sum(values.values())
    if n < 2:
        found = statistic(values)
        return found, found
    rng = random.Random(seed)
    items = sorted(values.items(), key=repr)
    population, weights = [v for v, _ in items], [k for _, k in items]
    drawn = sorted(statistic(Counter(rng.choices(population, weights, k=n))) for _ in range(resamples))
    tail = (1 - confidence) / 2
    return drawn[max(0, math.floor(tail * resamples))], drawn[min(resamples - 1, math.ceil((1 - tail) * resamples) - 1)]


def game_metrics(measures: Measures, seed: int) -> dict[str, dict]:
    """Every metric but strategic depth, of one batch: value and 95% interval (`ci95`), per metric name;
    the arc metrics only for a batch measured with arcs.  Means over no games are 0 with an interval
    [0, 0], and a metric with no games to be read from is left out (drama of a batch of draws)."""
    n, players = measures.games, measures.players
    found: dict[str, dict] = {
        "balance": {"value": balance(measures.wins, n),
                    "ci95": list(bootstrap(measures.winner_sets, lambda c: winner_balance(c, players), seed))},
        "drawishness": _rate(measures.draws, n),
        "decisiveness": _rate(measures.decisive, n),
        "duration": _mean(measures.lengths, 0.0),
        "duration_spread": {"value": spread(measures.lengths),
                            "ci95": list(bootstrap(measures.lengths, spread, seed + 1))},
        "branching": _mean(measures.branching, 0.0),
    }
    if measures.arcs:
        found["first_move_advantage"] = _rate(measures.first_mover_wins, n)
        for name, high in (("lead_changes", None), ("drama", 1.0), ("settled_at", 1.0)):
            if measures.arc_values[name]:
                found[name] = _mean(measures.arc_values[name], 0.0, high)
    return {m.name: found[m.name] for m in METRICS if m.name in found}


def _rate(successes: int, n: int) -> dict:
    return {"value": successes / n if n else 0.0, "ci95": list(stats.wilson(successes, n)), "games": n}


def _mean(values: Counter, low: float, high: float | None = None) -> dict:
    """A mean with its interval, kept within the values' possible range [low, high]: the normal
    approximation of a few games' drama could reach below 0."""
    start, end = stats.mean_interval(values)
    start, end = max(low, start), max(low, end)
    if high is not None:
        start, end = min(high, start), min(high, end)
    return {"value": stats.mean(values), "ci95": [start, end], "games": sum(values.values())}
