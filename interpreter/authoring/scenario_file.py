"""Scenario files: rule behaviour written down as data, read and checked for shape.

A scenario names a game, may arrange a position (`setup:`), then lists steps:
moves to play, moves that must be refused (and by which rule), and checks on
the state.  This module only turns a file into a `Scenario` whose every step
keeps its YAML path, so the player can point each failure at the author's
`file:line:col`.  It knows nothing about any particular game.

A scenario file may come from anyone: its `game:` is a built-in game's
name or a ruleset under the scenario's own folder (`runs.ruleset_ref`),
never a path out of it, unless the user chose the ruleset (`ruleset=`,
`--ruleset PATH`).

Codes: RP640 a scenario set cannot be used (no files, fails unmutated),
RP641 a scenario is malformed (step shape, unknown rule id, bad seat),
RP642 an expectation is not met, RP643 the scenario cannot be played.
Schema violations reuse the ruleset schema's RP10x codes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

import jsonschema
from jsonschema.exceptions import ValidationError, best_match

from ruleplay.dsl.diagnostics import Diagnostic
from ruleplay.dsl.yamlload import MAX_FILE_BYTES, Document, YamlProblem, format_path, load_document
from ruleplay.validators.schema import HINTS, KEYWORD_CODES, validator_class

from .. import files
from ..engine.errors import RuleplayError
from ..engine.rng import MAX_SEED
from ..runs.ruleset_ref import UnsafeRulesetReference, resolve

_TEXT = {"type": "string", "minLength": 1}
_CHECK = {
    "anyOf": [_TEXT, {"type": "object", "required": ["check"], "additionalProperties": False,
                      "properties": {"check": _TEXT, "message": {"type": "string"}}}],
    "description": "a check: an expression, or {check: EXPR, message: TEXT}",
}
_CHECKS = {"anyOf": [_CHECK, {"type": "array", "minItems": 1, "items": _CHECK}],
           "description": "a check (an expression or {check, message}) or a list of them"}
_CODE = {"type": "string", "pattern": "^RP[0-9]{3}$"}
_NUMBERS = {"type": "array", "items": {"type": "number"}}
_MOVES = {"type": "array", "minItems": 1, "items": _TEXT}
_STEP = {
    "type": "object", "minProperties": 1, "additionalProperties": False,
    "properties": {
        "move": _TEXT, "moves": _MOVES, "illegal": _TEXT, "rule": _TEXT, "code": _CODE, "expect": _CHECKS,
        "observe": {"type": "integer", "minimum": 0},
        "fired": {"anyOf": [_TEXT, {"type": "array", "minItems": 1, "items": _TEXT}],
                  "description": "a rule id or a list of rule ids"},
        "terminal": {"type": "boolean"}, "scores": _NUMBERS, "returns": _NUMBERS,
    },
}
SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object", "required": ["game"], "additionalProperties": False,
    "properties": {
        "game": _TEXT, "players": {"type": ["integer", "null"], "minimum": 1},
        "variant": {"type": ["string", "null"]}, "seed": {"type": "integer", "minimum": 0, "maximum": MAX_SEED},
        "name": _TEXT, "description": {"type": "string"}, "setup": {"type": "string"},
        "steps": {"type": "array", "minItems": 1, "items": _STEP},
        "moves": _MOVES, "expect": _CHECKS,
        "illegal": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["move"], "additionalProperties": False,
            "properties": {"move": _TEXT, "rule": _TEXT, "code": _CODE}}},
    },
}

# Keys that say what a step does; `rule`/`code` only qualify `illegal`.
STEP_KINDS = ("move", "moves", "illegal", "expect", "observe", "fired", "terminal", "scores", "returns")
SHORT_FORM = ("moves", "expect", "illegal")


class ScenarioError(RuleplayError):
    """A scenario file that cannot be read, or a scenario set that cannot be used."""

    code = "RP640"

    def __init__(self, failures: list[str], code: str | None = None):
        super().__init__("\n".join(failures), code)
        self.failures = failures


@dataclass(frozen=True)
class Check:
    """An expression that must be true; `viewer` evaluates it against that seat's observation."""

    text: str
    message: str | None
    path: tuple
    viewer: int | None = None
    viewer_path: tuple = ()


@dataclass(frozen=True)
class Step:
    """One thing a scenario does.  `kind` is move, illegal, expect, fired, terminal, scores or returns."""

    kind: str
    path: tuple
    move: str | None = None
    rule: str | None = None
    code: str | None = None
    check: Check | None = None
    value: Any = None


@dataclass
class Scenario:
    file: str
    doc: Document
    name: str
    game: str
    players: int | None
    variant: str | None
    seed: int
    setup: str | None
    steps: list[Step]
    game_text: str = ""  # the game as the author (or --ruleset) wrote it, for messages; `game` is what loads

    def problem(self, code: str, message: str, path: tuple, hint: str = "", key: bool = False) -> str:
        """A failure located at `path` in this file, formatted like every other diagnostic."""
        return located(self.doc, code, message, path, hint, key)


