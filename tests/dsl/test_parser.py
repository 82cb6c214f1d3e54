"""The DSL parser: every grammar construct, positions in the ruleset file, syntax errors."""

from __future__ import annotations

import pytest

from ruleplay.dsl import ast as A
from ruleplay.dsl.parser import MAX_NESTING, MAX_TEXT, DslSyntaxError, Origin, parse_effects, parse_expr

L = A.Literal
N = A.Name
P = A.NOWHERE  # positions are not compared (`compare=False`)


def lit(v):
    return L(P, v)


def name(n):
    return N(P, n)


# ---------------------------------------------------------------- expressions
@pytest.mark.parametrize("text, tree", [
    ("42", lit(42)),
    ("4.25", lit(4.25)),
    ('"text"', lit("text")),
    ("'single'", lit("single")),
    (r'"tab\there \"q\" \u00e9"', lit('tab\there "q" é')),
    (r"'it\'s'", lit("it's")),
    ("true", lit(True)),
    ("false", lit(False)),
    ("null", lit(None)),
    ("score", name("score")),
    ("_x1", name("_x1")),
    ("-3", lit(-3)),
    ("-2.5", lit(-2.5)),
    ("- x", A.Unary(P, "-", name("x"))),
    ("--x", A.Unary(P, "-", A.Unary(P, "-", name("x")))),
    ("not x", A.Unary(P, "not", name("x"))),
    ("not a in b", A.Unary(P, "not", A.Binary(P, "in", name("a"), name("b")))),
    ("a not in b", A.Binary(P, "not in", name("a"), name("b"))),
    ("f()", A.Call(P, "f", ())),
    ("f(1, x)", A.Call(P, "f", (lit(1), name("x")))),
    ("[]", A.ListLit(P, ())),
    ("[1, 2,]", A.ListLit(P, (lit(1), lit(2)))),
    ("[[1], []]", A.ListLit(P, (A.ListLit(P, (lit(1),)), A.ListLit(P, ())))),
    ("[x for x in xs]", A.Comprehension(P, name("x"), ("x",), name("xs"), None)),
    ("[a for a, b in pairs if b]", A.Comprehension(P, name("a"), ("a", "b"), name("pairs"), name("b"))),
    ("any(x for x in xs)", A.Call(P, "any", (A.Comprehension(P, name("x"), ("x",), name("xs"), None),))),
    ("x.y", A.Attr(P, name("x"), "y")),
    ("x[0]", A.Index(P, name("x"), lit(0))),
    ("x.y[0].z", A.Attr(P, A.Index(P, A.Attr(P, name("x"), "y"), lit(0)), "z")),
    ("x[1:2]", A.Slice(P, name("x"), lit(1), lit(2))),
    ("x[1:]", A.Slice(P, name("x"), lit(1), None)),
    ("x[:2]", A.Slice(P, name("x"), None, lit(2))),
    ("x[:]", A.Slice(P, name("x"), None, None)),
    ("f(x)[0]", A.Index(P, A.Call(P, "f", (name("x"),)), lit(0))),
    ("(1)", lit(1)),
    ("if a then b else c", A.Cond(P, name("a"), name("b"), name("c"))),
    ("if a then 1 else if b then 2 else 3",
     A.Cond(P, name("a"), lit(1), A.Cond(P, name("b"), lit(2), lit(3)))),
])
def test_expression_forms(text, tree):
    assert parse_expr(text) == tree


@pytest.mark.parametrize("op", ["==", "!=", "<", "<=", ">", ">=", "in"])
def test_every_comparison_operator(op):
    assert parse_expr(f"a {op} b") == A.Binary(P, op, name("a"), name("b"))


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "//", "%"])
def test_every_arithmetic_operator(op):
    assert parse_expr(f"a {op} b") == A.Binary(P, op, name("a"), name("b"))


