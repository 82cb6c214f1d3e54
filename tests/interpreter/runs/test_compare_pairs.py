"""compare pairs game i of A with game i of B: only games finished on both sides, in agent order when seats
rotate, whatever order they finished in."""

from __future__ import annotations

from collections import Counter

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
