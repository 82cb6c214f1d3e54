"""`ruleplay validate`: every diagnostic of each ruleset and variant at once, and optional smoke games."""

from __future__ import annotations

from typing import Any

import click

from ruleplay.dsl.diagnostics import ERROR

from ..engine.errors import RulesetError
from .batches import replay_command
from .options import WholeNumber, game_options, json_option, load_noting_files
from .output import echo, echo_failures, emit_json, reports_errors, terminal_safe

# A smoke test is a check, not an experiment: a bound no real check reaches, and a typo's extra zeros do.
MAX_SMOKE_GAMES = 10**6
SUM_TOLERANCE = 1e-9  # returns that add up to `sum` but for float rounding, relative to their size


def _validate_one(target: str, players: int | None, variant: str | None, smoke: int, seed: int,
                  native: bool) -> tuple[dict, tuple[str, ...]]:
    """The check of one ruleset (one variant), and the variants it declares."""
    from ..runs.simulate import GameSpec, simulate

    entry: dict[str, Any] = {"target": target, "variant": variant, "ok": True, "diagnostics": [], "smoke": None,
                             "native": None, "returns_range": None}
    try:
        game = load_noting_files(target, players, variant)  # one target's wrong --variant is its result
    except RulesetError as err:
        entry["ok"] = False
        entry["diagnostics"] = err.diagnostics
        return entry, ()
    entry["diagnostics"] = game.model.diagnostics
    if smoke:
        ranged = game.model.returns_range is not None
        report = simulate(GameSpec(target, players, variant), smoke, seed, ["random"], keep_outcomes=native or ranged)
        entry["smoke"] = report
        entry["ok"] = not report.failed
        if ranged:
            entry["returns_range"] = _range_check(game.model.returns_range, report.outcomes)
            entry["ok"] = entry["ok"] and not entry["returns_range"]["outside"]
    if native:
        entry["native"] = _native_check(game, GameSpec(target, players, variant, backend="native"), smoke, seed,
                                        entry["smoke"])
        entry["ok"] = entry["ok"] and entry["native"]["agrees"] is not False
    return entry, game.info.variants


def _range_check(declared: tuple[float, float, float | None], outcomes: list) -> dict:
    """The smoke games whose returns at the end leave `scoring.returns_range` (RP506): below min, above max,
    or (with a sum) adding up to another sum."""
    low, high, total = declared
    outside = []
    for outcome in sorted(outcomes, key=lambda o: o.index):
        returns = list(outcome.returns)
        size = max([1.0, abs(total or 0.0)] + [abs(r) for r in returns])
        if any(not low <= r <= high for r in returns) or (
                total is not None and abs(sum(returns) - total) > SUM_TOLERANCE * size):
            outside.append({"game": outcome.index, "returns": returns})
    return {"min": low, "max": high, "sum": total, "games": len(outcomes), "outside": outside}


def _native_check(game: Any, spec: Any, smoke: int, seed: int, python: Any) -> dict:
    """Whether the ruleset lowers to C (else the construct and its place), builds, and (with smoke games) plays
    them exactly as the Python engine does."""
    from ..agents.native_positions import determinized_on_python
    from ..engine.native import NativeGame, NativeUnavailable
    from ..engine.native.cdata import NotLowered
    from ..engine.native.module import lower_model
    from ..runs.simulate import simulate

    found: dict[str, Any] = {"lowers": True, "builds": False, "agrees": None, "reason": None, "at": None,
                             "heuristics_on_python": {}, "determinization_on_python": None}
    try:
        lowered = lower_model(game.model, game.checking)
    except NotLowered as err:
        found.update(lowers=False, reason=f"the native backend does not lower {err.what}", at=_place(err))
        return found
    found["heuristics_on_python"] = {name: {"reason": f"the native backend does not lower {err.what}",
                                            "at": _place(err)} for name, err in lowered.unlowered_heuristics.items()}
    try:
        ng = NativeGame.of(game)
    except NativeUnavailable as err:
        found["reason"] = err.message
        return found
    found["builds"] = True
    found["determinization_on_python"] = determinized_on_python(ng)
    if smoke and python is not None:
        native = simulate(spec, smoke, seed, ["random"], keep_outcomes=True)
        pairs = zip(sorted(python.outcomes, key=lambda o: o.index), sorted(native.outcomes, key=lambda o: o.index))
        differ = [a.index for a, b in pairs if a != b]
        found["agrees"] = not differ
        if differ:
            found["reason"] = (f"{len(differ)} of {smoke} smoke games play otherwise natively (games "
                               f"{', '.join(map(str, differ[:10]))}): a fault of ruleplay's native backend, "
                               f"please report it; --backend python plays them as the rules say")
    return found


