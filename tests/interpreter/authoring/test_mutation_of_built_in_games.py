"""Every built-in game's scenarios catch every rule `--mutate` can switch off: no rule of a shipped game is
untested by its scenario files (scenarios/<game>/, which `--mutate GAME` plays by default)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ruleplay.authoring.mutation import mutate

REPO = Path(__file__).resolve().parents[3]
# The seed games' long scenario sets take seconds to minutes to play once per rule: they run with the slow checks.
LONG = {"lovci-pokladu", "nautilus", "nautilus-cards"}
GAMES = sorted(p.name for p in (REPO / "scenarios").iterdir() if p.is_dir())


@pytest.mark.parametrize("game", [pytest.param(g, marks=pytest.mark.slow) if g in LONG else g for g in GAMES])
def test_every_switchable_rule_is_caught(game: str) -> None:
    report = mutate(game, None)
    assert report.rules_tested, f"{game}: no rule could be switched off"
    assert report.survivors == [], f"{game}: the scenarios miss {report.survivors}"
