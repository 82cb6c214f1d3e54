"""Safe YAML loading: positions kept, surprising YAML 1.1 readings and unsafe input refused."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from ruleplay.dsl.diagnostics import Related
from ruleplay.dsl.parser import parse_effects, parse_expr
from ruleplay.dsl.yamlload import (MAX_DEPTH, MAX_NODES, YamlProblem, _compose, _compose_fast, _Composer,
                                   format_path, load_document)


def problem(raw, **kwargs):
    with pytest.raises(YamlProblem) as err:
        load_document(raw, "rules.yaml", **kwargs)
    return err.value.diagnostic


DOC = """\
game: demo
top:
  key: value
  list:
    - one
    - 'two'
  block: |
    x = 1
    if y { z = 2 }
  quoted: "a + b"
"""


def test_plain_data_and_positions_of_values_and_keys():
    doc = load_document(DOC, "rules.yaml")
    assert doc.data == {"game": "demo", "top": {"key": "value", "list": ["one", "two"],
                                                "block": "x = 1\nif y { z = 2 }\n", "quoted": "a + b"}}
    assert doc.where(("top", "key")) == (3, 8)
    assert doc.where(("top", "key"), key=True) == (3, 3)
    assert doc.where(("top", "list", 1)) == (6, 7)
    assert doc.where(("top", "list", 9)) == (5, 5)  # a missing path falls back to its nearest ancestor
    assert doc.where(("nothing", "here")) == (1, 1)
    assert doc.source_line(3) == "  key: value"


def test_origins_map_dsl_text_back_to_the_file():
    doc = load_document(DOC, "rules.yaml")
    block = parse_effects(doc.data["top"]["block"], doc.origin(("top", "block")))
    assign, cond = block.stmts
    assert (assign.pos.line, assign.pos.col) == (8, 5)
    inner = cond.branches[0][1].stmts[0]
    assert (inner.pos.file, inner.pos.line, inner.pos.col) == ("rules.yaml", 9, 12)
    quoted = parse_expr(doc.data["top"]["quoted"], doc.origin(("top", "quoted")))
    assert (quoted.right.pos.line, quoted.right.pos.col) == (10, 16)  # inside the quotes
    plain = parse_expr(doc.data["top"]["key"], doc.origin(("top", "key")))
    assert (plain.pos.line, plain.pos.col) == (3, 8)


def test_format_path():
    assert format_path(("actions", "place", "require", 0, "check")) == "actions.place.require[0].check"
    assert format_path(()) == ""


def test_duplicate_keys_are_refused_with_both_places():
    d = problem("a: 1\nb:\n  c: 1\n  c: 2\n")
    assert d.code == "RP003"
    assert d.message == "duplicate key 'c' (first defined at line 3)"
    assert (d.line, d.col) == (4, 3) and d.path == "b.c" and d.source_line == "  c: 2"
    assert d.related == (Related("'c' first defined here", d.file, 3, 3),)
    assert d.format().splitlines()[-1] == f"  see: {d.file}:3:3: 'c' first defined here"


@pytest.mark.parametrize("text, meaning", [
    ("yes", "true"), ("No", "false"), ("on", "true"), ("OFF", "false"), ("Yes", "true"), ("off", "false"),
])
def test_yaml_11_booleans_are_refused(text, meaning):
    d = problem(f"answer: {text}\n")
    assert d.code == "RP004"
    assert d.message == f"`{text}` is read as the boolean {meaning} by YAML 1.1"
    assert (d.line, d.col) == (1, 9)
    assert f'"{text}"' in d.hint


@pytest.mark.parametrize("text, value", [("012", 10), ("0x1F", 31), ("1:30", 90), ("-017", -15)])
def test_yaml_11_octal_hex_and_base_60_numbers_are_refused(text, value):
    d = problem(f"n: {text}\n")
    assert d.code == "RP004"
    assert d.message == f"`{text}` is read as the number {value} by YAML 1.1"


@pytest.mark.parametrize("text, value", [
    ("1.0e300", 1e300), ("1e5", 100000.0), ("-2E-3", -0.002), ("+1e2", 100.0), (".5e1", 5.0), ("1.5e+3", 1500.0),
])
def test_floats_with_an_unsigned_or_dotless_exponent_are_numbers(text, value):
    """YAML 1.2 reads these as floats; PyYAML's YAML 1.1 would silently make them text."""
    got = load_document(f"n: {text}\n").data["n"]
    assert got == value and type(got) is float


