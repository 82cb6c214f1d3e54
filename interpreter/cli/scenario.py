"""`ruleplay scenario`: run scenario files, and mutation-test a game's rules with them."""

from __future__ import annotations

import textwrap
from pathlib import Path

import click

from .options import json_option, ruleset_options
from .output import emit_json, reports_errors


@click.command("scenario")
@click.argument("files", nargs=-1, type=click.Path(exists=True, path_type=Path), metavar="FILE...")
@click.option("--mutate", "mutate_game", default=None, metavar="GAME",
              help="Also disable each rule of GAME in turn and report rules no scenario notices.")
@ruleset_options
@json_option
@reports_errors
def scenario_command(files: tuple[Path, ...], mutate_game: str | None, players: int | None, variant: str | None,
                     as_json: bool) -> None:
    """Run scenario files; exit 1 if any fails or, with --mutate, if a rule survives."""
    from ..authoring.mutation import mutate
    from ..authoring.runner import run_scenarios

    if not files and mutate_game is None:
        raise click.UsageError("give scenario files, or --mutate GAME")
    results = run_scenarios(list(files)) if files else []
    report = mutate(mutate_game, list(files) or None, players=players, variant=variant) if mutate_game else None
    failed = [r for r in results if not r.passed]
    if as_json:
        emit_json({
            "scenarios": [{"file": str(r.file), "name": r.name, "passed": r.passed, "failures": list(r.failures)}
                          for r in results],
            "passed": len(results) - len(failed), "failed": len(failed),
            "mutation": report and {"rules_tested": list(report.rules_tested), "survivors": list(report.survivors),
                                    "killed": dict(report.killed), "unswitchable": list(report.unswitchable)},
        })
    else:
        for r in results:
            click.echo(f"{'PASS' if r.passed else 'FAIL'} {r.file}: {r.name}")
            for failure in r.failures:
                click.echo(textwrap.indent(failure, "    "))
        if results:
            click.echo(f"{len(results) - len(failed)} passed, {len(failed)} failed")
        if report is not None:
            click.echo(f"mutation of {mutate_game}: {len(report.rules_tested)} rules tested, "
                       f"{len(report.killed)} caught, {len(report.survivors)} survived")
            for rule in report.survivors:
                click.echo(f"    survivor: {rule} (disabling it fails no scenario)")
            if report.unswitchable:
                click.echo(f"    not switchable (cited only by phases, functions or components): "
                           f"{', '.join(report.unswitchable)}")
    if failed or (report is not None and report.survivors):
        raise click.exceptions.Exit(1)
