"""Structural check of a ruleset against the published JSON Schema.

Each jsonschema error becomes a located diagnostic whose code names the
schema keyword that failed, so a corpus of broken files can assert exactly
which problem each one triggers.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from ruleplay.dsl.checks import suggest
from ruleplay.dsl.diagnostics import Diagnostic
from ruleplay.dsl.parser import TOO_LONG_HINT, too_long
from ruleplay.dsl.variants import SourceMap, patch_value_problem
from ruleplay.dsl.yamlload import format_path

if TYPE_CHECKING:
    import jsonschema
    from jsonschema.exceptions import ValidationError

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "dsl" / "schema.json"

KEYWORD_CODES = {
    "type": "RP101",
    "required": "RP102",
    "additionalProperties": "RP103",
    "enum": "RP104",
    "const": "RP104",
    "pattern": "RP105",
    "minimum": "RP106",
    "maximum": "RP106",
    "minLength": "RP106",
    "maxLength": "RP106",
    "minItems": "RP106",
    "maxItems": "RP106",
    "minProperties": "RP106",
    "oneOf": "RP107",
    "anyOf": "RP107",
    "propertyNames": "RP108",
}

HINTS = {
    "RP101": "check the value's type (quote text, use a list [..] or a mapping key: value)",
    "RP102": "add the missing key",
    "RP103": "remove the key or fix its spelling",
    "RP104": "use one of the allowed values",
    "RP105": "names are letters, digits, _ and -, starting with a letter or _",
    "RP106": "the value is out of the allowed range or size",
    "RP107": "the value matches none of the allowed forms",
    "RP108": "names are letters, digits, _ and -, starting with a letter or _",
}


@lru_cache(maxsize=1)
def schema() -> dict:
    from importlib import resources

    try:
        text = resources.files("ruleplay.dsl").joinpath("schema.json").read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError):  # running from a source tree
        text = SCHEMA_PATH.read_text(encoding="utf-8")
    return json.loads(text)


def _is_integer(checker: object, instance: object) -> bool:
    """Only whole numbers written as such: JSON Schema lets `2.0` be an integer, and `range(2.0)` fails later."""
    return type(instance) is int


def _pattern(validator: jsonschema.protocols.Validator, pattern: str, instance: object,
             schema: dict) -> Iterator[ValidationError]:
    """`pattern` with `$` meaning the end of the text.

    Python's `re.search` lets `$` match before a final newline, so `"tick\n"`
    would pass as a name; in the ECMA regular expressions JSON Schema means
    (and editors use), `$` is the end.
    """
    from jsonschema.exceptions import ValidationError

    if not isinstance(instance, str):
        return
    found = re.search(pattern, instance)
    if found is None or (pattern.endswith("$") and found.end() != len(instance)):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def validator_class(meta_schema: dict) -> type:
    """The JSON Schema validator class for `meta_schema`'s draft, with whole-number integers and strict `$`.

    jsonschema is imported here, with the first check, not with ruleplay: `import ruleplay` stays quick.
    """
    import jsonschema

    base = jsonschema.validators.validator_for(meta_schema)
    return jsonschema.validators.extend(base, validators={"pattern": _pattern},
                                        type_checker=base.TYPE_CHECKER.redefine("integer", _is_integer))


@lru_cache(maxsize=1)
def _validator() -> jsonschema.protocols.Validator:
    """The validator of rulesets, built with the first check of the process.

    The schema is not checked against its meta-schema here: it is a file of
    this package, not input, and that check took a tenth of a seed game's
    load; tests/validators/test_schema_file.py makes it once per test run.
    """
    return validator_class(schema())(schema())


def _leaf(error: ValidationError) -> ValidationError:
    """For oneOf/anyOf, descend to the sub-error that best explains the failure.

    A branch that failed only because the value has another type explains
    nothing (`players: 0` is not a mapping, so what?); when exactly one branch
    accepts the value's type, that branch's own errors are the explanation.
    """
    from jsonschema.exceptions import best_match

    while error.validator in ("oneOf", "anyOf") and error.context:
        branches: dict[object, list[ValidationError]] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        fitting = [subs for subs in branches.values()
                   if not any(sub.validator == "type" and not sub.relative_path for sub in subs)]
        if len(fitting) != 1:
            break
        error = best_match(fitting[0])
    return error


_TYPE_WORDS = {"object": "mapping", "array": "list", "string": "text"}  # JSON Schema's words, in YAML terms


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    return {dict: "mapping", list: "list", str: "text", int: "integer", float: "number",
            type(None): "null"}.get(type(value), type(value).__name__)


def _message(error: ValidationError) -> str:
    kw = error.validator
    if kw == "additionalProperties":
        extra = [k for k in error.instance if k not in error.schema.get("properties", {})]
        allowed = ", ".join(sorted(error.schema.get("properties", {})))
        return f"unknown key {extra[0]!r}" + (f" (allowed: {allowed})" if allowed else "") if extra else error.message
    if kw == "required":
        return error.message.replace("is a required property", "is required here")
    if kw == "type":
        wanted = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        return (f"expected {' or '.join(_TYPE_WORDS.get(w, w) for w in wanted)}, got {_kind(error.instance)}: "
                f"{json.dumps(error.instance)[:60]}")
    if kw == "maxLength" and isinstance(error.instance, str):  # jsonschema's message quotes the whole text
        return too_long(error.instance, error.validator_value, "the text")
    if kw in ("oneOf", "anyOf"):
        if not error.context:
            return f"{json.dumps(error.instance)[:60]} fits more than one of the allowed forms"
        types = [sub.validator_value for sub in error.context if sub.validator == "type" and not sub.relative_path]
        if len(types) == len(error.context):
            return (f"expected {' or '.join(_TYPE_WORDS.get(t, str(t)) for t in types)}, "
                    f"got {_kind(error.instance)}: {json.dumps(error.instance)[:60]}")
        return f"{json.dumps(error.instance)[:60]} is not any of the allowed forms"
    return error.message


def _is_code(part: dict) -> bool:
    """Whether a schema part is an expression or effects: their length cap is the parser's, RP203 in the docs."""
    return part is schema()["$defs"]["expression"] or part is schema()["$defs"]["effects"]


