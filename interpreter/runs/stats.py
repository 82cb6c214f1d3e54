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
import sys
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist
from typing import Callable

CONFIDENCE = 0.95
BOOTSTRAP_RESAMPLES = 2000
FLOAT_MAX = sys.float_info.max


def z_value(confidence: float) -> float:
    """The two-sided normal quantile: 1.96 for 0.95."""
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson(successes: float, trials: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval of a proportion; (0, 1) when there are no trials.  `successes` may count a
    draw as half a success (strategic depth's score): the interval is then a little wide, not too narrow."""
    if trials == 0:
        return 0.0, 1.0
    z = z_value(confidence)
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    # The interval holds the rate it is about: rounding put the low end of 0 of 5 at 2.8e-17 and the high
    # end of 13 of 13 at 0.9999999999999999, and a chart's error bar below a rate of 0 stopped --plot.
    return min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half))


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


def clamped(value: int | float | Fraction) -> float:
    """A figure as the float a report writes: one past the largest float (scores are whole numbers of up
    to 1024 bits) is written as the largest, never as an OverflowError or an infinity JSON cannot hold."""
    try:
        return max(-FLOAT_MAX, min(FLOAT_MAX, float(value)))
    except OverflowError:
        return FLOAT_MAX if value > 0 else -FLOAT_MAX


def mean(values: Counter) -> float:
    """The mean of counted values; `fsum` is exactly rounded, so it does not depend on the order games arrived in.

    Scores near the largest float (or whole numbers past it) overflow that sum: their mean is then taken
    exactly, as fractions, so five scores of 1.5e308 have the mean 1.5e308, not infinity."""
    total = sum(values.values())
    if not total:
        return 0.0
    try:
        found = math.fsum(v * k for v, k in values.items()) / total
    except (OverflowError, ValueError):  # a whole number past a float; a sum past the largest (inf - inf)
        found = math.inf
    return found if math.isfinite(found) else clamped(_exact_mean(values, total))


def _exact_mean(values: Counter, total: int) -> Fraction:
    return sum((Fraction(v) * k for v, k in values.items()), Fraction(0)) / total


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
            return clamped(value)
    return clamped(max(values))


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
    try:
        spread = math.sqrt(math.fsum(k * (v - m) ** 2 for v, k in values.items()) / (n - 1) / n)
    except (OverflowError, ValueError):  # a value too large for a float, or a square past the largest
        spread = math.inf
    if not math.isfinite(spread):
        spread = _scaled_spread(values, n)
    half = z_value(confidence) * spread
    return clamped(m - half), clamped(m + half)


def _scaled_spread(values: Counter, n: int) -> float:
    """The standard error of the mean, taken exactly with every value divided by the largest first, so no
    square outgrows a float; the result may still be past the largest (the interval ends are clamped)."""
    exact = _exact_mean(values, n)
    scale = max(abs(Fraction(v)) for v in values)
    variance = sum((k * ((Fraction(v) - exact) / scale) ** 2 for v, k in values.items()), Fraction(0))
    return clamped(scale) * math.sqrt(variance / (n - 1) / n)


def distribution(values: Counter) -> dict:
    """Mean (with its 95% interval), min, max and the QUANTILES of a Counter of values."""
    if not values:
        return {"mean": 0.0, "ci95": [0.0, 0.0], "min": 0.0, "max": 0.0,
                "quantiles": {str(q): 0.0 for q in QUANTILES}}
    return {"mean": mean(values), "ci95": list(mean_interval(values)), "min": clamped(min(values)),
            "max": clamped(max(values)), "quantiles": {str(q): quantile(values, q) for q in QUANTILES}}


def _resampled_means(values: Counter, rng: random.Random, resamples: int) -> list[float]:
    items = sorted(values.items())
    population = [v for v, _ in items]
    weights = [k for _, k in items]
    n = sum(weights)
    return [_sample_mean(rng.choices(population, weights, k=n)) for _ in range(resamples)]


def _sample_mean(drawn: list) -> float:
    """`fsum` of a resample over its size; by `mean` where that sum overflows."""
    try:
        found = math.fsum(drawn) / len(drawn)
    except (OverflowError, ValueError):
        found = math.inf
    return found if math.isfinite(found) else mean(Counter(drawn))


def _percentiles(resampled: list[float], confidence: float) -> tuple[float, float]:
    """The central `confidence` interval of bootstrap resamples."""
    ordered, count = sorted(resampled), len(resampled)
    tail = (1 - confidence) / 2
    return ordered[max(0, math.floor(tail * count))], ordered[min(count - 1, math.ceil((1 - tail) * count) - 1)]


