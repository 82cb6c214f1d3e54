"""Chart labels: long agent specs are broken over lines so seats' labels do not run into each other."""

from __future__ import annotations

import pytest

from ruleplay.view.charts import seat_label, wrapped


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