def test_precedence_and_associativity():
    # * binds tighter than +, both associate to the left; comparison is looser than arithmetic
    assert parse_expr("1 + 2 * 3 - 4") == A.Binary(
        P, "-", A.Binary(P, "+", lit(1), A.Binary(P, "*", lit(2), lit(3))), lit(4))
    assert parse_expr("a - b - c") == A.Binary(P, "-", A.Binary(P, "-", name("a"), name("b")), name("c"))
    assert parse_expr("a + 1 < b * 2") == A.Binary(
        P, "<", A.Binary(P, "+", name("a"), lit(1)), A.Binary(P, "*", name("b"), lit(2)))
    assert parse_expr("-a * b") == A.Binary(P, "*", A.Unary(P, "-", name("a")), name("b"))
    assert parse_expr("(1 + 2) * 3") == A.Binary(P, "*", A.Binary(P, "+", lit(1), lit(2)), lit(3))


def test_boolean_operators_flatten_and_nest_by_precedence():
    assert parse_expr("a or b or c and d and e") == A.BoolOp(P, "or", (
        name("a"), name("b"), A.BoolOp(P, "and", (name("c"), name("d"), name("e")))))
    assert parse_expr("not a and b") == A.BoolOp(P, "and", (A.Unary(P, "not", name("a")), name("b")))


def test_comparisons_do_not_chain():
    with pytest.raises(DslSyntaxError) as err:
        parse_expr("1 < 2 < 3")
    assert (err.value.pos.line, err.value.pos.col) == (1, 7)


# -------------------------------------------------------------------- effects
def stmts(text):
    return parse_effects(text).stmts


def target(n, *steps):
    return A.Target(P, n, steps)


@pytest.mark.parametrize("text, stmt", [
    ("x = 1", A.Assign(P, target("x"), "=", lit(1))),
    ("b[i].f = 1", A.Assign(P, target("b", name("i"), "f"), "=", lit(1))),
    ("x += 2", A.Assign(P, target("x"), "+=", lit(2))),
    ("x -= 2", A.Assign(P, target("x"), "-=", lit(2))),
    ("x *= 2", A.Assign(P, target("x"), "*=", lit(2))),
    ("let y = [1]", A.Let(P, "y", A.ListLit(P, (lit(1),)))),
    ("repeat 3 { pass }", A.Repeat(P, lit(3), A.Block(P, (A.Control(P, "pass"),)))),
    ("for c in cs { log c }", A.For(P, ("c",), name("cs"), A.Block(P, (A.Log(P, name("c")),)))),
    ("for i, c in enumerate(cs) { }", A.For(P, ("i", "c"), A.Call(P, "enumerate", (name("cs"),)), A.Block(P, ()))),
    ("append 1 to xs", A.ListOp(P, "append", lit(1), None, target("xs"))),
    ("prepend 1 to xs[0]", A.ListOp(P, "prepend", lit(1), None, target("xs", lit(0)))),
    ("remove c from hand", A.ListOp(P, "remove", name("c"), target("hand"), None)),
    ("move c from hand to pile", A.ListOp(P, "move", name("c"), target("hand"), target("pile"))),
    ("draw 2 from deck to hand[p]", A.ListOp(P, "draw", lit(2), target("deck"), target("hand", name("p")))),
    ("shuffle deck", A.ListOp(P, "shuffle", None, target("deck"), None)),
    ("end_turn", A.Control(P, "end_turn")),
    ("end_phase", A.Control(P, "end_phase")),
    ("end_game", A.Control(P, "end_game")),
    ("stage bid", A.Control(P, "stage", "bid")),
    ("goto scoring", A.Control(P, "goto", "scoring")),
    ("pass", A.Control(P, "pass")),
    ("call tidy()", A.CallProc(P, "tidy", ())),
    ("call give(1, p)", A.CallProc(P, "give", (lit(1), name("p")))),
    ("log \"hi\"", A.Log(P, lit("hi"))),
    ("fail \"impossible\"", A.Fail(P, lit("impossible"))),
    ("@TT-3.1 x = 1", A.Cited(P, "TT-3.1", A.Assign(P, target("x"), "=", lit(1)))),
    ("@A-1 { pass }", A.Cited(P, "A-1", A.Block(P, (A.Control(P, "pass"),)))),
    ("@A-1 @B-2 pass", A.Cited(P, "A-1", A.Cited(P, "B-2", A.Control(P, "pass")))),
])
def test_statement_forms(text, stmt):
    assert stmts(text) == (stmt,)


