"""`ruleplay graph`: a game's graphs as DOT, GraphML or JSON, at the initial layout or a saved state."""

from __future__ import annotations

from pathlib import Path

import click

from ..engine.errors import RuleplayError, StateFormatError
from ..engine.game import Game
from ..engine.state import State
from ..files import read_bytes
from .options import json_option, load, ruleset_options
from .output import echo, emit_json, reads, reports_errors

MAX_STATE_BYTES = 64 << 20  # a saved state is JSON of the game's variables: megabytes at the very most


def _saved_state(game: Game, path: Path) -> State:
    try:
        text = read_bytes(path, MAX_STATE_BYTES)
    except OSError as err:
        raise StateFormatError(f"{path}: cannot read the saved state: {err.strerror or err}") from None
    try:
        return game.state_from_json(text)
    except StateFormatError as err:
        raise StateFormatError(f"{path}: {err.message}") from None


@click.command("graph")
@click.argument("game_name", metavar="GAME")
@click.option("--state", "state_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Take the graphs at this saved state (JSON from state.to_json()).")
@click.option("--format", "fmt", type=click.Choice(["dot", "graphml"]), default="dot", show_default=True)
@click.option("--name", "graph_name", default=None, metavar="GRAPH", help="Export only this graph.")
@ruleset_options
@json_option
@reports_errors
def graph_command(game_name: str, state_file: Path | None, fmt: str, graph_name: str | None, players: int | None,
                  variant: str | None, as_json: bool) -> None:
    """Export a game's graphs (DOT, GraphML, or nodes and edges with --json)."""
    from ..view.graphs import graphs_at, to_dot, to_graphml, to_plain

    reads([state_file], "the saved state")
    game = load(game_name, players, variant)
    state = _saved_state(game, state_file) if state_file else None
    graphs = graphs_at(game, state)
    if not graphs:
        raise RuleplayError(f"{game.name} declares no graphs")
    if graph_name is not None:
        if graph_name not in graphs:
            raise click.BadParameter(f"{game.name} has no graph {graph_name!r} (graphs: {', '.join(graphs)})",
                                     param_hint="--name")
        graphs = {graph_name: graphs[graph_name]}
    if as_json:
        emit_json({"game": game.name, "graphs": {n: to_plain(g) for n, g in graphs.items()}})
    elif fmt == "dot":
        echo("".join(to_dot(n, g) for n, g in graphs.items()), nl=False)
    elif len(graphs) > 1:
        raise click.UsageError(f"GraphML holds one graph: choose one with --name ({', '.join(graphs)})")
    else:
        [(name, only)] = graphs.items()
        echo(to_graphml(only, name), nl=False)
