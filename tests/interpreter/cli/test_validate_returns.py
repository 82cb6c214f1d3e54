"""`scoring.returns_range`: checked when the ruleset loads (RP307) and against every smoke game's end (RP506)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from ruleplay import RulesetError, load_game
from ruleplay.cli import main
from ruleplay.engine.loader import builtin_games

RANGE = "  returns_range: {min: -2, max: 2, sum: 0}"


def _kuhn(tmp_path, new_range: str | None):
    """Kuhn poker with its `returns_range` line replaced by `new_range` (None: left out)."""
    text = builtin_games()["kuhn-poker"].read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if not line.startswith("spec:")]
    kept = [line if not line.startswith(RANGE) else new_range for line in lines]
    path = tmp_path / "kuhn.yaml"
    path.write_text("\n".join(line for line in kept if line is not None) + "\n", encoding="utf-8")
    return path


def _validate(*args):
    result = CliRunner().invoke(main, ["validate", *map(str, args)])
    assert "Traceback" not in result.output
    return result


def test_the_built_in_range_holds_at_every_smoke_games_end():
    result = _validate("kuhn-poker", "--smoke", "50")
    assert result.exit_code == 0, result.output
    assert "returns: every smoke game ended with returns in scoring.returns_range [-2, 2], summing to 0" in result.output
    assert load_game("kuhn-poker").model.returns_range == (-2.0, 2.0, 0.0)


@pytest.mark.parametrize("declared", ["  returns_range: {min: -1, max: 1, sum: 0}",
                                      "  returns_range: {min: -2, max: 2, sum: 1}"])
def test_a_range_a_smoke_game_leaves_is_an_error(tmp_path, declared):
    path = _kuhn(tmp_path, declared)
    result = _validate(path, "--smoke", "50")
    assert result.exit_code == 1
    assert "returns: error RP506:" in result.output and "smoke games ended with returns outside" in result.output
    data = json.loads(_validate(path, "--smoke", "50", "--json").stdout)[0]
    assert data["ok"] is False and data["returns_range"]["games"] == 50
    outside = data["returns_range"]["outside"]
    assert outside and all(sorted(o["returns"]) in ([-2.0, 2.0], [-1.0, 1.0]) for o in outside)


def test_a_general_sum_range_checks_the_bounds_alone(tmp_path):
    result = _validate(_kuhn(tmp_path, "  returns_range: {min: -2, max: 2}"), "--smoke", "20")
    assert result.exit_code == 0 and "scoring.returns_range [-2, 2]\n" in result.output


@pytest.mark.parametrize("declared, message", [
    ("  returns_range: {min: 2, max: -2, sum: 0}", "min 2 greater than max -2"),
])
def test_a_range_that_cannot_be_is_refused_when_the_ruleset_loads(tmp_path, declared, message):
    with pytest.raises(RulesetError, match=f"RP307.*{message}"):
        load_game(_kuhn(tmp_path, declared))


def test_a_range_without_declared_returns_is_refused(tmp_path):
    text = builtin_games()["tic-tac-toe"].read_text(encoding="utf-8").replace("scoring:\n", "scoring:\n" + RANGE + "\n")
    path = tmp_path / "ttt.yaml"
    path.write_text("\n".join(line for line in text.splitlines() if not line.startswith("spec:")) + "\n",
                    encoding="utf-8")
    with pytest.raises(RulesetError, match="RP307.*without `returns`"):
        load_game(path)
