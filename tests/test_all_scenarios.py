"""Every built-in game's scenario file (scenarios/<game>/, shipped as `ruleplay.scenarios`) runs as its own
test, so new games' scenarios join automatically."""

from __future__ import annotations

from pathlib import Path

import pytest

from ruleplay.authoring.runner import loading_factory, run_scenarios

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
FILES = sorted(SCENARIOS.glob("**/*.yaml"))
GAMES = loading_factory()  # each game is loaded once for the whole module


def test_there_are_scenario_files() -> None:
    assert FILES, f"no scenario files under {SCENARIOS}"


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(SCENARIOS)) for p in FILES])
def test_scenario(path: Path) -> None:
    [result] = run_scenarios([path], GAMES)
    assert result.passed, "\n".join(result.failures)
