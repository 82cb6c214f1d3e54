"""`ruleplay new DIR --from GAME`: an editable copy of a built-in game, to start a variant from."""

from __future__ import annotations

import contextlib
import os
import shlex
from pathlib import Path

import click

from ..engine.errors import OutputError, RuleplayError
from ..engine.loader import builtin_games
from .options import json_option, overwriting
from .output import echo, emit_json, reports_errors, same_file, write_output


def _game(ctx: click.Context, param: click.Parameter, value: str) -> str:
    games = builtin_games()
    if value not in games:
        import difflib

        close = difflib.get_close_matches(value, list(games), n=1)
        guess = f"did you mean {close[0]!r}? " if close else ""
        raise click.BadParameter(f"{value!r} is not a built-in game ({guess}built-in games: {', '.join(games)}); to "
                                 f"start from a file of your own, write a file with `extends: FILE`")
    return value


@click.command("new")
@click.argument("folder", metavar="DIR", type=click.Path(file_okay=False, path_type=Path))
@click.option("--from", "game", required=True, metavar="GAME", callback=_game,
              help="The built-in game to copy (`ruleplay list` names them).")
@json_option
@reports_errors
def new_command(folder: Path, game: str, as_json: bool) -> None:
    """Write an editable copy of a built-in game to DIR: its ruleset (DIR/GAME.yaml, with `copied_from:
    GAME`), its rule specification, the ruleset schema for an editor, and its scenarios, every link
    pointing inside DIR.  Files that exist are refused unless --overwrite is given."""
    from ..authoring.starters import CopyError, copy_files

    try:
        files = copy_files(game, folder)
    except CopyError as err:
        raise RuleplayError(str(err)) from None
    _check_targets(game, list(files))
    _write_copy(folder, files)
    ruleset, spec, schema, *scenarios = files
    if as_json:
        emit_json({"game": game, "folder": str(folder), "ruleset": str(ruleset), "spec": str(spec),
                   "schema": str(schema), "scenarios": [str(p) for p in scenarios]})
        return
    echo(f"an editable copy of {game} in {folder}:")
    echo(f"  {ruleset}  the ruleset (copied_from: {game})")
    echo(f"  {spec}  its rule specification")
    echo(f"  {schema}  the schema an editor checks the ruleset with")
    echo(f"  {len(scenarios)} scenario files, each naming {ruleset.name}")
    echo("next:")
    quoted = shlex.quote(str(ruleset))
    for command in (f"ruleplay validate {quoted}", f"ruleplay scenario {shlex.quote(str(folder))}",
                    f"ruleplay compare {game} --variant {quoted}"):
        echo(f"  {command}")


def _write_copy(folder: Path, files: dict[Path, str]) -> None:
    """Write the copy's files, each whole (`write_output`: a file that appeared since `_check_targets` is
    kept unless --overwrite).  When one cannot be written (a full disk, say), the files this command
    created are removed again, and the folder if it made it, so no half copy is left to be taken for
    one; the error (RP680) names the file and says so.  A file replaced with --overwrite stays replaced."""
    made_folder = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    created: list[Path] = []
    try:
        for path, text in files.items():
            existed = os.path.lexists(path)
            write_output(path, text.encode("utf-8"), "copy's file")
            if not existed:
                created.append(path)
    except OutputError as err:
        for path in created:
            path.unlink(missing_ok=True)
        if made_folder:
            with contextlib.suppress(OSError):  # not empty: someone else's files are in it now
                folder.rmdir()
        raise OutputError(f"{err.message}; the files of the copy written before it were removed again") from None


def _check_targets(game: str, paths: list[Path]) -> None:
    """A usage error for a file of the copy that exists (unless --overwrite), and for one that is a file of
    the built-in itself (`new` into the package's own folders), which no option may replace."""
    from ..authoring.starters import builtin_scenarios
    from ruleplay.validators.citations import spec_path
    from ..engine.game import load_game

    sources = [builtin_games()[game]]
    spec, _ = spec_path(load_game(game).model)
    scenarios = builtin_scenarios(game)
    sources += ([spec] if spec is not None else []) + (sorted(scenarios.rglob("*.yaml")) if scenarios else [])
    for path in paths:
        if any(same_file(path, source) for source in sources):
            raise click.BadParameter(f"{path} is a file of the built-in game {game}: a copy goes into a folder "
                                     f"of its own", param_hint="DIR")
    there = [path for path in paths if path.exists()]
    if there and not overwriting():
        shown = ", ".join(p.name for p in there[:5]) + (f" and {len(there) - 5} more" if len(there) > 5 else "")
        raise click.BadParameter(f"{there[0].parent} already holds {shown}: add --overwrite to replace them, or "
                                 f"choose another folder", param_hint="DIR")
