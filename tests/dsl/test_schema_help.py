"""Every field of the ruleset schema carries the help an editor shows: a description and a valid example.

yaml-language-server (VS Code's YAML extension, and the other editors that
run it) shows a field's `description` on hover and offers its `examples` in
completion, so a field without them is a field an author must look up.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import jsonschema
import pytest

SCHEMA = json.loads((Path(__file__).parents[2] / "dsl" / "schema.json").read_text(encoding="utf-8"))


def fields(node: Any, path: str = "#") -> Iterator[tuple[str, dict]]:
    """Every definition and every property, at any depth (inside oneOf, items, then, ...), with its JSON path."""
    if isinstance(node, dict):
        for key, sub in node.items():
            if key in ("properties", "$defs"):  # a map of fields by name: each is a field, and is walked
                for name, field in sub.items():
                    yield f"{path}/{key}/{name}", field
                    yield from fields(field, f"{path}/{key}/{name}")
            elif key not in ("examples", "if"):  # an `if:` is a condition on the fields, not one of them
                yield from fields(sub, f"{path}/{key}")
    elif isinstance(node, list):
        for k, sub in enumerate(node):
            yield from fields(sub, f"{path}/{k}")


FIELDS = sorted(set((p, json.dumps(s, sort_keys=True)) for p, s in fields(SCHEMA)))


def test_every_field_has_a_description_and_an_example():
    missing = [path for path, text in FIELDS
               if not json.loads(text).get("description") or not json.loads(text).get("examples")]
    assert missing == [], "give these a `description` and `examples` in dsl/schema.json"
    assert len(FIELDS) > 150  # the walk found the nested fields too


@pytest.mark.parametrize("path, text", FIELDS, ids=[p for p, _ in FIELDS])
def test_each_example_is_valid_for_its_field(path, text):
    field = json.loads(text)
    validator = jsonschema.Draft202012Validator({**field, "$defs": SCHEMA["$defs"]})
    for example in field.get("examples", []):
        errors = [e.message for e in validator.iter_errors(example)]
        assert errors == [], f"{path}: example {example!r} is not valid: {errors}"