def located(doc: Document, code: str, message: str, path: tuple, hint: str = "", key: bool = False) -> str:
    line, col = doc.where(path, key=key)
    return Diagnostic(code, message, doc.file, line, col, hint=hint, path=format_path(path),
                      source_line=doc.source_line(line)).format()


# ---------------------------------------------------------------- schema
@lru_cache(maxsize=1)
def _validator() -> jsonschema.protocols.Validator:
    """The rulesets' validator class (whole numbers written as such: `players: 2.0` is no count)."""
    cls = validator_class(SCHEMA)
    cls.check_schema(SCHEMA)
    return cls(SCHEMA)


def _leaf(error: ValidationError) -> ValidationError:
    """Descend an anyOf to the branch that fits the value's type, if one does."""
    while error.validator == "anyOf" and error.context:
        fitting = [e for e in error.context if e.validator != "type"]
        if not fitting:
            break
        error = best_match(fitting)
    return error


def _message(error: ValidationError) -> str:
    value = json.dumps(error.instance)[:60]
    if error.validator == "additionalProperties":
        allowed = ", ".join(error.schema.get("properties", {}))
        extra = [k for k in error.instance if k not in error.schema.get("properties", {})]
        return f"unknown key {extra[0]!r} (allowed: {allowed})"
    if error.validator == "anyOf":
        return f"{value} is not {error.schema.get('description', 'any of the allowed forms')}"
    if error.validator == "type":
        return f"expected {error.validator_value}, got {value}"
    if error.validator == "pattern":
        return f"{value} is not an error code like RP605"
    return error.message.replace("is a required property", "is required here")


def schema_problems(doc: Document) -> list[str]:
    """One located message per schema violation, in file order."""
    found = []
    for error in _validator().iter_errors(doc.data):
        leaf = _leaf(error)
        path = tuple(leaf.absolute_path)
        key = leaf.validator == "additionalProperties"
        if key:
            path += tuple(k for k in leaf.instance if k not in leaf.schema.get("properties", {}))[:1]
        code = KEYWORD_CODES.get(leaf.validator, "RP100")
        found.append((doc.where(path, key=key), located(doc, code, _message(leaf), path, HINTS.get(code, ""), key)))
    return [text for _, text in sorted(found)]


# ----------------------------------------------------------------- steps
def _checks(value: Any, path: tuple, viewer: int | None, viewer_path: tuple = ()) -> list[Check]:
    if isinstance(value, list):
        return [c for i, item in enumerate(value) for c in _checks(item, path + (i,), viewer, viewer_path)]
    if isinstance(value, dict):
        return [Check(value["check"], value.get("message"), path + ("check",), viewer, viewer_path)]
    return [Check(value, None, path, viewer, viewer_path)]


def _shape_problems(doc: Document, raw: dict, path: tuple) -> Iterator[str]:
    """What a step's keys say must fit together: one action per step, companions where they belong."""
    kinds = [k for k in raw if k in STEP_KINDS]
    if "observe" in raw:
        if "expect" not in raw:
            yield located(doc, "RP641", "`observe:` needs `expect:` checks to run on that seat's observation",
                          path + ("observe",), key=True)
        for k in kinds:
            if k not in ("observe", "expect"):
                yield located(doc, "RP641", f"`observe:` combines only with `expect:`, not with `{k}:`",
                              path + (k,), hint="put it in a step of its own", key=True)
    elif len(kinds) > 1:
        yield located(doc, "RP641", f"a step does one thing, this one has {', '.join(kinds)}",
                      path + (kinds[1],), hint="split it into one step per key", key=True)
    elif not kinds:
        yield located(doc, "RP641", f"a step needs one of: {', '.join(STEP_KINDS)}", path)
    for companion in ("rule", "code"):
        if companion in raw and "illegal" not in raw:
            yield located(doc, "RP641", f"`{companion}:` only qualifies an `illegal:` step", path + (companion,),
                          key=True)
    if "illegal" in raw and "rule" not in raw and "code" not in raw:
        yield located(doc, "RP641", "an `illegal:` step must name the refusing `rule:` or error `code:`",
                      path + ("illegal",), key=True,
                      hint="a refusal for any reason would let a mistyped move pass as a refusal")


