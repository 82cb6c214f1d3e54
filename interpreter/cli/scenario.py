"""`ruleplay scenario`: run scenario files, and mutation-test a game's rules with them."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Callable

import click

from ..engine.game import Game
from .options import json_option, load, reads_ruleset, ruleset_files, ruleset_options
from .output import echo, emit_json, reads, reports_errors


@click.command("scenario")
@click.argument("files", nargs=-1, type=click.Path(exists=True, path_type=Path), metavar="FILE...")
@click.option("--mutate", "mutate_game", default=None, metavar="GAME",
              help="Also disable each rule of GAME in turn and report rules no scenario notices.")
@click.option("--ruleset", "ruleset", default=None, metavar="PATH|NAME",
              help="Play every scenario against this ruleset instead of its `game:` (which is followed only "
                   "to a built-in game or a file under the scenario's folder).")
@ruleset_options
@json_option
@reports_errors
def scenario_command(files: tuple[Path, ...], mutate_game: str | None, ruleset: str | None, players: int | None,
                     variant: str | None, as_json: bool) -> None:
    """Run scenario files; exit 1 if any fails or, with --mutate, if a rule survives."""
    from ..authoring.mutation import mutate
    from ..authoring.runner import loading_factory, run_scenarios, scenario_files

    if not files and mutate_game is None:
        raise click.UsageError("give scenario files, or --mutate GAME")
    if files:
        reads(scenario_files(list(files)), "a scenario file")
    if ruleset is not None:  # even if no scenario gets as far as loading it
        reads_ruleset(ruleset)
    if mutate_game is not None:
        load(mutate_game, players, variant)
    results = run_scenarios(list(files), _noting(loading_factory()), ruleset) if files else []
    report = mutate(mutate_game, list(files) or None, players=players, variant=variant,
                    ruleset=ruleset) if mutate_game else None
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
            echo(f"{'PASS' if r.passed else 'FAIL'} {r.file}: {r.name}")
            for failure in r.failures:
                echo(textwrap.indent(failure, "    "))
        if results:
            echo(f"{len(results) - len(failed)} passed, {len(failed)} failed")
        if report is not None:
            echo(f"mutation of {mutate_game}: {len(report.rules_tested)} rules tested, "
                 f"{len(report.killed)} caught, {len(report.survivors)} survived")
            for rule in report.survivors:
                echo(f"    survivor: {rule} (disabling it fails no scenario)")
            if report.unswitchable:
                echo(f"    not switchable (cited only by phases, functions, scoring or components): "
                     f"{', '.join(report.unswitchable)}")
    if failed or (report is not None and report.survivors):
        raise click.exceptions.Exit(1)


def _noting(games: Callable[[str, int | None, str | None], Game]) -> Callable[[str, int | None, str | None], Game]:
    """A game factory that notes each game's files as read (`reads`) before a report could replace them."""
    def load_noted(ref: str, players: int | None, variant: str | None) -> Game:
        reads_ruleset(ref)
        game = games(ref, players, variant)
        reads(ruleset_files(game), "a file of a scenario's ruleset")
        return game

    return load_noted
