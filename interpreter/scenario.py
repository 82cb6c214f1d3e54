"""Scenario files and rule-level mutation testing.

`run_scenarios` plays scenario files (rule behaviour written as data, see
`scenario_format`) and reports each one's located failures.  `mutate` asks
whether those scenarios actually pin the rules down: for every cited rule id
that can be switched off, it loads the game with that one rule off and checks
that some scenario now fails.  A rule whose mutant passes every scenario (a
survivor) is a rule the scenarios never really test.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ruleplay.dsl.diagnostics import RulesetError

from .errors import RuleplayError
from .game import Game, load_game
from .loader import find_ruleset
from .scenario_format import Scenario, ScenarioError, load_scenario
from .scenario_play import play

# (game reference, players, variant) -> Game; scenarios never load games themselves.
GameFactory = Callable[[str, int | None, str | None], Game]

__all__ = ["ScenarioResult", "MutationReport", "ScenarioError", "GameFactory", "run_scenarios",
           "run_scenario", "scenario_files", "mutate"]


@dataclass
class ScenarioResult:
    """One scenario file's outcome; each failure is a located diagnostic (file:line:col first)."""

    file: str
    name: str
    passed: bool
    failures: list[str]


@dataclass
class MutationReport:
    """Which switchable rules the scenarios notice (killed) and which they do not (survivors)."""

    game: str
    rules_tested: list[str]
    survivors: list[str]
    killed: dict[str, str]  # rule id -> what failed first ("load", or a scenario failure's first line)
    # Cited only where nothing can be switched off (phases, functions, components): listed, not hidden.
    unswitchable: list[str] = field(default_factory=list)


def scenario_files(paths: list[Path]) -> list[Path]:
    """Files as given; folders expand to their **/*.yaml, sorted.

    A folder without scenario files, or no paths at all, is a ScenarioError
    (RP640): a mistyped folder must fail a test run, not pass it with
    nothing run.
    """
    if not paths:
        raise ScenarioError(["no scenario files given"])
    out: list[Path] = []
    for path in paths:
        found = sorted(path.glob("**/*.yaml")) if path.is_dir() else [path]
        if not found:
            raise ScenarioError([f"no scenario files (*.yaml) in {path}"])
        out += found
    return out


def loading_factory() -> GameFactory:
    """Loads each (game, players, variant) once."""
    cache: dict[tuple, Game] = {}

    def load(ref: str, players: int | None, variant: str | None) -> Game:
        key = (ref, players, variant)
        if key not in cache:
            cache[key] = load_game(ref, players, variant)
        return cache[key]

    return load


def run_scenario(scenario: Scenario, games: GameFactory) -> ScenarioResult:
    try:
        game = games(scenario.game, scenario.players, scenario.variant)
    except RulesetError as err:
        failure = scenario.problem("RP643", f"cannot load game {scenario.game!r}:", ("game",))
        return ScenarioResult(scenario.file, scenario.name, False, [failure + "\n" + _indent(err.format())])
    except RuleplayError as err:
        failure = scenario.problem("RP643", f"cannot load game {scenario.game!r}: {err}", ("game",))
        return ScenarioResult(scenario.file, scenario.name, False, [failure])
    failures = play(scenario, game)
    return ScenarioResult(scenario.file, scenario.name, not failures, failures)


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def _load_all(files: list[Path]) -> list[Scenario | ScenarioResult]:
    out: list[Scenario | ScenarioResult] = []
    for path in files:
        try:
            out.append(load_scenario(path))
        except ScenarioError as err:
            out.append(ScenarioResult(str(path), path.stem, False, err.failures))
    return out


def run_scenarios(paths: list[Path], games: GameFactory | None = None) -> list[ScenarioResult]:
    """Play every scenario file under `paths`; a file that cannot be read is a failed result.

    Raises ScenarioError (RP640) if `paths` hold no scenario file at all.
    """
    games = games or loading_factory()
    return [item if isinstance(item, ScenarioResult) else run_scenario(item, games)
            for item in _load_all(scenario_files(paths))]


def _natural(rule: str) -> list:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", rule)]


def _rules_under_test(game: Game) -> list[str]:
    """Cited rule ids that switching off changes the game.

    Only citations on actions, requirements, end conditions, procedures and
    `@RULE` statements can be switched off (`GameModel.mutable_rules`); a rule
    cited only elsewhere (an assumption, a phase, a function) would give a
    mutant identical to the game, which no scenario could ever catch.
    """
    return sorted(game.model.mutable_rules, key=_natural)


def _unswitchable(game: Game) -> list[str]:
    """Rules cited by the ruleset (not only by assumptions) that mutation cannot switch off."""
    model = game.model
    out = []
    for rule, paths in model.cited_rules.items():
        if rule in model.mutable_rules:
            continue
        if all(path and path[0] == "assumptions" for path in paths):
            continue
        out.append(rule)
    return sorted(out, key=_natural)


def _factory(game: str, players: int | None, variant: str | None, disabled: frozenset[str]) -> GameFactory:
    """Loads `game` with `disabled` rules off, for scenarios that name this same ruleset."""
    target = find_ruleset(game).resolve()
    cache: dict[tuple, Game] = {}

    def load(ref: str, p: int | None, v: str | None) -> Game:
        if find_ruleset(ref).resolve() != target:
            raise ScenarioError([f"this scenario is for {ref}, not for {game}"])
        key = (p if p is not None else players, v if v is not None else variant)
        if key not in cache:
            cache[key] = load_game(game, key[0], key[1], disabled_rules=disabled)
        return cache[key]

    return load


def mutate(game: str, paths: list[Path] | None, players: int | None = None,
           variant: str | None = None) -> MutationReport:
    """Switch each cited rule off in turn and report which mutants no scenario catches.

    A scenario is written for the variant it names (none: the base game), so only
    the scenarios for `variant` are played: a base-game scenario may use what a
    variant removes, and a variant's scenarios do not test the base game's rules.
    Raises RulesetError if the game does not load, ScenarioError if there are no
    scenarios for the variant or they already fail on the unmodified game (every
    mutant would then look killed).
    """
    base = load_game(game, players, variant)
    folders = paths if paths is not None else [Path.cwd() / "tests" / "scenarios" / base.model.name]
    files = scenario_files(folders)
    loaded = [item for item in _load_all(files) if not isinstance(item, Scenario) or item.variant == variant]
    if not loaded:
        which = f"variant {variant!r}" if variant is not None else "the base game (no `variant:`)"
        raise ScenarioError([f"no scenario for {which} in {', '.join(str(p) for p in folders)}"])
    unmodified = _factory(game, players, variant, frozenset())
    baseline = [item if isinstance(item, ScenarioResult) else run_scenario(item, unmodified) for item in loaded]
    broken = [f for r in baseline for f in r.failures]
    if broken:
        raise ScenarioError(["the scenarios must pass on the unmodified game before mutation testing:"] + broken)
    scenarios = [item for item in loaded if isinstance(item, Scenario)]
    rules = _rules_under_test(base)
    killed: dict[str, str] = {}
    survivors: list[str] = []
    for rule in rules:
        games = _factory(game, players, variant, frozenset({rule}))
        try:
            games(game, None, None)
        except RulesetError:
            killed[rule] = "load"
            continue
        for scenario in scenarios:
            result = run_scenario(scenario, games)
            if not result.passed:
                killed[rule] = result.failures[0].splitlines()[0]
                break
        else:
            survivors.append(rule)
    return MutationReport(base.model.name, rules, survivors, killed, _unswitchable(base))
