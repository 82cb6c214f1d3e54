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


@pytest.mark.parametrize("value, kind, example", [("[2, 2, 0]", "a list", "'[2, 2, 0]'"),
                                                  ("5", "an integer", "'5'"), ("true", "a boolean", "'true'")])
def test_code_that_yaml_read_as_data_gets_a_hint_to_quote_it(make_game, value, kind, example):
    """`init: [2, 2, 0]` is a list to YAML: the generic hint ("use a list [..]") told the author to do what they had."""
    from ruleplay import RulesetError

    with pytest.raises(RulesetError) as err:
        make_game(f'ruleplay: 1\ngame: q\nplayers: 2\nstate: {{n: {{init: {value}}}}}\n'
                  f'flow: {{phases: [{{name: p, actions: [inc]}}]}}\nactions: {{inc: {{effects: n = 1}}}}\n'
                  f'end: [{{when: "n == 1"}}]\n')
    first = err.value.diagnostics[0]
    assert first.code == "RP101" and first.hint == (f"code is text: YAML read this as {kind}, so quote it as the "
                                                     f"language writes it, e.g. {example}")
