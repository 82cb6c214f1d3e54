"""`ruleplay analyze`: what makes a game good, measured, for a game and its variants; an HTML report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ..engine.errors import WorkerLostError
from ..engine.game import Game
from ..runs.play import SeatingError
from .batches import (check_judge, executor_option, judge_option, need_matplotlib, replay_command, spec_ids,
                      workers_option)
from .options import (WholeNumber, backend_option, check_agents, json_option, new_output_file, parse_headless_agents,
                      plays_on, seated)
from .output import echo, echo_failures, emit_json, reports_errors, write_output
from .sides import Side, load_sides, side, side_options
from .simulate import MAX_GAMES

DEPTH_GAMES = 20  # games per step of the skill chain, unless told


def _report_file(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    value = new_output_file(ctx, param, value)
    if value is not None:
        need_matplotlib("the report's charts")
    return value


def _chain(ctx: click.Context, param: click.Parameter, value: str | None) -> list[str] | None:
    if value is None:
        return None
    chain = parse_headless_agents(ctx, param, value)
    if len(chain) < 2:
        raise click.BadParameter("a skill chain names at least two agents, weakest first: random,mcts:iterations=50")
    return chain


@click.command("analyze")
@click.argument("game_name", metavar="GAME")
@side_options("A variant to measure beside the base and compare with it (repeat for several): a variant name of "
              "GAME, a file that `extends:` it, or a copy of it (`ruleplay new DIR --from GAME`).",
              "Games of each ruleset, all from the same seeds.",
              "Seed of every ruleset's games (game i of each starts from the same seed) and of the bootstraps.")
@workers_option
@executor_option
@judge_option
@click.option("--skill-chain", "chain", default=None, metavar="A,B,...", callback=_chain,
              help="Agents for strategic depth, weakest first (default: random, then mcts at 50 and 500 "
                   "iterations; ismcts where the game keeps secrets).")
@click.option("--depth-games", type=WholeNumber(min=0, max=MAX_GAMES), default=DEPTH_GAMES, show_default=True,
              metavar="N", help="Games per step of the skill chain (0: strategic depth is not measured; its "
                                "searches are the slow part of an analysis).")
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              callback=_report_file, metavar="FILE",
              help="Write the report, one self-contained HTML page with its charts (needs ruleplay[plot]).")
@backend_option
@json_option
@reports_errors
def analyze_command(game_name: str, variants: tuple[str, ...], n: int, agents: list[str], players: int | None,
                    seed: int, workers: int, executor: str | None, heuristic: str | None, chain: list[str] | None,
                    depth_games: int, output: Path | None, backend: str, as_json: bool) -> None:
    """Measure what makes a game good — balance, first-move advantage, drawishness, decisiveness, length and
    its spread, branching, lead changes, drama, uncertainty late in the game, strategic depth — for GAME
    and each --variant, each variant's differences from the base tested on games paired by seed
    (docs/variants.md says what each metric is and where it comes from)."""
    from ..runs.analysis import analyze
    from ..runs.arc import Judge
    from ..runs.depth import chain_games, default_chain
    from ..runs.workers import GameSpec
    from .progress import Progress

    sides: list[Side] = [side(game_name, None), *(side(game_name, v) for v in variants)]
    sides, loaded = load_sides(game_name, sides, players, [label for _, _, label in sides])
    seats = seated(agents, loaded[0])
    if depth_games and loaded[0].info.players < 2:
        echo(f"note: strategic depth plays a stronger agent against a weaker one, and this game of "
             f"{loaded[0].name} has one seat: it is not measured", err=True)
        depth_games = 0
    chains = [chain or default_chain(game) for game in loaded]
    for game, steps in zip(loaded, chains):
        check_agents(agents, game)
        check_judge(heuristic, game)
        if depth_games:
            check_agents(steps, game, option="--skill-chain")
    said: set[str] = set()
    for game in loaded:
        plays_on(game, backend, seats, judged=True, heuristic=Judge.of(game, heuristic).heuristic, said=said)
    specs = [GameSpec(ruleset, players, variant, arcs=True, heuristic=heuristic, backend=backend)
             for ruleset, variant, _ in sides]
    count = loaded[0].info.players
    total = len(sides) * n + (sum(chain_games(c, depth_games, count) for c in chains) if depth_games else 0)
    try:
        with Progress(f"analyzing {game_name}", total, "games") as shown:
            rulesets = [(spec, label, game) for spec, (_, _, label), game in zip(specs, sides, loaded)]
            analysis = analyze(game_name, rulesets, n, seed, agents, workers, executor, chains, depth_games,
                               [spec_ids(game) for game in loaded], progress=shown.advance)
    except WorkerLostError as err:
        echo(f"error {err.code}: {err.message}", err=True)
        raise click.exceptions.Exit(1)
    except SeatingError as err:
        raise click.BadParameter(str(err), param_hint="--agents") from None
    document = analysis.to_dict()
    if output is not None:
        from ..view.report import report_html

        write_output(output, report_html(analysis, document).encode("utf-8"), "report")
    if as_json:
        emit_json({**document, "report": str(output) if output is not None else None})
    else:
        _print(analysis)
        if output is not None:
            echo(f"report written to {output}")
    _report_failures(analysis, sides, players, loaded)


def _print(analysis: Any) -> None:
    from ..runs.quality import METRICS

    echo(f"{analysis.title}: {analysis.games} games per ruleset, seed {analysis.seed}, agents "
         f"{', '.join(analysis.agents)}")
    width = max(len(m.label) for m in METRICS)
    for s in analysis.sides:
        echo(f"{s.label} ({s.title}; positions judged by {s.judged_by}):")
        for metric in METRICS:
            found = s.metrics.get(metric.name)
            if found is None:
                continue
            if "ci95" in found:
                low, high = found["ci95"]
                echo(f"  {metric.label:<{width}}  {found['value']:.3f}  95% CI [{low:.3f}, {high:.3f}]")
            else:
                steps = ", ".join(f"{step.stronger} over {step.weaker} {step.score:.2f} [{step.ci95[0]:.2f}, "
                                  f"{step.ci95[1]:.2f}]" for step in s.depth.steps)
                echo(f"  {metric.label:<{width}}  {found['value']} of {found['steps']} steps ({steps})")
    for versus in analysis.versus:
        significant = [d for d in versus.differences if d.significant]
        echo(f"{versus.label} against {analysis.sides[0].label} ({versus.paired_games} pairs of games, "
             f"{versus.confidence:.2%} intervals, Bonferroni for {len(versus.differences)}): "
             + ("nothing changed significantly" if not significant else "significant:"))
        for d in significant:
            echo(f"  {d.name}: {d.a:.3f} -> {d.b:.3f} ({d.difference:+.3f}, [{d.low:.3f}, {d.high:.3f}])")


def _report_failures(analysis: Any, sides: list[Side], players: int | None, loaded: list[Game]) -> None:
    """Each ruleset's rule errors on stderr, as `simulate` gives them, and exit 1 if there were any."""
    failed = False
    for s, (ruleset, variant, label) in zip(analysis.sides, sides):
        report = s.report
        stopped = report.failed + (sum(step.failed for step in s.depth.steps) if s.depth is not None else 0)
        if not stopped:
            continue
        failed = True
        echo(f"{label}: {stopped} games stopped on rule errors", err=True)
        echo_failures(report.errors, report.failed, "  ", err=True,
                      replay=replay_command(ruleset, variant, players, report.agents))
    if failed:
        raise click.exceptions.Exit(1)
