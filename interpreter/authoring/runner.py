"""Running scenario files: rule behaviour written as data, each failure located in its file.

`run_scenarios` finds the scenario files under the paths given, loads each
(`scenario_file`), plays it against its game (`steps`) and reports every
failure as a diagnostic pointing into the scenario file.  Games come from a
`GameFactory`, so mutation testing (`mutation`) can hand in games with a
rule switched off.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterator

from ruleplay.dsl.diagnostics import RulesetError
from ruleplay.dsl.yamlload import MAX_FILE_BYTES

from .. import files
from ..engine.errors import RuleplayError
from ..engine.game import Game, load_game
from .scenario_file import Scenario, ScenarioError, load_scenario
from .steps import play

# (game reference, players, variant) -> Game; scenarios never load games themselves.
GameFactory = Callable[[str, int | None, str | None], Game]

__all__ = ["ScenarioResult", "ScenarioError", "GameFactory", "run_scenarios", "run_scenario", "scenario_files",
           "load_all", "loading_factory"]


@dataclass
class ScenarioResult:
    """One scenario file's outcome; each failure is a located diagnostic (file:line:col first)."""

    file: str
    name: str
    passed: bool
    failures: list[str]


def scenario_files(paths: list[Path]) -> list[Path]:
    """Files as given; folders expand to their **/*.yaml, sorted, less the rulesets among them.

    A scenario names its game by a file under its folder, so a folder of
    scenarios often holds the ruleset too (the tutorial's nim.yaml beside
    nim-opening.yaml): a file that starts a ruleset (`ruleplay:`) or a
    variant (`extends:`) at its top level is that, not a failed scenario.
    A folder without scenario files, or no paths at all, is a ScenarioError
    (RP640): a mistyped folder must fail a test run, not pass it with
    nothing run.
    """
    if not paths:
        raise ScenarioError(["no scenario files given"])
    out: list[Path] = []
    for path in paths:
        found = sorted(p for p in _yaml_under(path) if not _is_ruleset(p)) if path.is_dir() else [path]
        if not found:
            raise ScenarioError([f"no scenario files (*.yaml) in {path}"])
        out += found
    return out


_RULESET_KEY = re.compile(rb"^(\xef\xbb\xbf)?[\"']?(ruleplay|extends)[\"']?[ \t]*:", re.M)  # after a BOM, quoted too


def _is_ruleset(path: Path) -> bool:
    """Whether the file holds a ruleset or a variant file: a top-level `ruleplay:` or `extends:` key, which no
    scenario has (a file that cannot be read is left to fail as a scenario, saying why)."""
    try:
        return _RULESET_KEY.search(files.read_bytes(path, MAX_FILE_BYTES)) is not None
    except OSError:
        return False


def _yaml_under(folder: Path) -> Iterator[Path]:
    """Every *.yaml under `folder`, like `glob("**/*.yaml")` but with a stack, not recursion.

    A folder nested thousands deep must not end in RecursionError.  Links to
    folders are not followed (as `**` does not follow them), so a link loop
    cannot make the walk endless; a folder that cannot be listed (no
    permission, a path too long for the OS) is a ScenarioError naming it.
    """
    stack = [folder]
    while stack:
        current = stack.pop()
        try:
            with os.scandir(current) as entries:
                children = list(entries)
        except OSError as err:
            raise ScenarioError([f"cannot list the scenario folder {current}: {err.strerror or err}"]) from None
        for entry in children:
            try:
                is_folder = stat.S_ISDIR(entry.stat(follow_symlinks=False).st_mode)
            except OSError:  # gone, or a name too long to stat: not a scenario that can be read anyway
                continue
            if is_folder:
                stack.append(Path(entry.path))
            elif entry.name.endswith(".yaml"):
                yield Path(entry.path)


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
        failure = scenario.problem("RP643", f"cannot load game {scenario.game_text or scenario.game!r}:", ("game",))
        return ScenarioResult(scenario.file, scenario.name, False, [failure + "\n" + _indent(err.format())])
    except RuleplayError as err:
        failure = scenario.problem("RP643", f"cannot load game {scenario.game_text or scenario.game!r}: {err}",
                                   ("game",))
        return ScenarioResult(scenario.file, scenario.name, False, [failure])
    failures = play(scenario, game)
    return ScenarioResult(scenario.file, scenario.name, not failures, failures)


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def load_all(files: list[Path], ruleset: str | None = None) -> list[Scenario | ScenarioResult]:
    """Each file as a Scenario, or as a failed result if it cannot be used; `ruleset` replaces `game:`."""
    out: list[Scenario | ScenarioResult] = []
    for path in files:
        try:
            out.append(load_scenario(path, ruleset))
        except ScenarioError as err:
            out.append(ScenarioResult(str(path), path.stem, False, err.failures))
    return out


def run_scenarios(paths: list[Path], games: GameFactory | None = None, ruleset: str | None = None,
                  players: int | None = None, variant: str | None = None) -> list[ScenarioResult]:
    """Play every scenario file under `paths`; a file that cannot be read is a failed result.

    `ruleset` (a game name or path the caller chose) is played instead of
    each file's `game:`, and `players` and `variant`, when given, instead of
    each file's own, so one set of scenarios can be tried on a variant.
    Raises ScenarioError (RP640) if `paths` hold no scenario file at all.
    """
    games = games or loading_factory()
    overrides = {k: v for k, v in (("players", players), ("variant", variant)) if v is not None}
    return [item if isinstance(item, ScenarioResult) else run_scenario(replace(item, **overrides), games)
            for item in load_all(scenario_files(paths), ruleset)]
