"""`ruleplay compare`: a base and a variant (or two variants) on the same seeds, every statistic tested."""

from __future__ import annotations

import math
from pathlib import Path

import click

from ..engine.errors import WorkerLostError
from ..engine.game import Game
from ..runs import stats
from ..runs.compare import Comparison, compare
from ..runs.play import SeatingError
from ..runs.simulate import SimulationReport
from .batches import (charts, check_judge, executor_option, judge_option, plot_option, replay_command, spec_ids,
                      workers_option)
from .options import backend_option, check_agents, json_option, plays_on, seated
from .output import echo, echo_failures, emit_json, reports_errors, terminal_safe
from .sides import Side, load_sides, side, side_options


def out_folder(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    if value is not None and value.exists() and not value.is_dir():
        raise click.BadParameter(f"{value} is not a folder: --out names a folder for A.jsonl and B.jsonl")
    return value


@click.command("compare")
@click.argument("game_name", metavar="GAME")
@side_options("Once: compare the base with V; twice: compare A with B. A variant name of GAME, the path of a "
              "ruleset that `extends:` it, or a copy of it (`ruleplay new DIR --from GAME`).",
              "Games on each side.", "Seed of both sides: game i of A and of B start from the same seed.")
@workers_option
@executor_option
@plot_option
@judge_option
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              callback=out_folder, help="Stream each side's games to DIR/A.jsonl and DIR/B.jsonl.")
@click.option("--resume", is_flag=True, help="Complete the results files in --out DIR.")
@backend_option
@json_option
@reports_errors
def compare_command(game_name: str, variants: tuple[str, ...], n: int, agents: list[str], players: int | None,
                    seed: int, workers: int, executor: str | None, plot_dir: Path | None, heuristic: str | None,
                    out_dir: Path | None, resume: bool, backend: str, as_json: bool) -> None:
    """Play a base and a variant (or two variants) on the same seeds and agents, and test every difference.

    Game i of A and game i of B share a seed, so the games are compared in pairs:
    differences of proportions use Newcombe's score interval for paired
    proportions, of means a percentile bootstrap of the games' differences,
    widened for small batches (too few pairs leave a mean unbounded);
    the intervals are Bonferroni-corrected for the number
    of statistics tested, so "significant" keeps a 5% family-wise error rate.
    """
    from ..runs.arc import Judge
    from ..runs.workers import GameSpec
    from .progress import Progress

    if not 1 <= len(variants) <= 2:
        raise click.UsageError("give --variant V (base against V) or --variant A --variant B")
    if resume and out_dir is None:
        raise click.UsageError("--resume completes the results files in --out DIR")
    sides = [side(game_name, None)] if len(variants) == 1 else []
    sides += [side(game_name, v) for v in variants]
    sides, loaded = load_sides(game_name, sides, players, ["A", "B"])
    seats = seated(agents, loaded[0])
    check_agents(agents, loaded[1])
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    said: set[str] = set()
    for game in loaded:
        check_judge(heuristic, game)
        plays_on(game, backend, seats, judged=True, heuristic=Judge.of(game, heuristic).heuristic, said=said)
    specs = tuple(GameSpec(ruleset, players, variant, arcs=True, heuristic=heuristic, backend=backend)
                  for ruleset, variant, _ in sides)
    labels = (sides[0][2], sides[1][2])
    try:
        with Progress(f"comparing {game_name}", 2 * n, "games") as shown:
            result = compare(specs, labels, n, seed, agents, workers, executor, out=out_dir, resume=resume,
                             games=(loaded[0], loaded[1]), spec_ids=(spec_ids(loaded[0]), spec_ids(loaded[1])),
                             progress=shown.advance)
    except WorkerLostError as err:
        echo(f"error {err.code}: {err.message}; finish with the same command and --resume", err=True)
        raise click.exceptions.Exit(1)
    except SeatingError as err:
        raise click.BadParameter(str(err), param_hint="--agents") from None
    runs = dict(zip(labels, (result.a, result.b)))
    written = charts(plot_dir, loaded[0].info.title, runs, result) if plot_dir is not None else []
    judges = [Judge.of(game, heuristic).name for game in loaded]
    if as_json:
        emit_json({**result.to_dict(), "arcs_judged_by": judges, "plots": [str(p) for p in written]})
    else:
        named = [f"{label}: {_described(game, variant)}" if variant is not None else f"{label}: the file {ruleset}"
                 for (ruleset, variant, label), game in zip(sides, loaded) if label != "base"]
        _print(game_name, result, named)
        echo("positions judged for lead changes, drama and when the lead settled by: "
             + (judges[0] if judges[0] == judges[1] else f"{judges[0]} (A), {judges[1]} (B)"))
        if written:
            echo(f"charts: {', '.join(str(p) for p in written)}")
    _report_failures(sides, players, (result.a, result.b))


