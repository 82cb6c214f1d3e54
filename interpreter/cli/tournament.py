"""`ruleplay tournament`: every pairing of agents, seats rotated, ranked by Bradley-Terry ratings."""

from __future__ import annotations

from pathlib import Path

import click

from ..engine.errors import WorkerLostError
from ..engine.game import Game
from .batches import executor_option, replay_command, workers_option
from .compare import out_folder
from .options import (SEEDS, WholeNumber, agents_option, backend_option, check_agents, json_option, load, plays_on,
                      ruleset_options)
from .output import echo, echo_failures, emit_json, reports_errors
from .simulate import MAX_GAMES


@click.command("tournament")
@click.argument("game_name", metavar="GAME")
@agents_option
@click.option("-n", "--games", "n", type=WholeNumber(min=1, max=MAX_GAMES), default=100, show_default=True,
              metavar="N", help="Games per pairing, shared evenly between its seatings (every rotation of "
                                "the two agents' seats), rounded up to a multiple of their number.")
@click.option("--seed", type=SEEDS, default=0, show_default=True, metavar="S",
              help="Seed of every seating's batch (and of the bootstrap).")
@workers_option
@executor_option
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              callback=out_folder, help="Stream each seating's games to a results file in DIR.")
@click.option("--resume", is_flag=True, help="Complete the results files in --out DIR.")
@ruleset_options
@backend_option
@json_option
@reports_errors
def tournament_command(game_name: str, agents: list[str], n: int, seed: int, workers: int, executor: str | None,
                       out_dir: Path | None, resume: bool, players: int | None,
                       variant: str | None, backend: str, as_json: bool) -> None:
    """Play every pairing of the agents in every seating and rank them (Bradley-Terry, Elo scale, 95%
    bootstrap intervals), with a cross-table of wins, draws and losses."""
    from ..runs.tournament import total_games, tournament
    from .progress import Progress
    from ..runs.workers import GameSpec

    if len(agents) < 2:
        raise click.BadParameter("a tournament needs at least two agents, e.g. random,greedy",
                                 param_hint="--agents")
    if resume and out_dir is None:
        raise click.UsageError("--resume completes the results files in --out DIR")
    game = load(game_name, players, variant)
    _check_opponents(game)
    check_agents(agents, game)
    plays_on(game, backend, agents)
    _note_rounding(n, game.info.players)
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    try:
        with Progress(f"tournament of {game_name}", total_games(len(agents), n, game.info.players), "games") as shown:
            report = tournament(GameSpec(game_name, players, variant, backend=backend), agents, n, seed, workers, executor,
                                out=out_dir, resume=resume, game=game, progress=shown.advance)
    except WorkerLostError as err:
        echo(f"error {err.code}: {err.message}; finish with the same command and --resume", err=True)
        raise click.exceptions.Exit(1)
    if as_json:
        emit_json(report.to_dict())
        return
    names = [f"{k}:{a}" for k, a in enumerate(report.agents)]
    echo(f"{game_name}: {len(report.pairings)} pairings, {report.games_per_seating} games per seating, "
         f"{report.players} seats, seed {report.seed}")
    width = max(len(x) for x in names) + 2
    echo(f"  rank  {'agent':<{width}}rating (Elo scale)  95% interval")
    for place, k in enumerate(report.ranking(), start=1):
        low, high = report.intervals[k]
        echo(f"  {place:>4}  {names[k]:<{width}}{report.ratings[k]:+18.1f}  [{low:+.1f}, {high:+.1f}]")
    echo("  cross-table (row against column: wins-draws-losses)")
    echo("  " + " " * width + "".join(f"{x:>{width + 2}}" for x in names))
    cells = {(p.a, p.b): f"{p.wins}-{p.draws}-{p.losses}" for p in report.pairings}
    cells.update({(p.b, p.a): f"{p.losses}-{p.draws}-{p.wins}" for p in report.pairings})
    for i, row in enumerate(names):
        echo("  " + f"{row:<{width}}" + "".join(f"{cells.get((i, j), '-'):>{width + 2}}"
                                                for j in range(len(names))))
    failed = sum(p.failed for p in report.pairings)
    if failed:
        echo(f"{failed} games stopped on rule errors and are not counted", err=True)
        for seating, count, errors in report.failures:
            echo(f"  seating {', '.join(seating)}: {count} stopped", err=True)
            echo_failures(errors, count, "    ", err=True,
                          replay=replay_command(game_name, variant, players, list(seating)))
        raise click.exceptions.Exit(1)


def _note_rounding(n: int, players: int) -> None:
    """Say on stderr when -n does not share evenly between a pairing's seatings, and what is played."""
    from ..runs.tournament import games_per_seating, seatings

    count = len(seatings(0, 1, players))
    each = games_per_seating(n, players)
    if each * count != n:
        echo(f"note: {n} games per pairing do not share evenly between its {count} seatings: each pairing "
             f"plays {each} per seating, {each * count} in all", err=True)


def _check_opponents(game: Game) -> None:
    """A tournament rates agents by the games they play against each other, so it needs two seats: a
    one-player game had no opponent's return to compare with (an internal ZeroDivisionError)."""
    if game.info.players >= 2:
        return
    more = (f"; {game.name} takes up to {game.info.max_players} players: give --players 2 or more"
            if game.info.max_players >= 2 else "; compare agents there with simulate, one agent at a time")
    raise click.UsageError(f"a tournament seats the agents against each other, and this game of {game.name} "
                           f"has one player{more}")
