"""Every built-in game's scenarios catch every rule `--mutate` can switch off: no rule of a shipped game is
untested by its scenario files (tests/scenarios/<game>/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ruleplay.authoring.mutation import mutate

REPO = Path(__file__).resolve().parents[3]
# The seed games' long scenario sets take minutes to play once per rule: they run with the slow checks.
LONG = {"lovci-pokladu", "nautilus"}
GAMES = sorted(p.name for p in (REPO / "tests" / "scenarios").iterdir() if p.is_dir())


@pytest.mark.parametrize("game", [pytest.param(g, marks=pytest.mark.slow) if g in LONG else g for g in GAMES])
def test_every_switchable_rule_is_caught(game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)  # the default scenario folder is tests/scenarios/<game>/ under the current directory
    report = mutate(game, None)
    assert report.rules_tested, f"{game}: no rule could be switched off"
    assert report.survivors == [], f"{game}: the scenarios miss {report.survivors}"
