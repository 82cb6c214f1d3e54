"""The intervals against published values, and the summaries against hand counts."""

from __future__ import annotations

import math
import sys
from collections import Counter

import pytest

from ruleplay.runs import stats


def test_wilson_matches_the_published_interval():
    # Newcombe (1998), table I: 81/263 -> 0.2553 to 0.3662; 0/10 -> 0 to 0.2775.
    assert stats.wilson(81, 263) == pytest.approx((0.2553, 0.3662), abs=1e-4)
    assert stats.wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)


def independent(a: int, n_a: int, b: int, n_b: int) -> tuple[float, float]:
    """Newcombe's interval for two independent samples: the square-and-add of their Wilson intervals."""
    return stats.square_and_add(a / n_a, stats.wilson(a, n_a), b / n_b, stats.wilson(b, n_b))


def test_square_and_add_matches_the_published_interval():
    # Newcombe (1998), table II, method 10: 56/70 - 48/80 = 0.2000, interval 0.0524 to 0.3339.
    assert independent(48, 80, 56, 70) == pytest.approx((0.0524, 0.3339), abs=1e-4)


def test_quantiles_and_distribution_read_the_counts():
    values = Counter({1: 2, 2: 5, 10: 3})
    d = stats.distribution(values)
    assert d["mean"] == pytest.approx((2 + 10 + 30) / 10)
    assert d["quantiles"]["0.5"] == 2 and d["quantiles"]["0.9"] == 10 and d["quantiles"]["0.1"] == 1
    assert (d["min"], d["max"]) == (1.0, 10.0)


def test_the_bootstrap_finds_a_shift_and_no_shift():
    centred = Counter({v - 50: 1 for v in range(101)})  # differences around 0
    shifted = Counter({v - 20: 1 for v in range(101)})  # around 30
    same, moved = stats.bootstrap_mean(centred, seed=1), stats.bootstrap_mean(shifted, seed=1)
    assert same[0] < 0 < same[1]
    assert 20 < moved[0] < 30 < moved[1] < 40
    assert stats.bootstrap_mean(centred, seed=1) == same  # seeded: reproducible


def test_bonferroni_splits_the_error():
    assert stats.bonferroni(10) == pytest.approx(0.995)
    assert stats.Difference("x", 0.2, 0.5, 0.3, 0.1, 0.4, "t").significant
    assert not stats.Difference("x", 0.2, 0.5, 0.3, -0.1, 0.4, "t").significant


def test_paired_newcombe_without_correlation_is_the_independent_interval():
    # A 2x2 table whose cross products cancel has phi 0: the interval is Newcombe's for two samples of n.
    assert stats.newcombe_paired(25, 25, 25, 25) == pytest.approx(independent(50, 100, 50, 100))


def test_paired_newcombe_is_narrower_when_the_pairs_agree():
    # 100 pairs, 40 successes under A and 45 under B: mostly the same trials (phi high) or not at all.
    agreeing = stats.newcombe_paired(40, 5, 0, 55)
    unrelated = independent(40, 100, 45, 100)
    assert agreeing[0] < 0.05 < agreeing[1] and agreeing[1] - agreeing[0] < (unrelated[1] - unrelated[0]) / 2
    assert agreeing[0] > 0  # five more successes out of five discordant pairs: a real difference


def test_paired_newcombe_keeps_its_coverage_on_correlated_pairs():
    """Monte Carlo: pairs that agree 85% of the time, true difference 0.05; the 95% interval must cover it."""
    import random
    rng = random.Random(7)
    covered, runs, n = 0, 1500, 150
    for _ in range(runs):
        counts = Counter()
        for _ in range(n):
            a = rng.random() < 0.40
            b = a if rng.random() < 0.85 else rng.random() < (0.45 - 0.85 * 0.40) / 0.15
            counts[a, b] += 1
        low, high = stats.newcombe_paired(counts[True, True], counts[False, True], counts[True, False],
                                          counts[False, False])
        covered += low <= 0.05 <= high
    assert covered / runs > 0.93


def test_the_bootstrap_of_a_mean_covers_it():
    differences = Counter({-1: 20, 0: 50, 2: 30})  # mean 0.4
    low, high = stats.bootstrap_mean(differences, seed=3)
    assert low < 0.4 < high and low > 0 and stats.bootstrap_mean(differences, seed=3) == (low, high)
    assert stats.bootstrap_mean(Counter(), seed=3) == (float("-inf"), float("inf"))


