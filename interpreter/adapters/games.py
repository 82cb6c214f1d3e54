"""The game an adapter wraps: a loaded `Game`, or a ruleset named by built-in name or path."""

from __future__ import annotations

import os

from ..engine.game import Game, load_game


def resolve(game: Game | str | os.PathLike, players: int | None, variant: str | None) -> Game:
    """`game` itself, or the ruleset it names loaded with `players` and `variant`.

    A loaded Game already has its player count and variant, so passing
    either again is refused rather than silently ignored.  Bad names,
    paths and player counts raise the loader's RulesetError, which names
    the problem and the choices.
    """
    if isinstance(game, Game):
        if players is not None or variant is not None:
            raise ValueError(f"players= and variant= go with a ruleset name or path; the Game given "
                             f"({game.name}) was loaded with players={game.model.players}, "
                             f"variant={game.model.variant!r}")
        return game
    if not isinstance(game, (str, os.PathLike)):
        raise TypeError(f"game must be a ruleset name, a path or a ruleplay Game, not {type(game).__name__}")
    return load_game(game, players, variant)
