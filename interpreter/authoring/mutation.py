"""Rule-level mutation testing: do the scenarios pin every rule down?

For every cited rule id that can be switched off, `mutate` loads the game
with that one rule off and checks that some scenario now fails.  A rule
whose mutant passes every scenario (a survivor) is a rule the scenarios
never really test.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ruleplay.dsl.diagnostics import RulesetError

from ..engine.game import Game, load_game
from ..engine.loader import find_ruleset
from .runner import GameFactory, ScenarioResult, load_all, run_scenario, scenario_files
from .scenario_file import Scenario, ScenarioError
from .starters import builtin_scenarios


@dataclass
class MutationReport:
    """Which switchable rules the scenarios notice (killed) and which they do not (survivors)."""

    game: str
    rules_tested: list[str]
    survivors: list[str]
    killed: dict[str, str]  # rule id -> what failed first ("load", or a scenario failure's first line)
    # Cited only where nothing can be switched off (phases, functions, components): listed, not hidden.
    unswitchable: list[str] = field(default_factory=list)


def _natural(rule: str) -> list:
    return [int(part) if part.isdigit() else part for part in re.split(r"([0-9]+)", rule)]


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
    """Loads `game` with `disabled` rules off, for scenarios that name this same ruleset.

    `players`, when given, replaces each scenario's own `players:`, as `run_scenarios` does: the mutants
    are the game at that count, and a scenario played at its own count would test another game.
    """
    target = find_ruleset(game).resolve()
    cache: dict[tuple, Game] = {}

    def load(ref: str, p: int | None, v: str | None) -> Game:
        if find_ruleset(ref).resolve() != target:
            raise ScenarioError([f"this scenario is for {ref}, not for {game}"])
        key = (players if players is not None else p, v if v is not None else variant)
        if key not in cache:
            cache[key] = load_game(game, key[0], key[1], disabled_rules=disabled)
        return cache[key]

    return load


def default_scenarios(game: str) -> Path:
    """Where `mutate` finds the scenarios when none are given: a built-in game's own (shipped with ruleplay),
    or the folder of the ruleset file, where `ruleplay new` puts a copy's."""
    return builtin_scenarios(game) or find_ruleset(game).resolve().parent


def mutate(game: str, paths: list[Path] | None, players: int | None = None,
           variant: str | None = None, ruleset: str | None = None,
           progress: Callable[[int, int], None] | None = None) -> MutationReport:
    """Switch each cited rule off in turn and report which mutants no scenario catches; `paths` None plays
    the scenarios `default_scenarios(game)` finds.

    A scenario is written for the variant it names (none: the base game), so only
    the scenarios for `variant` are played: a base-game scenario may use what a
    variant removes, and a variant's scenarios do not test the base game's rules.
    `ruleset` (as for `run_scenarios`) is what the scenarios are for instead of
    their `game:`, and `players` the count they are played at instead of their own.  `progress(done, total)`
    is told how many of the rules have been tested, before the first and after each.  Raises RulesetError if
    the game does not load, ScenarioError
    if there are no scenarios for the variant or they already fail on the
    unmodified game (every mutant would then look killed).
    """
    base = load_game(game, players, variant)
    folders = paths if paths is not None else [default_scenarios(game)]
    files = scenario_files(folders)
    loaded = [item for item in load_all(files, ruleset) if not isinstance(item, Scenario) or item.variant == variant]
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
    for done, rule in enumerate(rules):
        if progress is not None:
            progress(done, len(rules))
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
    if progress is not None:
        progress(len(rules), len(rules))
    return MutationReport(base.model.name, rules, survivors, killed, _unswitchable(base))
