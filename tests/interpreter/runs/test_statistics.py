"""simulate's statistics: the same for any worker count, per agent under rotation, and coverage named."""

from __future__ import annotations

from collections import Counter

from ruleplay.engine.outcome import GameOutcome
from ruleplay.runs.coverage import coverage
from ruleplay.runs.simulate import by_agent, simulate
from ruleplay.runs.workers import GameSpec

TTT = GameSpec("tic-tac-toe")


def test_statistics_do_not_depend_on_the_workers():
    one = simulate(TTT, 40, seed=5, agents=["random", "greedy"], workers=1)
    two = simulate(TTT, 40, seed=5, agents=["random", "greedy"], workers=2)
    assert one.statistics == two.statistics
    assert one.statistics["win_rate"][1]["wins"] == one.wins[1]


def test_statistics_count_what_the_games_did():
    report = simulate(TTT, 30, seed=2)
    s = report.statistics
    games = report.outcomes
    assert s["length"]["mean"] == sum(o.length for o in games) / 30
    assert s["decisiveness"]["rate"] == sum(1 for o in games if max(o.returns) != min(o.returns)) / 30
    decisions = sum(o.decisions for o in games)
    assert s["branching"]["mean_per_decision"] == sum(o.branching for o in games) / decisions
    # every game places; the first decision of a game offers the 9 cells
    assert s["rules"]["fired"]["TT-2.1"]["games"] == 30
    assert all(o.branching >= 9 for o in games)
    lo, hi = s["win_rate"][0]["ci95"]
    assert lo <= s["win_rate"][0]["rate"] <= hi


def test_rotation_counts_each_agent_wherever_it_sat():
    outcome = GameOutcome(index=1, seed=0, length=3, scores=(0, 1), returns=(-1, 1))
    assert by_agent(outcome, 2).returns == (1, -1)  # game 1 seats agent 1 in seat 0
    fixed = simulate(TTT, 40, seed=3, agents=["random", "greedy"])
    rotated = simulate(TTT, 40, seed=3, agents=["random", "greedy"], rotate=True)
    assert rotated.rotate and fixed.statistics != rotated.statistics
    assert rotated.statistics["mean_returns"][1] > 0  # greedy, seat 0 or 1, still beats random


def test_coverage_names_dead_static_and_uncited_rules():
    cited = {"R-1": [("actions", "go", "effects")], "R-2": [("actions", "go", "require", 0)],
             "R-3": [("end", 0)], "R-4": [("setup",)], "R-6": [("invariants", 0)],
             "R-7": [("actions", "go", "params", "cell")]}
    found = coverage(cited, fired=Counter({"R-1": 5}), fired_in_games=Counter({"R-1": 2}), games=4,
                     spec_ids=["R-1", "R-2", "R-3", "R-4", "R-5", "R-6", "R-7"])
    assert found["fired"]["R-1"] == {"moves": 5, "games": 2, "share_of_games": 0.5}
    assert found["possibly_dead"] == ["R-3"]
    assert found["static"] == ["R-2", "R-4", "R-6", "R-7"]  # an invariant and a parameter label, never fired
    assert found["uncited"] == ["R-5"]


def test_a_games_invariants_are_not_possibly_dead():
    """Connect Four cites CF-1.1 and CF-1.3 only on its invariants, which check every state and fire nothing."""
    rules = simulate(GameSpec("connect-four"), 2, seed=1).statistics["rules"]
    assert {"CF-1.1", "CF-1.3"} <= set(rules["static"]) and not {"CF-1.1", "CF-1.3"} & set(rules["possibly_dead"])

