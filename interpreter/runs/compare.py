"""Two rule sets (a base and a variant, or two variants) played on the same seeds by the same agents.

Each side is a whole `simulate` batch with the same seed, agents and game
count, so game i of A and game i of B start from the same seed (common
random numbers): what differs is the rules.  So the games are compared in
pairs, game i of A with game i of B, which is what makes a small change
visible: where most pairs end alike, their differences vary far less than
two independent batches do.  Every statistic of `runs.summary` is set side
by side with the difference B - A and an interval for it:

- proportions (win rate per seat, draw rate, decisiveness): Newcombe's
  score interval for a difference of paired proportions (`stats.
  newcombe_paired`), from the games' 2x2 table of outcomes;
- means (return and score per seat, length, branching factor per game): a
  percentile bootstrap of the mean of the games' differences
  (BOOTSTRAP_RESAMPLES resamples, seeded by the run's seed), expanded for a
  small batch, and unbounded with fewer pairs than a distribution-free test
  needs at the corrected confidence (`stats.bootstrap_mean`: 9 pairs for
  ten statistics, 10 for the twenty of a two-player comparison), so a
  handful of games is never "significant";
- statistics of a whole batch, balance across seats and the spread of
  lengths (`runs.quality`): a percentile bootstrap that resamples the
  pairs, expanded and bounded alike (`stats.bootstrap_paired`).

Both sides are played with their arcs measured (`runs.arc`: each side's
positions judged by its own first heuristic, or its scores), so the
comparison also tests whether the first mover won, lead changes, drama
and when the lead settled (`runs.quality` says what each is).

Only games that finished on both sides are paired (a game a rule error
stopped on either side is left out of the tests, and counted as failed in
its side's report, as the side-by-side figures are).  A table of a dozen
tests at 95% each would call something "significant" by chance about half
the time, so the intervals are Bonferroni-corrected: each is built at
confidence 1 - 0.05/m for the m statistics tested, and a difference is
significant when its interval excludes 0; the family-wise error rate is
then at most 5% (the more so as some statistics are functions of others,
the draw rate and decisiveness of a two-player game, say, which makes the
correction conservative).  Rule coverage is shown side by side but not
tested (one test per rule would make the correction swallow the rest).
"""

from __future__ import annotations

import math
import os
import struct
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from ..engine.game import Game
from ..engine.outcome import GameArc, GameOutcome
from . import quality, stats
from .simulate import SimulationReport, by_agent, simulate
from .summary import game_values
from .workers import GameSpec

NEWCOMBE = "Newcombe score interval for paired proportions (games paired by seed)"
BOOTSTRAP = (f"percentile bootstrap of the paired differences, {stats.BOOTSTRAP_RESAMPLES} resamples, "
             "expanded for the batch's size")
PAIRED_BOOTSTRAP = (f"percentile bootstrap of the statistic over resampled pairs, {stats.BOOTSTRAP_RESAMPLES} "
                    "resamples, expanded for the batch's size")


class Pairs:
    """Game i of A with game i of B, for every game that finished on both sides: a 2x2 table of outcomes
    per proportion and the counted differences B - A per mean, so the tests do not depend on the order
    games finished in.  Side A is played whole before B, so A's games are held until B's arrive, each
    packed into a few dozen bytes (its flags as bits, its values as doubles): about 200 bytes a game with
    the dictionary's own, the one part of a comparison that grows with the number of games."""

    def __init__(self, players: int, rotate: bool, arcs: bool = False):
        self.players, self.rotate = players, rotate
        every = GameOutcome(0, 0, scores=(0.0,) * players, returns=(0.0,) * players, decisions=1, branching=1,
                            arc=GameArc(0, 0, 0.0, 0.0) if arcs else None)
        flags, values = game_values(every, players)  # a game with every statistic: the names, in order
        self._flag_names, self._value_names = tuple(flags), tuple(values)
        self._flag_bytes = (len(self._flag_names) + 7) // 8  # one bit a flag, for any number of seats
        self._win_bits = [self._flag_names.index(f"win_rate[{seat}]") for seat in range(players)]
        self._length_at = self._value_names.index("mean_length")
        self._packing = struct.Struct(f"<{self._flag_bytes}s{len(self._value_names)}d")
        self._a: dict[int, bytes] = {}
        self.tables: dict[str, Counter] = {}  # name -> Counter of (a, b) outcomes
        self.differences: dict[str, Counter] = {}  # name -> Counter of b - a
        self.joint: Counter = Counter()  # (A's winners, B's winners, A's length, B's length) -> pairs
        self.games = 0

    def _values(self, outcome: GameOutcome) -> tuple[dict[str, bool], dict[str, float]]:
        return game_values(by_agent(outcome, self.players) if self.rotate else outcome, self.players)

    def add_a(self, outcome: GameOutcome) -> None:
        if outcome.failure is None:
            flags, values = self._values(outcome)
            bits = sum(1 << k for k, name in enumerate(self._flag_names) if flags[name])
            self._a[outcome.index] = self._packing.pack(bits.to_bytes(self._flag_bytes, "little"),
                                                        *(stats.clamped(values[name]) if name in values else math.nan
                                                          for name in self._value_names))

    def add_b(self, outcome: GameOutcome) -> None:
        packed = self._a.pop(outcome.index, None)
        if packed is None or outcome.failure is not None:
            return
        self.games += 1
        flag_bytes, *values_a = self._packing.unpack(packed)
        bits = int.from_bytes(flag_bytes, "little")
        flags_b, values_b = self._values(outcome)
        for k, name in enumerate(self._flag_names):
            self.tables.setdefault(name, Counter())[bool(bits >> k & 1), flags_b[name]] += 1
        for name, value in zip(self._value_names, values_a):
            if name in values_b and not math.isnan(value):  # branching needs a decision on each side
                self.differences.setdefault(name, Counter())[stats.clamped(stats.clamped(values_b[name]) - value)] += 1
        winners_a = tuple(s for s, bit in enumerate(self._win_bits) if bits >> bit & 1)
        winners_b = tuple(s for s in range(self.players) if flags_b[f"win_rate[{s}]"])
        self.joint[winners_a, winners_b, int(values_a[self._length_at]), outcome.length] += 1

    def batch_differences(self) -> dict[str, Callable[[Counter], float]]:
        """Each statistic of a whole batch, as B - A of counted pairs (`stats.bootstrap_paired`)."""
        players = self.players

        def side(pairs: Counter, at: int) -> Counter:
            found: Counter = Counter()
            for key, k in pairs.items():
                found[key[at]] += k
            return found

        def balance(pairs: Counter) -> float:
            return quality.winner_balance(side(pairs, 1), players) - quality.winner_balance(side(pairs, 0), players)

        return {"balance": balance, "length_spread": lambda p: quality.spread(side(p, 3)) - quality.spread(side(p, 2))}


