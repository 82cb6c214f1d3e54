"""Safe YAML loading that remembers where every value came from.

PyYAML's safe composer builds the node tree (no Python tags, no code); this
module then constructs plain data itself so it can: keep the line and column
of every value and key, refuse duplicate keys, refuse YAML 1.1 scalars that
silently change meaning (`no` -> false, `012` -> 10) and every other
near-number form (`0x_`, `1_000`, `0o17`, `09`), refuse text that is no valid
Unicode (a lone surrogate from an escape such as `"\ud800"`), cap the number
of nodes an alias may expand to (billion laughs) and the nesting depth, and
report each problem as a `Diagnostic` instead of a traceback.  Lines are
counted as YAML counts them: CR, LF, CR LF, NEL and the Unicode line and
paragraph separators each end a line.
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.resolver import Resolver

try:
    from yaml.cyaml import CParser  # PyYAML built with libyaml
except ImportError:  # pragma: no cover - wheels for our platforms ship it
    CParser = None

from .diagnostics import Diagnostic, Related
from .parser import CODE_BREAK, Origin
from .runtime import MAX_INT_BITS

MAX_FILE_BYTES = 1_000_000
MAX_NODES = 200_000
MAX_DEPTH = 64

Path_ = tuple[Any, ...]

_BOOL_WORDS = {"true", "false"}
_ANCHOR = re.compile(r"&[^\s,\[\]{}]+[ \t\r\n]+")  # `&name ` before a node's tag
_ALLOWED_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("str", "null", "bool", "int", "float", "map", "seq")}
_OCTAL_LIKE = re.compile(r"^[-+]?0[0-9_]+$")
_SEXAGESIMAL = re.compile(r"^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$")
_OTHER_INT = re.compile(r"^[-+]?0[xXbBoO][0-9a-fA-F_]+$")
_OCTAL_12 = re.compile(r"^0o[0-7]+$")
_DECIMAL_INT = re.compile(r"^[-+]?[0-9]+$")
_FLOAT_11 = re.compile(r"^[-+]?([0-9]+\.[0-9]*|\.[0-9]+)([eE][-+][0-9]+)?$")  # PyYAML's dotted floats, `_` already refused
_NOT_FINITE = re.compile(r"^([-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$")
_NULL_WORDS = {"", "~", "null", "Null", "NULL"}
_YAML11_BOOLS = {"yes", "no", "on", "off", "y", "n"}  # YAML 1.2's octal: a number there, text to YAML 1.1
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\(u[dD][89a-fA-F][0-9a-fA-F]{2}|U0000[dD][89a-fA-F][0-9a-fA-F]{2})")
LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")  # what YAML (and str.splitlines, given the reader) breaks at
# YAML 1.2 core floats.  YAML 1.1 (PyYAML) wants a dot and a signed exponent, so `1e5` and
# `1.0e300` would silently be text; the composer resolves them as floats too.
_FLOAT_12 = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_MAX_DIGITS = len(str(1 << MAX_INT_BITS))  # no int the rules keep has more
_BLOCK_HEADER_COMMENT = re.compile(r"[|>][-+0-9]*#")
_FOLDED = " \n\u2028\u2029"  # what reading leaves of a line break or indentation inside a scalar
_FOLDS_FROM = " \t\r\n\x85\u2028\u2029"  # the source characters it came from


def line_col(text: str, index: int) -> tuple[int, int]:
    """Line and column (from 1) of `text[index]`, lines ended by any break YAML recognises."""
    line, start = 1, 0
    for m in LINE_BREAK.finditer(text, 0, index):
        line, start = line + 1, m.end()
    return line, index - start + 1


def line_at(text: str, index: int) -> str:
    """The whole line that holds `text[index]`, without its line break."""
    start = 0
    for m in LINE_BREAK.finditer(text, 0, index):
        start = m.end()
    end = LINE_BREAK.search(text, index)
    return text[start:end.start() if end else len(text)]


def _yaml11_number(text: str) -> Any:
    """The number YAML 1.1 reads `text` as, or None when it cannot read one (`0x_` has no digits)."""
    try:
        return yaml.safe_load(text)
    except (ValueError, yaml.YAMLError):
        return None


def near_number(text: str, tag: str) -> tuple[str, str] | None:
    """Why a plain scalar that YAML reads as a number, or nearly, is refused: (message, hint); None if it is
    a plain decimal number or plainly text.

    Refused are the forms whose meaning depends on the YAML version or that
    no reader turns into the number they seem to be: octal with a leading
    zero, hex, binary and base 60 (YAML 1.1), `0o17` (YAML 1.2), digit
    separators (`1_000`: a number to YAML 1.1, text to 1.2, and never a
    number in code), a leading zero (`09`) and digitless forms (`0x_`).
    """
    quote = f'write "{text}" (quoted) for text, or a plain decimal number'
    if tag == "tag:yaml.org,2002:str":
        if _OCTAL_12.match(text):
            return f"`{text}` is text to YAML 1.1 but the octal number {int(text[2:], 8)} to " \
                   "YAML 1.2", quote
        return None
    if tag not in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float"):
        return None
    if tag == "tag:yaml.org,2002:int" and (_OCTAL_LIKE.match(text) or _OTHER_INT.match(text)
                                           or _SEXAGESIMAL.match(text)):
        value = _yaml11_number(text)
        if value is None:
            return f"`{text}` looks like a YAML 1.1 number but has no digits", quote
        return f"`{text}` is read as the number {value} by YAML 1.1", quote
    if _SEXAGESIMAL.match(text):
        return f"`{text}` is read as the base-60 number {_yaml11_number(text)} by YAML 1.1", quote
    if _OCTAL_LIKE.match(text):  # `09`: text to YAML 1.1, the number 9 to YAML 1.2
        return f"`{text}` has a leading zero: YAML 1.1 reads it as text, YAML 1.2 as a number", quote
    if "_" in text:
        return f"`{text}` has a digit separator `_`: YAML 1.1 reads a number, YAML 1.2 text", \
               f'write {text.replace("_", "")} for the number, or "{text}" (quoted) for text'
    return None


class YamlProblem(Exception):
    def __init__(self, diagnostic: Diagnostic):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


@dataclass
class Document:
    """Plain data plus a map from YAML paths to file positions."""

    file: str
    text: str
    data: Any
    positions: dict[Path_, tuple[int, int]] = field(default_factory=dict)
    key_positions: dict[Path_, tuple[int, int]] = field(default_factory=dict)
    origins: dict[Path_, Origin] = field(default_factory=dict)
    _lines: list[str] | None = field(default=None, init=False, repr=False, compare=False)

    def where(self, path: Path_, key: bool = False) -> tuple[int, int]:
        """Line and column of the value (or key) at `path`, or of its nearest ancestor."""
        path = tuple(path)
        table = self.key_positions if key else self.positions
        if path in table:
            return table[path]
        while path:
            path = path[:-1]
            if path in self.positions:
                return self.positions[path]
        return (1, 1)

    def origin(self, path: Path_) -> Origin:
        path = tuple(path)
        if path in self.origins:
            return self.origins[path]
        line, col = self.where(path)
        return Origin(self.file, line, col, col - 1)

    def source_line(self, line: int) -> str:
        lines = self._lines
        if lines is None:  # split once: a file with thousands of diagnostics asks for thousands of lines
            lines = self._lines = self.text.splitlines()
        return lines[line - 1] if 0 < line <= len(lines) else ""


def lookup(data: Any, path: Path_, default: Any = None) -> Any:
    """The value at a YAML path in plain data, or `default` when the path does not exist."""
    node: Any = data
    for step in path:
        if isinstance(node, dict) and step in node:
            node = node[step]
        elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            node = node[step]
        else:
            return default
    return node


def format_path(path: Path_) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


class _Refused(Exception):
    """A document the composer will not finish: too deep, or too large once aliases expand."""

    def __init__(self, message: str, mark: Any, hint: str):
        super().__init__(message)
        self.message, self.mark, self.hint = message, mark, hint


class _Unsure(Exception):
    """The fast composer met a form where libyaml and PyYAML read differently: the reference must read the text."""


class _Limits:
    """The size and depth limits, enforced while composing: a mix-in for either composer below.

    Both limits must hold before the node tree exists: the composer recurses once
    per nesting level (thousands of `[` end in a RecursionError), and an alias
    stands for its whole anchored subtree, so nine lines of aliases can stand for
    a billion values (billion laughs).  Each finished node records how many values
    it expands to and how deep it reaches, so an alias is charged its full cost at
    the place it is used.
    """

    def _start_limits(self) -> None:
        self._depth = 0
        self._total = 0
        self._cost: dict[int, tuple[int, int]] = {}  # id(node) -> (values, levels) once expanded
        self._aliased = False  # whether an alias has repeated an anchor: the likely cause of a size refused

    def _charge(self, values: int, levels: int, mark: Any) -> None:
        self._total += values
        if self._total > MAX_NODES:
            raise _Refused(f"the document expands to more than {MAX_NODES} values", mark,
                           "aliases (*name) that repeat large anchors multiply the size; write the data out"
                           if self._aliased else "a ruleset holds tables, not data sets: compute large tables "
                           "with `derived:` expressions from a few constants")
        if self._depth + levels > MAX_DEPTH:
            raise _Refused(f"the document is nested more than {MAX_DEPTH} levels deep", mark, "flatten the structure")

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            node = super().compose_node(parent, index)
            cost = self._cost.get(id(node))
            if cost is None:
                raise _Refused(f"the alias *{event.anchor} is used inside its own anchor", event.start_mark,
                               "an anchored value cannot contain itself")
            self._aliased = True
            self._charge(cost[0], cost[1] - 1, event.start_mark)
            return node
        self._charge(1, 0, event.start_mark)
        self._depth += 1
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        children = node.value if isinstance(node, yaml.SequenceNode) else (
            [n for pair in node.value for n in pair] if isinstance(node, yaml.MappingNode) else [])
        costs = [self._cost[id(c)] for c in children]
        self._cost[id(node)] = (1 + sum(c[0] for c in costs), 1 + max((c[1] for c in costs), default=0))
        return node


class _Composer(_Limits, yaml.SafeLoader):
    """PyYAML's pure-Python safe composer, with the limits: the reference, and the source of every error message."""

    def __init__(self, text: str):
        super().__init__(text)
        self._start_limits()


