"""`ruleplay scenario`: run scenario files, and mutation-test a game's rules with them."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Callable

import click

from ruleplay.dsl.diagnostics import RulesetError

from ..engine.errors import RuleplayError
from ..engine.game import Game
from .options import WholeNumber, json_option, load, reads_ruleset, ruleset_files
from .output import OUTPUTS_KEY, echo, emit_json, reads, reports_errors


@click.command("scenario")
@click.argument("files", nargs=-1, type=click.Path(exists=True, path_type=Path), metavar="FILE...")
@click.option("--mutate", "mutate_game", default=None, metavar="GAME",
              help="Also disable each rule of GAME in turn and report rules no scenario notices (without "
                   "FILE...: a built-in game's own scenarios, or those beside a ruleset file).")
@click.option("--ruleset", "ruleset", default=None, metavar="PATH|NAME",
              help="Play every scenario against this ruleset instead of its `game:` (which is followed only "
                   "to a built-in game or a file under the scenario's folder).")
@click.option("--players", type=WholeNumber(min=1), default=None, metavar="N",
              help="Play every scenario (and --mutate GAME) with this many players instead of its own `players:`.")
@click.option("--variant", default=None, metavar="V",
              help="Play every scenario as this variant instead of its own `variant:`; --mutate GAME "
                   "mutates this variant, judged by the scenarios written for it (`variant: V`).")
@json_option
@reports_errors
def scenario_command(files: tuple[Path, ...], mutate_game: str | None, ruleset: str | None, players: int | None,
                     variant: str | None, as_json: bool) -> None:
    """Run scenario files; exit 1 if any fails or, with --mutate, if a rule survives."""
    from ..authoring.mutation import mutate
    from ..authoring.runner import loading_factory, run_scenarios, scenario_files

    if not files and mutate_game is None:
        raise click.UsageError("give scenario files, or --mutate GAME")
    if mutate_game is not None and ruleset is not None:
        _check_one_ruleset(mutate_game, ruleset)
    games = _noting(loading_factory())
    writes = bool(click.get_current_context().meta.get(OUTPUTS_KEY))
    if ruleset is not None:  # even if no scenario gets as far as loading it
        reads_ruleset(ruleset)
    if files:
        paths = scenario_files(list(files))
        reads(paths, "a scenario file")
        declared = [ruleset] if ruleset is not None else \
            _declared_rulesets(paths) if writes or variant is not None else []
        if writes and ruleset is None:
            _reads_declared_rulesets(declared, games)
        if variant is not None:
            for ref in declared:
                _check_variant(ref, players, variant)
    if mutate_game is not None:
        load(mutate_game, players, variant)
    results = run_scenarios(list(files), games, ruleset, players, variant) if files else []
    report = None
    if mutate_game is not None:
        from .progress import Progress

        with Progress(f"mutating {mutate_game}", None, "rules") as shown:
            report = mutate(mutate_game, list(files) or None, players=players, variant=variant, ruleset=ruleset,
                            progress=lambda done, total: shown.update(done, total=total))
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


def _check_one_ruleset(mutate_game: str, ruleset: str) -> None:
    """A usage error (exit 2) unless --mutate and --ruleset name one ruleset: mutation plays the scenarios
    against GAME with a rule off, so scenarios played against another ruleset could not test it."""
    from ..engine.loader import find_ruleset

    try:
        same = find_ruleset(mutate_game).resolve() == find_ruleset(ruleset).resolve()
    except RulesetError:
        return  # no such ruleset: loading it says so, with its diagnostic
    if not same:
        raise click.UsageError(f"--mutate {mutate_game} and --ruleset {ruleset} name two rulesets: --mutate GAME "
                               f"turns GAME's rules off one at a time and plays the scenarios against GAME, "
                               f"--ruleset plays them against another ruleset than their `game:`; give "
                               f"--mutate alone, or --ruleset naming the same ruleset")


def _reads_declared_rulesets(declared: list[str], games: Callable[[str, int | None, str | None], Game]) -> None:
    """Note the ruleset every scenario names as read, with its files, also for a scenario that fails before
    its game loads (which the run then never loads): a report must not replace any of them.  The games come
    from the run's own factory, so a scenario of the base game does not load it again."""
    for ref in declared:
        reads_ruleset(ref)
        try:
            games(ref, None, None)  # `_noting` notes its files
        except RuleplayError:
            pass  # the run reports why it does not load; its own file is noted above


def _declared_rulesets(paths: list[Path]) -> list[str]:
    """The rulesets the scenario files name, each once (a file naming none that may be read adds none)."""
    from ..authoring.scenario_file import declared_game

    return list(dict.fromkeys(filter(None, map(declared_game, paths))))


def _check_variant(ref: str, players: int | None, variant: str) -> None:
    """A --variant the scenarios' game does not have (or not for --players) is a usage error (exit 2) before
    any scenario runs.  --players alone is checked by each scenario's load, as each may name its own
    variant; a ruleset that does not load for another reason is left to the run to report."""
    try:
        load(ref, players, variant)
    except RulesetError:
        pass


def _noting(games: Callable[[str, int | None, str | None], Game]) -> Callable[[str, int | None, str | None], Game]:
    """A game factory that notes each game's files as read (`reads`) before a report could replace them."""
    def load_noted(ref: str, players: int | None, variant: str | None) -> Game:
        reads_ruleset(ref)
        game = games(ref, players, variant)
        reads(ruleset_files(game), "a file of a scenario's ruleset")
        return game

    return load_noted