def _is_patch_value_rule(part: dict) -> bool:
    """Whether a schema part is the patch rule on `value:`: its failures are reported as the patch check's RP401."""
    operation = schema()["$defs"]["patch"]["items"]
    return part is operation["then"] or part is operation["else"]


_NAME_LIKE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
# `{of: range(1, 6)}`: in a `{...}` mapping a comma ends the value, so `6)` is read as a key of its own.
_SPLIT_VALUE_HINT = ("a comma inside `{...}` ends a value: quote a text with commas in it, "
                     "e.g. `{of: \"range(1, 6)\"}`")


def check_schema(data: object, smap: SourceMap) -> Iterator[Diagnostic]:
    """Yield one diagnostic per schema violation, located through the source map."""
    errors = sorted(_validator().iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    for error in errors:
        leaf = _leaf(error)
        path = tuple(leaf.absolute_path)
        code = KEYWORD_CODES.get(leaf.validator, "RP100")
        message, hint = _message(leaf), HINTS.get(code, "")
        key = leaf.validator == "additionalProperties"
        if key:
            extra = [k for k in leaf.instance if k not in leaf.schema.get("properties", {})]
            if extra:
                path = path + (extra[0],)
                hint = (suggest(str(extra[0]), sorted(leaf.schema.get("properties", {})))
                        or (_SPLIT_VALUE_HINT if not _NAME_LIKE.fullmatch(str(extra[0])) else hint))
        if "propertyNames" in leaf.absolute_schema_path:  # the error is about a key, not a value
            code, key, path = "RP108", True, path + (leaf.instance,)
            message, hint = f"{leaf.instance!r} is not a valid name", HINTS["RP108"]
        elif code == "RP106" and leaf.validator == "maxLength" and _is_code(leaf.schema):
            code, message, hint = "RP203", too_long(leaf.instance, leaf.validator_value), TOO_LONG_HINT
        elif code == "RP101" and _is_code(leaf.schema):
            shown, kind = json.dumps(leaf.instance, ensure_ascii=False)[:40], _kind(leaf.instance)
            hint = (f"code is text: YAML read this as {'an' if kind[0] in 'aeiou' else 'a'} {kind}, so quote it "
                    f"as the language writes it, e.g. '{shown}'")
        elif _is_patch_value_rule(leaf.schema) and isinstance(leaf.instance, dict):
            problem = patch_value_problem(leaf.instance)
            if problem is None:
                continue  # an unknown `op:`, reported as such (RP104): no rule on `value:` is known for it
            message, value_key, hint = problem
            code, key, path = "RP401", False, path + (value_key,)
        elif code == "RP107" and not leaf.context:
            hint = "keep the keys of only one form"
        elif code == "RP105" and leaf.schema == schema()["$defs"]["rule_id"]:
            hint = "a rule id looks like TT-2.1: letters and digits, parts joined by - and ."
        file, line, col, source = smap.where(path, key=key)
        yield Diagnostic(code, message, file, line, col, hint=hint, path=format_path(path), source_line=source)