def _report_failures(sides: list[Side], players: int | None,
                     reports: tuple[SimulationReport, ...]) -> None:
    """Each side's rule errors on stderr, as `simulate` gives them, and exit 1 if there were any: a
    comparison of the games that finished says nothing of the games a rule error stopped."""
    failed = [(side, report) for side, report in zip(sides, reports) if report.failed]
    for (ruleset, variant, label), report in failed:
        echo(f"{label}: {report.failed} of {report.games} games stopped on rule errors", err=True)
        echo_failures(report.errors, report.failed, "  ", err=True,
                      replay=replay_command(ruleset, variant, players, report.agents))
    if failed:
        raise click.exceptions.Exit(1)


def _described(game: Game, variant: str) -> str:
    """What a variant of the game changes, in its own words (its `description:`), on one line."""
    spec = (game.model.data.get("variants") or {}).get(variant) or {}
    text = " ".join(str(spec.get("description") or "").split()) or "(no description)"
    return terminal_safe(text if len(text) <= 300 else text[:300] + "…")


def _print(game_name: str, result: Comparison, variants: list[str]) -> None:
    a, b = result.labels
    stopped = [f"{label} {report.failed}" for label, report in zip(("A", "B"), (result.a, result.b)) if report.failed]
    echo(f"{game_name}: {a} (A) against {b} (B), {result.a.games} games each"
         + (f" (stopped on rule errors: {', '.join(stopped)})" if stopped else "")
         + f", seed {result.a.seed}, agents {', '.join(result.a.agents)}")
    for line in variants:
        echo(f"  {line}")
    echo(f"intervals at {result.confidence:.2%} each: Bonferroni for {len(result.differences)} statistics "
         f"(5% family-wise error)")
    if result.paired_games < max(result.a.completed, result.b.completed):
        echo(f"B - A and its interval are over the {result.paired_games} games that finished on both sides; "
             f"A and B are each side's own ({result.a.completed} and {result.b.completed} finished)")
    unbounded = [f"{d.name} ({d.pairs})" for d in result.differences if not math.isfinite(d.low)]
    if unbounded:
        echo(f"not bounded, from too few pairs of games: {', '.join(unbounded)}: a distribution-free test needs "
             f"at least {stats.fewest_to_tell(result.confidence)} at this confidence (drama and when the lead "
             f"settled count only the pairs won on both sides; raise -n)")
    width = max(len(d.name) for d in result.differences)
    echo(f"  {'statistic':<{width}}  {'A':>9} {'B':>9} {'B - A':>9}  {'interval':<21} significant  test")
    for d in result.differences:
        test = "Newcombe" if d.test.startswith("Newcombe") else "bootstrap"
        interval = f"[{d.low:.3f}, {d.high:.3f}]" if math.isfinite(d.low) else "unbounded"
        echo(f"  {d.name:<{width}}  {d.a:9.3f} {d.b:9.3f} {d.difference:+9.3f}  {interval:<21} "
             f"{'yes' if d.significant else 'no':<11}  {test}")
    rules_a, rules_b = result.a.statistics["rules"], result.b.statistics["rules"]
    fired_a, fired_b = rules_a["fired"], rules_b["fired"]
    changed = [(r, fired_a.get(r, {}).get("share_of_games", 0.0), fired_b.get(r, {}).get("share_of_games", 0.0))
               for r in sorted(set(fired_a) | set(fired_b))]
    moved = [f"{r} {x:.0%}->{y:.0%}" for r, x, y in changed if abs(y - x) >= 0.05]
    echo(f"  rules whose share of games moved by 5 points or more (not tested): {', '.join(moved) or 'none'}")
    for label, rules in ((a, rules_a), (b, rules_b)):
        if rules["possibly_dead"]:
            echo(f"  possibly dead in {label}: {', '.join(rules['possibly_dead'])}")
