"""Chart labels: long agent specs are broken over lines so seats' labels do not run into each other; a run
where no rule fired still draws its coverage chart."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from ruleplay import load_game
from ruleplay.runs.simulate import GameSpec, simulate
from ruleplay.view.charts import seat_label, wrapped, write_charts


@pytest.mark.parametrize("spec", ["random", "mcts:iterations=400", "ismcts:iterations=20:depth=3:heuristic=prospects",
                                  "greedy:heuristic=a_very_long_heuristic_name_beyond_any_width"])
def test_a_spec_is_broken_after_colons_and_loses_nothing(spec):
    lines = wrapped(spec, 28).split("\n")
    assert "".join(lines) == spec
    assert all(line.endswith(":") for line in lines[:-1])
    assert all(len(line) <= 28 or ":" not in line[:-1] for line in lines)


def test_a_long_spec_takes_several_lines_and_a_short_one_one():
    assert wrapped("random") == "random"
    assert wrapped("ismcts:iterations=20:depth=3:heuristic=prospects") == \
        "ismcts:iterations=20:\ndepth=3:heuristic=prospects"
    assert seat_label(1, "mcts") == "seat 1\nmcts"


def test_a_run_where_no_rule_fired_draws_its_coverage_chart_without_a_warning(tmp_path):
    pytest.importorskip("matplotlib")
    game = load_game(ruleset_file(tmp_path))
    report = simulate(GameSpec(str(tmp_path / "uncited.yaml")), 3, game=game)
    assert not report.statistics["rules"]["fired"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warned of identical low and high y limits
        written = write_charts(tmp_path, "uncited", {"run": (report.agents, report.statistics, report.measures)})
    assert tmp_path / "rule-coverage.svg" in written
    assert "no rule fired" in (tmp_path / "rule-coverage.svg").read_text(encoding="utf-8")


def ruleset_file(folder: Path) -> Path:
    """A game that ends after one move and cites no rule ids."""
    path = folder / "uncited.yaml"
    path.write_text("ruleplay: 1\ngame: uncited\nplayers: 2\nstate:\n  x: {init: \"0\"}\n"
                    "flow:\n  phases:\n    - name: a\n      actions: [go]\n"
                    "actions:\n  go:\n    effects: x += 1\nend:\n  - when: x > 0\nscoring:\n  score: x\n",
                    encoding="utf-8")
    return path
