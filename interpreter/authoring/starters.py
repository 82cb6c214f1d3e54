"""Built-in games as starting points: their scenario sets, and an editable copy of one (`ruleplay new`).

Each built-in game ships its scenarios in the installed package
(`ruleplay.scenarios`, a folder per game, a variant's in a folder inside
it), so `scenario --mutate GAME` and a copy find them wherever ruleplay is
installed.

A copy is the built-in's own text with only its links rewritten, so it
loads, validates and passes its scenarios where it is written:

* the ruleset, `GAME.yaml`, with `spec:` naming the copied spec beside it,
  the editor modeline naming the schema written beside it, and
  `copied_from: GAME` after its `game:` line (what lets `compare GAME
  --variant FILE` take the copy, edited, as a variant of GAME);
* the spec, under its own file name;
* `ruleset.schema.json`, the schema `ruleplay schema` prints;
* every scenario, in the same folder (a scenario's `game:` may only name a
  file under the scenario's own folder), naming `GAME.yaml`; a variant's
  scenarios are named after their folder (`no-sharks-open-water.yaml`).

Nothing here writes: `copy_files` says what to write, and the command line
writes it, refusing to replace a file unasked.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

from ruleplay.validators.citations import spec_path
from ruleplay.validators.schema import schema

from ..engine.game import load_game
from ..engine.loader import builtin_games

SCHEMA_FILE = "ruleset.schema.json"
_MODELINE = re.compile(r"^# yaml-language-server: \$schema=\S*[ \t]*$", re.M)


def scenarios_dir() -> Path:
    """The built-in games' scenarios: a folder per game."""
    return Path(str(resources.files("ruleplay.scenarios")))


def builtin_scenarios(game: str) -> Path | None:
    """The folder of the built-in game `game`'s scenarios, or None if it is not a built-in with scenarios."""
    if game not in builtin_games():
        return None
    folder = scenarios_dir() / game
    return folder if folder.is_dir() else None


class CopyError(ValueError):
    """A built-in game whose text cannot be copied as described (a ruleplay bug, or an unknown game)."""


def _one(pattern: str, text: str, new: str, what: str) -> str:
    """`text` with the one line `pattern` matches (at the top level) replaced by `new`."""
    found = list(re.finditer(pattern, text, re.M))
    if len(found) != 1:
        raise CopyError(f"{what}: expected one line matching {pattern!r}, found {len(found)}")
    match = found[0]
    return text[:match.start()] + new + text[match.end():]


def copy_files(game: str, folder: Path) -> dict[Path, str]:
    """The files of an editable copy of the built-in game `game` in `folder`, in the order to write them,
    with their texts (see the module docstring); CopyError for a name that is no built-in game."""
    rulesets = builtin_games()
    if game not in rulesets:
        raise CopyError(f"no built-in game {game!r} (built-in games: {', '.join(rulesets)})")
    source = rulesets[game]
    text = source.read_text(encoding="utf-8")
    files: dict[Path, str] = {}
    modeline = f"# yaml-language-server: $schema={SCHEMA_FILE}"
    text = _MODELINE.sub(modeline, text, count=1) if _MODELINE.search(text) else f"{modeline}\n{text}"
    name_line = re.search(r"^game:[^\n]*$", text, re.M)
    if name_line is None:
        raise CopyError(f"{source}: no top-level `game:` line")
    text = text[:name_line.end()] + f"\ncopied_from: {game}" + text[name_line.end():]
    spec, _ = spec_path(load_game(game).model)
    if spec is not None:
        text = _one(r"^spec:[^\n]*$", text, f"spec: {spec.name}", str(source))
    ruleset = folder / f"{game}.yaml"
    files[ruleset] = text
    if spec is not None:
        files[folder / spec.name] = spec.read_text(encoding="utf-8")
    files[folder / SCHEMA_FILE] = json.dumps(schema(), indent=2, ensure_ascii=False) + "\n"
    scenarios = builtin_scenarios(game)
    for path in sorted(scenarios.rglob("*.yaml")) if scenarios is not None else []:
        target = folder / "-".join(path.relative_to(scenarios).parts)
        if target in files:
            raise CopyError(f"{path}: its copy {target.name} would replace another file of the copy")
        files[target] = _one(rf"^game:[ \t]*{re.escape(game)}[ \t]*$", path.read_text(encoding="utf-8"),
                             f"game: {ruleset.name}", str(path))
    return files
