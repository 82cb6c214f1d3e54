"""Each metric of `runs.quality` on a game built to have a known value, and the pieces they are made of."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import pytest

from ruleplay import load_game
from ruleplay.runs import quality, stats
from ruleplay.runs.depth import Step, chain_games, default_chain, strategic_depth
from ruleplay.runs.quality import METRICS, balance, bootstrap, game_metrics, spread, winner_balance
from ruleplay.runs.simulate import simulate
from ruleplay.runs.workers import GameSpec

ROOT = Path(__file__).resolve().parents[3]
SCRIPTED = str(ROOT / "tests" / "rulesets" / "scripted-lead.yaml")
PICK_HIGH = str(ROOT / "tests" / "rulesets" / "pick-high.yaml")


def _metrics(variant: str | None, n: int = 12) -> dict:
    spec = GameSpec(SCRIPTED, variant=variant, arcs=True)
    report = simulate(spec, n, seed=4, keep_outcomes=False)
    return {name: found["value"] for name, found in game_metrics(report.measures, 4).items()}


def test_the_scripted_game_has_its_known_values():
    """Seat 0 leads, seat 1 overtakes, seat 0 leads again, seat 1 overtakes for good after move 4 of 6."""
    assert _metrics(None) == {"balance": 0.0, "first_move_advantage": 0.0, "drawishness": 0.0, "decisiveness": 1.0,
                              "duration": 6.0, "duration_spread": 0.0, "branching": 2.0, "lead_changes": 3.0,
                              "drama": pytest.approx(1 / 3, abs=1e-6), "settled_at": pytest.approx(2 / 3, abs=1e-6)}


def test_a_game_that_always_draws_is_balanced_drawish_and_has_no_drama():
    found = _metrics("level")
    assert (found["balance"], found["drawishness"], found["decisiveness"], found["first_move_advantage"]) == (1, 1, 0, 0)
    assert found["lead_changes"] == 3.0 and "drama" not in found and "settled_at" not in found


def test_a_game_led_wire_to_wire_by_the_first_mover():
    found = _metrics("wire-to-wire")
    assert (found["first_move_advantage"], found["balance"], found["lead_changes"], found["drama"]) == (1, 0, 0, 0)
    assert found["duration"] == 6.0 and found["branching"] == 2.0
    assert found["settled_at"] == pytest.approx(1 / 6, abs=1e-6)  # level before the first move, led from then on


def test_every_metric_has_an_interval_around_its_value():
    spec = GameSpec("tic-tac-toe", arcs=True)
    report = simulate(spec, 60, seed=1, keep_outcomes=False)
    found = game_metrics(report.measures, 1)
    assert list(found) == [m.name for m in METRICS if m.name != "strategic_depth"]
    for name, metric in found.items():
        low, high = metric["ci95"]
        assert low <= metric["value"] <= high, name
    assert 0 < found["balance"]["ci95"][0] < found["balance"]["value"] < found["balance"]["ci95"][1] <= 1


def test_balance_spread_and_their_bootstrap():
    assert balance([6, 3], 10) == pytest.approx(0.7) and balance([5, 5, 5], 15) == 1.0 and balance([4], 4) == 1.0
    assert winner_balance(Counter({(0,): 6, (1,): 3, (): 1}), 2) == pytest.approx(0.7)
    assert spread(Counter({2: 1, 4: 1})) == pytest.approx(math.sqrt(2)) and spread(Counter({5: 9})) == 0.0
    assert bootstrap(Counter({7: 10}), spread, 1) == (0.0, 0.0)  # no spread to draw from
    lengths = Counter({1: 30, 5: 40, 9: 30})
    low, high = bootstrap(lengths, spread, 1)
    assert low < spread(lengths) < high
    assert bootstrap(lengths, spread, 1) == (low, high)  # seeded: the same interval again


def test_the_paired_bootstrap_of_a_batch_statistic():
    lengths_b_minus_a = {"mean": lambda pairs: sum((b - a) * k for (a, b), k in pairs.items()) / sum(pairs.values())}
    fixed = stats.bootstrap_paired(Counter({(5, 8): 30}), lengths_b_minus_a, 1)
    assert fixed == {"mean": (3.0, 3.0, 3.0)}  # every pair moved by 3: nothing to resample
    few = stats.bootstrap_paired(Counter({(5, 8): 4}), lengths_b_minus_a, 1)
    assert few["mean"][0] == 3.0 and few["mean"][1:] == (-math.inf, math.inf)  # too few pairs to tell
    mixed = stats.bootstrap_paired(Counter({(5, 8): 30, (5, 4): 30}), lengths_b_minus_a, 1)
    assert mixed["mean"][1] < 1.0 < mixed["mean"][2]


def test_every_metric_is_documented_with_its_definition_and_source():
    page = (ROOT / "docs" / "variants.md").read_text(encoding="utf-8")
    for metric in METRICS:
        assert f"| {metric.label} (`{metric.name}`) |" in page, metric.name
        row = next(line for line in page.splitlines() if line.startswith(f"| {metric.label} (`{metric.name}`) |"))
        assert all(part.strip() in row for part in metric.source.split(";")), metric.name
        assert (f"`{metric.compared_as}`" if metric.compared_as else "—") in row, metric.name
    assert [m.name for m in METRICS] == list(quality.BY_NAME)


def test_the_default_skill_chain_searches_honestly_where_secrets_are_kept():
    assert default_chain(load_game("tic-tac-toe")) == ["random", "mcts:iterations=50", "mcts:iterations=500"]
    assert default_chain(load_game("kuhn-poker")) == ["random", "ismcts:iterations=50", "ismcts:iterations=500"]
    assert chain_games(["a", "b", "c"], 5, 2) == 2 * 6  # 5 games a step rounded up to both seatings


def test_a_game_no_move_changes_has_no_strategic_depth():
    game = load_game(SCRIPTED)
    depth = strategic_depth(GameSpec(SCRIPTED), game, default_chain(game), 6, seed=2)
    assert depth.depth == 0
    assert [(s.wins, s.draws, s.losses, s.score) for s in depth.steps] == [(3, 0, 3, 0.5), (3, 0, 3, 0.5)]


def test_a_game_where_a_search_beats_random_but_not_another_search_has_depth_one():
    game = load_game(PICK_HIGH)
    depth = strategic_depth(GameSpec(PICK_HIGH), game, default_chain(game), 20, seed=3)
    first, second = depth.steps
    assert first.significant and first.losses == 0 and first.score > 0.75
    assert (second.wins, second.losses, second.draws, second.significant) == (0, 0, 20, False)  # both pick 2
    assert depth.depth == 1 and depth.to_dict()["depth"] == 1


def test_a_step_s_score_counts_draws_as_half_and_is_significant_above_one_half():
    step = Step("random", "mcts", wins=14, draws=4, losses=2, failed=0)
    assert step.games == 20 and step.score == 0.8
    assert step.ci95 == stats.wilson(16, 20) and step.significant
    assert not Step("a", "b", 10, 0, 10, 0).significant


@pytest.mark.slow
def test_the_default_chain_finds_a_search_better_than_random_at_tic_tac_toe():
    """The default skill chain, at the default twenty games a step, on today's engine: mcts at 50 iterations
    beats random, whatever the step above it shows."""
    game = load_game("tic-tac-toe")
    depth = strategic_depth(GameSpec("tic-tac-toe"), game, default_chain(game), 20, seed=0)
    first = depth.steps[0]
    assert first.significant and first.losses <= 1, first
    assert depth.depth >= 1 and len(depth.steps) == 2
