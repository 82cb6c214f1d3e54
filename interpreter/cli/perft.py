"""`ruleplay perft`: move-generator counts to a fixed depth."""

from __future__ import annotations

import click

from .options import WholeNumber, game_options, json_option, load
from .output import echo, emit_json, reports_errors


@click.command("perft")
@click.argument("game_name", metavar="GAME")
@click.option("--depth", type=WholeNumber(min=0), required=True, metavar="D")
@game_options
@json_option
@reports_errors
def perft_command(game_name: str, depth: int, players: int | None, variant: str | None, seed: int,
                  as_json: bool) -> None:
    """Count the move sequences of exactly D decisions from the initial state."""
    from ..runs.perft import perft as count

    result = count(load(game_name, players, variant).new_state(seed), depth)
    if as_json:
        emit_json(result.to_dict())
    else:
        echo(f"perft {depth}: {result.nodes} nodes, {result.terminals} terminal states")
