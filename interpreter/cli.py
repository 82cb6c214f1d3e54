"""The `ruleplay` command: validate, inspect, play, simulate and test rulesets.

Exit codes: 0 success; 1 an invalid ruleset, a failed scenario or replay, or
a rule error during play; 2 a usage error (click's own).  Every error is one
clear message — diagnostics for rulesets, code and position for rule errors —
never a traceback.  With `--json` every command prints one JSON document on
stdout, errors included.  Output holds no clock times, only timing fields.
"""

from __future__ import annotations

import functools
import json
import math
import os
import sys
import textwrap
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import click

from ruleplay.dsl.diagnostics import ERROR, RulesetError
from ruleplay.dsl.runtime import RuleRuntimeError

from . import __version__
from .agents import AGENTS
from .errors import RuleplayError, StateFormatError, WorkerLostError
from .game import Game, load_game
from .loader import builtin_games
from .play import MoveRecord, SeatingError, play_game, seat_agents
from .state import State
from .userfiles import UserFileError, read_bytes, write_target

# ----------------------------------------------------------------- plumbing

TRACEBACK_ENV = "RULEPLAY_TRACEBACK"


REPORT_KEY = "ruleplay.report"


def _emit_json(data: Any) -> None:
    """Print the JSON document, or write it whole to the --report file (never half a report)."""
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    ctx = click.get_current_context(silent=True)
    report = ctx.meta.get(REPORT_KEY) if ctx is not None else None
    if report is None:
        click.echo(text, nl=False)
        return
    from .atomicfile import atomic_write_text

    try:
        atomic_write_text(report, text)
    except OSError as err:
        click.echo(f"error: cannot write the report {report}: {err.strerror}", err=True)
        raise click.exceptions.Exit(1) from None
    click.echo(f"report written to {report}", err=True)


def _rule_error_dict(err: RuleRuntimeError) -> dict:
    pos = err.pos
    where = {"file": pos.file, "line": pos.line, "col": pos.col} if pos and pos.line else None
    return {"code": err.code, "message": err.message, "pos": where, "hint": err.hint}


def reports_errors(fn: Callable) -> Callable:
    """Turn engine errors into one message (or one JSON document) and exit status 1."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        as_json = kwargs.get("as_json", False)
        try:
            return fn(*args, **kwargs)
        except RulesetError as err:
            if as_json:
                _emit_json([d.to_dict() for d in err.diagnostics])
            else:
                for d in err.diagnostics:
                    click.echo(d.format(), err=True)
        except RuleRuntimeError as err:
            if as_json:
                _emit_json({"error": _rule_error_dict(err)})
            else:
                click.echo(f"error {err.code}: {err}", err=True)
                if err.hint:
                    click.echo(f"  hint: {err.hint}", err=True)
        except RuleplayError as err:
            if as_json:
                _emit_json({"error": {"code": err.code, "message": err.message}})
            else:
                click.echo(f"error {err.code}: {err.message}", err=True)
        except BrokenPipeError:
            _silence_stdout()
        except OSError as err:
            message = f"{err.filename}: {err.strerror}" if err.filename else str(err)
            if as_json:
                _emit_json({"error": {"code": "OS", "message": message}})
            else:
                click.echo(f"error: {message}", err=True)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception as err:
            # A bug in ruleplay itself: still one line for the user, the traceback on request.
            if os.environ.get(TRACEBACK_ENV):
                raise
            message = f"internal error {type(err).__name__}: {err} (set {TRACEBACK_ENV}=1 for the traceback)"
            if as_json:
                _emit_json({"error": {"code": "internal", "message": message}})
            else:
                click.echo(message, err=True)
        raise click.exceptions.Exit(1)
    return wrapper


def _silence_stdout() -> None:
    """The reader went away (`ruleplay play ... | head`): drop the rest quietly, even at exit."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (tests); nothing will be flushed
        pass


