"""The intervals against published values, and the summaries against hand counts."""

from __future__ import annotations

from collections import Counter

import pytest

from ruleplay.runs import stats


def test_wilson_matches_the_published_interval():
    # Newcombe (1998), table I: 81/263 -> 0.2553 to 0.3662; 0/10 -> 0 to 0.2775.
    assert stats.wilson(81, 263) == pytest.approx((0.2553, 0.3662), abs=1e-4)
    assert stats.wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)


def test_newcombe_matches_the_published_interval():
    # Newcombe (1998), table II, method 10: 56/70 - 48/80 = 0.2000, interval 0.0524 to 0.3339.
    low, high = stats.newcombe(48, 80, 56, 70)
    assert (low, high) == pytest.approx((0.0524, 0.3339), abs=1e-4)


def test_quantiles_and_distribution_read_the_counts():
    values = Counter({1: 2, 2: 5, 10: 3})
    d = stats.distribution(values)
    assert d["mean"] == pytest.approx((2 + 10 + 30) / 10)
    assert d["quantiles"]["0.5"] == 2 and d["quantiles"]["0.9"] == 10 and d["quantiles"]["0.1"] == 1
    assert (d["min"], d["max"]) == (1.0, 10.0)


def test_the_bootstrap_finds_a_shift_and_no_shift():
    a = Counter({v: 1 for v in range(100)})
    same = stats.bootstrap_difference(a, Counter(a), seed=1)
    shifted = stats.bootstrap_difference(a, Counter({v + 30: 1 for v in range(100)}), seed=1)
    assert same[0] < 0 < same[1]
    assert 20 < shifted[0] < 30 < shifted[1] < 40
    assert stats.bootstrap_difference(a, Counter(a), seed=1) == same  # seeded: reproducible


def test_bonferroni_splits_the_error():
    assert stats.bonferroni(10) == pytest.approx(0.995)
    assert stats.Difference("x", 0.2, 0.5, 0.1, 0.4, "t").significant
    assert not stats.Difference("x", 0.2, 0.5, -0.1, 0.4, "t").significant
