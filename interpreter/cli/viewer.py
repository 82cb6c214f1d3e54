"""`ruleplay view`: a game log as one self-contained HTML page that steps through the game."""

from __future__ import annotations

from pathlib import Path

import click

from .options import WholeNumber, check_seat, new_output_file, overwrite_option, reads_game, reads_ruleset
from .output import echo, reads, reports_errors, write_output


@click.command("view")
@click.argument("log_file", metavar="LOG", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False, path_type=Path), required=True,
              callback=new_output_file, metavar="FILE", help="Write the HTML page to FILE.")
@click.option("--as", "seat", type=WholeNumber(min=0), default=None, metavar="SEAT",
              help="Only this seat's view (a page to give that player); default: every view, all-seeing first.")
@click.option("--ruleset", "ruleset", default=None, metavar="PATH|NAME",
              help="Replay against this ruleset instead of the one the log names.")
@overwrite_option
@reports_errors
def view_command(log_file: Path, output: Path, seat: int | None, ruleset: str | None) -> None:
    """Write a replay page of a game log: step through it, see each seat's view, the rules that fired.

    A log saved before its game's end (`q` at the table) is shown up to its
    last move, marked unfinished."""
    from ..runs.gamelog import logged_ruleset
    from ..view.html import viewer_html
    from ..view.sources import finished, log_steps

    reads([log_file], "the game log")
    target = ruleset if ruleset is not None else logged_ruleset(log_file)
    if target is not None:
        reads_ruleset(target)
    steps = log_steps(log_file, ruleset)
    reads_game(steps[0].state.game)  # what it extends or includes, and its spec: -o must not replace them
    check_seat(seat, steps[0].state.game)
    write_output(output, viewer_html(steps, None if seat is None else [seat]).encode("utf-8"), "replay page")
    unfinished = "" if finished(steps) else ", unfinished: the log stops before the game's end"
    echo(f"replay page written to {output} ({len(steps) - 1} moves{unfinished})")