def _output_file(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """An output FILE is checked now, not after an hour of simulation: its folder must exist, and a
    FIFO, device or folder there is refused rather than replaced (a symbolic link is written through)."""
    if value is None:
        return None
    if not value.parent.is_dir():
        raise click.BadParameter(f"no folder {value.parent} to write {value.name} in")
    try:
        write_target(value)
    except UserFileError as err:
        raise click.BadParameter(f"{value} is {err.strerror}") from None
    except OSError as err:
        raise click.BadParameter(f"{value}: {err.strerror}") from None
    return value


def json_option(fn: Callable) -> Callable:
    """`--json` prints one JSON document; `--report FILE` writes that document to FILE atomically."""
    @functools.wraps(fn)
    def wrapper(*args: Any, report_file: Path | None, **kwargs: Any) -> Any:
        if report_file is not None:
            click.get_current_context().meta[REPORT_KEY] = report_file
            kwargs["as_json"] = True
        return fn(*args, **kwargs)

    wrapper = click.option("--report", "report_file", type=click.Path(dir_okay=False, path_type=Path),
                           callback=_output_file, default=None, metavar="FILE",
                           help="Write the JSON document to FILE (whole or not at all) instead of printing it.")(wrapper)
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")(wrapper)


def ruleset_options(fn: Callable) -> Callable:
    fn = click.option("--variant", default=None, metavar="V", help="Play this variant of the ruleset.")(fn)
    return click.option("--players", type=click.IntRange(min=1), default=None, metavar="N",
                        help="Number of players (default: the ruleset's).")(fn)


def game_options(fn: Callable) -> Callable:
    fn = click.option("--seed", type=int, default=0, show_default=True, metavar="S",
                      help="Seed of every random event (and of the agents).")(fn)
    return ruleset_options(fn)


def _parse_agents(ctx: click.Context, param: click.Parameter, value: str) -> list[str]:
    names = [v.strip() for v in value.split(",")]
    for name in names:
        if name not in AGENTS:
            raise click.BadParameter(f"unknown agent {name!r} (agents: {', '.join(AGENTS)})")
    return names


def agents_option(fn: Callable) -> Callable:
    return click.option("--agents", default="random", show_default=True, callback=_parse_agents,
                        metavar="A[,B...]", help=f"One agent for all seats, or one per seat: {', '.join(AGENTS)}.")(fn)


def _seated(agents: Sequence[str], game: Game) -> list[str]:
    try:
        return [str(a) for a in seat_agents(agents, game.info.players)]
    except SeatingError as err:
        raise click.BadParameter(str(err), param_hint="--agents") from None


SHOWN_ERRORS = 10
# Simulations stream (memory does not grow with N), but a resumed run keeps one bit per game, and a smoke
# test is a check, not an experiment: bounds that no real run reaches, and a typo's extra zeros do.
MAX_GAMES = 10**9
MAX_SMOKE_GAMES = 10**6


def _echo_failures(failures: Sequence[Any], total: int, indent: str, err: bool) -> None:
    """The first few of `total` per-game rule errors as text (JSON output lists the first thousand)."""
    for e in failures[:SHOWN_ERRORS]:
        click.echo(f"{indent}game {e.index} (seed {e.seed}): error {e.code}: {e.message}", err=err)
    if total > SHOWN_ERRORS:
        click.echo(f"{indent}... and {total - SHOWN_ERRORS} more", err=err)


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ruleplay")
def main() -> None:
    """ruleplay: games written as YAML rules, played, checked and measured."""


# --------------------------------------------------------------- inspection


@main.command("list")
@json_option
@reports_errors
def list_games(as_json: bool) -> None:
    """List the built-in games (a built-in that does not load is listed as invalid, exit 1)."""
    infos: list[dict] = []
    for name in builtin_games():
        try:
            infos.append(load_game(name).info.to_dict())
        except RulesetError as err:
            errors = [d for d in err.diagnostics if d.severity == ERROR]
            infos.append({"name": name, "invalid": True, "diagnostics": [d.to_dict() for d in errors]})
    if as_json:
        _emit_json(infos)
    else:
        width = max((len(i["name"]) for i in infos), default=0)
        for i in infos:
            click.echo(f"{i['name']:<{width}}  {_describe(i)}")
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


@main.command()
@json_option
@reports_errors
def schema(as_json: bool) -> None:
    """Print the JSON Schema of rulesets (it is JSON either way)."""
    from ruleplay.validators.schema import schema as ruleset_schema

    _emit_json(ruleset_schema())


def _validate_one(target: str, players: int | None, variant: str | None, smoke: int,
                  seed: int) -> tuple[dict, tuple[str, ...]]:
    """The check of one ruleset (one variant), and the variants it declares."""
    from .simulate import GameSpec, simulate

    entry: dict[str, Any] = {"target": target, "variant": variant, "ok": True, "diagnostics": [], "smoke": None}
    try:
        game = load_game(target, players, variant)
    except RulesetError as err:
        entry["ok"] = False
        entry["diagnostics"] = err.diagnostics
        return entry, ()
    entry["diagnostics"] = game.model.diagnostics
    if smoke:
        report = simulate(GameSpec(target, players, variant), smoke, seed, ["random"], keep_outcomes=False)
        entry["smoke"] = report
        entry["ok"] = not report.failed
    return entry, game.info.variants


@main.command()
@click.argument("targets", nargs=-1, required=True, metavar="PATH|NAME...")
@click.option("--smoke", type=click.IntRange(min=0, max=MAX_SMOKE_GAMES), default=0, metavar="N",
              help="Also play N random games, which must end within the step limit.")
@game_options
@json_option
@reports_errors
def validate(targets: tuple[str, ...], smoke: int, players: int | None, variant: str | None, seed: int,
             as_json: bool) -> None:
    """Check rulesets (and, without --variant, each of their variants); exit 1 on any error."""
    entries = []
    for target in targets:
        entry, variants = _validate_one(target, players, variant, smoke, seed)
        entries.append(entry)
        if variant is None:
            entries.extend(_validate_one(target, players, name, smoke, seed)[0] for name in variants)
    if as_json:
        _emit_json([{**e, "diagnostics": [d.to_dict() for d in e["diagnostics"]],
                     "smoke": e["smoke"] and e["smoke"].to_dict()} for e in entries])
    else:
        for e in entries:
            _print_validation(e)
    if not all(e["ok"] for e in entries):
        raise click.exceptions.Exit(1)


def _print_validation(entry: dict) -> None:
    label = entry["target"] + (f" (variant {entry['variant']})" if entry["variant"] else "")
    for d in entry["diagnostics"]:
        click.echo(d.format())
    errors = sum(d.severity == ERROR for d in entry["diagnostics"])
    warnings = len(entry["diagnostics"]) - errors
    if errors:
        click.echo(f"{label}: invalid ({errors} errors, {warnings} warnings)")
        return
    click.echo(f"{label}: valid ({warnings} warnings)")
    report = entry["smoke"]
    if report is None:
        return
    click.echo(f"  smoke: {report.completed} of {report.games} random games ended, "
               f"mean length {report.mean_length:.1f} moves")
    _echo_failures(report.errors, report.failed, "  smoke ", err=False)


MAX_STATE_BYTES = 64 << 20  # a saved state is JSON of the game's variables: megabytes at the very most


def _saved_state(game: Game, path: Path) -> State:
    try:
        text = read_bytes(path, MAX_STATE_BYTES)
    except OSError as err:
        raise StateFormatError(f"{path}: cannot read the saved state: {err.strerror or err}") from None
    return game.state_from_json(text)


@main.command()
@click.argument("game_name", metavar="GAME")
@click.option("--state", "state_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Take the graphs at this saved state (JSON from state.to_json()).")
@click.option("--format", "fmt", type=click.Choice(["dot", "graphml"]), default="dot", show_default=True)
@click.option("--name", "graph_name", default=None, metavar="GRAPH", help="Export only this graph.")
@ruleset_options
@json_option
@reports_errors
def graph(game_name: str, state_file: Path | None, fmt: str, graph_name: str | None, players: int | None,
          variant: str | None, as_json: bool) -> None:
    """Export a game's graphs (DOT, GraphML, or nodes and edges with --json)."""
    from .graphexport import graphs_at, to_dot, to_graphml, to_plain

    game = load_game(game_name, players, variant)
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
        _emit_json({"game": game.name, "graphs": {n: to_plain(g) for n, g in graphs.items()}})
    elif fmt == "dot":
        click.echo("".join(to_dot(n, g) for n, g in graphs.items()), nl=False)
    elif len(graphs) > 1:
        raise click.UsageError(f"GraphML holds one graph: choose one with --name ({', '.join(graphs)})")
    else:
        click.echo(to_graphml(next(iter(graphs.values()))), nl=False)


@main.command()
@click.argument("game_name", metavar="GAME")
@click.option("--depth", type=click.IntRange(min=0), required=True, metavar="D")
@game_options
@json_option
@reports_errors
def perft(game_name: str, depth: int, players: int | None, variant: str | None, seed: int,
          as_json: bool) -> None:
    """Count the move sequences of exactly D decisions from the initial state."""
    from .perft import perft as count

    result = count(load_game(game_name, players, variant).new_state(seed), depth)
    if as_json:
        _emit_json(result.to_dict())
    else:
        click.echo(f"perft {depth}: {result.nodes} nodes, {result.terminals} terminal states")


# ------------------------------------------------------------------- playing


def _show_state(state: State, record: MoveRecord | None) -> None:
    if record is not None:
        who = "chance" if record.player < 0 else f"player {record.player}"
        rules = f"  [{', '.join(record.rules)}]" if record.rules else ""
        click.echo(f"\n{record.n}. {who}: {record.move}{rules}")
    click.echo(state.render())


@main.command()
@click.argument("game_name", metavar="GAME")
@agents_option
@click.option("--log", "log_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              callback=_output_file, help="Write the game log (JSON Lines) to this file.")
@game_options
@json_option
@reports_errors
def play(game_name: str, agents: list[str], log_file: Path | None, players: int | None, variant: str | None,
         seed: int, as_json: bool) -> None:
    """Play one game between agents and show it move by move."""
    game = load_game(game_name, players, variant)
    seats = _seated(agents, game)
    if not as_json:
        click.echo(f"{game.info.title}: seed {seed}, " + ", ".join(f"player {k} {a}" for k, a in enumerate(seats)))
    result = play_game(game, seats, seed, watch=None if as_json else _show_state)
    if log_file is not None:
        from .gamelog import write_log

        write_log(log_file, result, game_name, game.info.ruleset_hash)
    if as_json:
        _emit_json(result.to_dict())
        return
    outcome = ("winner: " + ", ".join(f"player {p}" for p in result.winners)) if result.winners else "draw"
    click.echo(f"\nresult: {outcome}; scores {result.scores}, returns {result.returns}, {result.length} moves")
    if log_file is not None:
        click.echo(f"log written to {log_file}")


@main.command()
@click.argument("game_name", metavar="GAME")
@click.option("-n", "--games", "n", type=click.IntRange(min=1, max=MAX_GAMES), default=100, show_default=True,
              metavar="N")
@agents_option
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True, metavar="K",
              help="Worker processes (results do not depend on it).")
@click.option("--check", is_flag=True, help="Check the ruleset's invariants after every move (slower).")
@click.option("--out", "out_file", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              callback=_output_file,
              help="Append one JSON line per finished game to FILE as it finishes (refuses an existing FILE).")
@click.option("--resume", is_flag=True,
              help="Complete the run in --out FILE: play only the games it lacks (same arguments otherwise).")
@game_options
@json_option
@reports_errors
def simulate(game_name: str, n: int, agents: list[str], workers: int, check: bool, out_file: Path | None,
             resume: bool, players: int | None, variant: str | None, seed: int, as_json: bool) -> None:
    """Play N games between agents and report wins, draws, length, end conditions and speed."""
    from .simulate import GameSpec, simulate as run

    if resume and out_file is None:
        raise click.UsageError("--resume completes the results file given with --out FILE")
    spec = GameSpec(game_name, players, variant, checking=check)
    batch = functools.partial(run, spec, n, seed, agents, workers, out=out_file, resume=resume, keep_outcomes=False)
    try:
        report = _with_progress(batch, n) if sys.stdout.isatty() and not as_json else batch()
    except KeyboardInterrupt:
        _stopped("interrupted", out_file, n, INTERRUPTED)
    except WorkerLostError as err:
        _stopped(f"error {err.code}: {err.message}", out_file, n, 1)
    except SeatingError as err:
        raise click.BadParameter(str(err), param_hint="--agents") from None
    if as_json:
        _emit_json({**report.to_dict(), "out": out_file and str(out_file)})
    else:
        _print_simulation(game_name, report, out_file)
    if report.failed:
        raise click.exceptions.Exit(1)


def _with_progress(batch: Callable[..., Any], total: int) -> Any:
    from rich.progress import Progress

    # No refresh thread: worker processes are forked, and forking a threaded process is unsafe.
    with Progress(transient=True, auto_refresh=False) as bar:
        task = bar.add_task("simulating", total=total)
        shown = [0.0]

        def advance(k: int) -> None:
            bar.advance(task, k)
            if time.perf_counter() - shown[0] > 0.1:  # redraw ten times a second at most
                bar.refresh()
                shown[0] = time.perf_counter()

        return batch(progress=advance)


INTERRUPTED = 130  # the shell's code for a command stopped by Ctrl-C


def _stopped(reason: str, out_file: Path | None, n: int, status: int) -> None:
    """A batch that stopped early: say what of it is kept and how to finish it."""
    if out_file is None:
        click.echo(f"{reason}: nothing was saved (give --out FILE to keep finished games)", err=True)
    else:
        from .results_file import count_games

        click.echo(f"{reason}: {count_games(out_file)} of {n} games are in {out_file}; finish the run "
                   f"by giving the same command with --resume", err=True)
    raise click.exceptions.Exit(status)


def _print_simulation(game_name: str, report: Any, out_file: Path | None) -> None:
    done = report.completed
    plural = "s" if report.workers > 1 else ""
    stopped = f" ({report.failed} stopped on rule errors)" if report.failed else ""
    click.echo(f"{game_name}: {report.games} games{stopped}, seed {report.seed}, {report.workers} worker{plural}")
    for k, agent in enumerate(report.agents):
        click.echo(f"  player {k} ({agent}): {report.wins[k]} wins ({_percent(report.wins[k], done)})")
    click.echo(f"  draws: {report.draws} ({_percent(report.draws, done)})")
    click.echo(f"  mean length: {report.mean_length:.2f} moves")
    if report.ended_by:
        click.echo("  ended by: " + ", ".join(f"{rule} {count}" for rule, count in report.ended_by.items()))
    resumed = f", {report.resumed} games read back from {out_file}" if report.resumed else ""
    click.echo(f"  speed: {report.playouts_per_s:.1f} games/s ({report.seconds:.2f} s{resumed})")
    if out_file is not None:
        click.echo(f"  results: {out_file}")
    if report.failed:
        _echo_failures(report.errors, report.failed, "  ", err=True)
        click.echo(f"rule errors: replay a game with `ruleplay play {game_name} --seed SEED`", err=True)


MAX_BENCH_SECONDS = 3600.0


def _not_nan(ctx: click.Context, param: click.Parameter, value: float) -> float:
    """FloatRange lets nan through (nan compares false with both bounds), and a run of nan seconds never ends."""
    if math.isnan(value):
        raise click.BadParameter("nan is not a number of seconds")
    return value


@main.command()
@click.argument("game_name", metavar="GAME")
@click.option("--seconds", type=click.FloatRange(min=0, min_open=True, max=MAX_BENCH_SECONDS), default=1.0,
              show_default=True, callback=_not_nan, metavar="S", help="Length of each timed run.")
@click.option("--runs", type=click.IntRange(min=1), default=3, show_default=True, metavar="R")
@game_options
@json_option
@reports_errors
def bench(game_name: str, seconds: float, runs: int, players: int | None, variant: str | None, seed: int,
          as_json: bool) -> None:
    """Measure random playouts per second (median of several runs)."""
    from .bench import bench as measure

    report = measure(load_game(game_name, players, variant), seconds, runs, seed)
    data = report.to_dict()
    if as_json:
        _emit_json(data)
        return
    click.echo(f"{report.game}: {data['playouts_per_s']:.1f} playouts/s (median of {runs} runs, "
               f"min {data['min_playouts_per_s']:.1f}, max {data['max_playouts_per_s']:.1f}), "
               f"mean length {data['mean_length']:.2f} moves")
    click.echo(f"  a playout costs {data['baseline_ops_per_playout']:.1f} baseline operations (the same-process "
               f"yardstick: compare this figure across machines and commits)")


@main.command()
@click.argument("log_file", metavar="FILE", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@json_option
@reports_errors
def replay(log_file: Path, as_json: bool) -> None:
    """Re-run a game log and check that every move, rule and result is the same."""
    from .gamelog import replay as rerun

    report = rerun(log_file)
    if as_json:
        _emit_json(report.to_dict())
    else:
        click.echo(f"{log_file}: replays ({report.game}, seed {report.seed}, {report.moves} moves, "
                   f"scores {report.scores}, returns {report.returns})")


# ----------------------------------------------------------------- scenarios


@main.command()
@click.argument("files", nargs=-1, type=click.Path(exists=True, path_type=Path), metavar="FILE...")
@click.option("--mutate", "mutate_game", default=None, metavar="GAME",
              help="Also disable each rule of GAME in turn and report rules no scenario notices.")
@ruleset_options
@json_option
@reports_errors
def scenario(files: tuple[Path, ...], mutate_game: str | None, players: int | None, variant: str | None,
             as_json: bool) -> None:
    """Run scenario files; exit 1 if any fails or, with --mutate, if a rule survives."""
    from .scenario import mutate, run_scenarios

    if not files and mutate_game is None:
        raise click.UsageError("give scenario files, or --mutate GAME")
    results = run_scenarios(list(files)) if files else []
    report = mutate(mutate_game, list(files) or None, players=players, variant=variant) if mutate_game else None
    failed = [r for r in results if not r.passed]
    if as_json:
        _emit_json({
            "scenarios": [{"file": str(r.file), "name": r.name, "passed": r.passed, "failures": list(r.failures)}
                          for r in results],
            "passed": len(results) - len(failed), "failed": len(failed),
            "mutation": report and {"rules_tested": list(report.rules_tested), "survivors": list(report.survivors),
                                    "killed": dict(report.killed), "unswitchable": list(report.unswitchable)},
        })
    else:
        for r in results:
            click.echo(f"{'PASS' if r.passed else 'FAIL'} {r.file}: {r.name}")
            for failure in r.failures:
                click.echo(textwrap.indent(failure, "    "))
        if results:
            click.echo(f"{len(results) - len(failed)} passed, {len(failed)} failed")
        if report is not None:
            click.echo(f"mutation of {mutate_game}: {len(report.rules_tested)} rules tested, "
                       f"{len(report.killed)} caught, {len(report.survivors)} survived")
            for rule in report.survivors:
                click.echo(f"    survivor: {rule} (disabling it fails no scenario)")
            if report.unswitchable:
                click.echo(f"    not switchable (cited only by phases, functions or components): "
                           f"{', '.join(report.unswitchable)}")
    if failed or (report is not None and report.survivors):
        raise click.exceptions.Exit(1)
