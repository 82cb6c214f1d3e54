"""`ruleplay profile`: the ruleset's own pieces of code, ranked by the time its games spend in them."""

from __future__ import annotations

import click

from .options import WholeNumber, agents_option, game_options, json_option, load, seated
from .output import echo, emit_json, reports_errors

MAX_GAMES = 100_000


@click.command("profile")
@click.argument("game_name", metavar="RULESET")
@click.option("--games", "n", type=WholeNumber(min=1, max=MAX_GAMES), default=10, show_default=True, metavar="N",
              help="Games to play (seeds S, S+1, …).")
@click.option("--top", type=WholeNumber(min=0, max=MAX_GAMES), default=15, show_default=True, metavar="K",
              help="Show the K costliest pieces (0: every piece that ran).")
@agents_option
@game_options
@json_option
@reports_errors
def profile_command(game_name: str, n: int, top: int, agents: list[str], players: int | None, variant: str | None,
                    seed: int, as_json: bool) -> None:
    """Play N games and rank the ruleset's own code by the time spent in it.

    Each function, procedure, `from:` and `where:` filter, requirement,
    effect, end condition, trigger, hook and score is timed with its calls,
    its own time (without the pieces it calls) and its total time, and
    shown with its file and line.  What they leave of the games' time is the
    engine's own work.  The timers slow the games down, and moves are listed
    a check at a time, so the seconds are larger than in play; the ranking
    is what to read.
    """
    from ..authoring.profile import profile

    game = load(game_name, players, variant)
    report = profile(game, n, seated(agents, game), seed)
    if as_json:
        emit_json(report.to_dict())
        return
    shown = report.pieces if top == 0 else report.pieces[:top]
    played, own = report.seconds, report.ruleset_seconds
    share = own / played if played > 0 else 0.0
    echo(f"{report.game} ({report.players} players{f', variant {report.variant}' if report.variant else ''}): "
         f"{report.games} games, {report.moves} moves in {played:.2f} s; the ruleset's own code took "
         f"{own:.2f} s ({share:.0%}), the engine the rest")
    if not shown:
        echo("no piece of the ruleset's code ran")
        return
    width = max(len(f"{p.file}:{p.line}") for p in shown)
    echo(f"{'own s':>9} {'own':>6} {'total s':>9} {'calls':>11}  {'where':<{width}}  what")
    for p in shown:
        echo(f"{p.own:9.3f} {p.own / played if played > 0 else 0.0:6.1%} {p.total:9.3f} {p.calls:11,}  "
             f"{f'{p.file}:{p.line}':<{width}}  {p.what}")
    if len(shown) < len(report.pieces):
        echo(f"… {len(report.pieces) - len(shown)} more pieces ran (--top 0 shows them all)")
