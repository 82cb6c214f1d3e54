"""Games loaded once for the whole test session, for the tests that play every configuration.

Loading a seed game (parsing, compiling, type checking) costs more than a
short playout of it, and several test modules play every ruleset at every
player count and variant.  They share the models here: play never changes
a model (its tables of moves and listings are made to be shared), and each
caller gets a `Game` of its own, with checking on or off.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from ruleplay import load_game
from ruleplay.engine.game import Game
from ruleplay.engine.loader import find_ruleset
from ruleplay.engine.model import GameModel


@lru_cache(maxsize=None)
def _model(path: Path, players: int | None, variant: str | None) -> GameModel:
    return load_game(path, players, variant).model


def model(ruleset: str | Path, players: int | None = None, variant: str | None = None) -> GameModel:
    """The model of `ruleset` (a built-in name or a path) at that player count and variant, loaded once."""
    return _model(find_ruleset(ruleset).resolve(), players, variant)


def game(ruleset: str | Path, players: int | None = None, variant: str | None = None,
         checking: bool = False) -> Game:
    """A game of its own over the shared model."""
    return Game(model(ruleset, players, variant), checking=checking)


def configurations(ruleset: str | Path) -> tuple[list[tuple[int, str | None]], list[tuple[int, str | None]]]:
    """The (players, variant) pairs of a ruleset, split in two: the ones the default run plays (the base
    game at every player count, each variant at its own default count) and the others, which differ
    from those only in their player count and are left to the slow run."""
    info = game(ruleset).info
    core = [(players, None) for players in range(info.min_players, info.max_players + 1)]
    rest = []
    for v in info.variants:
        own = game(ruleset, variant=v).info  # a variant may change the player counts
        core.append((own.players, v))
        rest += [(players, v) for players in range(own.min_players, own.max_players + 1) if players != own.players]
    return core, rest
