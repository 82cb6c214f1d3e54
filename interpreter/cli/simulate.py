"""`ruleplay simulate`: many games between agents, streamed to a results file, summarised."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Callable

import click

from ..engine.errors import WorkerLostError
from ..runs.play import SeatingError
from .batches import (charts, echo_statistics, executor_option, plot_option, replay_command, spec_ids,
                      workers_option)
from .options import (WholeNumber, agents_option, backend_option, game_options, json_option, load,
                      output_file, plays_on, seated)
from .output import INTERRUPTED, echo, echo_failures, emit_json, percent, reports_errors

# Simulations stream (memory does not grow with N), but a resumed run keeps one bit per game: a bound
# that no real run reaches, and a typo's extra zeros do.
MAX_GAMES = 10**9


@click.command("simulate")
@click.argument("game_name", metavar="GAME")
@click.option("-n", "--games", "n", type=WholeNumber(min=1, max=MAX_GAMES), default=100, show_default=True,
              metavar="N")
@agents_option
@workers_option
@click.option("--rotate", is_flag=True,
              help="Shift the seating by one seat each game; statistics are then per agent, in --agents order.")
@executor_option
@plot_option
@click.option("--check", is_flag=True, help="Check the ruleset's invariants after every move (slower).")
@click.option("--out", "out_file", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              callback=output_file,
              help="Append one JSON line per finished game to FILE as it finishes (refuses an existing FILE).")
@click.option("--resume", is_flag=True,
              help="Complete the run in --out FILE: play only the games it lacks (same arguments otherwise); "
                   "a random sample of the games read back is played again and must match.")
@click.option("--verify-all", is_flag=True,
              help="With --resume: play every game read back again, not a sample (costs as much as those games).")
@game_options
@backend_option
@json_option
@reports_errors
def simulate_command(game_name: str, n: int, agents: list[str], workers: int, rotate: bool, executor: str | None,
                     plot_dir: Path | None, check: bool, out_file: Path | None,
                     resume: bool, verify_all: bool, players: int | None, variant: str | None, seed: int,
                     backend: str, as_json: bool) -> None:
    """Play N games between agents and report returns, wins (95% Wilson intervals), draws, scores,
    lengths, branching, decisiveness, rule coverage, end conditions and speed."""
    from ..runs.simulate import GameSpec
    from ..runs.simulate import simulate as run
    from .progress import Progress

    if resume and out_file is None:
        raise click.UsageError("--resume completes the results file given with --out FILE")
    if verify_all and not resume:
        raise click.UsageError("--verify-all checks the games --resume reads back")
    game = load(game_name, players, variant, checking=check)
    plays_on(game, backend, seated(agents, game))
    spec = GameSpec(game_name, players, variant, checking=check, backend=backend)
    batch = functools.partial(run, spec, n, seed, agents, workers, out=out_file, resume=resume, keep_outcomes=False,
                              game=game, verify_all=verify_all, spec_ids=spec_ids(game), rotate=rotate,
                              executor=executor)
    try:
        with Progress(f"simulating {game_name}", n, "games") as shown:
            report = batch(progress=shown.advance)
    except KeyboardInterrupt:
        _stopped("interrupted", out_file, n, INTERRUPTED)
    except WorkerLostError as err:
        _stopped(f"error {err.code}: {err.message}", out_file, n, 1)
    except SeatingError as err:
        raise click.BadParameter(str(err), param_hint="--agents") from None
    written = charts(plot_dir, game.info.title, {"run": report}) if plot_dir is not None else []
    if as_json:
        emit_json({**report.to_dict(), "out": out_file and str(out_file), "plots": [str(p) for p in written]})
    else:
        _print_simulation(game_name, report, out_file)
        if report.failed:
            _print_failures(report, replay_command(game_name, variant, players, report.agents, rotate), check)
        if written:
            echo(f"  charts: {', '.join(str(p) for p in written)}")
    if report.failed:
        raise click.exceptions.Exit(1)


def _stopped(reason: str, out_file: Path | None, n: int, status: int) -> None:
    """A batch that stopped early: say what of it is kept and how to finish it."""
    if out_file is None:
        echo(f"{reason}: nothing was saved (give --out FILE to keep finished games)", err=True)
    else:
        from ..runs.results_file import count_games

        echo(f"{reason}: {count_games(out_file)} of {n} games are in {out_file}; finish the run "
             f"by giving the same command with --resume", err=True)
    raise click.exceptions.Exit(status)


def _print_simulation(game_name: str, report: Any, out_file: Path | None) -> None:
    done = report.completed
    plural = "s" if report.workers > 1 else ""
    stopped = f" ({report.failed} stopped on rule errors)" if report.failed else ""
    rotation = ", seats rotated" if report.rotate else ""
    echo(f"{game_name}: {report.games} games{stopped}, seed {report.seed}, {report.workers} worker{plural} "
         f"({report.executor}, {report.backend} backend){rotation}")
    who = "agent" if report.rotate else "player"
    for k, agent in enumerate(report.agents):
        echo(f"  {who} {k} ({agent}): {report.wins[k]} wins ({percent(report.wins[k], done)})")
    echo(f"  draws: {report.draws} ({percent(report.draws, done)})")
    echo(f"  mean length: {report.mean_length:.2f} moves (chance's included)")
    if done:
        echo_statistics(report.statistics, report.agents, report.rotate)
    if report.ended_by:
        echo("  ended by: " + ", ".join(f"{rule} {count}" for rule, count in report.ended_by.items()))
    resumed = f", {report.resumed} games read back from {out_file}" if report.resumed else ""
    echo(f"  speed: {report.playouts_per_s:.1f} games/s ({report.seconds:.2f} s{resumed})")
    if out_file is not None:
        echo(f"  results: {out_file}")


def _print_failures(report: Any, replay: Callable[[Any], str], checked: bool) -> None:
    """The games rule errors stopped, on stderr, each with the `ruleplay play` command that replays it."""
    echo_failures(report.errors, report.failed, "  ", err=True, replay=replay)
    if checked:
        echo("note: `ruleplay play` checks no invariants: a game a broken invariant stopped plays on there, "
             "through the move that broke it", err=True)