if CParser is not None:
    class _FastComposer(_Limits, Composer, CParser, Resolver):
        """The same composer over libyaml's events: the scanner and parser in C, 14 times faster on a seed ruleset.

        Only the events come from C; composing (anchors, the limits, tag resolution)
        is PyYAML's Python code, so the nodes are PyYAML's.  libyaml's plain scalars
        carry the style `""` where PyYAML's carry None; `compose_scalar_node` gives
        them PyYAML's.  A document libyaml refuses is read again by `_Composer`, so
        every error reads as it always has.
        """

        def __init__(self, text: str):
            CParser.__init__(self, text)
            Composer.__init__(self)
            Resolver.__init__(self)
            self._start_limits()

        def compose_node(self, parent: Any, index: Any) -> Any:
            node = super().compose_node(parent, index)
            if isinstance(node, yaml.ScalarNode) and node.style is None and (
                    not node.value or ("?" in node.value and getattr(parent, "flow_style", False))):
                raise _Unsure()  # the two place an empty value differently; PyYAML ends plain text at `?` in `[...]`
            return node

        def compose_scalar_node(self, anchor: Any) -> Any:
            node = super().compose_scalar_node(anchor)
            node.style = node.style or None
            return node


# Tried after YAML 1.1's own resolvers, so ints and dotted floats keep their tags; an explicit
# `!!str 1e5` stays text.  add_implicit_resolver copies the table for each class, leaving PyYAML's.
for _composer in (_Composer, _FastComposer) if CParser is not None else (_Composer,):
    _composer.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT_12, list("-+.0123456789"))