@dataclass
class Comparison:
    labels: tuple[str, str]
    a: SimulationReport
    b: SimulationReport
    confidence: float  # per comparison, after the Bonferroni correction
    paired_games: int  # the games that finished on both sides, which the differences are taken from
    differences: list[stats.Difference] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"labels": list(self.labels), "a": self.a.to_dict(), "b": self.b.to_dict(),
                "correction": "Bonferroni", "family_confidence": stats.CONFIDENCE,
                "confidence_per_comparison": self.confidence, "paired_games": self.paired_games,
                "differences": [d.to_dict() for d in self.differences]}


def differences(a: SimulationReport, b: SimulationReport, pairs: Pairs,
                seed: int) -> tuple[float, list[stats.Difference]]:
    """Every tested statistic of A and B with B - A and its corrected interval, both from the paired games;
    the per-comparison confidence.  The figures of A and B are the sides' own (all their games)."""
    ma, mb = a.measures, b.measures
    assert ma is not None and mb is not None
    pa, pb, means_a, means_b = ma.proportions(), mb.proportions(), ma.means(), mb.means()
    batch = pairs.batch_differences()
    confidence = stats.bonferroni(len(pa) + len(means_a) + len(batch))
    found = []
    for name in pa:
        table = pairs.tables.get(name, Counter())
        low, high = stats.newcombe_paired(table[True, True], table[False, True], table[True, False],
                                          table[False, False], confidence)
        paired = sum(table.values())
        estimate = (table[False, True] - table[True, False]) / paired if paired else 0.0
        found.append(stats.Difference(name, pa[name] / ma.games if ma.games else 0.0,
                                      pb[name] / mb.games if mb.games else 0.0, estimate, low, high, NEWCOMBE, paired))
    for k, name in enumerate(means_a):
        differences_b_a = pairs.differences.get(name, Counter())
        low, high = stats.bootstrap_mean(differences_b_a, seed + k, confidence)
        found.append(stats.Difference(name, stats.mean(means_a[name]), stats.mean(means_b[name]),
                                      stats.mean(differences_b_a), low, high, BOOTSTRAP, sum(differences_b_a.values())))
    whole = {"balance": (quality.balance(ma.wins, ma.games), quality.balance(mb.wins, mb.games)),
             "length_spread": (quality.spread(ma.lengths), quality.spread(mb.lengths))}
    tested = stats.bootstrap_paired(pairs.joint, batch, seed + len(means_a), confidence)
    for name, (estimate, low, high) in tested.items():
        found.append(stats.Difference(name, *whole[name], estimate, low, high, PAIRED_BOOTSTRAP, pairs.games))
    return confidence, found


def compare(specs: tuple[GameSpec, GameSpec], labels: tuple[str, str], n: int, seed: int = 0,
            agents: Sequence[str] = ("random",), workers: int = 1, executor: str | None = None,
            out: str | os.PathLike | None = None, resume: bool = False,
            games: tuple[Game, Game] | None = None, spec_ids: tuple[Any, Any] = (None, None),
            progress: Callable[[int], None] | None = None, **options: Any) -> Comparison:
    """Play `n` games of each side and compare them; `out` is a folder of two results files, A.jsonl and
    B.jsonl (`resume` completes them like `simulate --resume`); `progress(k)` is told as k more games
    finish, of 2n in all."""
    loaded = games or (specs[0].load(), specs[1].load())
    pairs = Pairs(loaded[0].info.players, options.get("rotate", False), specs[0].arcs and specs[1].arcs)
    reports = []
    for side, (spec, name) in enumerate(zip(specs, ("A", "B"))):
        path = Path(out) / f"{name}.jsonl" if out is not None else None
        reports.append(simulate(spec, n, seed, agents, workers, out=path, resume=resume, keep_outcomes=False,
                                game=loaded[side], spec_ids=spec_ids[side], executor=executor,
                                on_outcome=pairs.add_b if side else pairs.add_a, progress=progress, **options))
    confidence, found = differences(reports[0], reports[1], pairs, seed)
    return Comparison(labels, reports[0], reports[1], confidence, pairs.games, found)
