"""The shipped ruleset schema is a valid JSON Schema of the draft it names (checked here, not at every load)."""

from __future__ import annotations

import jsonschema
import pytest

from ruleplay.validators.schema import schema, validator_class


def test_the_schema_is_valid_under_its_meta_schema():
    validator_class(schema()).check_schema(schema())


def test_the_check_would_catch_a_broken_schema():
    broken = dict(schema(), properties={"game": {"type": "no-such-type"}})
    with pytest.raises(jsonschema.exceptions.SchemaError):
        validator_class(broken).check_schema(broken)
