"""Seatings hold every seat equally often; the Bradley-Terry fit orders agents by their results."""

from __future__ import annotations

from collections import Counter

import pytest

from ruleplay.runs.tournament import Pairing, fit, seatings


@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_agent_holds_every_seat_equally_often(players: int) -> None:
    found = seatings(0, 1, players)
    assert len(found) == len(set(found))
    for seat in range(players):
        held = Counter(s[seat] for s in found)
        assert held[0] == held[1]
    assert seatings(0, 1, 2) == [(0, 1), (1, 0)]


def test_the_fit_orders_and_spaces_the_agents() -> None:
    # a beats b 3 to 1, b beats c 3 to 1: a > b > c, and b halfway between them
    ratings = fit(3, [Pairing(0, 1, wins=30, losses=10), Pairing(1, 2, wins=30, losses=10),
                      Pairing(0, 2, wins=36, losses=4)])
    assert ratings[0] > ratings[1] > ratings[2]
    assert sum(ratings) == pytest.approx(0, abs=1e-6)
    assert ratings[0] - ratings[1] == pytest.approx(ratings[1] - ratings[2], rel=0.1)


def test_an_agent_that_always_wins_gets_a_finite_rating() -> None:
    ratings = fit(2, [Pairing(0, 1, wins=20)])
    assert 0 < ratings[0] < 2000 and ratings[1] == pytest.approx(-ratings[0])