class _Builder:
    def __init__(self, file: str, text: str):
        self.file = file
        self.text = text
        self.lines = text.splitlines()  # the reader let through no break but YAML's, so these are YAML's lines
        self.doc = Document(file, text, None)
        self.line_starts = [0] + [m.end() for m in LINE_BREAK.finditer(text)]

    def fail(self, code: str, message: str, mark: Any, hint: str = "", path: Path_ = (),
             related: tuple[Related, ...] = ()) -> None:
        line = mark.line + 1 if mark is not None else 1
        col = mark.column + 1 if mark is not None else 1
        raise YamlProblem(Diagnostic(code, message, self.file, line, col, hint=hint,
                                     path=format_path(path), source_line=self._line(line), related=related))

    def _line(self, line: int) -> str:
        return self.lines[line - 1] if 0 < line <= len(self.lines) else ""

    def _origin(self, node: yaml.ScalarNode) -> Origin:
        line, col = node.start_mark.line + 1, node.start_mark.column + 1
        if node.style == "|":
            for i in range(line, len(self.lines)):
                text = self.lines[i]
                if text.strip():
                    indent = len(text) - len(text.lstrip(" "))
                    return Origin(self.file, i + 1, indent + 1, indent)
            return Origin(self.file, line + 1, 1, 0)
        quoted = node.style in ('"', "'")
        start, end = node.start_mark.index + quoted, node.end_mark.index - quoted
        if node.style == ">" or self.text[start:end] != node.value:
            return Origin(self.file, line, col + quoted, col - 1 + quoted, self._align(node.value, start, end))
        return Origin(self.file, line, col + quoted, col - 1 + quoted)

    def _align(self, value: str, start: int, end: int) -> tuple[tuple[tuple[int, int], ...], ...]:
        """The file position of each character of a scalar that YAML rewrote on reading.

        Folded (`>`) and multi-line scalars join their lines with spaces and drop
        the indentation; quoted ones turn escapes into single characters.  Walking
        the source alongside the value, skipping what reading removed, finds where
        each character came from, so a DSL error in such text still points at it.
        """
        if self.text[start:start + 1] == ">":  # skip the block header line
            header_end = LINE_BREAK.search(self.text, start, end)
            start = header_end.end() if header_end else end
        text, points, j = self.text, [], start
        for ch in value:
            k, dropped = j, 0  # dropped: characters of an escape sequence (a few at most)
            while k < end and text[k] != ch and not (ch in _FOLDED and text[k] in _FOLDS_FROM) and dropped <= 10:
                dropped += text[k] not in _FOLDS_FROM
                k += 1
            if k >= end or dropped > 10:  # not found nearby: keep the previous place
                k = min(j, end - 1)
            points.append(self._point(max(k, start)))
            j = k + 1
        if not points:
            return ()
        rows, first = [], 0
        for brk in CODE_BREAK.finditer(value):  # per line of the text, as the DSL parser counts them
            rows.append(tuple(points[first:brk.start() + 1]))
            first = brk.end()
        rows.append(tuple(points[first:]))
        return tuple(rows)

    def _point(self, index: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.line_starts, index)
        return line, index - self.line_starts[line - 1] + 1

    def build(self, node: yaml.Node, path: Path_) -> Any:
        self.doc.positions[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
        if not isinstance(node, yaml.ScalarNode):
            self.check_tag(node, path)
        if isinstance(node, yaml.MappingNode):
            out: dict[str, Any] = {}
            for key_node, value_node in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    self.fail("RP007", "YAML merge keys (<<) are not supported", key_node.start_mark,
                              hint="write the keys out, or use a variant patch", path=path)
                if not isinstance(key_node, yaml.ScalarNode):
                    self.fail("RP007", "a mapping key must be a plain scalar", key_node.start_mark, path=path,
                              hint="keys are names; put lists and mappings on the value side of `key: value`")
                key = self.scalar(key_node, path)
                if not isinstance(key, (str, int)) or isinstance(key, bool):
                    key = key_node.value
                key = str(key)
                if key in out:
                    first = self.doc.key_positions.get(path + (key,), (0, 0))
                    self.fail("RP003", f"duplicate key {key!r} (first defined at line {first[0]})",
                              key_node.start_mark, hint="remove one of the two entries", path=path + (key,),
                              related=(Related(f"{key!r} first defined here", self.file, *first),))
                self.doc.key_positions[path + (key,)] = (key_node.start_mark.line + 1,
                                                         key_node.start_mark.column + 1)
                out[key] = self.build(value_node, path + (key,))
            return out
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, path + (i,)) for i, item in enumerate(node.value)]
        value = self.scalar(node, path)
        if isinstance(value, str):
            self.doc.origins[path] = self._origin(node)
        return value

    def surrogate(self, node: yaml.ScalarNode, path: Path_) -> None:
        """Refuse a text holding half of a surrogate pair: it is no character, and cannot be printed or saved.

        Only an escape can make one (the file itself is valid UTF-8), so the
        error points at the escape when it can find it.
        """
        found = _SURROGATE_ESCAPE.search(self.text, node.start_mark.index, node.end_mark.index)
        mark = node.start_mark
        if found:
            line, col = self._point(found.start())
            mark = yaml.Mark(self.file, found.start(), line - 1, col - 1, None, None)
        code = _SURROGATE.search(node.value).group()
        self.fail("RP001", f"the text holds a lone surrogate (\\u{ord(code):04x}), which is no character",
                  mark, path=path, hint="write the character itself, or a \\U0001XXXX escape for one beyond \\uFFFF; "
                  "a pair of \\u escapes is not joined into one character")

    def check_tag(self, node: yaml.Node, path: Path_) -> None:
        at = node.start_mark.index  # the node's properties start here: an anchor may come before its tag
        anchor = _ANCHOR.match(self.text, at)
        at = anchor.end() if anchor else at
        written = self.text.startswith("!", at)
        if written and self.text[at + 1:at + 2] in ("", " ", "\t", "\n", "\r", ",", "]", "}"):
            self.fail("RP007", "the non-specific YAML tag `!` is not allowed", node.start_mark, path=path,
                      hint="remove it: quote a value to keep it as text")
        kind = {yaml.MappingNode: "map", yaml.SequenceNode: "seq"}.get(type(node))
        if node.tag in _ALLOWED_TAGS and (  # quotes, blocks and brackets resolve to str, map, seq: any other was written
                (kind is not None and node.tag != f"tag:yaml.org,2002:{kind}")
                or (kind is None and node.style is not None and node.tag != "tag:yaml.org,2002:str")):
            name = node.tag.replace("tag:yaml.org,2002:", "!!")
            what = {"map": "a mapping", "seq": "a list"}.get(kind, "quoted or block text")
            self.fail("RP007", f"the YAML tag {name!r} does not fit {what}", node.start_mark, path=path,
                      hint="remove the tag: a value's own form says what it is (quotes make text)")
        if node.tag not in _ALLOWED_TAGS:
            name = node.tag.replace("tag:yaml.org,2002:", "!!")
            if isinstance(node, yaml.ScalarNode) and node.style is None and not written:  # YAML's reading
                self.fail("RP007", f"YAML reads {node.value!r} as a {name[2:]} ({name}), which rulesets do not "
                          "hold", node.start_mark, hint=f"quote it to keep it as text: \"{node.value}\"", path=path)
                return
            self.fail("RP007", f"YAML tag {name!r} is not allowed", node.start_mark,
                      hint="rulesets are plain data (maps, lists, text, numbers, booleans, null); remove the tag",
                      path=path)

    def scalar(self, node: yaml.ScalarNode, path: Path_) -> Any:
        self.check_tag(node, path)
        tag, text = node.tag, node.value
        if _SURROGATE.search(text):
            self.surrogate(node, path)
        refused = near_number(text, tag) if node.style is None else None
        if refused is not None:
            self.fail("RP004", refused[0], node.start_mark, hint=refused[1], path=path)
        if tag == "tag:yaml.org,2002:str" or node.style is not None:
            return text
        # An explicit tag (`!!int x`) makes PyYAML construct whatever the text is; only its own forms may pass.
        if tag == "tag:yaml.org,2002:null":
            if text not in _NULL_WORDS:
                self.fail("RP004", f"`{text}` is not null", node.start_mark, path=path,
                          hint="write null (or ~) for null, or remove the !!null tag")
            return None
        if tag == "tag:yaml.org,2002:bool":
            if text.lower() not in _BOOL_WORDS | _YAML11_BOOLS:
                self.fail("RP004", f"`{text}` is not a boolean", node.start_mark, path=path,
                          hint="write true or false, or remove the !!bool tag")
            if text.lower() not in _BOOL_WORDS:
                meaning = "true" if text.lower() in ("yes", "on", "y") else "false"
                self.fail("RP004", f"`{text}` is read as the boolean {meaning} by YAML 1.1",
                          node.start_mark, hint=f"write \"{text}\" (quoted) for text, or {meaning} for a boolean",
                          path=path)
            return text.lower() == "true"
        if tag == "tag:yaml.org,2002:int":  # a plain decimal: near_number refused every other form
            if not _DECIMAL_INT.match(text):  # Python's int() would also take `١٢` or ` 12 `
                self.fail("RP004", f"`{text}` is not an integer", node.start_mark, path=path,
                          hint="write the digits 0-9, with a sign if need be, or remove the !!int tag")
            digits = text.lstrip("+-").lstrip("0")
            if len(digits) > _MAX_DIGITS or int(digits or "0").bit_length() > MAX_INT_BITS:
                self.fail("RP004", f"an integer of {len(digits)} digits is too large: numbers are capped at "
                          f"{MAX_INT_BITS} bits", node.start_mark, hint="use a smaller number", path=path)
            return int(text)
        if tag == "tag:yaml.org,2002:float":
            finite = bool(_FLOAT_12.match(text) or _FLOAT_11.match(text))
            if not finite and not _NOT_FINITE.match(text):
                self.fail("RP004", f"`{text}` is not a number", node.start_mark, path=path,
                          hint="write a decimal number with the digits 0-9, or remove the !!float tag")
            if not finite or not math.isfinite(float(text)):  # `.inf`, `.nan`, or `1e999` (too large)
                self.fail("RP004", f"`{text}` is not a finite number", node.start_mark,
                          hint="write a plain decimal number", path=path)
            return float(text)
        return text


