"""The `ruleplay` command: validate, inspect, play, simulate and test rulesets.

One module per command (`catalog` holds `list` and `schema`); the options
they share live in `options`, and how they print results and errors in
`output`.  Commands parse arguments and present results; the work itself is
done by the tools (`runs`, `authoring`, `view`) and the engine, so nothing
here holds game logic.  `cli` may import every other part of ruleplay, and
nothing imports `cli`.

Exit codes: 0 success; 1 an invalid ruleset, a failed scenario or replay, or
a rule error during play; 2 a usage error (click's own); 130 interrupted.
Every error is one clear message — diagnostics for rulesets, code and
position for rule errors — never a traceback.  With `--json` every command
prints one JSON document on stdout, errors included.  Output holds no clock
times, only timing fields.
"""

from __future__ import annotations

from typing import Any

import click

from ..engine.game import ENGINE_VERSION
from . import (analyze, bench, catalog, compare, graph, lsp, new, perft, play, profile, render, replay, scenario,
               serve, simulate, tournament, validate, viewer)
from .output import INTERRUPTED, terminal_safe


class _Group(click.Group):
    """The command group; a usage error's message is escaped like all output (`output.terminal_safe`).

    Click prints usage errors itself, and their messages quote what the user
    or a file gave: a path, a graph name, a seating error's agent list.
    """

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.ClickException as err:
            err.message = terminal_safe(err.message)
            raise
        except KeyboardInterrupt:  # click would say "Aborted!" and exit 1, the code of an invalid ruleset
            click.echo("interrupted", err=True)
            raise click.exceptions.Exit(INTERRUPTED) from None


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(ENGINE_VERSION, prog_name="ruleplay")
def main() -> None:
    """ruleplay: games written as YAML rules, played, checked and measured."""


for command in (catalog.list_command, new.new_command, validate.validate_command, catalog.schema_command,
                graph.graph_command,
                perft.perft_command, play.play_command, simulate.simulate_command, bench.bench_command,
                profile.profile_command,
                replay.replay_command, scenario.scenario_command, render.render_command,
                viewer.view_command, serve.serve_command, compare.compare_command, tournament.tournament_command,
                analyze.analyze_command, lsp.lsp_command):
    main.add_command(command)

__all__ = ["main"]
