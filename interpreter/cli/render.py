"""`ruleplay render`: the picture of a saved state, or of one move of a game log, as SVG or PNG."""

from __future__ import annotations

from pathlib import Path

import click

from .options import WholeNumber, check_seat, new_output_file, overwrite_option, reads_game, reads_ruleset
from .output import echo, reads, reports_errors, write_output


@click.command("render")
@click.argument("source", metavar="STATE.json|LOG", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--move", "move", type=WholeNumber(min=0), default=None, metavar="K",
              help="A log's state after move K (0: the start; default: the last).")
@click.option("--as", "seat", type=WholeNumber(min=0), default=None, metavar="SEAT",
              help="The picture as this seat sees it (default: the all-seeing picture).")
@click.option("--format", "fmt", type=click.Choice(["svg", "png"]), default=None,
              help="Picture format (default: from the -o file's extension, else svg). PNG needs "
                   "the `picture` extra.")
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False, path_type=Path), required=True,
              callback=new_output_file, metavar="FILE", help="Write the picture to FILE.")
@click.option("--ruleset", "ruleset", default=None, metavar="PATH|NAME",
              help="Load this ruleset instead of the one the log or state names.")
@overwrite_option
@reports_errors
def render_command(source: Path, move: int | None, seat: int | None, fmt: str | None, output: Path,
                   ruleset: str | None) -> None:
    """Draw a saved state, or a state of a game log, as an SVG or PNG picture.

    A log saved before its game's end (`q` at the table) is drawn up to its
    last move, and said to be unfinished."""
    from ..runs.gamelog import logged_ruleset
    from ..view.picture import render_png, state_svg
    from ..view.sources import finished, is_log, log_steps, saved_state

    reads([source], "the state or log")
    fmt = fmt or ("png" if output.suffix.lower() == ".png" else "svg")
    note = ""
    if is_log(source):
        target = ruleset if ruleset is not None else logged_ruleset(source)
        if target is not None:
            reads_ruleset(target)
        steps = log_steps(source, ruleset)
        if move is not None and move >= len(steps):
            raise click.BadParameter(f"the log has {len(steps) - 1} moves (0..{len(steps) - 1})", param_hint="--move")
        state = steps[-1 if move is None else move].state
        if not finished(steps):
            note = (f" (move {len(steps) - 1 if move is None else move} of an unfinished game: the log stops "
                    f"after move {len(steps) - 1}, before the game's end)")
    else:
        if move is not None:
            raise click.BadParameter("a saved state is one position: --move is for game logs", param_hint="--move")
        if ruleset is not None:
            reads_ruleset(ruleset)
        state = saved_state(source, ruleset)
    reads_game(state.game)  # what it extends or includes, and its spec: -o must not replace them
    check_seat(seat, state.game)
    svg = state_svg(state, seat)
    data = render_png(svg) if fmt == "png" else svg.encode("utf-8")
    write_output(output, data, "picture")
    echo(f"picture written to {output}{note}")