def test_text_that_only_looks_like_an_exponent_stays_text():
    doc = load_document("a: !!str 1e5\nb: '1e5'\nc: 1e\nd: e5\ne: 1.2.3\n1e3: k\n")
    assert doc.data == {"a": "1e5", "b": "1e5", "c": "1e", "d": "e5", "e": "1.2.3", "1e3": "k"}


@pytest.mark.parametrize("text", [".inf", "-.inf", ".nan", "1e999", "-1.0e400"])
def test_non_finite_numbers_are_refused(text):
    d = problem(f"n: {text}\n")
    assert d.code == "RP004" and "not a finite number" in d.message


@pytest.mark.parametrize("digits", [309, 5000])
def test_integers_over_the_rules_cap_are_refused(digits):
    d = problem(f"n: {'9' * digits}\n")
    assert d.code == "RP004" and f"an integer of {digits} digits is too large" in d.message
    assert (d.line, d.col) == (1, 4)


def test_integers_up_to_the_cap_are_kept():
    assert load_document(f"n: {2 ** 1024 - 1}\nm: -{2 ** 1024 - 1}\n").data == {"n": 2 ** 1024 - 1,
                                                                                "m": -(2 ** 1024 - 1)}


def test_ordinary_scalars_and_quoted_look_alikes_are_kept():
    doc = load_document('a: true\nb: false\nc: null\nd: ~\ne: 0\nf: -3\ng: 1.5\nh: "yes"\ni: "012"\nj: \'on\'\n')
    assert doc.data == {"a": True, "b": False, "c": None, "d": None, "e": 0, "f": -3, "g": 1.5,
                        "h": "yes", "i": "012", "j": "on"}
    assert load_document("1: a\ntrue: b\n").data == {"1": "a", "true": "b"}  # keys are always text


@pytest.mark.parametrize("text, tag", [
    ("!!python/object:os.system {}", "!!python/object:os.system"),
    ("!!python/object/apply:os.system ['ls']", "!!python/object/apply:os.system"),
    ("!!python/name:os.system ''", "!!python/name:os.system"),
    ("!!binary aGVsbG8=", "!!binary"),
    ("!!set {a}", "!!set"),
    ("!custom x", "!custom"),
    ("!!timestamp 2001-01-01", "!!timestamp"),
])
def test_tags_are_refused(text, tag):
    d = problem(f"value: {text}\n")
    assert d.code == "RP007"
    assert d.message == f"YAML tag {tag!r} is not allowed"
    assert (d.line, d.col) == (1, 8)
    assert "plain data" in d.hint


def test_a_plain_date_is_refused_as_what_yaml_reads_it_as():
    d = problem("value: 2001-01-01\n")
    assert (d.code, d.line, d.col) == ("RP007", 1, 8)
    assert d.message == "YAML reads '2001-01-01' as a timestamp (!!timestamp), which rulesets do not hold"
    assert d.hint == 'quote it to keep it as text: "2001-01-01"'


def test_merge_keys_and_complex_keys_are_refused():
    assert problem("base: &b {a: 1}\nother:\n  <<: *b\n").code == "RP007"
    d = problem("[1]: 2\n")
    assert d.code == "RP007" and "plain scalar" in d.message


def test_small_aliases_are_fine():
    assert load_document("a: &x [1, 2]\nb: *x\n").data == {"a": [1, 2], "b": [1, 2]}


