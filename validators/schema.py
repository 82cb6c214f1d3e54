"""Structural check of a ruleset against the published JSON Schema.

Each jsonschema error becomes a located diagnostic whose code names the
schema keyword that failed, so a corpus of broken files can assert exactly
which problem each one triggers.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Iterator

import jsonschema
from jsonschema.exceptions import ValidationError, best_match

from ruleplay.dsl.diagnostics import Diagnostic
from ruleplay.dsl.variants import SourceMap
from ruleplay.dsl.yamlload import format_path

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


@lru_cache(maxsize=1)
def _validator() -> jsonschema.protocols.Validator:
    cls = jsonschema.validators.validator_for(schema())
    cls.check_schema(schema())
    return cls(schema())


def _leaf(error: ValidationError) -> ValidationError:
    """For oneOf/anyOf, descend to the sub-error that best explains the failure."""
    while error.validator in ("oneOf", "anyOf") and error.context:
        deeper = [e for e in error.context if e.validator not in ("oneOf", "anyOf") or e.context]
        # Prefer errors about keys that exist over "wrong type" on the whole value.
        candidate = best_match(deeper or error.context)
        if candidate is None or candidate.validator == "type" and len(error.context) > 1:
            break
        error = candidate
    return error


def _message(error: ValidationError) -> str:
    kw = error.validator
    if kw == "additionalProperties":
        extra = [k for k in error.instance if k not in error.schema.get("properties", {})]
        allowed = ", ".join(sorted(error.schema.get("properties", {})))
        return f"unknown key {extra[0]!r}" + (f" (allowed: {allowed})" if allowed else "") if extra else error.message
    if kw == "required":
        return error.message.replace("is a required property", "is required here")
    if kw == "type":
        return f"expected {error.validator_value}, got {type(error.instance).__name__.replace('NoneType', 'null').replace('dict', 'mapping').replace('str', 'string').replace('list', 'list')}: {json.dumps(error.instance)[:60]}"
    if kw in ("oneOf", "anyOf"):
        return f"{json.dumps(error.instance)[:60]} is not any of the allowed forms"
    return error.message


def check_schema(data: object, smap: SourceMap) -> Iterator[Diagnostic]:
    """Yield one diagnostic per schema violation, located through the source map."""
    errors = sorted(_validator().iter_errors(data), key=lambda e: list(map(str, e.absolute_path)))
    for error in errors:
        leaf = _leaf(error)
        path = tuple(leaf.absolute_path)
        key = leaf.validator == "additionalProperties"
        if key:
            extra = [k for k in leaf.instance if k not in leaf.schema.get("properties", {})]
            if extra:
                path = path + (extra[0],)
        file, line, col, source = smap.where(path, key=key)
        code = KEYWORD_CODES.get(leaf.validator, "RP100")
        yield Diagnostic(code, _message(leaf), file, line, col, hint=HINTS.get(code, ""),
                         path=format_path(path), source_line=source)
