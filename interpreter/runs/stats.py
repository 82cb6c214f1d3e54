"""The statistics behind `simulate`, `compare` and `tournament`, in the standard library alone.

Proportions (win rates, draws, decisiveness) get Wilson score intervals:
unlike the normal approximation they stay inside [0, 1] and keep their
coverage at rates near 0 or 1, which random play of a seed game often
reaches.  A difference of two paired proportions (game i of two batches
on one seed) gets Newcombe's score interval, built from the two Wilson
intervals and the pairs' correlation.  Means (returns, scores, lengths,
branching) get a percentile bootstrap, since their distributions are far
from normal (a game's length is often bimodal).

Values are held as `Counter`s of value -> games, so a batch of any size
holds only its distinct values; quantiles are exact.  The bootstrap draws
from a generator seeded by the caller, so a report is reproducible.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass
from statistics import NormalDist

CONFIDENCE = 0.95
BOOTSTRAP_RESAMPLES = 2000


def z_value(confidence: float) -> float:
    """The two-sided normal quantile: 1.96 for 0.95."""
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson(successes: int, trials: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval of a proportion; (0, 1) when there are no trials."""
    if trials == 0:
        return 0.0, 1.0
    z = z_value(confidence)
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe_paired(both: int, only_b: int, only_a: int, neither: int,
                    confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Newcombe's interval for p_b - p_a when each trial has an outcome under both A and B (Newcombe 1998,
    "Improved confidence intervals for the difference between binomial proportions based on paired data",
    method 10): the Wilson intervals of the two margins, combined with the correlation of the pairs, so
    that pairs which mostly agree give the narrower interval they justify.  The counts are of trials where
    both succeed, only B, only A, and neither."""
    n = both + only_b + only_a + neither
    if n == 0:
        return -1.0, 1.0
    margins = (both + only_b) * (only_a + neither) * (both + only_a) * (only_b + neither)
    cross = both * neither - only_b * only_a
    corrected = cross - n / 2 if cross > n / 2 else min(cross, 0)  # his continuity correction of phi
    return square_and_add((both + only_a) / n, wilson(both + only_a, n, confidence),
                          (both + only_b) / n, wilson(both + only_b, n, confidence),
                          corrected / math.sqrt(margins) if margins else 0.0)


def square_and_add(pa: float, a_interval: tuple[float, float], pb: float, b_interval: tuple[float, float],
                   phi: float = 0.0) -> tuple[float, float]:
    """Newcombe's interval for pb - pa from the two proportions' own intervals, the distances to their ends
    squared and added (with the correlation `phi` of paired data taken off; 0 for independent samples)."""
    (la, ua), (lb, ub) = a_interval, b_interval
    delta = pb - pa
    low = delta - math.sqrt(max(0.0, (pb - lb) ** 2 - 2 * phi * (pb - lb) * (ua - pa) + (ua - pa) ** 2))
    high = delta + math.sqrt(max(0.0, (ub - pb) ** 2 - 2 * phi * (ub - pb) * (pa - la) + (pa - la) ** 2))
    return low, high


def mean(values: Counter) -> float:
    """The mean of counted values; `fsum` is exactly rounded, so it does not depend on the order games arrived in."""
    total = sum(values.values())
    return math.fsum(v * k for v, k in values.items()) / total if total else 0.0


def quantile(values: Counter, q: float) -> float:
    """The q-quantile (lower median convention: a value that occurred), 0.0 for no values."""
    total = sum(values.values())
    if not total:
        return 0.0
    rank = max(1, math.ceil(q * total))
    seen = 0
    for value in sorted(values):
        seen += values[value]
        if seen >= rank:
            return float(value)
    return float(max(values))


QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)


def mean_interval(values: Counter, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The normal-approximation interval of the mean, mean ± z·s/√n: cheap at any batch size, and close for
    the hundreds of games a batch has (a bootstrap of a million games would cost minutes); (0, 0) for
    no values, the mean itself for one."""
    n = sum(values.values())
    if n == 0:
        return 0.0, 0.0
    m = mean(values)
    if n == 1:
        return m, m
    spread = math.sqrt(math.fsum(k * (v - m) ** 2 for v, k in values.items()) / (n - 1) / n)
    half = z_value(confidence) * spread
    return m - half, m + half


def distribution(values: Counter) -> dict:
    """Mean (with its 95% interval), min, max and the QUANTILES of a Counter of values."""
    if not values:
        return {"mean": 0.0, "ci95": [0.0, 0.0], "min": 0.0, "max": 0.0,
                "quantiles": {str(q): 0.0 for q in QUANTILES}}
    return {"mean": mean(values), "ci95": list(mean_interval(values)), "min": float(min(values)),
            "max": float(max(values)), "quantiles": {str(q): quantile(values, q) for q in QUANTILES}}


def _resampled_means(values: Counter, rng: random.Random, resamples: int) -> list[float]:
    items = sorted(values.items())
    population = [v for v, _ in items]
    weights = [k for _, k in items]
    n = sum(weights)
    return [math.fsum(rng.choices(population, weights, k=n)) / n for _ in range(resamples)]


def _percentiles(resampled: list[float], confidence: float) -> tuple[float, float]:
    """The central `confidence` interval of bootstrap resamples."""
    ordered, count = sorted(resampled), len(resampled)
    tail = (1 - confidence) / 2
    return ordered[max(0, math.floor(tail * count))], ordered[min(count - 1, math.ceil((1 - tail) * count) - 1)]


def bootstrap_mean(values: Counter, seed: int, confidence: float = CONFIDENCE,
                   resamples: int = BOOTSTRAP_RESAMPLES) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of counted values: of paired differences, the interval of
    mean(b) - mean(a) that keeps each pair together."""
    if not values:
        return -math.inf, math.inf
    return _percentiles(_resampled_means(values, random.Random(seed), resamples), confidence)


@dataclass(frozen=True)
class Difference:
    """One statistic of two runs: their values, B - A with its interval, and whether that excludes 0.

    `a` and `b` are each side's own figure; `difference` is the estimate the
    interval is built around, which a paired test takes from the pairs alone.
    The two agree unless some games are in one side's figure but in no pair.
    """

    name: str
    a: float
    b: float
    difference: float
    low: float
    high: float
    test: str

    @property
    def significant(self) -> bool:
        return self.low > 0 or self.high < 0

    def to_dict(self) -> dict:
        return {"statistic": self.name, "a": self.a, "b": self.b, "difference": self.difference,
                "low": self.low, "high": self.high, "significant": self.significant, "test": self.test}


def bonferroni(comparisons: int, confidence: float = CONFIDENCE) -> float:
    """The per-comparison confidence that keeps the family-wise error at 1 - confidence."""
    return 1 - (1 - confidence) / max(1, comparisons)