# Errors PyYAML finds only where an unclosed construct runs into something else; the
# construct's own start (its context mark) is where the author must look.
_OPENED_AT = {
    "while scanning a quoted scalar": "a quote is not closed",
    "while parsing a flow sequence": "a `[` is not closed, or items are missing commas",
    "while parsing a flow mapping": "a `{` is not closed, or items are missing commas",
    "while scanning a simple key": "a line has no `key: value` form; a continued string needs quotes or a | block",
}


def _yaml_error(file: str, text: str, err: yaml.YAMLError) -> Diagnostic:
    lines = text.splitlines()
    if isinstance(err, yaml.reader.ReaderError):  # a control character YAML does not accept
        line, col = line_col(text, err.position)
        return Diagnostic("RP001", f"the file contains the control character {chr(err.character)!r}", file,
                          line, col, hint="remove it; rulesets are plain text",
                          source_line=line_at(text, err.position))
    problem_mark = getattr(err, "problem_mark", None)
    context_mark = getattr(err, "context_mark", None)
    problem = getattr(err, "problem", None) or str(err)
    context = getattr(err, "context", None)
    message = f"YAML syntax error: {problem}" + (f" ({context})" if context else "")
    hint = "check indentation and brackets around this point"
    mark = problem_mark or context_mark
    if context in _OPENED_AT and context_mark is not None and problem_mark is not None \
            and problem_mark.line > context_mark.line:
        mark = context_mark
        message = f"YAML syntax error: {problem} at line {problem_mark.line + 1} ({context} that starts here)"
        hint = _OPENED_AT[context]
    elif "\t" in problem or "'\\t'" in problem:
        hint = "replace the tab with spaces: the YAML reader takes no tab here (in indentation, before a comment, " \
               "or between the items of a [...] or {...})"
    elif "could not find expected ':'" in problem:
        hint = "a mapping entry needs `key: value`; a continued string needs quotes or a | block"
    elif "expected ',' or ']'" in problem or "expected ',' or '}'" in problem:
        hint = "a bracket is not closed, or items are missing commas"
    elif "mapping values are not allowed" in problem:
        hint = "quote a value that contains `: `, or fix the indentation"
    elif "expected <block end>" in problem:
        hint = "this line is indented differently from the lines before it"
    elif "cannot start any token" in problem:  # `@` and backquote are reserved in YAML: they cannot begin a value
        hint = ("quote a value that starts with this character, e.g. effects: '@X x = n', or write code "
                "as a | block")
    line = mark.line + 1 if mark is not None else 1
    col = mark.column + 1 if mark is not None else 1
    source = lines[line - 1] if 0 < line <= len(lines) else ""
    return Diagnostic("RP002", message, file, line, col, hint=hint, source_line=source)


