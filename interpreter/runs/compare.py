"""Two rule sets (a base and a variant, or two variants) played on the same seeds by the same agents.

Each side is a whole `simulate` batch with the same seed, agents and game
count, so game i of A and game i of B start from the same seed (common
random numbers): what differs is the rules.  Every statistic of
`runs.summary` is set side by side with the difference B - A and an
interval for it:

- proportions (win rate per seat, draw rate, decisiveness): Newcombe's
  hybrid score interval for a difference of two independent proportions;
- means (return and score per seat, length, branching factor per game): a
  percentile bootstrap of the difference of means (BOOTSTRAP_RESAMPLES
  resamples of each side, seeded by the run's seed).

A table of a dozen tests at 95% each would call something "significant"
by chance about half the time, so the intervals are Bonferroni-corrected:
each is built at confidence 1 - 0.05/m for the m statistics tested, and a
difference is significant when its interval excludes 0; the family-wise
error rate is then at most 5%.  Rule coverage is shown side by side but
not tested (one test per rule would make the correction swallow the rest).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from ..engine.game import Game
from . import stats
from .simulate import SimulationReport, simulate
from .workers import GameSpec

NEWCOMBE = "Newcombe hybrid score interval (difference of proportions)"
BOOTSTRAP = f"percentile bootstrap, {stats.BOOTSTRAP_RESAMPLES} resamples (difference of means)"


@dataclass
class Comparison:
    labels: tuple[str, str]
    a: SimulationReport
    b: SimulationReport
    confidence: float  # per comparison, after the Bonferroni correction
    differences: list[stats.Difference] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"labels": list(self.labels), "a": self.a.to_dict(), "b": self.b.to_dict(),
                "correction": "Bonferroni", "family_confidence": stats.CONFIDENCE,
                "confidence_per_comparison": self.confidence,
                "differences": [d.to_dict() for d in self.differences]}


def differences(a: SimulationReport, b: SimulationReport, seed: int) -> tuple[float, list[stats.Difference]]:
    """Every tested statistic of A and B with its corrected interval; the per-comparison confidence."""
    ma, mb = a.measures, b.measures
    assert ma is not None and mb is not None
    pa, pb, means_a, means_b = ma.proportions(), mb.proportions(), ma.means(), mb.means()
    confidence = stats.bonferroni(len(pa) + len(means_a))
    found = []
    for name in pa:
        low, high = stats.newcombe(pa[name], ma.games, pb[name], mb.games, confidence)
        found.append(stats.Difference(name, pa[name] / ma.games if ma.games else 0.0,
                                      pb[name] / mb.games if mb.games else 0.0, low, high, NEWCOMBE))
    for k, name in enumerate(means_a):
        low, high = stats.bootstrap_difference(means_a[name], means_b[name], seed + k, confidence)
        found.append(stats.Difference(name, stats.mean(means_a[name]), stats.mean(means_b[name]), low, high,
                                      BOOTSTRAP))
    return confidence, found


def compare(specs: tuple[GameSpec, GameSpec], labels: tuple[str, str], n: int, seed: int = 0,
            agents: Sequence[str] = ("random",), workers: int = 1, executor: str | None = None,
            out: str | os.PathLike | None = None, resume: bool = False,
            games: tuple[Game, Game] | None = None, spec_ids: tuple[Any, Any] = (None, None),
            **options: Any) -> Comparison:
    """Play `n` games of each side and compare them; `out` is a folder of two results files, A.jsonl and
    B.jsonl (`resume` completes them like `simulate --resume`)."""
    reports = []
    for side, (spec, name) in enumerate(zip(specs, ("A", "B"))):
        path = Path(out) / f"{name}.jsonl" if out is not None else None
        reports.append(simulate(spec, n, seed, agents, workers, out=path, resume=resume, keep_outcomes=False,
                                game=games[side] if games else None, spec_ids=spec_ids[side],
                                executor=executor, **options))
    confidence, found = differences(reports[0], reports[1], seed)
    return Comparison(labels, reports[0], reports[1], confidence, found)
