"""`ruleplay replay`: re-run a game log and check every move, rule and result."""

from __future__ import annotations

from pathlib import Path

import click

from .options import json_option
from .output import emit_json, reports_errors


@click.command("replay")
@click.argument("log_file", metavar="FILE", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@json_option
@reports_errors
def replay_command(log_file: Path, as_json: bool) -> None:
    """Re-run a game log and check that every move, rule and result is the same."""
    from ..runs.gamelog import replay as rerun

    report = rerun(log_file)
    if as_json:
        emit_json(report.to_dict())
    else:
        click.echo(f"{log_file}: replays ({report.game}, seed {report.seed}, {report.moves} moves, "
                   f"scores {report.scores}, returns {report.returns})")
