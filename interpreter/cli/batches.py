"""What `simulate`, `compare` and `tournament` share: the worker and backend options, --plot, spec ids,
statistics text."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any, Callable, Sequence

import click

from ..engine.errors import output_error
from ..engine.game import Game
from ..engine.outcome import GameFailure
from ..runs.cluster import CONNECT_TIMEOUT
from .options import WholeNumber, overwriting
from .output import echo


def _checked_executor(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    from ..runs.cluster import ExecutorError, check_executor

    try:
        check_executor(value)
    except ExecutorError as err:
        raise click.BadParameter(str(err)) from None
    return None if value == "process" else value


def need_matplotlib(what: str) -> None:
    """A usage error, before any game is played, when charts are asked for without matplotlib installed."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise click.BadParameter(f"{what} need matplotlib: pip install 'ruleplay[plot]'") from None


def _plot_folder(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    if value is None:
        return None
    need_matplotlib("charts")
    if value.exists() and not value.is_dir():
        raise click.BadParameter(f"{value} is not a folder")
    from ..view.charts import chart_files

    if not overwriting():
        there = [path.name for path in chart_files(value, ctx.info_name == "compare") if path.exists()]
        if there:
            raise click.BadParameter(f"{value} already holds {', '.join(there)}: add --overwrite to replace "
                                     f"them, or choose another folder")
    return value


def _bounded_workers(ctx: click.Context, param: click.Parameter, value: int) -> int:
    from ..runs.workers import check_workers

    try:
        check_workers(value)
    except ValueError as err:
        raise click.BadParameter(str(err)) from None
    return value


def workers_option(fn: Callable) -> Callable:
    return click.option("--workers", type=WholeNumber(min=1), default=1, show_default=True, metavar="K",
                        callback=_bounded_workers,
                        help="Worker processes (results do not depend on it); at most a few per core, as "
                             "memory allows.")(fn)


def executor_option(fn: Callable) -> Callable:
    return click.option("--executor", default=None, metavar="E", callback=_checked_executor,
                        help="Where games run: 'process' (worker processes here, the default), 'dask-local' "
                             "(a LocalCluster of --workers processes) or 'dask://HOST:PORT' (a running "
                             f"scheduler, given {CONNECT_TIMEOUT} s to answer; anything else there is an "
                             "error). Results do not depend on it.")(fn)


def plot_option(fn: Callable) -> Callable:
    return click.option("--plot", "plot_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                        metavar="DIR", callback=_plot_folder,
                        help="Write PNG and SVG charts to DIR (created if missing; needs ruleplay[plot]).")(fn)


def judge_option(fn: Callable) -> Callable:
    return click.option("--heuristic", default=None, metavar="NAME",
                        help="Judge every position by this heuristic of the ruleset to measure each game's arc "
                             "(lead changes, drama, when the lead settled); default: its first heuristic, or "
                             "its scores when it has none.")(fn)


def check_judge(heuristic: str | None, game: Game) -> None:
    """A usage error for a --heuristic the game lacks, before any game is played."""
    from ..runs.arc import Judge

    try:
        Judge.of(game, heuristic)
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="--heuristic") from None


def spec_ids(game: Game) -> list[str] | None:
    """The rule ids of the game's spec, or None if it has none that can be read."""
    from ruleplay.validators.citations import spec_path
    from ruleplay.validators.spec import read_spec

    path, _ = spec_path(game.model)
    if path is None:
        return None
    try:
        return [rule.id for rule in read_spec(path)]
    except (OSError, UnicodeDecodeError):
        return None  # `validate` reports it


def replay_command(ruleset: str, variant: str | None, players: int | None, seats: Sequence[str],
                   rotate: bool = False) -> Callable[[GameFailure], str]:
    """The `ruleplay play` command that plays a batch's failed game again, as a function of its failure.

    A game of a batch is a function of its game seed and of the agents in
    their seats (`play` seeds each seat's agent from the game seed, as the
    batch did), so the command names the ruleset, variant and player count
    the batch was given, the failure's seed and the agent of each seat; with
    `rotate` those are the seating of that game (`runs.play.rotated`).
    """
    from ..runs.play import rotated

    def command(failure: GameFailure) -> str:
        seating = rotated(seats, failure.index) if rotate else seats
        words = ["ruleplay", "play", ruleset]
        words += ["--variant", variant] if variant is not None else []
        words += ["--players", str(players)] if players is not None else []
        words += ["--agents", ",".join(seating), "--seed", str(failure.seed)]
        return shlex.join(words)

    return command


def _interval(ci: list[float]) -> str:
    return f"[{ci[0]:.1%}, {ci[1]:.1%}]"


def _spread(d: dict) -> str:
    q = d["quantiles"]
    low, high = d["ci95"]
    return (f"mean {d['mean']:.2f} 95% CI [{low:.2f}, {high:.2f}], median {q['0.5']:g}, 10-90% {q['0.1']:g}-{q['0.9']:g}, "
            f"range {d['min']:g}-{d['max']:g}")


def holder(rotate: bool) -> str:
    """What the k-th figures of a batch belong to: seat k, or agent k when seats rotate (each agent then
    sat in every seat, and its figures are its own whatever seat it held)."""
    return "agent" if rotate else "seat"


def echo_statistics(statistics: dict, agents: list[str], rotate: bool = False) -> None:
    """The statistics of one batch (`runs.summary`), as indented text lines."""
    s = statistics
    for k, agent in enumerate(agents):
        win = s["win_rate"][k]
        echo(f"  {holder(rotate)} {k} ({agent}): mean return {s['mean_returns'][k]:.3f}, win rate {win['rate']:.1%} "
             f"95% CI {_interval(win['ci95'])}; score {_spread(s['scores'][k])}")
    echo(f"  draw rate {s['draw_rate']['rate']:.1%} {_interval(s['draw_rate']['ci95'])}, decisive (one winner) "
         f"{s['decisiveness']['rate']:.1%} {_interval(s['decisiveness']['ci95'])}")
    echo(f"  length: {_spread(s['length'])}")
    echo(f"  branching: {s['branching']['mean_per_decision']:.2f} legal moves per decision")
    rules = s["rules"]
    fired = ", ".join(f"{rule} {r['share_of_games']:.0%}" for rule, r in rules["fired"].items() if r["moves"])
    echo(f"  rules fired (share of games): {fired or 'none'}")
    if rules["possibly_dead"]:
        echo(f"  possibly dead (cited where moves fire rules, never fired): {', '.join(rules['possibly_dead'])}")
    if rules["uncited"]:
        echo(f"  cannot fire (in the spec, cited nowhere): {', '.join(rules['uncited'])}")


def charts(plot_dir: Path, title: str, runs: dict[str, Any], comparison: Any = None) -> list[Path]:
    """Write the charts of `runs` (label -> report) to `plot_dir`; the files written.  `comparison`, a
    `runs.compare.Comparison`, draws a comparison's charts (its differences first)."""
    from ..view.charts import write_charts

    plot_dir.mkdir(parents=True, exist_ok=True)
    rotate = any(r.rotate for r in runs.values())
    try:
        return write_charts(plot_dir, title, {label: (r.agents, r.statistics, r.measures)
                                              for label, r in runs.items()}, holder(rotate),
                            None if comparison is None else (comparison.differences, comparison.confidence),
                            replace=overwriting())
    except OSError as err:
        raise output_error(err, err.filename or plot_dir, "chart") from None
