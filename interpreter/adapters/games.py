"""The game an adapter wraps (a loaded `Game`, or a ruleset named by built-in name or path), its seeds, and
the move an action number names."""

from __future__ import annotations

import numbers
import os
import secrets
from typing import Any

import numpy as np

from ..engine.errors import IllegalMoveError
from ..engine.game import Game, load_game
from ..engine.moves import Move
from ..engine.rng import Rng, check_seed, seed_state


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


def action_number(game: Game, action: Any, who: str) -> int:
    """`action` (an int, a numpy integer) as an int of the game's numbering, which both adapters use;
    IllegalMoveError (RP604) for anything else, saying what `who` may give.  Whether the move is legal now is
    the state's to say, when it is applied."""
    if isinstance(action, np.integer):
        action = int(action)
    size = game.num_distinct_actions
    if type(action) is not int or not 0 <= action < size:
        raise IllegalMoveError(action, f"an action of {who} is an int 0..{size - 1}", "RP604")
    return action


def numbered_move(game: Game, action: Any, who: str) -> Move:
    """The move numbered `action` (checked as `action_number` checks it)."""
    return game.index_to_move(action_number(game, action, who))


def whole_seed(seed: object) -> int:
    """`seed` as the int the engine checks: a numpy integer (numbers.Integral) is a whole number like an
    int, and is taken as one; a bool is not a seed, and the engine refuses the rest."""
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        seed = int(seed)
    check_seed(seed)
    return seed  # type: ignore[return-value]  # check_seed let only an int through


def game_seeds(seed: object) -> Rng:
    """The seeds of an environment's games from `seed` (checked as `whole_seed` checks it), each game taking the
    next; from the operating system's randomness when `seed` is None.  SplitMix64, as the engine's own
    generator: a reset costs a few integer operations, where seeding a `random.Random` costs more than a whole
    native game of a small board game."""
    return Rng(seed_state(secrets.randbits(64) if seed is None else whole_seed(seed)))
