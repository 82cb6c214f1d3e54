"""The parser-free reader of plain move texts must read each text exactly as the parser does, or leave it."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ruleplay.dsl import ast as A
from ruleplay.dsl.keywords import KEYWORDS
from ruleplay.dsl.parser import DslSyntaxError, parse_expr
from ruleplay.engine.errors import MoveParseError
from ruleplay.engine.moves import Move, _literal, _plain_move, format_value, parse_move

WORDS = sorted(KEYWORDS)
NAMES = st.one_of(st.sampled_from(WORDS), st.sampled_from(WORDS).map(lambda w: w + "x"),
                  st.sampled_from(WORDS).map(lambda w: "x" + w), st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True))
SCALARS = st.one_of(st.integers(-5, 10 ** 6), st.integers(10 ** 299, 10 ** 301), st.text(max_size=6),
                    st.sampled_from(["", "a b", "(", "]", '"', "\\", "{x}", "é", "\n", "\u2028", "#", "'"]),
                    st.none(), st.booleans(), st.floats(allow_nan=False, allow_infinity=False))
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=3), st.lists(st.lists(SCALARS, max_size=2), max_size=2))
SPACE = st.sampled_from(["", " ", "  ", "\t"])


def _by_the_parser(text: str) -> Move | str:
    """What `parse_move` made of `text` before the plain reader: a Move, or the text of its error."""
    try:
        node = parse_expr(text.strip())
    except DslSyntaxError as err:
        return f"cannot read move {text!r}: {err.message} at column {err.pos.col}"
    try:
        if isinstance(node, A.Name):
            return Move(node.name)
        if isinstance(node, A.Call):
            return Move(node.func, tuple(_literal(a, text) for a in node.args))
    except MoveParseError as err:
        return str(err)
    return "not a move"


def _agree(text: str) -> None:
    plain = _plain_move(text.strip())
    if plain is not None:
        expected = _by_the_parser(text)
        assert isinstance(expected, Move), (text, expected)
        assert (plain.action, plain.args) == (expected.action, expected.args), text
        assert [type(a) for a in plain.args] == [type(a) for a in expected.args], text


@settings(max_examples=400, deadline=None)
@given(NAMES, st.none() | st.lists(VALUES, min_size=1, max_size=3), SPACE, SPACE)
@example("m", [[3, 0]], "", "")
@example("move", [0], "", "")
@example("true", [1], "", "")
@example("m", ["x" * 70], "", "")
def test_plain_texts_read_as_the_parser_reads_them(action, args, before, after):
    text = action if args is None else f"{action}({', '.join(format_value(v) for v in args)})"
    _agree(before + text + after)


@pytest.mark.parametrize("text", ["m([3, 0])", 'm("hab-s1")', "launch(0)", "pass_turn", 'x(1, [2, 3], "a b", [])',
                                  'm([""])', "m(0, 0)"])
def test_the_common_texts_are_read_without_the_parser(text):
    assert _plain_move(text) is not None
    _agree(text)


@pytest.mark.parametrize("text", ["move(0)", "true", "m(01)", "m(-1)", "m(1.5)", 'm("a\\"b")', 'm("[")',
                                  "m([1, [2]])", "m(x)", "m([1,2])", "m( 1)", "m(" + "9" * 301 + ")"])
def test_anything_else_is_left_to_the_parser(text):
    assert _plain_move(text) is None


def test_parse_move_gives_the_same_moves_and_errors():
    assert parse_move("m([3, 0])") == _by_the_parser("m([3, 0])")
    with pytest.raises(MoveParseError, match="starts with a zero"):
        parse_move("m(01)")
