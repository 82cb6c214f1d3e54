"""Charts: long agent specs are broken over lines so seats' labels do not run into each other; a run where no
rule fired still draws its coverage chart; histograms are binned on the values' own grid; a comparison's
charts answer "did the variant change the game?" with the paired intervals the text reports."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from ruleplay import load_game
from ruleplay.runs.simulate import GameSpec, simulate
from ruleplay.view.charts import chart_files, grid_bins, plain, seat_label, wrapped, write_charts


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


@pytest.mark.parametrize("values,edges", [
    ([1, 2, 5], [0.5, 1.5, 2.5, 3.5, 4.5, 5.5]),  # whole numbers: a bin each, centred on it
    ([0, 10, 20], [-5, 5, 15, 25]),  # a grid of 10: a bin per step
    ([0.5, 1.0, 2.0], [0.25, 0.75, 1.25, 1.75, 2.25]),  # halves
    ([7, 7], [6.5, 7.5]),  # one value
    ([], [-0.5, 0.5]),
])
def test_bins_sit_on_the_values_own_grid(values, edges):
    assert grid_bins(values) == edges


def test_a_wide_grid_merges_steps_and_values_off_any_grid_get_equal_bins():
    wide = grid_bins(list(range(0, 1000)))
    assert len(wide) - 1 <= 60 and all(b - a == wide[1] - wide[0] for a, b in zip(wide, wide[1:]))
    assert wide[0] == -(wide[1] - wide[0]) / 2  # still centred on the values
    assert grid_bins([0.1, 0.2, 0.3]) == 3


def test_text_from_a_ruleset_is_shown_as_written():
    assert plain("cost $5 \\ ink") == "cost \\$5 \\\\ ink"


def test_a_comparison_draws_its_differences_and_what_changed_in_the_rules(tmp_path):
    pytest.importorskip("matplotlib")
    from ruleplay.runs.compare import compare

    ruleset = str(Path(__file__).resolve().parents[2] / "rulesets" / "scripted-lead.yaml")
    result = compare((GameSpec(ruleset, arcs=True), GameSpec(ruleset, variant="wire-to-wire", arcs=True)),
                     ("base", "wire-to-wire"), 10, seed=1)
    runs = {label: (r.agents, r.statistics, r.measures) for label, r in zip(result.labels, (result.a, result.b))}
    written = write_charts(tmp_path, "Scripted $lead", runs, comparison=(result.differences, result.confidence))
    assert sorted(written) == sorted(chart_files(tmp_path, comparison=True))
    assert {p.stem for p in written} == {"differences", "scores", "length", "rule-coverage"}
    svg = (tmp_path / "differences.svg").read_text(encoding="utf-8")
    assert "Scripted $lead: wire-to-wire (B) against base (A)" in svg
    assert "B - A with 99.69% intervals (paired, Bonferroni for 16)" in svg
    assert "first_mover_win" in svg and "lead_changes" in svg and "★" in svg
    coverage = (tmp_path / "rule-coverage.svg").read_text(encoding="utf-8")
    assert "every rule fired in the same share of games on both sides" in coverage  # the script cites no rule


def test_a_single_run_marks_the_rules_that_never_fired(tmp_path):
    pytest.importorskip("matplotlib")
    report = simulate(GameSpec("tic-tac-toe"), 3, seed=0)
    assert report.statistics["rules"]["possibly_dead"]  # three games do not reach a draw (TT-3.2)
    write_charts(tmp_path, "Tic-tac-toe", {"run": (report.agents, report.statistics, report.measures)})
    assert "never fired" in (tmp_path / "rule-coverage.svg").read_text(encoding="utf-8")
