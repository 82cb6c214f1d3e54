"""`ruleplay play`: one game between agents, shown move by move (or as JSON), optionally logged."""

from __future__ import annotations

from pathlib import Path

import click

from ..engine.state import State
from ..runs.play import MoveRecord, play_game
from .options import agents_option, game_options, json_option, load, output_file, seated
from .output import echo, emit_json, reports_errors


def _show_state(state: State, record: MoveRecord | None) -> None:
    if record is not None:
        who = "chance" if record.player < 0 else f"player {record.player}"
        rules = f"  [{', '.join(record.rules)}]" if record.rules else ""
        echo(f"\n{record.n}. {who}: {record.move}{rules}")
    echo(state.render())


@click.command("play")
@click.argument("game_name", metavar="GAME")
@agents_option
@click.option("--log", "log_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              callback=output_file, help="Write the game log (JSON Lines) to this file.")
@game_options
@json_option
@reports_errors
def play_command(game_name: str, agents: list[str], log_file: Path | None, players: int | None, variant: str | None,
                 seed: int, as_json: bool) -> None:
    """Play one game between agents and show it move by move."""
    game = load(game_name, players, variant)
    seats = seated(agents, game)
    if not as_json:
        echo(f"{game.info.title}: seed {seed}, " + ", ".join(f"player {k} {a}" for k, a in enumerate(seats)))
    result = play_game(game, seats, seed, watch=None if as_json else _show_state)
    if log_file is not None:
        from ..runs.gamelog import write_log

        write_log(log_file, result, game_name, game.info.ruleset_hash)
    if as_json:
        emit_json(result.to_dict())
        return
    outcome = ("winner: " + ", ".join(f"player {p}" for p in result.winners)) if result.winners else "draw"
    echo(f"\nresult: {outcome}; scores {result.scores}, returns {result.returns}, {result.length} moves")
    if log_file is not None:
        echo(f"log written to {log_file}")