def _place(err: Any) -> str | None:
    return str(err.pos) if err.pos is not None and err.pos.line else None


@click.command("validate")
@click.argument("targets", nargs=-1, required=True, metavar="PATH|NAME...")
@click.option("--smoke", type=WholeNumber(min=0, max=MAX_SMOKE_GAMES), default=0, metavar="N",
              help="Also play N random games, which must end within the step limit.")
@click.option("--native", is_flag=True,
              help="Also say whether the native backend takes the ruleset (else the construct that keeps it on "
                   "the Python engine, and where) and builds it; with --smoke, the games must play the same "
                   "natively.")
@game_options
@json_option
@reports_errors
def validate_command(targets: tuple[str, ...], smoke: int, native: bool, players: int | None, variant: str | None,
                     seed: int, as_json: bool) -> None:
    """Check rulesets (and, without --variant, each of their variants); exit 1 on any error."""
    entries = []
    for target in targets:
        entry, variants = _validate_one(target, players, variant, smoke, seed, native)
        entries.append(entry)
        if variant is None:
            entries.extend(_validate_one(target, players, name, smoke, seed, native)[0] for name in variants)
    if as_json:
        emit_json([{**e, "diagnostics": [d.to_dict() for d in e["diagnostics"]],
                     "smoke": e["smoke"] and e["smoke"].to_dict()} for e in entries])
    else:
        for e in entries:
            _print_validation(e, players)
    if not all(e["ok"] for e in entries):
        raise click.exceptions.Exit(1)


def _print_validation(entry: dict, players: int | None) -> None:
    label = entry["target"] + (f" (variant {entry['variant']})" if entry["variant"] else "")
    for d in entry["diagnostics"]:
        echo(d.format())
    errors = sum(d.severity == ERROR for d in entry["diagnostics"])
    warnings = len(entry["diagnostics"]) - errors
    if errors:
        echo(f"{label}: invalid ({errors} errors, {warnings} warnings)")
        return
    echo(f"{label}: valid ({warnings} warnings)")
    report = entry["smoke"]
    if report is not None:
        echo(f"  smoke: {report.completed} of {report.games} random games ended, "
             f"mean length {report.mean_length:.1f} moves")
        echo_failures(report.errors, report.failed, "  smoke ", err=False,
                      replay=replay_command(entry["target"], entry["variant"], players, report.agents))
    _print_range(entry["returns_range"])
    native = entry["native"]
    if native is not None:
        if native["builds"]:
            played = {None: "", True: ", and plays the smoke games exactly as the Python engine does",
                      False: f": {native['reason']}"}[native["agrees"]]
            echo(f"  native: lowers to C and builds{played}")
        else:
            at = f" ({native['at']})" if native["at"] else ""
            echo(terminal_safe(f"  native: plays on the Python engine: {native['reason']}{at}"))
        if native.get("determinization_on_python"):
            echo(terminal_safe(f"  native: ismcts draws its determinizations on the Python engine: "
                               f"{native['determinization_on_python']}"))
        for name, why in native["heuristics_on_python"].items():
            at = f" ({why['at']})" if why["at"] else ""
            echo(terminal_safe(f"  native: heuristic {name} judges positions (compare, analyze) on the Python "
                               f"engine: {why['reason']}{at}"))


def _print_range(found: dict | None) -> None:
    if found is None:
        return
    total = "" if found["sum"] is None else f", summing to {found['sum']:g}"
    declared = f"[{found['min']:g}, {found['max']:g}]{total}"
    if not found["outside"]:
        echo(f"  returns: every smoke game ended with returns in scoring.returns_range {declared}")
        return
    first = found["outside"][0]
    echo(terminal_safe(f"  returns: error RP506: {len(found['outside'])} of {found['games']} smoke games ended with "
                       f"returns outside scoring.returns_range {declared}: game {first['game']} with "
                       f"{first['returns']}; widen the range, or correct `returns`"))