def test_alias_bomb_is_refused():
    lines = ['a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for prev, name in zip("abcdefg", "bcdefgh"):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
    d = problem("\n".join(lines) + "\n")
    assert d.code == "RP005"
    assert d.message == f"the document expands to more than {MAX_NODES} values"
    assert "alias" in d.hint


@pytest.mark.parametrize("depth", [MAX_DEPTH + 5, 5000])
def test_deep_nesting_is_refused(depth):
    d = problem("a: " + "[" * depth + "]" * depth + "\n")
    assert d.code == "RP005"
    assert "nested" in d.message


def test_nesting_within_the_limit_is_fine():
    depth = MAX_DEPTH - 2
    data = load_document("a: " + "[" * depth + "]" * depth + "\n").data["a"]
    for _ in range(depth - 1):
        data = data[0]
    assert data == []


def test_size_limit():
    d = problem("a: " + "x" * 200 + "\n", max_bytes=100)
    assert d.code == "RP001" and d.message == "the file is 204 bytes, over the limit of 100"
    assert load_document("a: " + "x" * 200 + "\n", max_bytes=1000).data == {"a": "x" * 200}


def test_non_utf8_is_located():
    d = problem(b"a: 1\nb: caf\xe9\n")
    assert d.code == "RP001"
    assert d.message == "the file is not valid UTF-8 (byte 0xe9)"
    assert (d.line, d.col) == (2, 7)


def test_utf8_bom_is_accepted():
    assert load_document("\ufeffa: 1\n".encode("utf-8")).data == {"a": 1}


def test_nul_byte_is_refused():
    d = problem("a: 1\nb: \x00\n")
    assert d.code == "RP001" and "NUL" in d.message and d.line == 2


@pytest.mark.parametrize("raw", ["", "   \n\n", b""])
def test_empty_file(raw):
    d = problem(raw)
    assert d.code == "RP006" and d.message == "the file is empty"


def test_file_with_only_comments():
    d = problem("# nothing here\n")
    assert d.code == "RP006" and "no YAML document" in d.message


def test_multiple_documents_are_refused_at_the_second():
    d = problem("a: 1\n---\nb: 2\n")
    assert d.code == "RP006"
    assert d.message.startswith("the file holds more than one YAML document")
    assert d.line == 3 and "---" in d.hint


@pytest.mark.parametrize("raw, line, hint", [
    ("a: [1, 2\n", 1, "comma"),
    ("a:\n\tb: 1\n", 2, "replace the tab with spaces"),
    ("a: b: c\n", 1, "quote"),
])
def test_yaml_syntax_errors_are_located_with_a_hint(raw, line, hint):
    d = problem(raw)
    assert d.code == "RP002"
    assert d.message.startswith("YAML syntax error")
    assert d.line == line and hint in d.hint


# ------------------------------------------------------------------ near-number forms, surrogates, line breaks
@pytest.mark.parametrize("text, message", [
    ("0x_", "`0x_` looks like a YAML 1.1 number but has no digits"),
    ("-0x_", "`-0x_` looks like a YAML 1.1 number but has no digits"),
    ("0b_", "`0b_` looks like a YAML 1.1 number but has no digits"),
    ("0b101", "`0b101` is read as the number 5 by YAML 1.1"),
    ("0_", "`0_` is read as the number 0 by YAML 1.1"),
    ("0o17", "`0o17` is text to YAML 1.1 but the octal number 15 to YAML 1.2"),
    ("09", "`09` has a leading zero: YAML 1.1 reads it as text, YAML 1.2 as a number"),
    ("-007", "`-007` is read as the number -7 by YAML 1.1"),
    ("1_000", "`1_000` has a digit separator `_`: YAML 1.1 reads a number, YAML 1.2 text"),
    ("1__", "`1__` has a digit separator"),
    ("1_0.5", "`1_0.5` has a digit separator"),
    ("1:30.5", "`1:30.5` is read as the base-60 number 90.5 by YAML 1.1"),
])
def test_near_number_forms_are_refused_with_a_clear_message(text, message):
    for raw in (f"n: {text}\n", f"n: [1, {text}]\n", f"{text}: 1\n"):
        d = problem(raw)
        assert d.code == "RP004" and d.message.startswith(message), raw
        assert f'"{text}" (quoted)' in d.hint
        d.format().encode("utf-8")


@pytest.mark.parametrize("text, value", [
    ("0_8", "0_8"), ("1:3_0", "1:3_0"), ("._", "._"), ("0xG", "0xG"), ("-0o17", "-0o17"), ("0o", "0o"),
    ('"0x_"', "0x_"), ("'1_000'", "1_000"), ("!!str 09", "09"),  # text to every YAML, or quoted
    ("0", 0), ("-0", 0), ("+12", 12), ("00.5", 0.5), ("1.", 1.0), (".5", 0.5),
])
def test_text_and_numbers_every_yaml_reads_alike_are_kept(text, value):
    got = load_document(f"n: {text}\n").data["n"]
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize("raw, col, code", [
    ('a: "x\\ud800"\n', 6, "ud800"),
    ('a: "\\uDC00"\n', 5, "udc00"),
    ('a: "\\ud83d\\ude00"\n', 5, "ud83d"),  # YAML does not join a pair of escapes
    ('a: "\\U0000D800"\n', 5, "ud800"),
    ('"k\\udfff": 1\n', 3, "udfff"),
])
def test_a_lone_surrogate_is_refused_at_its_escape(raw, col, code):
    d = problem(raw)
    assert d.code == "RP001" and d.message == f"the text holds a lone surrogate (\\{code}), which is no character"
    assert (d.line, d.col) == (1, col)
    print(d.format().encode("utf-8").decode())  # the diagnostic itself prints: no surrogate in it


def test_a_lone_surrogate_in_text_handed_over_as_a_string_is_refused():
    d = problem("a: 1\nb: x\ud800y\n")
    assert d.code == "RP001" and (d.line, d.col) == (2, 5) and "lone surrogate" in d.message
    d.format().encode("utf-8")


def test_a_character_beyond_the_basic_plane_is_fine_escaped_or_written():
    assert load_document('a: "\\U0001F600"\nb: 😀\n').data == {"a": "😀", "b": "😀"}


BREAKS = ["\n", "\r\n", "\r", "\x85", "\u2028", "\u2029"]


@pytest.mark.parametrize("brk", BREAKS)
def test_positions_count_every_line_break_yaml_recognises(brk):
    text = f'a: 1{brk}b: "x +{brk}   y $ z"{brk}c: |{brk}  p = 1{brk}  q $ 2{brk}d: no{brk}'
    doc = load_document(text.replace("d: no", "d: ok"))
    with pytest.raises(Exception) as err:
        parse_expr(doc.data["b"], doc.origin(("b",)))
    assert (err.value.pos.line, err.value.pos.col) == (3, 6)
    with pytest.raises(Exception) as err:
        parse_effects(doc.data["c"], doc.origin(("c",)))
    assert (err.value.pos.line, err.value.pos.col) == (6, 5)
    assert doc.source_line(6) == "  q $ 2"
    d = problem(text)
    assert d.code == "RP004" and (d.line, d.col) == (7, 4) and d.source_line == "d: no"


@pytest.mark.parametrize("brk", BREAKS)
def test_file_level_errors_count_every_line_break_too(brk):
    d = problem(f"a: 1{brk}b: x\x00y{brk}".encode())
    assert (d.line, d.col, d.source_line) == (2, 5, "b: x\u2400y")
    d = problem(f"a: 1{brk}b: x\x07y{brk}".encode())
    assert d.code == "RP001" and (d.line, d.col, d.source_line) == (2, 5, "b: x\x07y")
    d = problem(f"a: 1{brk}b: x".encode() + b"\xff" + f"y{brk}".encode())
    assert d.code == "RP001" and (d.line, d.col, d.source_line) == (2, 5, "b: x\ufffdy")


@pytest.mark.parametrize("text, message", [
    ("!!int ١٢", "`١٢` is not an integer"),  # Python's int() reads Arabic-Indic digits
    ("!!int 12abc", "`12abc` is not an integer"),  # int() raised a ValueError here
    ("!!int 1e3", "`1e3` is not an integer"),
    ("!!int", "`` is not an integer"),
    ("!!float １.５", "`１.５` is not a number"),  # full-width digits
    ("!!float x", "`x` is not a number"),
    ("!!float .", "`.` is not a number"),
    ("!!float -.inf", "`-.inf` is not a finite number"),
    ("!!bool 1", "`1` is not a boolean"),  # was "read as the boolean false"
    ("!!null x", "`x` is not null"),  # was silently null
])
def test_an_explicit_tag_admits_only_its_own_forms(text, message):
    d = problem(f"n: {text}\n")
    assert d.code == "RP004" and d.message == message and d.hint


@pytest.mark.parametrize("text, value", [
    ("!!int -7", -7), ("!!float 12", 12.0), ("!!float 1.5", 1.5), ("!!float .5e+3", 500.0), ("!!null", None),
    ("!!null ~", None), ("!!bool true", True),
])
def test_an_explicit_tag_on_its_own_forms_is_kept(text, value):
    got = load_document(f"n: {text}\n").data["n"]
    assert got == value and type(got) is type(value)


# --- the libyaml composer agrees with the pure-Python reference ---------------------------------

_RULESETS = sorted((Path(__file__).resolve().parents[2] / "rulesets").glob("*.yaml"))
_EDITS = list(":-[]{},#&*!|>'\"?%@` \n\r\\~") + ["\x85", "\u2028", "- ", "\n  ", "ž", "---\n", "&a ", "*a",
                                                  "!!str ", "<<: ", "\\u00e9", "\t", "\ufeff"]


def _shape(node):
    """What the builder reads of a node: its start, tag and kind, a scalar's text, style and end."""
    mark = node.start_mark
    head = (mark.line, mark.column, mark.index, node.tag, type(node).__name__)
    if isinstance(node, yaml.ScalarNode):
        return head + (node.value, node.style, node.end_mark.index)
    children = node.value if isinstance(node, yaml.SequenceNode) else [n for pair in node.value for n in pair]
    return head + tuple(_shape(c) for c in children)


def _reference(text):
    return _compose(_Composer(text))


@pytest.mark.parametrize("path", _RULESETS, ids=lambda p: p.stem)
def test_the_built_in_rulesets_take_the_fast_composer_and_get_the_reference_nodes(path):
    text = path.read_text(encoding="utf-8")
    fast = _compose_fast(text)
    assert fast is not None, "a built-in ruleset fell back to the slow composer"
    assert [_shape(n) for n in fast] == [_shape(n) for n in _reference(text)]


@pytest.mark.parametrize("text", ["a: [x?y, z]\n", "a: {b: }\n", "a:\n", "a: |#x\n  b\n", "a:\tb\n", "a: b\t\n",
                                  "\ufeffa: b\n", "a: [1, 2\n", "a: \x07\n"])
def test_forms_libyaml_reads_differently_go_to_the_reference(text):
    assert _compose_fast(text) is None


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(_RULESETS), st.randoms(use_true_random=False))
def test_whatever_libyaml_composes_the_reference_composes_alike(path, rng):
    """Mutated rulesets: where the fast composer gives nodes, PyYAML's own gives the same ones.

    The edits are placed uniformly (hypothesis' own integers crowd the ends of
    a range), in a window that starts at a top-level key, so most mutants
    still parse and the comparison is made.
    """
    text = path.read_text(encoding="utf-8")
    start = rng.choice([m.start() for m in re.finditer(r"^[a-z]", text, re.M)])
    chars = list(text[start:start + rng.randint(200, 1500)].rsplit("\n", 1)[0] + "\n")
    for _ in range(rng.randint(1, 6)):
        at, edit = rng.randrange(len(chars)), rng.choice(["insert", "delete", "replace"])
        if edit == "insert":
            chars.insert(at, rng.choice(_EDITS))
        elif edit == "delete":
            del chars[at]
        else:
            chars[at] = rng.choice(_EDITS)
    mutated = "".join(chars)
    fast = _compose_fast(mutated)
    if fast is not None:
        assert [_shape(n) for n in fast] == [_shape(n) for n in _reference(mutated)]


@pytest.mark.parametrize("start", ["@", "`"])
def test_a_value_starting_with_a_character_yaml_reserves_is_told_to_be_quoted(start):
    d = problem(f"actions:\n  a:\n    effects: {start}X x = n\n")
    assert (d.code, d.line, d.col) == ("RP002", 3, 14) and "quote a value that starts with this character" in d.hint
