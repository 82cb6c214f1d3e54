"""compare pairs game i of A with game i of B: only games finished on both sides, in agent order when seats
rotate, whatever order they finished in."""

from __future__ import annotations

from collections import Counter

import pytest

from ruleplay.engine.outcome import GameFailure, GameOutcome
from ruleplay.runs.compare import Pairs


def outcome(index: int, returns: tuple[float, float], length: int = 5, failed: bool = False) -> GameOutcome:
    failure = GameFailure(index, 0, "RP500", "boom", "") if failed else None
    return GameOutcome(index, 0, length=length, scores=returns, returns=returns, decisions=2, branching=6,
                       failure=failure)


def test_games_are_paired_by_index_and_failed_ones_left_out():
    pairs = Pairs(2, rotate=False)
    for o in (outcome(0, (1, -1)), outcome(1, (0, 0)), outcome(2, (1, -1)), outcome(3, (1, -1), failed=True)):
        pairs.add_a(o)
    for o in (outcome(2, (-1, 1), length=7), outcome(0, (1, -1)), outcome(1, (0, 0), failed=True), outcome(3, (0, 0))):
        pairs.add_b(o)  # B's games arrive in another order
    assert pairs.games == 2  # game 1 failed on B, game 3 on A
    assert pairs.tables["win_rate[0]"] == Counter({(True, True): 1, (True, False): 1})
    assert pairs.differences["mean_length"] == Counter({0: 1, 2: 1})
    assert pairs.differences["mean_return[1]"] == Counter({0: 1, 2: 1})


def test_rotated_seats_are_paired_by_agent():
    pairs = Pairs(2, rotate=True)
    pairs.add_a(outcome(1, (1, -1)))  # game 1 seats agent 1 in seat 0: agent 1 won
    pairs.add_b(outcome(1, (-1, 1)))  # agent 0 won
    assert pairs.tables["win_rate[1]"] == Counter({(True, False): 1})
    assert pairs.tables["win_rate[0]"] == Counter({(False, True): 1})


def test_a_games_values_are_what_the_batch_measures_count():
    from ruleplay.runs.simulate import simulate
    from ruleplay.runs.summary import game_values
    from ruleplay.runs.workers import GameSpec

    report = simulate(GameSpec("tic-tac-toe"), 60, seed=4, agents=["random", "greedy"])
    flags, values = Counter(), {}
    for o in report.outcomes:
        f, v = game_values(o, 2)
        flags.update(name for name, flag in f.items() if flag)
        for name, value in v.items():
            values.setdefault(name, Counter())[value] += 1
    assert {k: flags[k] for k in report.measures.proportions()} == report.measures.proportions()
    assert values == report.measures.means()


def test_a_game_of_many_seats_packs_all_its_flags():
    seats = 70  # more flags than a 64-bit word holds
    pairs = Pairs(seats, rotate=False)
    returns = tuple(1.0 if s == 65 else -1.0 for s in range(seats))
    pairs.add_a(GameOutcome(0, 0, length=3, scores=returns, returns=returns))
    pairs.add_b(GameOutcome(0, 0, length=4, scores=returns, returns=returns))
    assert pairs.tables["win_rate[65]"] == Counter({(True, True): 1})
    assert pairs.tables["win_rate[64]"] == Counter({(False, False): 1}) and pairs.differences["mean_length"] == {1: 1}


def test_a_comparison_with_arcs_tests_every_metric_one_batch_gives_with_known_values():
    """Scripted lead against its wire-to-wire variant: every game is the same game on each side, so every
    difference is known, and the differences of constant pairs have intervals of no width."""
    from pathlib import Path

    from ruleplay.runs.compare import compare
    from ruleplay.runs.workers import GameSpec

    ruleset = str(Path(__file__).resolve().parents[2] / "rulesets" / "scripted-lead.yaml")
    specs = (GameSpec(ruleset, arcs=True), GameSpec(ruleset, variant="wire-to-wire", arcs=True))
    result = compare(specs, ("base", "wire-to-wire"), 12, seed=5)
    found = {d.name: d for d in result.differences}
    assert list(found) == ["win_rate[0]", "win_rate[1]", "draw_rate", "decisiveness", "first_mover_win",
                           "mean_return[0]", "mean_return[1]", "mean_score[0]", "mean_score[1]", "mean_length",
                           "mean_branching", "lead_changes", "drama", "settled_at", "balance", "length_spread"]
    assert result.confidence == 1 - 0.05 / 16
    assert (found["first_mover_win"].a, found["first_mover_win"].b, found["first_mover_win"].significant) == (0, 1, True)
    assert (found["lead_changes"].difference, found["lead_changes"].low, found["lead_changes"].high) == (-3, -3, -3)
    assert found["settled_at"].difference == pytest.approx(1 / 6 - 2 / 3, abs=1e-6)
    assert (found["balance"].a, found["balance"].b, found["balance"].difference) == (0.0, 0.0, 0.0)
    assert not found["balance"].significant and found["balance"].pairs == 12
    assert (found["length_spread"].low, found["length_spread"].high) == (0.0, 0.0)
    assert found["drama"].pairs == 12 and result.to_dict()["differences"][12]["pairs"] == 12


def test_pairs_keep_both_sides_winners_and_lengths_for_the_batch_statistics():
    pairs = Pairs(2, rotate=False, arcs=False)
    pairs.add_a(outcome(0, (1, -1), length=5))
    pairs.add_b(outcome(0, (-1, 1), length=8))
    pairs.add_a(outcome(1, (0, 0), length=6))
    pairs.add_b(outcome(1, (0, 0), length=6))
    assert pairs.joint == Counter({((0,), (1,), 5, 8): 1, ((), (), 6, 6): 1})
    batch = pairs.batch_differences()
    assert batch["balance"](pairs.joint) == 0.0  # one win each side, one draw: as balanced before as after
    assert batch["length_spread"](pairs.joint) == pytest.approx(2 ** 0.5 - 2 ** -0.5)