def test_the_interval_of_a_mean_is_the_normal_one():
    low, high = stats.mean_interval(Counter({0: 50, 1: 50}))  # s = 0.5025, s/√n = 0.05025
    assert (low, high) == pytest.approx((0.5 - 1.959964 * 0.050252, 0.5 + 1.959964 * 0.050252), abs=1e-5)
    assert stats.mean_interval(Counter({7: 1})) == (7, 7) and stats.mean_interval(Counter()) == (0.0, 0.0)
    assert stats.distribution(Counter({1: 3, 3: 1}))["ci95"] == list(stats.mean_interval(Counter({1: 3, 3: 1})))


def test_the_t_quantile_matches_the_published_table():
    for p, df, published in [(0.975, 1, 12.7062), (0.975, 10, 2.2281), (0.9975, 3, 7.4533), (0.995, 30, 2.7500),
                             (0.975, 1000, 1.9623)]:
        assert stats.t_quantile(p, df) == pytest.approx(published, abs=5e-5)


def test_too_few_pairs_leave_the_mean_unbounded():
    # A sign test's most extreme outcome, n differences of one sign, has p = 2^(1-n): 0.0625 at 5, 0.03125 at 6.
    assert stats.too_few_to_tell(5, 0.95) and not stats.too_few_to_tell(6, 0.95)
    assert stats.too_few_to_tell(8, 0.995) and not stats.too_few_to_tell(9, 0.995)
    four = Counter({-20: 1, -17: 2, -18: 1})  # four games all shorter by 17-20: a plain percentile bootstrap
    low, high = stats.bootstrap_mean(four, seed=1, confidence=0.995)  # said [-20, -17], "significant"
    assert (low, high) == (float("-inf"), float("inf"))
    assert not stats.Difference("mean_length", 80, 62, -18, low, high, "bootstrap").significant
    assert stats.Difference("x", 0, 0, 0, low, high, "bootstrap").to_dict()["low"] is None  # JSON has no -inf


def test_the_bootstrap_keeps_its_coverage_on_a_small_batch():
    """Monte Carlo: 10 pairs from a normal of mean 1; the 95% interval must cover 1 about 95% of the time (a
    plain percentile bootstrap covers it about 88% of the time at this size)."""
    import random
    rng = random.Random(11)
    runs, covered = 400, 0
    for run in range(runs):
        values = Counter(round(rng.gauss(1.0, 3.0), 3) for _ in range(10))
        low, high = stats.bootstrap_mean(values, seed=run, confidence=0.95, resamples=400)
        covered += low <= 1.0 <= high
    assert covered / runs > 0.925


def test_scores_near_or_past_the_largest_float_have_finite_figures():
    """Five scores of 1.5e308 summed to infinity (mean inf, interval [nan, inf], invalid JSON), and a
    1024-bit whole score stopped simulate, compare and tournament with an internal OverflowError."""
    assert stats.mean(Counter({1.5e308: 5})) == 1.5e308
    assert stats.mean(Counter({2 ** 1023: 3, 0: 1})) == float(3 * 2 ** 1023 // 4)
    for values in (Counter({1.5e308: 3, -1.5e308: 2}), Counter({2 ** 1024 - 1: 2, 0: 3}), Counter({2 ** 1023: 4})):
        figures = stats.distribution(values)
        flat = [figures["mean"], *figures["ci95"], figures["min"], figures["max"], *figures["quantiles"].values()]
        assert all(math.isfinite(x) for x in flat), figures
        assert figures["ci95"][0] <= figures["mean"] <= figures["ci95"][1]
    assert stats.distribution(Counter({2 ** 1024 - 1: 1}))["max"] == sys.float_info.max
    huge = Counter({1.5e308: 6, 1.0e308: 4})  # enough pairs to be bounded (`too_few_to_tell`)
    low, high = stats.bootstrap_mean(huge, seed=1)
    assert math.isfinite(low) and math.isfinite(high) and low <= stats.mean(huge) <= high


@pytest.mark.parametrize("trials", range(1, 60))
def test_a_wilson_interval_holds_its_rate_at_the_ends(trials):
    """0 of 5 had the low end 2.8e-17 and 13 of 13 the high end 0.9999999999999999: the bar a chart drew
    below the rate was negative, and `simulate --plot` stopped with matplotlib's ValueError."""
    assert stats.wilson(0, trials)[0] == 0.0 and stats.wilson(trials, trials)[1] == 1.0
    for wins in range(trials + 1):
        low, high = stats.wilson(wins, trials)
        assert low <= wins / trials <= high
