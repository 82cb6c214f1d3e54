"""`python -m benchmarks`: the engine against hand-written games, and against an older commit.

    python -m benchmarks run [--games G ...] [--pairs 5] [--seconds 1] [--perft] [--json]
    python -m benchmarks against [COMMIT] [--games G ...] [--pairs 5] [--seconds 1] [--json]
    python -m benchmarks startup [--against COMMIT] [--runs 5] [--json]
    python -m benchmarks states [--games 5] [--json]

Run from the checkout, with ruleplay installed (`pip install -e .`).
"""

from __future__ import annotations

import argparse
import json
import math
import sys

from . import against, run, startup, states

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
    for name, help_text in [("run", "engine against the hand-written games, in this process"),
                            ("against", "the current tree against an older commit, each in its own process")]:
        command = commands.add_parser(name, help=help_text)
        command.add_argument("--pairs", type=_pairs, default=5, help="alternated measurements of each (default 5)")
        command.add_argument("--seconds", type=_positive, default=1.0,
                             help="CPU seconds of playouts per measurement (default 1)")
        command.add_argument("--json", action="store_true", help="print the figures as JSON")
    command = commands.add_parser("startup", help="CPU time of `import ruleplay` and of each game's first load")
    command.add_argument("--against", metavar="COMMIT", help="measure this commit too, in a temporary worktree")
    command.add_argument("--runs", type=_pairs, default=5, help="fresh processes per figure (default 5)")
    command.add_argument("--json", action="store_true", help="print the figures as JSON")
    command = commands.add_parser("states", help="seed-game states: JSON size, and copy() against a move")
    command.add_argument("--games", type=_pairs, default=5, help="random games per seed game (default 5)")
    command.add_argument("--json", action="store_true", help="print the figures as JSON")
    commands.choices["run"].add_argument("--games", nargs="+", choices=sorted(run.BASELINES),
                                         default=sorted(run.BASELINES))
    commands.choices["run"].add_argument("--perft", action="store_true",
                                         help="also count perft nodes per CPU-second")
    commands.choices["against"].add_argument("commit", nargs="?", default=against.REFERENCE,
                                             help=f"the commit to compare with (default {against.REFERENCE})")
    commands.choices["against"].add_argument("--games", nargs="+", choices=BUILTIN_NAMES, default=SEED_GAME_NAMES,
                                             help="the seed games at the player counts of issue 13 (the "
                                                  "default), or any built-in game at its default count")
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "run":
        results = [run.playouts(g, args.pairs, args.seconds) for g in args.games]
        perfts = [run.perft_rates(g, args.pairs) for g in args.games if args.perft and run.BASELINES[g].perft_depth]
        print(json.dumps({"playouts": results, "perft": perfts}, indent=2) if args.json
              else run.report(results, perfts))
        return 0
    if args.command == "startup":
        return _startup(args.against, args.runs, args.json)
    if args.command == "states":
        rows = [states.measure(game, players, args.games) for game, players in states.GAMES]
        print(json.dumps(rows, indent=2) if args.json else states.report(rows))
        return 0
    try:
        result = against.compare(args.commit, args.pairs, args.seconds, against_games(args.games))
    except against.WorkerError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(json.dumps(result, indent=2) if args.json else against.report(result))
    return 0


def against_games(names: list[str]) -> list[tuple[str, int | None]]:
    """(game, players) to compare: a seed game at each player count issue 13 names, another at its default."""
    return ([(g, p) for g, p in against.SEED_GAMES if g in names]
            + [(g, None) for g in names if g not in SEED_GAME_NAMES])


def _startup(commit: str | None, runs: int, as_json: bool) -> int:
    try:
        results = {}
        if commit:
            with against.checkout(commit) as tree:
                results[commit] = startup.measure(tree, runs)
        results["current"] = startup.measure(against.ROOT, runs)
    except (against.WorkerError, startup.ProbeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(json.dumps(results, indent=2) if as_json else startup.report(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
