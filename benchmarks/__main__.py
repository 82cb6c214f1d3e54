"""`python -m benchmarks`: ruleplay against hand-written games, OpenSpiel's own and an older commit.

    python -m benchmarks run [--games G ...] [--pairs 5] [--seconds 1] [--perft] [--json]
    python -m benchmarks against [COMMIT] [--games G ...] [--backend python|native] [--perft] [--pairs 5]
                                 [--seconds 1] [--json]
    python -m benchmarks startup [--against COMMIT] [--runs 5] [--opt-levels [--pairs 3] [--seconds 1]] [--json]
    python -m benchmarks states [--games 5] [--json]
    python -m benchmarks soak [--games 100000] [--seed 0] [--backend python native] [--rulesets G ...] [--seconds S] [--json]
    python -m benchmarks search [--games G ...] [--pairs 3] [--json]
    python -m benchmarks rl [COMMIT] [--games G ...] [--pairs 5] [--seconds 1] [--split] [--json]

Run from the checkout, with ruleplay installed (`pip install -e .`).
"""

from __future__ import annotations

import argparse
import json
import math
import sys

from . import against, rl, rl_split, run, search, soak, startup, states

SEED_GAME_NAMES = sorted({game for game, _ in against.SEED_GAMES})
# Any built-in game can be compared with an older commit; by default the seed games are.
BUILTIN_NAMES = sorted(path.stem for path in (against.ROOT / "rulesets").glob("*.yaml"))


def _positive(text: str) -> float:
    value = float(text)
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text} is not a number of seconds > 0")
    return value


def _pairs(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text}: give at least one pair (5 or more for a median worth quoting)")
    return value


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    commands = top.add_subparsers(dest="command", required=True)
    for name, help_text in [("run", "the Python engine and the native backend against the hand-written games and "
                                    "OpenSpiel's own, in this process"),
                            ("against", "the current tree against an older commit, each in its own process")]:
        command = commands.add_parser(name, help=help_text)
        command.add_argument("--pairs", type=_pairs, default=5, help="alternated measurements of each (default 5)")
        command.add_argument("--seconds", type=_positive, default=1.0,
                             help="CPU seconds per measurement: of playouts, or of a perft count made again "
                                  "(default 1)")
        command.add_argument("--json", action="store_true", help="print the figures as JSON")
    command = commands.add_parser("startup", help="CPU time of `import ruleplay`, of each game's first load and of "
                                                  "its native module (built, then cached)")
    command.add_argument("--against", metavar="COMMIT", help="measure this commit too, in a temporary worktree")
    command.add_argument("--runs", type=_pairs, default=5, help="fresh processes per figure (default 5)")
    command.add_argument("--opt-levels", action="store_true",
                         help="also weigh the C optimisation levels: compile time against native playouts per "
                              "CPU-second (" + ", ".join(g for g, _ in startup.OPT_GAMES) + ")")
    command.add_argument("--pairs", type=_pairs, default=3,
                         help="with --opt-levels: alternated measurements of each level (default 3)")
    command.add_argument("--seconds", type=_positive, default=1.0,
                         help="with --opt-levels: CPU seconds of playouts per measurement (default 1)")
    command.add_argument("--json", action="store_true", help="print the figures as JSON")
    command = commands.add_parser("search", help="mcts and ismcts iterations per CPU-second, native against the "
                                                 "Python engine, in this process")
    command.add_argument("--pairs", type=_pairs, default=3, help="alternated measurements of each (default 3)")
    command.add_argument("--games", nargs="+", choices=sorted({g for g, _, _ in search.ROWS}),
                         default=sorted({g for g, _, _ in search.ROWS}), help="the rows of these games (default: all)")
    command.add_argument("--json", action="store_true", help="print the figures as JSON")
    command = commands.add_parser("rl", help="steps per CPU-second of the PettingZoo environment and the batched "
                                             "Gymnasium one (with and without copy), against an older commit's "
                                             "PettingZoo environment")
    command.add_argument("commit", nargs="?", default=against.NATIVE_REFERENCE,
                         help=f"the commit to compare with (default {against.NATIVE_REFERENCE}, issue 35's)")
    command.add_argument("--games", nargs="+", choices=BUILTIN_NAMES, default=[g for g, _ in rl.RL_GAMES],
                         help="built-in games at their default player count, Nautilus at 3 (default: "
                              + ", ".join(g for g, _ in rl.RL_GAMES) + ")")
    command.add_argument("--pairs", type=_pairs, default=5, help="alternated measurements of each (default 5)")
    command.add_argument("--seconds", type=_positive, default=1.0, help="CPU seconds per measurement (default 1)")
    command.add_argument("--split", action="store_true",
                         help="instead, where a batched step's time goes in the current tree: the draw, env.step's "
                              "Python, its native call, and natively a move and an observation")
    command.add_argument("--json", action="store_true", help="print the figures as JSON")
    command = commands.add_parser("states", help="seed-game states: JSON size, and copy() against a move")
    command.add_argument("--games", type=_pairs, default=5, help="random games per seed game (default 5)")
    command.add_argument("--json", action="store_true", help="print the figures as JSON")
    command = commands.add_parser("soak", help="random games over every built-in configuration, every state "
                                               "checked (hours: nice it)")
    command.add_argument("--games", type=_pairs, default=100_000, help="games in all (default 100000)")
    command.add_argument("--seed", type=int, default=0, help="seed of the run; game k gets its own from it")
    command.add_argument("--backend", nargs="+", choices=list(soak.BACKENDS), default=list(soak.BACKENDS),
                         help="the engines to soak: python (every state checked), native (every state compared "
                              "with the Python engine's); default: both")
    command.add_argument("--rulesets", nargs="+", choices=BUILTIN_NAMES, default=BUILTIN_NAMES,
                         help="the built-in rulesets to play (default: all, every player count and variant)")
    command.add_argument("--seconds", type=_positive, default=None, help="start no game after this many seconds")
    command.add_argument("--progress", type=_positive, default=60.0,
                         help="seconds between progress lines on stderr (default 60)")
    command.add_argument("--json", action="store_true", help="print the report as JSON")
    commands.choices["run"].add_argument("--games", nargs="+", choices=run.GAMES, default=run.GAMES,
                                         help="against the hand-written game where there is one ("
                                              + ", ".join(run.BASELINES) + "), against OpenSpiel's own where "
                                              "there is one (" + ", ".join(run.OPENSPIEL) + "); default: all")
    commands.choices["run"].add_argument("--perft", action="store_true",
                                         help="also count perft nodes per CPU-second ("
                                              + ", ".join(g for g, b in run.BASELINES.items() if b.perft_depth)
                                              + ")")
    commands.choices["against"].add_argument("commit", nargs="?", default=against.REFERENCE,
                                             help=f"the commit to compare with (default {against.REFERENCE})")
    commands.choices["against"].add_argument("--games", nargs="+", choices=BUILTIN_NAMES, default=SEED_GAME_NAMES,
                                             help="the seed games at the player counts of issue 13 (the "
                                                  "default), or any built-in game at its default count")
    commands.choices["against"].add_argument("--backend", choices=["python", "native"], default="python",
                                             help="what the current tree plays on (the older commit plays on its "
                                                  f"Python engine); issue 34's reference for native is "
                                                  f"{against.NATIVE_REFERENCE}")
    commands.choices["against"].add_argument("--perft", action="store_true",
                                             help="also count perft nodes per CPU-second ("
                                                  + ", ".join(f"{g} depth {d}" for g, d in against.PERFT_GAMES)
                                                  + "), natively on --backend native")
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "run":
        return _run(args.games, args.pairs, args.seconds, args.perft, args.json)
    if args.command == "soak":
        configs = [config for config in soak.configurations() if config[0] in args.rulesets]
        report = soak.soak(args.games, args.seed, args.backend, configs, args.seconds,
                           soak.progress_line(args.progress))
        print(soak.as_json(report) if args.json else soak.text(report))
        return 1 if report.findings else 0
    if args.command == "startup":
        return _startup(args.against, args.runs, args.opt_levels, args.pairs, args.seconds, args.json)
    if args.command == "search":
        rows = [search.measure(g, v, spec, args.pairs) for g, v, spec in search.ROWS if g in args.games]
        print(json.dumps(rows, indent=2) if args.json else search.report(rows))
        return 0
    if args.command == "rl":
        return _rl(args.commit, args.games, args.pairs, args.seconds, args.split, args.json)
    if args.command == "states":
        rows = [states.measure(game, players, args.games) for game, players in states.GAMES]
        print(json.dumps(rows, indent=2) if args.json else states.report(rows))
        return 0
    try:
        result = against.compare(args.commit, args.pairs, args.seconds, against_games(args.games), args.backend,
                                 args.perft)
    except against.WorkerError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(json.dumps(result, indent=2) if args.json else against.report(result))
    return 0


