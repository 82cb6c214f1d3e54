"""`ruleplay bench`: random playouts per second, and their cost against a same-process baseline."""

from __future__ import annotations

import math

import click

from .options import WholeNumber, backend_option, game_options, json_option, load, plays_on
from .output import echo, emit_json, reports_errors

MAX_BENCH_SECONDS = 3600.0
MAX_RUNS = 1000  # at the longest runs, some six weeks: more is a slip of the keyboard, refused at once


def _not_nan(ctx: click.Context, param: click.Parameter, value: float) -> float:
    """FloatRange lets nan through (nan compares false with both bounds), and a run of nan seconds never ends."""
    if math.isnan(value):
        raise click.BadParameter("nan is not a number of seconds")
    return value


@click.command("bench")
@click.argument("game_name", metavar="GAME")
@click.option("--seconds", type=click.FloatRange(min=0, min_open=True, max=MAX_BENCH_SECONDS), default=1.0,
              show_default=True, callback=_not_nan, metavar="S", help="Length of each timed run.")
@click.option("--runs", type=WholeNumber(min=1, max=MAX_RUNS), default=3, show_default=True, metavar="R")
@game_options
@backend_option
@json_option
@reports_errors
def bench_command(game_name: str, seconds: float, runs: int, players: int | None, variant: str | None, seed: int,
                  backend: str, as_json: bool) -> None:
    """Measure random playouts per second (median of several runs)."""
    from ..engine.native import choose
    from ..runs.bench import bench as measure

    game = load(game_name, players, variant)
    native = choose(game, backend).native if plays_on(game, backend, ["random"]) == "native" else None
    report = measure(game, seconds, runs, seed, native)
    data = report.to_dict()
    if as_json:
        emit_json(data)
        return
    echo(f"{report.game}: {data['playouts_per_s']:.1f} playouts/s on the {report.backend} backend (median of {runs} runs, "
         f"min {data['min_playouts_per_s']:.1f}, max {data['max_playouts_per_s']:.1f}), "
         f"mean length {data['mean_length']:.2f} moves")
    echo(f"  a playout costs {data['baseline_ops_per_playout']:.1f} baseline operations (the same-process "
         f"yardstick: compare this figure across machines and commits)")