def test_if_elif_else():
    (node,) = stmts("if a { x = 1 } elif b { x = 2 } elif c { } else { x = 3 }")
    assert isinstance(node, A.If)
    assert [t for t, _ in node.branches] == [name("a"), name("b"), name("c")]
    assert node.branches[2][1] == A.Block(P, ())
    assert node.orelse == A.Block(P, (A.Assign(P, target("x"), "=", lit(3)),))
    (plain,) = stmts("if a { pass }")
    assert plain.orelse is None and len(plain.branches) == 1


def test_statements_need_no_separator_and_ignore_comments_and_semicolons():
    text = """
        # a comment line
        x = 1 y = 2   # two statements on one line
        ;;
        z = [1,
             2]
    """
    assert [s.target.name for s in stmts(text)] == ["x", "y", "z"]


def test_empty_effect_block_is_allowed_but_empty_expression_is_not():
    assert stmts("") == ()
    assert stmts("  # only a comment\n") == ()
    with pytest.raises(DslSyntaxError) as err:
        parse_expr("   ")
    assert err.value.message == "empty expression"


def test_walk_visits_every_node():
    block = parse_effects("for c in cs { if c > 1 { append c to out } }")
    kinds = [type(n).__name__ for n in A.walk(block)]
    assert kinds == ["Block", "For", "Name", "Block", "If", "Binary", "Name", "Literal", "Block", "ListOp",
                     "Name", "Target"]


# ------------------------------------------------------------------ positions
def test_positions_on_the_first_line_are_shifted_by_the_scalar_column():
    origin = Origin("game.yaml", line=12, col=9, indent=4)
    node = parse_expr("a + f(b)", origin)
    assert node.pos == A.Pos("game.yaml", 12, 9)
    assert node.right.pos == A.Pos("game.yaml", 12, 13)
    assert node.right.args[0].pos == A.Pos("game.yaml", 12, 15)


def test_positions_on_later_lines_start_at_the_block_indent():
    origin = Origin("game.yaml", line=20, col=7, indent=6)
    block = parse_effects("x = 1\nif y {\n  z = q\n}", origin)
    assign, cond = block.stmts
    assert assign.pos == A.Pos("game.yaml", 20, 7)
    assert cond.pos == A.Pos("game.yaml", 21, 7)
    inner = cond.branches[0][1].stmts[0]
    assert inner.pos == A.Pos("game.yaml", 22, 9)
    assert inner.value.pos == A.Pos("game.yaml", 22, 13)
    assert str(inner.value.pos) == "game.yaml:22:13"


def test_citations_are_located_at_their_own_reference():
    (outer,) = parse_effects("@A-1 @B-2 pass", Origin("f.yaml", 3, 5, 4)).stmts
    assert outer.pos == A.Pos("f.yaml", 3, 5)
    assert outer.body.pos == A.Pos("f.yaml", 3, 10)


# --------------------------------------------------------------- syntax errors
def error(text, effects=False, origin=Origin("rules.yaml", 5, 11, 6)):
    with pytest.raises(DslSyntaxError) as err:
        (parse_effects if effects else parse_expr)(text, origin)
    return err.value


def test_unexpected_token_is_located_and_lists_what_was_expected():
    err = error("1 + * 2")
    assert err.code == "RP200"
    assert err.message == "unexpected '*'"
    assert (err.pos.file, err.pos.line, err.pos.col) == ("rules.yaml", 5, 15)
    assert err.hint.startswith("expected ")
    assert "a number" in err.hint and "a name" in err.hint


def test_unexpected_end_of_text_points_after_the_last_character():
    err = error("x = 1\ny = ", effects=True)
    assert err.message == "unexpected end of text"
    assert (err.pos.line, err.pos.col) == (6, 11)  # second line starts at column indent + 1 = 7


def test_unexpected_character():
    err = error("a $ b")
    assert err.message == "unexpected character '$'"
    assert (err.pos.line, err.pos.col) == (5, 13)
    assert "names, numbers" in err.hint


def test_invalid_string_escape():
    err = error(r'"bad \q escape"')
    assert err.message == "invalid escape in string"


def test_reserved_word_where_the_grammar_expects_something_else_gets_a_hint():
    err = error("if a then { pass }", effects=True)
    assert err.message == "unexpected 'then'"
    assert err.hint == "expected '{'; `then` is a reserved word"
    err = error("f(x) else 2")
    assert "`else` is a reserved word" in err.hint


