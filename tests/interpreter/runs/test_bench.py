"""The benchmark API: what it measures, and the arguments it refuses."""

from __future__ import annotations

import math

import pytest

from ruleplay import load_game
from ruleplay.runs.bench import bench


@pytest.mark.parametrize("seconds", [0, -1, math.nan, math.inf])
def test_a_run_that_could_not_end_is_refused(seconds):
    with pytest.raises(ValueError, match="finite number of seconds"):
        bench(load_game("tic-tac-toe"), seconds=seconds)


def test_each_run_is_measured_against_the_baseline():
    report = bench(load_game("tic-tac-toe"), seconds=0.05, runs=3)
    assert len(report.runs) == 3
    assert all(r.playouts >= 1 and r.baseline_ops_per_s > 0 for r in report.runs)
    assert report.cost == sorted(r.baseline_ops_per_s / r.playouts_per_s for r in report.runs)[1]