def _decode(raw: bytes, file: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        before = raw[:err.start].decode("utf-8-sig")  # valid: the error is the first
        line, col = line_col(before, len(before))
        shown = before + raw[err.start:].decode("utf-8", errors="replace")
        raise YamlProblem(Diagnostic("RP001", f"the file is not valid UTF-8 (byte 0x{raw[err.start]:02x})",
                                     file, line, col, hint="save the file as UTF-8",
                                     source_line=line_at(shown, len(before)))) from None


def _compose(composer: Any) -> list[yaml.Node]:
    nodes = []
    while composer.check_node():
        nodes.append(composer.get_node())
    composer.dispose()
    return nodes


def _compose_fast(text: str) -> list[yaml.Node] | None:
    """The nodes as libyaml reads them, or None where the reference composer must read the text.

    That is any text libyaml refuses (the reference gives the error its own
    words), any text PyYAML's reader would refuse (libyaml's checks differ), a
    comment glued to a block scalar's header (`|#`: libyaml takes it), a
    tab anywhere (libyaml takes tabs inside plain text and after keys, PyYAML
    refuses them), a byte-order mark anywhere (PyYAML counts it as a character,
    libyaml does not, so every position after it would move), and the scalars
    `_FastComposer.compose_node` gives up on (an empty value, `?` in `[...]`).
    tests/dsl/test_yamlload.py holds the two composers to the same nodes on
    mutated rulesets.
    """
    if CParser is None or "\ufeff" in text or "\t" in text or yaml.reader.Reader.NON_PRINTABLE.search(text) \
            or _BLOCK_HEADER_COMMENT.search(text):
        return None
    try:
        return _compose(_FastComposer(text))
    except (yaml.YAMLError, _Refused, _Unsure):
        return None


def load_document(raw: bytes | str, file: str = "<input>", max_bytes: int = MAX_FILE_BYTES) -> Document:
    """Parse one YAML document into a `Document`; raises `YamlProblem` on any problem."""
    size = len(raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw)
    if size > max_bytes:
        raise YamlProblem(Diagnostic("RP001", f"the file is {size} bytes, over the limit of {max_bytes}",
                                     file, 1, 1, hint="rulesets are small; split data into variant files"))
    text = raw if isinstance(raw, str) else _decode(raw, file)
    bad = _SURROGATE.search(text)  # only text handed over as a str can hold one: UTF-8 bytes cannot
    if bad:
        line, col = line_col(text, bad.start())
        raise YamlProblem(Diagnostic("RP001", f"the text holds a lone surrogate (\\u{ord(bad.group()):04x}), "
                                     "which is no character", file, line, col, hint="the text was decoded wrongly; "
                                     "read the file as UTF-8", source_line=_SURROGATE.sub("\ufffd", line_at(
                                         text, bad.start()))))
    if "\x00" in text:
        at = text.index("\x00")
        line, col = line_col(text, at)
        raise YamlProblem(Diagnostic("RP001", "the file contains a NUL byte", file, line, col,
                                     hint="this looks like a binary file (or UTF-16), not YAML",
                                     source_line=line_at(text, at).replace("\x00", "\u2400")))  # a NUL sign
    if not text.strip():
        raise YamlProblem(Diagnostic("RP006", "the file is empty", file, 1, 1,
                                     hint="a ruleset starts with `ruleplay: 1` and `game: NAME`"))
    lines = text.splitlines()
    nodes = _compose_fast(text)
    try:
        if nodes is None:
            nodes = _compose(_Composer(text))  # the reader checks for unacceptable characters right here
    except yaml.YAMLError as err:
        raise YamlProblem(_yaml_error(file, text, err)) from None
    except _Refused as err:
        line, col = err.mark.line + 1, err.mark.column + 1
        raise YamlProblem(Diagnostic("RP005", err.message, file, line, col, hint=err.hint,
                                     source_line=lines[line - 1] if line <= len(lines) else "")) from None
    if not nodes:
        raise YamlProblem(Diagnostic("RP006", "the file holds no YAML document (only comments?)", file, 1, 1,
                                     hint="a ruleset starts with `ruleplay: 1` and `game: NAME`",
                                     source_line=lines[0]))
    if len(nodes) > 1:
        mark = nodes[1].start_mark
        raise YamlProblem(Diagnostic("RP006", "the file holds more than one YAML document: a second one "
                                     "starts here", file, mark.line + 1, mark.column + 1,
                                     hint="remove the `---` separator and what follows, or merge the two",
                                     source_line=lines[mark.line] if mark.line < len(lines) else ""))
    builder = _Builder(file, text)
    builder.doc.data = builder.build(nodes[0], ())
    return builder.doc
