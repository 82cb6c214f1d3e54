"""The text `dsl.unparse` writes for a tree parses back to the same tree, with the brackets it needs only."""

from __future__ import annotations

import pytest
from hypothesis import given

from ruleplay.dsl.parser import parse_expr
from ruleplay.dsl.unparse import unparse

from test_reference_agrees import ANY_TYPE, TYPED


@pytest.mark.parametrize(("text", "written"), [
    ('a == 3 and "x" in legal', 'a == 3 and "x" in legal'),
    ("(a or b) and not (c and d)", "(a or b) and not (c and d)"),
    ("a or (b and c)", "a or b and c"),
    ("(1 - 2) - (3 - 4) * -x", "1 - 2 - (3 - 4) * -x"),
    ("(not a) == b", "(not a) == b"),
    ('"say \\"hi\\"\\n\\t\\u0007"', '"say \\"hi\\"\\n\\t\\u0007"'),
    ("[let y = x * 2; y + 1 for x in xs if x for z in ys]", "[let y = x * 2; y + 1 for x in xs if x for z in ys]"),
    ("index_where(v > 1 for v in (if a then xs else ys))", "index_where(v > 1 for v in (if a then xs else ys))"),
    ("(let a = 1; a) + (if c then 1 else 2)", "(let a = 1; a) + (if c then 1 else 2)"),
    ("xs[1:][:n].k[0]", "xs[1:][:n].k[0]"),
    ("[0.5, -1.25, 0.0000001, null, true]", "[0.5, -1.25, 0.0000001, null, true]"),
])
def test_written_text(text, written):
    assert unparse(parse_expr(text)) == written
    assert parse_expr(written) == parse_expr(text)


@given(ANY_TYPE)
def test_any_expression_reads_back_as_itself(text):
    node = parse_expr(text)
    assert parse_expr(unparse(node)) == node


@given(TYPED)
def test_typed_expressions_read_back_as_themselves(text):
    node = parse_expr(text)
    assert parse_expr(unparse(node)) == node