def _step(raw: dict, path: tuple) -> list[Step]:
    if "observe" in raw:
        return [Step("expect", c.path, check=c)
                for c in _checks(raw["expect"], path + ("expect",), raw["observe"], path + ("observe",))]
    if "moves" in raw:
        return [Step("move", path + ("moves", i), move=m) for i, m in enumerate(raw["moves"])]
    if "expect" in raw:
        return [Step("expect", c.path, check=c) for c in _checks(raw["expect"], path + ("expect",), None)]
    if "illegal" in raw:
        return [Step("illegal", path + ("illegal",), move=raw["illegal"], rule=raw.get("rule"),
                     code=raw.get("code"))]
    if "move" in raw:
        return [Step("move", path + ("move",), move=raw["move"])]
    kind = next(k for k in raw if k in STEP_KINDS)
    value = raw[kind]
    if kind == "fired" and isinstance(value, str):
        value = [value]
    return [Step(kind, path + (kind,), value=value)]


def _steps(doc: Document) -> tuple[list[Step], list[str]]:
    data = doc.data
    short = [k for k in SHORT_FORM if k in data]
    if "steps" in data and short:
        return [], [located(doc, "RP641", f"`{short[0]}:` at the top level is the short form; it cannot be "
                            "mixed with `steps:`", (short[0],), hint="move it into `steps:`", key=True)]
    if "steps" not in data and not short:
        return [], [located(doc, "RP641", "the scenario has nothing to do", (),
                            hint="add `steps:` (or the short form `moves:`, `expect:`, `illegal:`)")]
    if "steps" in data:
        problems = [p for i, raw in enumerate(data["steps"]) for p in _shape_problems(doc, raw, ("steps", i))]
        return ([] if problems else [s for i, raw in enumerate(data["steps"]) for s in _step(raw, ("steps", i))],
                problems)
    out: list[Step] = []
    if "moves" in data:
        out += _step({"moves": data["moves"]}, ())
    if "expect" in data:
        out += _step({"expect": data["expect"]}, ())
    for i, item in enumerate(data.get("illegal") or []):
        if "rule" not in item and "code" not in item:
            return [], [located(doc, "RP641", "an `illegal:` entry must name the refusing `rule:` or error "
                                "`code:`", ("illegal", i), hint="a refusal for any reason would let a "
                                "mistyped move pass as a refusal")]
        out.append(Step("illegal", ("illegal", i, "move"), move=item["move"], rule=item.get("rule"),
                        code=item.get("code")))
    return out, []


# --------------------------------------------------------------- loading
def load_scenario(path: Path, ruleset: str | None = None) -> Scenario:
    """Read and check one scenario file; raises ScenarioError with located messages.

    `ruleset`, a game name or path the user chose, is played instead of the
    file's `game:` (which must then still be there, as the schema says).
    """
    file = str(path)
    try:
        raw = files.read_bytes(path, MAX_FILE_BYTES)  # the size limit of rulesets
    except OSError as err:
        raise ScenarioError([f"{file}: error RP641: cannot read the scenario: {err.strerror or err}"], "RP641")
    try:
        doc = load_document(raw, file)
    except YamlProblem as err:
        raise ScenarioError([err.diagnostic.format()], "RP641") from None
    if not isinstance(doc.data, dict):
        raise ScenarioError([located(doc, "RP641", "a scenario is a mapping with `game:` and `steps:`", ())],
                            "RP641")
    problems = schema_problems(doc)
    if problems:
        raise ScenarioError(problems, "RP641")
    steps, problems = _steps(doc)
    if problems:
        raise ScenarioError(problems, "RP641")
    data = doc.data
    text = data["game"] if ruleset is None else str(ruleset)
    if ruleset is None:
        try:
            ruleset = resolve(data["game"], path, "game")
        except UnsafeRulesetReference as err:
            raise ScenarioError([located(doc, "RP641", f"the scenario's {err}", ("game",))], "RP641") from None
    return Scenario(file=file, doc=doc, name=data.get("name", path.stem),
                    game=str(ruleset), players=data.get("players"),
                    variant=data.get("variant"), seed=data.get("seed", 0), setup=data.get("setup"), steps=steps,
                    game_text=text)


_GAME_LINE = re.compile(r"""^game:[ \t]*["']?([^"'#\s]+)""", re.M)


def declared_game(path: Path) -> str | None:
    """The ruleset a scenario file names, resolved as `load_scenario` resolves it, even when the file is
    broken (then its `game:` line, if it has one); None if it names none that may be read.

    A command that writes a report must not let it replace a scenario's
    ruleset, and a scenario that fails before its game loads would otherwise
    never say which ruleset that is.
    """
    try:
        raw = files.read_bytes(path, MAX_FILE_BYTES)
    except OSError:
        return None
    try:
        data = load_document(raw, str(path)).data
        named = data.get("game") if isinstance(data, dict) else None
    except YamlProblem:
        found = _GAME_LINE.search(raw.decode("utf-8", "replace"))
        named = found.group(1) if found else None
    if not isinstance(named, str):
        return None
    try:
        return str(resolve(named, path, "game"))
    except UnsafeRulesetReference:
        return None
