"""The built-in configurations the adapters are tested on: a test taking `config` runs once per configuration.

Every built-in ruleset at every player count, and each variant at the
default player count.  The small games (and the card game, which has
chance, hidden cards and shuffles) run by default; the long seed games are
marked slow.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from ruleplay import load_game
from ruleplay.engine.loader import builtin_games

# `native_support`: a game's native module, or a skip where none can be built (failed under CI)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine" / "native"))

FAST = {("tic-tac-toe", 2, None), ("connect-four", 2, None), ("kuhn-poker", 2, None), ("nautilus-cards", 2, None)}


def configurations() -> list[tuple[str, int, str | None]]:
    out = []
    for name in builtin_games():
        info = load_game(name).info
        out += [(name, players, None) for players in range(info.min_players, info.max_players + 1)]
        out += [(name, info.players, variant) for variant in info.variants]
    return out


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "config" in metafunc.fixturenames:
        metafunc.parametrize("config", [
            pytest.param(c, id=f"{c[0]}-{c[1]}p" + (f"-{c[2]}" if c[2] else ""),
                         marks=() if c in FAST else pytest.mark.slow)
            for c in configurations()])
