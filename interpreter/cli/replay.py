"""`ruleplay replay`: re-run a game log and check every move, rule and result."""

from __future__ import annotations

from pathlib import Path

import click

from ..engine.state import State
from .options import WholeNumber, check_seat, json_option, reads_game, reads_ruleset
from .output import echo, emit_json, reads, reports_errors


@click.command("replay")
@click.argument("log_file", metavar="FILE", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--ruleset", "ruleset", default=None, metavar="PATH|NAME",
              help="Replay against this ruleset instead of the one the log names (which is followed only "
                   "to a built-in game or a file under the log's folder).")
@click.option("--as", "seat", type=WholeNumber(min=0), default=None, metavar="SEAT",
              help="Also list the moves as this seat was shown them (what it may not see as ?).")
@json_option
@reports_errors
def replay_command(log_file: Path, ruleset: str | None, seat: int | None, as_json: bool) -> None:
    """Re-run a game log and check that every move, rule and result is the same."""
    from ..runs.gamelog import logged_ruleset
    from ..runs.gamelog import replay as rerun

    reads([log_file], "the game log")
    target = ruleset if ruleset is not None else logged_ruleset(log_file)
    if target is not None:
        reads_ruleset(target)
    first: list = []

    def loaded(state: State) -> None:
        """At the first state, before any move is checked (and a failure written to --report): the outputs
        must not name a file the game was read from (what it extends or includes, its spec)."""
        if not first:
            first.append(state)
            reads_game(state.game)
            check_seat(seat, state.game)

    report = rerun(log_file, ruleset, seat, on_state=loaded)
    if as_json:
        emit_json(report.to_dict())
        return
    for n, view in enumerate(report.views or [], start=1):
        echo(f"{n}. {view}")
    seed = f"seed {report.seed}" if seat is None else "the seed not shown"  # it would replay every hidden card
    echo(f"{log_file}: replays ({report.game}, {seed}, {report.moves} moves, "
         f"scores {report.scores}, returns {report.returns})")
