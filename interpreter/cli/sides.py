"""The rulesets `compare` and `analyze` set side by side: a game, its named variants, and variant files.

A side is (ruleset, variant, label): the base game, a variant named in its
`variants:`, or a file that extends the game or is a copy of it.  Sides are
loaded, checked to be variants of GAME, labelled for people (a file by its
title), and checked to share one player count, since game i of every side
is played from the same seed at the same seats.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import click

from ..engine.game import Game
from ..engine.loader import find_ruleset
from .options import SEEDS, WholeNumber, agents_option, load
from .output import same_file, terminal_safe
from .simulate import MAX_GAMES

Side = tuple[str, str | None, str]  # ruleset, variant (None: the ruleset as it is), label


def side_options(variant_help: str, games_help: str, seed_help: str) -> Callable[[Callable], Callable]:
    """The options of a command that plays sides on the same seeds: --variant (repeatable), -n, --agents,
    --players, --seed; the helps say what they mean to that command."""
    def decorate(fn: Callable) -> Callable:
        fn = click.option("--seed", type=SEEDS, default=0, show_default=True, metavar="S", help=seed_help)(fn)
        fn = click.option("--players", type=WholeNumber(min=1), default=None, metavar="N",
                          help="Number of players (default: the ruleset's).")(fn)
        fn = agents_option(fn)
        fn = click.option("-n", "--games", "n", type=WholeNumber(min=1, max=MAX_GAMES), default=200,
                          show_default=True, metavar="N", help=games_help)(fn)
        return click.option("--variant", "variants", multiple=True, metavar="V", help=variant_help)(fn)

    return decorate


def side(game_name: str, variant: str | None) -> Side:
    """One side: the base game (`variant` None), a variant name of GAME, or the path of a ruleset file."""
    if variant is None:
        return game_name, None, "base"
    if variant.endswith((".yaml", ".yml")) or Path(variant).is_file():
        return variant, None, variant
    return game_name, variant, variant


def _titled(sides: list[Side], loaded: list[Game]) -> list[Side]:
    """The sides with a ruleset file labelled by its title (a designer's name for the variant), or by its
    file name where another side has the same title."""
    out = []
    for k, ((ruleset, variant, label), game) in enumerate(zip(sides, loaded)):
        if variant is None and label != "base":
            others = {g.info.title for j, g in enumerate(loaded) if j != k}
            label = game.info.title if game.info.title not in others else Path(ruleset).name
        out.append((ruleset, variant, label))
    return out


def _check_variant_of(game_name: str, path: str, variant: Game) -> None:
    """A usage error unless the ruleset at `path` is a variant of GAME: read from GAME's own file through its
    `extends:` chain, or a copy of GAME (`copied_from: GAME`, which `ruleplay new DIR --from GAME` writes).
    Otherwise the table would set two unrelated games side by side as base and variant."""
    base = find_ruleset(game_name)
    if any(same_file(base, doc.file) for doc in variant.model.source.documents()):
        return
    if variant.model.data.get("copied_from") == game_name:
        return
    raise click.BadParameter(f"{path} does not extend {game_name} and is no copy of it: a variant file starts "
                             f"with `extends: {game_name}` (directly or through other variant files), a copy "
                             f"made by `ruleplay new DIR --from {game_name}` says `copied_from: {game_name}`",
                             param_hint="--variant")


def _counts(game: Game) -> str:
    low, high = game.info.min_players, game.info.max_players
    return f"{low}" if low == high else f"{low} to {high}"


def _check_player_counts(games: list[Game], names: list[str], players: int | None) -> None:
    """A usage error unless every side (loaded at its own player count) is played at one count: game i of
    each side is played from one seed at the same seats.  When no count suits them all (a variant that
    sets `players:`), no --players can help, and the message says so instead of asking for one."""
    low = max(g.info.min_players for g in games)
    high = min(g.info.max_players for g in games)
    both = "both" if len(games) == 2 else "them all"
    if low > high:
        counts = [f"{name} is for {_counts(g)} players" for name, g in zip(names, games)]
        said = f"{counts[0]} and {names[1]} for {_counts(games[1])}" if len(games) == 2 else "; ".join(counts)
        raise click.UsageError(terminal_safe(
            f"{said}: no player count suits {both}, and game i of each is played from one seed at the same "
            f"seats, so these cannot be compared"))
    if players is None and len({g.info.players for g in games}) > 1:
        choice = f"{low}" if low == high else f"from {low} to {high}"
        have = [f"{name} has {g.info.players} players" for name, g in zip(names, games)]
        said = f"{have[0]} and {names[1]} {games[1].info.players}" if len(games) == 2 else "; ".join(have)
        raise click.UsageError(terminal_safe(f"{said}: give --players N for {both} (N {choice})"))


def load_sides(game_name: str, sides: list[Side], players: int | None,
               names: list[str]) -> tuple[list[Side], list[Game]]:
    """Load every side, each at its own player count first, check it, and load it again at --players where
    that differs; the sides labelled (`_titled`) and their games.  `names` name the sides in messages."""
    loaded = [load(ruleset, None, variant) for ruleset, variant, _ in sides]
    for (ruleset, _, _), game in zip(sides, loaded):
        if ruleset != game_name:
            _check_variant_of(game_name, ruleset, game)
    _check_player_counts(loaded, names, players)
    if players is not None:  # loaded again only at a count other than the side's own
        loaded = [game if game.info.players == players else load(ruleset, players, variant)
                  for (ruleset, variant, _), game in zip(sides, loaded)]
    return _titled(sides, loaded), loaded