def bootstrap_mean(values: Counter, seed: int, confidence: float = CONFIDENCE,
                   resamples: int = BOOTSTRAP_RESAMPLES) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of counted values: of paired differences, the interval of
    mean(b) - mean(a) that keeps each pair together.

    A plain percentile bootstrap is too narrow on few values: it never
    reaches past the values seen, and its width is about z·s/√n with the
    spread taken over n, not n - 1 (four pairs that all moved by -17 to -20
    gave [-20, -17], "significant" at 99.5%).  Two corrections keep it
    honest on small batches and leave it as it was on hundreds of games:
    the interval is widened about the mean by Student's t over the normal
    quantile, with the n - 1 spread (Hesterberg's expanded percentile
    interval, "What teachers should know about the bootstrap", 2015), and
    with fewer values than a distribution-free test needs to reach
    `confidence` at all (`too_few_to_tell`), the mean is not bounded.
    """
    n = sum(values.values())
    if too_few_to_tell(n, confidence):
        return -math.inf, math.inf
    low, high = _percentiles(_resampled_means(values, random.Random(seed), resamples), confidence)
    centre = mean(values)
    widen = math.sqrt(n / (n - 1)) * t_quantile(0.5 + confidence / 2, n - 1) / z_value(confidence)
    return clamped(centre - (centre - low) * widen), clamped(centre + (high - centre) * widen)


def bootstrap_paired(pairs: Counter, differences: dict[str, Callable[[Counter], float]], seed: int,
                     confidence: float = CONFIDENCE,
                     resamples: int = BOOTSTRAP_RESAMPLES) -> dict[str, tuple[float, float, float]]:
    """For statistics of a whole batch (a balance, a spread), not means of per-game values: each
    `differences[name]` takes counted pairs of games (game i of A with game i of B, as one key) to the
    statistic's B - A; the result is, per name, that difference over `pairs` with a percentile bootstrap
    interval from resampling the pairs, expanded about the estimate as `bootstrap_mean` expands a mean's
    and unbounded for too few pairs.  All the statistics are read off the same resamples."""
    n = sum(pairs.values())
    estimates = {name: clamped(fn(pairs)) for name, fn in differences.items()}
    if too_few_to_tell(n, confidence):
        return {name: (value, -math.inf, math.inf) for name, value in estimates.items()}
    rng = random.Random(seed)
    items = sorted(pairs.items(), key=repr)
    population, weights = [key for key, _ in items], [k for _, k in items]
    drawn: dict[str, list[float]] = {name: [] for name in differences}
    for _ in range(resamples):
        sample = Counter(rng.choices(population, weights, k=n))
        for name, fn in differences.items():
            drawn[name].append(clamped(fn(sample)))
    widen = math.sqrt(n / (n - 1)) * t_quantile(0.5 + confidence / 2, n - 1) / z_value(confidence)
    found = {}
    for name, centre in estimates.items():
        low, high = _percentiles(drawn[name], confidence)
        found[name] = (centre, clamped(centre - (centre - low) * widen), clamped(centre + (high - centre) * widen))
    return found


def too_few_to_tell(n: int, confidence: float) -> bool:
    """Whether n paired values are too few for any distribution-free test at `confidence` (`fewest_to_tell`)."""
    return n < fewest_to_tell(confidence)


def fewest_to_tell(confidence: float) -> int:
    """The fewest paired values a distribution-free test can find a difference in at `confidence`: with
    fewer, even all n differences of one sign, the most extreme outcome a sign test sees, are as likely by
    chance as 2^(1-n) > 1 - confidence (6 pairs at 95%, 9 at 99.5%)."""
    n = 2
    while 2.0 ** (1 - n) > 1 - confidence:
        n += 1
    return n


def t_quantile(p: float, df: int) -> float:
    """Student's t quantile (p in (0.5, 1)): bisection on `t_cdf`, to double precision."""
    low, high = 0.0, 1.0
    while t_cdf(high, df) < p:
        low, high = high, high * 2
    for _ in range(200):
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if t_cdf(middle, df) < p:
            low = middle
        else:
            high = middle
    return high


def t_cdf(t: float, df: int) -> float:
    """Student's t distribution function, from the regularized incomplete beta function."""
    tail = 0.5 * _incomplete_beta(df / 2, 0.5, df / (df + t * t))
    return 1 - tail if t > 0 else tail


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b), by its continued fraction (modified Lentz), on
    whichever side of the mean a / (a + b) it converges fast."""
    if x <= 0 or x >= 1:
        return 0.0 if x <= 0 else 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x > (a + 1) / (a + b + 2):
        return 1 - _incomplete_beta(b, a, 1 - x)
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 500):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1) < 1e-15:
            break
    return front * result / a


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
    pairs: int = 0  # the pairs of games the test is over (drama only has those won on both sides)

    @property
    def significant(self) -> bool:
        return self.low > 0 or self.high < 0

    def to_dict(self) -> dict:
        """The difference as JSON data; an unbounded end (too few pairs to tell) is null, as JSON has no
        infinity."""
        return {"statistic": self.name, "a": self.a, "b": self.b, "difference": self.difference,
                "low": self.low if math.isfinite(self.low) else None,
                "high": self.high if math.isfinite(self.high) else None,
                "significant": self.significant, "test": self.test, "pairs": self.pairs}


def bonferroni(comparisons: int, confidence: float = CONFIDENCE) -> float:
    """The per-comparison confidence that keeps the family-wise error at 1 - confidence."""
    return 1 - (1 - confidence) / max(1, comparisons)

