"""`ruleplay list` and `ruleplay schema`: what is built in, and the shape of a ruleset."""

from __future__ import annotations

import click

from ruleplay.dsl.diagnostics import ERROR

from ..engine.errors import RulesetError
from ..engine.game import load_game
from ..engine.loader import builtin_games
from .options import json_option, ruleset_files
from .output import echo, emit_json, reads, reports_errors


@click.command("list")
@json_option
@reports_errors
def list_command(as_json: bool) -> None:
    """List the built-in games (a built-in that does not load is listed as invalid, exit 1)."""
    infos: list[dict] = []
    games = builtin_games()
    reads(games.values(), "a built-in ruleset")
    for name in games:
        try:
            game = load_game(name)
            reads(ruleset_files(game), "a file of a built-in ruleset")
            infos.append(game.info.to_dict())
        except RulesetError as err:
            errors = [d for d in err.diagnostics if d.severity == ERROR]
            infos.append({"name": name, "invalid": True, "diagnostics": [d.to_dict() for d in errors]})
    if as_json:
        emit_json(infos)
    else:
        width = max((len(i["name"]) for i in infos), default=0)
        for i in infos:
            echo(f"{i['name']:<{width}}  {_describe(i)}")
    if any(i.get("invalid") for i in infos):
        raise click.exceptions.Exit(1)


def _describe(info: dict) -> str:
    if info.get("invalid"):
        return f"INVALID ({len(info['diagnostics'])} errors; see `ruleplay validate {info['name']}`)"
    players = str(info["min_players"]) if info["min_players"] == info["max_players"] \
        else f"{info['min_players']}-{info['max_players']}"
    traits = [f"{players} players"]
    traits += ["chance"] if info["chance"] else []
    traits += ["hidden information"] if info["hidden_information"] else []
    traits += [f"variants: {', '.join(info['variants'])}"] if info["variants"] else []
    return f"{info['title']} ({'; '.join(traits)})"


@click.command("schema")
@json_option
@reports_errors
def schema_command(as_json: bool) -> None:
    """Print the JSON Schema of rulesets (it is JSON either way)."""
    from ruleplay.validators.schema import schema as ruleset_schema

    emit_json(ruleset_schema())