def against_games(names: list[str]) -> list[tuple[str, int | None]]:
    """(game, players) to compare: a seed game at each player count issue 13 names, another at its default."""
    return ([(g, p) for g, p in against.SEED_GAMES if g in names]
            + [(g, None) for g in names if g not in SEED_GAME_NAMES])


def _run(games: list[str], pairs: int, seconds: float, with_perft: bool, as_json: bool) -> int:
    results = [run.playouts(g, pairs, seconds) for g in games if g in run.BASELINES]
    spiels = [run.spiel(g, pairs, seconds) for g in games if g in run.OPENSPIEL]
    perfts = [run.perft_rates(g, pairs, seconds) for g in games
              if with_perft and g in run.BASELINES and run.BASELINES[g].perft_depth]
    print(json.dumps({"playouts": results, "openspiel": spiels, "perft": perfts}, indent=2) if as_json
          else run.report(results, spiels, perfts))
    return 0


def _rl(commit: str, names: list[str], pairs: int, seconds: float, split: bool, as_json: bool) -> int:
    counts = dict(rl.RL_GAMES)
    if split:
        rows = rl_split.split([(name, counts.get(name)) for name in names], seconds)
        print(json.dumps(rows, indent=2) if as_json else rl_split.report(rows))
        return 0
    try:
        result = rl.compare(commit, [(name, counts.get(name)) for name in names], pairs, seconds)
    except against.WorkerError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(json.dumps(result, indent=2) if as_json else rl.report(result))
    return 0


def _startup(commit: str | None, runs: int, with_levels: bool, pairs: int, seconds: float, as_json: bool) -> int:
    try:
        results = {}
        if commit:
            with against.checkout(commit) as tree:
                results[commit] = startup.measure(tree, runs, native=False)
        results["current"] = startup.measure(against.ROOT, runs)
        levels = startup.opt_levels(pairs, seconds) if with_levels else None
    except (against.WorkerError, startup.ProbeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    if as_json:
        print(json.dumps({"trees": results, "opt_levels": levels}, indent=2))
    else:
        print(startup.report(results) + ("" if levels is None else "\n\n" + startup.opt_report(levels)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
