"""The options several commands share, defined once: --players --variant --seed --agents --json --report."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Callable, Sequence

import click

from ..agents import AGENTS
from ..engine.game import Game
from ..files import UserFileError, write_target
from ..runs.play import SeatingError, seat_agents
from .output import REPORT_KEY


def output_file(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """An output FILE is checked now, not after an hour of simulation: its folder must exist, and a
    FIFO, device or folder there is refused rather than replaced (a symbolic link is written through)."""
    if value is None:
        return None
    if not value.parent.is_dir():
        raise click.BadParameter(f"no folder {value.parent} to write {value.name} in")
    try:
        write_target(value)
    except UserFileError as err:
        raise click.BadParameter(f"{value} is {err.strerror}") from None
    except OSError as err:
        raise click.BadParameter(f"{value}: {err.strerror}") from None
    return value


def json_option(fn: Callable) -> Callable:
    """`--json` prints one JSON document; `--report FILE` writes that document to FILE atomically."""
    @functools.wraps(fn)
    def wrapper(*args: Any, report_file: Path | None, **kwargs: Any) -> Any:
        if report_file is not None:
            click.get_current_context().meta[REPORT_KEY] = report_file
            kwargs["as_json"] = True
        return fn(*args, **kwargs)

    wrapper = click.option("--report", "report_file", type=click.Path(dir_okay=False, path_type=Path),
                           callback=output_file, default=None, metavar="FILE",
                           help="Write the JSON document to FILE (whole or not at all) instead of printing it.")(wrapper)
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")(wrapper)


def ruleset_options(fn: Callable) -> Callable:
    fn = click.option("--variant", default=None, metavar="V", help="Play this variant of the ruleset.")(fn)
    return click.option("--players", type=click.IntRange(min=1), default=None, metavar="N",
                        help="Number of players (default: the ruleset's).")(fn)


def game_options(fn: Callable) -> Callable:
    fn = click.option("--seed", type=int, default=0, show_default=True, metavar="S",
                      help="Seed of every random event (and of the agents).")(fn)
    return ruleset_options(fn)


def parse_agents(ctx: click.Context, param: click.Parameter, value: str) -> list[str]:
    names = [v.strip() for v in value.split(",")]
    for name in names:
        if name not in AGENTS:
            raise click.BadParameter(f"unknown agent {name!r} (agents: {', '.join(AGENTS)})")
    return names


def agents_option(fn: Callable) -> Callable:
    return click.option("--agents", default="random", show_default=True, callback=parse_agents,
                        metavar="A[,B...]", help=f"One agent for all seats, or one per seat: {', '.join(AGENTS)}.")(fn)


def seated(agents: Sequence[str], game: Game) -> list[str]:
    try:
        return [str(a) for a in seat_agents(agents, game.info.players)]
    except SeatingError as err:
        raise click.BadParameter(str(err), param_hint="--agents") from None
