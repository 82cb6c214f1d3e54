"""`ruleplay play`: one game between agents, shown move by move (or as JSON), optionally logged."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import click

from ..agents import is_interactive
from ..engine.errors import RuleRuntimeError
from ..engine.state import State
from ..runs.gamelog import LogWriter
from ..runs.play import MoveRecord, play_game
from .options import (WholeNumber, check_seat, game_options, json_option, load, output_file, overwriting,
                      refuse_existing, seated, table_agents_option)
from .output import echo, emit_json, reports_errors, silence_stdout
from .table import (event_lines, note_unfollowed_ruleset, play_with_person, result_text, seed_text, show_as,
                    unseen_seed, withheld)


def _show_state(state: State, record: MoveRecord | None) -> None:
    if record is not None:
        who = "chance" if record.player < 0 else f"player {record.player}"
        rules = f"  [{', '.join(record.rules)}]" if record.rules else ""
        echo(f"\n{record.n}. {who}: {record.move}{rules}")
        for line in event_lines(state.game.model, record, None):
            echo(line)
    echo(state.render())


@click.command("play")
@click.argument("game_name", metavar="GAME")
@table_agents_option
@click.option("--log", "log_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              callback=output_file, help="Write the game log (JSON Lines) to this file: every move as made, hidden "
              "ones included, and the seed (a game a person plays: keep it from them).")
@click.option("--human", type=WholeNumber(min=0), default=None, metavar="SEAT",
              help="A person plays this seat at the terminal; --agents names the other seats' agents.")
@click.option("--resume", is_flag=True,
              help="Continue the game a person left, saved in --log FILE (seats, seed and variant from the log).")
@click.option("--as", "seat", type=WholeNumber(min=0), default=None, metavar="SEAT",
              help="Show the game as this seat sees it: moves with what it may not see as ?, and its observation "
                   "(without --seed, the seed is drawn at random and not shown).")
@game_options
@json_option
@reports_errors
def play_command(game_name: str, agents: list[str], log_file: Path | None, human: int | None, resume: bool,
                 seat: int | None, players: int | None, variant: str | None, seed: int, as_json: bool) -> None:
    """Play one game between agents (or with a person: --human SEAT) and show it move by move."""
    if log_file is not None and not resume:
        from ..runs.gamelog import unfinished_moves

        left = None if overwriting() else unfinished_moves(log_file)
        if left is not None:
            raise click.BadParameter(f"{log_file} holds a game left unfinished after {left} moves: continue it "
                                     "with --resume, replace it with --overwrite, or choose another file",
                                     param_hint="--log")
        refuse_existing(log_file)
    if human is not None or resume or any(is_interactive(a) for a in agents):
        return play_with_person(game_name, agents, log_file, seat, human, resume, players, variant, seed, as_json)
    game = load(game_name, players, variant)
    check_seat(seat, game)
    seats = seated(agents, game)
    seed, shown = unseen_seed(seed) if seat is not None else (seed, seed)
    if not as_json:
        echo(f"{game.info.title}: {seed_text(shown)}, " + ", ".join(f"player {k} {a}" for k, a in enumerate(seats))
             + (f"; as seen by player {seat}" if seat is not None else ""))
    shows = [] if as_json else [_show_state if seat is None else show_as(seat)]
    final: list[State] = []  # the last state, for the seat's observation at the end
    moves: list[MoveRecord] = []  # the moves so far, which the log holds as they are made
    log = None if log_file is None else LogWriter.start(log_file, game, seed, seats, game_name,
                                                          replace=overwriting())

    def watch(state: State, record: MoveRecord | None) -> None:
        final[:] = [state]
        if record is not None and log is not None:
            moves.append(record)
            log.keep(moves)
        for show in shows:
            try:
                show(state, record)
            except BrokenPipeError:  # the reader went away (`| head`): the game, and its log, go on unseen
                silence_stdout()
                shows.clear()

    with log if log is not None else contextlib.nullcontext():
        if log_file is not None:
            note_unfollowed_ruleset(log_file, game_name)
        try:
            result = play_game(game, seats, seed, watch=watch)
        except RuleRuntimeError as err:
            if log_file is not None:
                echo(f"saved to {log_file}: the {len(moves)} moves before a rule error stopped the game", err=True)
            raise err if seat is None else withheld(err, game, seat) from None
        if log is not None:
            log.finish(result)
    if as_json:
        emit_json(result.to_dict() if seat is None else
                  {**result.to_dict(), "seed": shown, "seat": seat,
                   "moves": result.views(seat), "observation": final[-1].observe(seat)["state"]})
        return
    if seat is not None:
        echo(f"\nplayer {seat} sees: {json.dumps(final[-1].observe(seat)['state'], ensure_ascii=False)}")
    echo(f"\n{result_text(result)}")
    if log_file is not None:
        echo(f"log written to {log_file}")