def test_keywords_are_reserved_only_where_the_grammar_uses_them():
    # The lexer is contextual: a keyword that cannot start anything valid here is read
    # as a plain name, so rulesets may call a parameter `to` or `from`.
    assert parse_expr("to not in knight") == A.Binary(P, "not in", name("to"), name("knight"))
    assert stmts("x = to") == (A.Assign(P, target("x"), "=", name("to")),)
    assert parse_expr("repeat(null, 3)") == A.Call(P, "repeat", (lit(None), lit(3)))


def test_nesting_limit():
    deep = "(" * MAX_NESTING + "1" + ")" * MAX_NESTING
    assert parse_expr(deep) == lit(1)
    err = error("(" * (MAX_NESTING + 1) + "1" + ")" * (MAX_NESTING + 1))
    assert err.code == "RP203"
    assert err.message == f"brackets nested more than {MAX_NESTING} deep"
    assert (err.pos.line, err.pos.col) == (5, 11 + MAX_NESTING)
    assert "let" in err.hint
    err = error("[" * 40 + "\n" + "f(" * 21, effects=True)
    assert err.code == "RP203" and err.pos.line == 6


def test_text_size_limit():
    text = "1 + " * (MAX_TEXT // 4) + "1"
    err = error(text)
    assert err.code == "RP203"
    assert err.message == f"the code is {len(text)} characters long, over the limit of {MAX_TEXT}: '{text[:40]}'…"
    assert "function" in err.hint and "procedure" in err.hint


@pytest.mark.parametrize("text", ["1" * 310, "9" * 309, str(2 ** 1024), "1" * 400 + ".0"])
def test_numbers_too_large_are_refused(text):
    err = error(text)
    assert err.code == "RP203" and err.message.startswith(f"the number {text[:20]}… is too large: whole numbers "
                                                          "hold at most 1024 bits (309 digits)")


def test_a_literal_as_large_as_a_value_may_be_is_a_number():
    assert parse_expr(str(2 ** 1024 - 1)).value == 2 ** 1024 - 1


@pytest.mark.parametrize("text", ["f(", "[1, 2", "x[", "if a then b", "a.", "[x for x in]", "not"])
def test_incomplete_expressions_are_syntax_errors(text):
    err = error(text)
    assert err.code == "RP200" and err.pos.file == "rules.yaml"


@pytest.mark.parametrize("text", ["x =", "for x in xs", "if a { ", "move c from", "append 1", "stage",
                                  "call f(", "let = 2", "for = 1", "1 = x", "@R-1"])
def test_incomplete_statements_are_syntax_errors(text):
    err = error(text, effects=True)
    assert err.code == "RP200" and err.pos.line >= 5


# ---------------------------------------------------------------- escapes, digits, line breaks
@pytest.mark.parametrize("text, value", [
    (r'"it\'s"', "it's"), (r"'it\'s'", "it's"),  # one escape set, the same in both quotes
    (r"'\"'", '"'), (r'"\""', '"'), (r"'\\\"'", '\\"'), (r'"\\\'"', "\\'"),
    (r"'\\'", "\\"), (r'"a\\nb"', "a\\nb"), (r'"a\nb\tc"', "a\nb\tc"),
    (r'"\u00e9\u20AC"', "é€"), (r"'\uD7FF\uE000'", "\ud7ff\ue000"),
    ('"é😀"', "é😀"),  # any character written as itself
])
def test_string_escapes(text, value):
    assert parse_expr(text) == lit(value)


@pytest.mark.parametrize("text, col, message", [
    (r'"a\qb"', 2, "invalid escape in string"),
    (r'"\r"', 1, "invalid escape in string"),
    (r'"\/"', 1, "invalid escape in string"),
    (r'"\u12"', 1, "invalid escape in string"),
    (r'"ok" + "\ud800"', 8, "\\ud800 is half of a surrogate pair"),
    (r"'\uDFFF'", 1, "\\uDFFF is half of a surrogate pair"),
    (r'"\ud83d\ude00"', 1, "\\ud83d is half of a surrogate pair"),
])
def test_bad_escapes_are_located_at_their_backslash(text, col, message):  # col: the backslash's index
    err = error(text)
    assert err.code == "RP200" and err.message.startswith(message)
    assert (err.pos.line, err.pos.col) == (5, 11 + col)
    assert "\\' \\\\ \\n \\t and \\uXXXX" in err.hint
    err.message.encode("utf-8")  # printable: no lone surrogate in the message itself


@pytest.mark.parametrize("text", ["১", "１", "𝟙𝟘", "1২", "1.৫", "٣ + 1", "x[𝟘]", "²"])
def test_only_ascii_digits_make_numbers(text):
    err = error(text)
    assert err.code == "RP200" and err.message.startswith("unexpected character")
    assert "digits 0-9" in err.hint


@pytest.mark.parametrize("brk", ["\n", "\r\n", "\r", "\x85", "\u2028", "\u2029"])
def test_every_yaml_line_break_is_a_line_break_of_code(brk):
    text = f"x = 1{brk}y = 2{brk}  z $ 3"
    err = error(text, effects=True, origin=Origin("rules.yaml", 5, 11, 6))
    assert (err.pos.line, err.pos.col) == (7, 6 + 5)
    assert parse_effects(f"x = 1{brk}y = 2") == parse_effects("x = 1\ny = 2")
    end = error(f"x = 1{brk}y ={brk}", effects=True)
    assert end.message == "unexpected end of text" and (end.pos.line, end.pos.col) == (6, 6 + 4)


def test_end_of_text_after_a_form_feed_is_on_the_same_line():
    """Lark reads a form feed as a space; str.splitlines would have started a new line there."""
    err = error("x =\x0c", effects=True)
    assert (err.pos.line, err.pos.col) == (5, 11 + 4)


def test_the_parse_cache_is_bounded_by_the_size_of_its_texts():
    from ruleplay.dsl import parser

    cache = parser._ParseCache(entries=100, chars=1000)
    for i in range(50):
        cache.parse(f"{i} + " + "1" * 90, Origin(), "expr_start")
    assert cache.held <= 1000 and len(cache.trees) == 10
    assert cache.held == sum(len(text) for text, _, _ in cache.trees)
    first = next(iter(cache.trees))
    assert cache.parse(*first) is cache.trees[first]  # a hit moves it to the end: it is dropped last
    assert next(reversed(cache.trees)) == first
    assert parser._CACHE.chars <= 250_000 and parser._CACHE.entries <= 8192


@pytest.mark.parametrize("text, hint", [("012", "write 12"), ("00", "write 0"), ("007.5", "write 7.5"),
                                        ("00.5", "write 0.5"), ("x[01]", "write 1")])
def test_a_number_with_a_leading_zero_is_refused_as_in_yaml(text, hint):
    err = error(text)
    assert err.code == "RP200" and "starts with a zero" in err.message and err.hint.startswith(hint)


@pytest.mark.parametrize("text, value", [("0", 0), ("0.5", 0.5), ("10", 10), ("100.0", 100.0), ("-0", 0)])
def test_numbers_with_no_leading_zero_are_read(text, value):
    assert parse_expr(text) == lit(value)


def test_escaped_backslash_before_a_quote_and_escaped_single_quote_in_double_quotes():
    assert parse_expr(r"""'\\"'""") == lit('\\"') and parse_expr(r'"\'"') == lit("'")


@pytest.mark.parametrize("text, col", [('"a\ud800"', 3), ("x +\n \udfff", 2)])
def test_a_lone_surrogate_written_into_code_is_refused(text, col):
    """YAML refuses one at load; code can also come from a move text or a scenario step."""
    err = error(text, origin=Origin("rules.yaml", 1, 1, 0))
    assert err.code == "RP200" and "lone surrogate" in err.message and err.pos.col == col
    err.message.encode("utf-8")


@pytest.mark.parametrize("text, hint", [
    ("while n > 0 { n -= 1 }", "the language has no `while`"),
    ("return n", "there is no `return`"),
    ("def f() { pass }", "functions are declared under `functions:`"),
])
def test_a_word_of_another_language_gets_a_hint_saying_what_this_one_has(text, hint):
    with pytest.raises(DslSyntaxError) as err:
        parse_effects(text)
    assert err.value.hint.startswith(hint)
