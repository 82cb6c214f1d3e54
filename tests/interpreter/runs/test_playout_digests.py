"""Every built-in game still plays exactly as recorded: the move digests of `simulate --seed 1`, game by game.

`tests/data/playout-digests.json` holds, for every built-in ruleset, player
count and variant, the digest of each of 200 random games' moves (what
`simulate --out` writes per game). It was recorded after the `let` scoping
fix and before the speed work, so any change to how the engine plays — a
generated fast path, interned moves, in-place apply — must leave every game
move for move the same, or say why in a new recording. The default run
checks the first games of the base game at every player count and of each
variant at its default count; `pytest -m slow` checks every game of every
configuration.

The file is written by `ruleplay simulate GAME --players N [--variant V] -n
200 --seed 1 --out FILE`, whose results file holds each game's digest.
"""

from __future__ import annotations

import json
from pathlib import Path

import loaded
import pytest

from ruleplay.engine.loader import builtin_games
from ruleplay.runs.simulate import simulate
from ruleplay.runs.workers import GameSpec

RECORDED = json.loads((Path(__file__).resolve().parents[2] / "data" / "playout-digests.json").read_text())
FIRST_GAMES = 3


def _spec(config: str) -> GameSpec:
    name, players, variant = config.split("/")
    return GameSpec(name, int(players), None if variant == "base" else variant)


def test_every_built_in_configuration_is_recorded():
    configs = {f"{name}/{players}/{variant or 'base'}" for name in builtin_games()
               for variant in (None, *loaded.game(name).info.variants)
               for info in [loaded.game(name, variant=variant).info]  # a variant may change the player count
               for players in range(info.min_players, info.max_players + 1)}
    assert configs == set(RECORDED["digests"]), "record the new configurations (see the module docstring)"


def _played(config: str, n: int, workers: int = 1) -> list[str]:
    spec = _spec(config)
    game = loaded.game(spec.ruleset, spec.players, spec.variant) if workers == 1 else None
    report = simulate(spec, n, seed=RECORDED["seed"], workers=workers, game=game)
    return [o.digest for o in sorted(report.outcomes, key=lambda o: o.index)]


def _core() -> list[str]:
    """The configurations the default run checks (`loaded.configurations`)."""
    return sorted(f"{name}/{players}/{variant or 'base'}" for name in builtin_games()
                  for players, variant in loaded.configurations(name)[0])


@pytest.mark.parametrize("config", _core())
def test_the_first_games_play_as_recorded(config):
    assert _played(config, FIRST_GAMES) == RECORDED["digests"][config][:FIRST_GAMES]


@pytest.mark.slow
@pytest.mark.parametrize("config", sorted(RECORDED["digests"]))
def test_every_recorded_game_plays_as_recorded(config):
    assert _played(config, RECORDED["games"], workers=2) == RECORDED["digests"][config]
