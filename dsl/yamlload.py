"""Safe YAML loading that remembers where every value came from.

PyYAML's safe composer builds the node tree (no Python tags, no code); this
module then constructs plain data itself so it can: keep the line and column
of every value and key, refuse duplicate keys, refuse YAML 1.1 scalars that
silently change meaning (`no` -> false, `012` -> 10), cap the number of nodes
an alias may expand to (billion laughs) and the nesting depth, and report
each problem as a `Diagnostic` instead of a traceback.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from .diagnostics import Diagnostic
from .parser import Origin

MAX_FILE_BYTES = 1_000_000
MAX_NODES = 200_000
MAX_DEPTH = 64

Path_ = tuple[Any, ...]

_BOOL_WORDS = {"true", "false"}
_ALLOWED_TAGS = {f"tag:yaml.org,2002:{t}" for t in ("str", "null", "bool", "int", "float", "map", "seq")}
_OCTAL_LIKE = re.compile(r"^[-+]?0[0-9_]+$")
_SEXAGESIMAL = re.compile(r"^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$")
_OTHER_INT = re.compile(r"^[-+]?0[xXbBoO][0-9a-fA-F_]+$")


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
        lines = self.text.splitlines()
        return lines[line - 1] if 0 < line <= len(lines) else ""


def format_path(path: Path_) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


class _Builder:
    def __init__(self, file: str, text: str):
        self.file = file
        self.lines = text.splitlines()
        self.doc = Document(file, text, None)
        self.count = 0

    def fail(self, code: str, message: str, mark: Any, hint: str = "", path: Path_ = ()) -> None:
        line = mark.line + 1 if mark is not None else 1
        col = mark.column + 1 if mark is not None else 1
        raise YamlProblem(Diagnostic(code, message, self.file, line, col, hint=hint,
                                     path=format_path(path), source_line=self._line(line)))

    def _line(self, line: int) -> str:
        return self.lines[line - 1] if 0 < line <= len(self.lines) else ""

    def _origin(self, node: yaml.ScalarNode) -> Origin:
        line, col = node.start_mark.line + 1, node.start_mark.column + 1
        if node.style in ("|", ">"):
            for i in range(line, len(self.lines)):
                text = self.lines[i]
                if text.strip():
                    indent = len(text) - len(text.lstrip(" "))
                    return Origin(self.file, i + 1, indent + 1, indent)
            return Origin(self.file, line + 1, 1, 0)
        if node.style in ('"', "'"):
            return Origin(self.file, line, col + 1, col)
        return Origin(self.file, line, col, col - 1)

    def build(self, node: yaml.Node, path: Path_, depth: int) -> Any:
        self.count += 1
        if self.count > MAX_NODES:
            self.fail("RP005", f"the document expands to more than {MAX_NODES} values", node.start_mark,
                      hint="aliases (*name) that repeat large anchors multiply the size; write the data out",
                      path=path)
        if depth > MAX_DEPTH:
            self.fail("RP005", f"the document is nested more than {MAX_DEPTH} levels deep", node.start_mark,
                      hint="flatten the structure", path=path)
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
                    self.fail("RP007", "a mapping key must be a plain scalar", key_node.start_mark, path=path)
                key = self.scalar(key_node, path)
                if not isinstance(key, (str, int)) or isinstance(key, bool):
                    key = key_node.value
                key = str(key)
                if key in out:
                    first = self.doc.key_positions.get(path + (key,), (0, 0))
                    self.fail("RP003", f"duplicate key {key!r} (first defined at line {first[0]})",
                              key_node.start_mark, hint="remove one of the two entries", path=path + (key,))
                self.doc.key_positions[path + (key,)] = (key_node.start_mark.line + 1,
                                                         key_node.start_mark.column + 1)
                out[key] = self.build(value_node, path + (key,), depth + 1)
            return out
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, path + (i,), depth + 1) for i, item in enumerate(node.value)]
        value = self.scalar(node, path)
        if isinstance(value, str):
            self.doc.origins[path] = self._origin(node)
        return value

    def check_tag(self, node: yaml.Node, path: Path_) -> None:
        if node.tag not in _ALLOWED_TAGS:
            name = node.tag.replace("tag:yaml.org,2002:", "!!")
            self.fail("RP007", f"YAML tag {name!r} is not allowed", node.start_mark,
                      hint="rulesets are plain data (maps, lists, text, numbers, booleans, null); remove the tag",
                      path=path)

    def scalar(self, node: yaml.ScalarNode, path: Path_) -> Any:
        self.check_tag(node, path)
        tag, text = node.tag, node.value
        if tag == "tag:yaml.org,2002:str" or node.style is not None:
            return text
        if tag == "tag:yaml.org,2002:null":
            return None
        if tag == "tag:yaml.org,2002:bool":
            if text.lower() not in _BOOL_WORDS:
                meaning = "true" if text.lower() in ("yes", "on", "y") else "false"
                self.fail("RP004", f"`{text}` is read as the boolean {meaning} by YAML 1.1",
                          node.start_mark, hint=f"write \"{text}\" (quoted) for text, or {meaning} for a boolean",
                          path=path)
            return text.lower() == "true"
        if tag == "tag:yaml.org,2002:int":
            if _OCTAL_LIKE.match(text) or _SEXAGESIMAL.match(text) or _OTHER_INT.match(text):
                self.fail("RP004", f"`{text}` is read as the number {yaml.safe_load(text)} by YAML 1.1",
                          node.start_mark, hint=f"write \"{text}\" (quoted) for text, or a plain decimal number",
                          path=path)
            return int(text.replace("_", ""))
        if tag == "tag:yaml.org,2002:float":
            if _SEXAGESIMAL.match(text):
                self.fail("RP004", f"`{text}` is read as a base-60 number by YAML 1.1", node.start_mark,
                          hint=f"quote it: \"{text}\"", path=path)
            try:
                value = float(text.replace("_", ""))
            except ValueError:
                self.fail("RP004", f"`{text}` is not a finite number", node.start_mark,
                          hint="write a plain decimal number", path=path)
            if value != value or value in (float("inf"), float("-inf")):
                self.fail("RP004", f"`{text}` is not a finite number", node.start_mark,
                          hint="write a plain decimal number", path=path)
            return value
        return text


def _yaml_error(file: str, text: str, err: yaml.YAMLError) -> Diagnostic:
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    line = mark.line + 1 if mark is not None else 1
    col = mark.column + 1 if mark is not None else 1
    problem = getattr(err, "problem", None) or str(err)
    context = getattr(err, "context", None)
    message = f"YAML syntax error: {problem}" + (f" ({context})" if context else "")
    hint = "check indentation and brackets around this point"
    if "\t" in problem or "'\\t'" in problem:
        hint = "YAML indentation must use spaces, not tabs"
    elif "could not find expected ':'" in problem:
        hint = "a mapping entry needs `key: value`; a continued string needs quotes or a | block"
    elif "expected ',' or ']'" in problem or "expected ',' or '}'" in problem:
        hint = "a bracket is not closed, or items are missing commas"
    elif "mapping values are not allowed" in problem:
        hint = "quote a value that contains `: `, or fix the indentation"
    lines = text.splitlines()
    source = lines[line - 1] if 0 < line <= len(lines) else ""
    return Diagnostic("RP002", message, file, line, col, hint=hint, source_line=source)


def _decode(raw: bytes, file: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        before = raw[: err.start]
        line = before.count(b"\n") + 1
        col = err.start - (before.rfind(b"\n") + 1) + 1
        raise YamlProblem(Diagnostic("RP001", f"the file is not valid UTF-8 (byte 0x{raw[err.start]:02x})",
                                     file, line, col, hint="save the file as UTF-8")) from None


def load_document(raw: bytes | str, file: str = "<input>", max_bytes: int = MAX_FILE_BYTES) -> Document:
    """Parse one YAML document into a `Document`; raises `YamlProblem` on any problem."""
    size = len(raw.encode("utf-8") if isinstance(raw, str) else raw)
    if size > max_bytes:
        raise YamlProblem(Diagnostic("RP001", f"the file is {size} bytes, over the limit of {max_bytes}",
                                     file, 1, 1, hint="rulesets are small; split data into variant files"))
    text = raw if isinstance(raw, str) else _decode(raw, file)
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise YamlProblem(Diagnostic("RP001", "the file contains a NUL byte", file, line, 1,
                                     hint="this looks like a binary file, not YAML"))
    if not text.strip():
        raise YamlProblem(Diagnostic("RP006", "the file is empty", file, 1, 1,
                                     hint="a ruleset starts with `ruleplay: 1` and `game: NAME`"))
    try:
        nodes = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    except yaml.YAMLError as err:
        raise YamlProblem(_yaml_error(file, text, err)) from None
    except RecursionError:
        raise YamlProblem(Diagnostic("RP005", "the document is nested too deeply to read", file, 1, 1,
                                     hint="flatten the structure")) from None
    nodes = [n for n in nodes if n is not None]
    if not nodes:
        raise YamlProblem(Diagnostic("RP006", "the file holds no YAML document (only comments?)", file, 1, 1,
                                     hint="a ruleset starts with `ruleplay: 1` and `game: NAME`"))
    if len(nodes) > 1:
        mark = nodes[1].start_mark
        raise YamlProblem(Diagnostic("RP006", "the file holds more than one YAML document", file,
                                     mark.line + 1, mark.column + 1, hint="remove the `---` separator"))
    builder = _Builder(file, text)
    try:
        builder.doc.data = builder.build(nodes[0], (), 0)
    except RecursionError:
        raise YamlProblem(Diagnostic("RP005", "the document is nested too deeply to read", file, 1, 1,
                                     hint="flatten the structure")) from None
    return builder.doc
