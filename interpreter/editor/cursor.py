"""Where a cursor is in a ruleset's text being typed: the YAML path, and whether a key, a value or code.

The text under the cursor seldom parses (a key half typed, an expression
not closed), so this reads indentation, as a person does: the lines above
that are indented less give the keys (and list items) the cursor sits
under. Block scalars (`|`, `>`) are code or text to their end.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LINE = re.compile(r"^(?P<indent> *)(?P<dash>(?:- +)*)(?:(?P<key>[A-Za-z_][\w-]*|\"[^\"]*\"|'[^']*') *:(?= |$))?(?P<rest>.*)$")
_BLOCK = re.compile(r"^[|>][-+0-9]*\s*(#.*)?$")


@dataclass(frozen=True)
class Cursor:
    """`path` is the field the cursor is in (for a key: the mapping it would be added to); `kind` is "key",
    "value" or "code"; `typed` is what is written before the cursor in that key, value or code."""

    path: tuple
    kind: str
    typed: str
    siblings: frozenset[str] = frozenset()  # the keys the mapping already has (for "key")


@dataclass(frozen=True)
class _Line:
    indent: int  # where the content starts (after any dashes)
    dashes: tuple[int, ...]  # the column (from 0) of each `- ` that opens a list item on the line
    key: str | None
    rest: str  # what follows `key:` (or the content, with no key)

    @property
    def start(self) -> int:
        return self.dashes[0] if self.dashes else self.indent


def _parse(line: str) -> _Line | None:
    if not line.strip() or line.lstrip().startswith("#"):
        return None
    m = _LINE.match(line)
    assert m is not None  # the pattern matches any line
    base = len(m.group("indent"))
    dashes, at = [], base
    for part in re.findall(r"- +", m.group("dash")):
        dashes.append(at)
        at += len(part)
    key = m.group("key")
    if key is not None and key[0] in "\"'":
        key = key[1:-1]
    return _Line(at, tuple(dashes), key, m.group("rest").strip() if key is not None else m.group("rest"))


def _path_above(lines: list[str], row: int, indent: int) -> tuple:
    """The keys and list positions above `row` that hold a line starting at column `indent`."""
    path: list = []
    target = indent
    for r in range(row - 1, -1, -1):
        if target == 0:
            break
        parsed = _parse(lines[r])
        if parsed is None:
            continue
        if parsed.key is not None and parsed.indent < target:
            path.insert(0, parsed.key)
            target = parsed.indent
        for dash in reversed(parsed.dashes):
            if dash < target:
                path.insert(0, _item_index(lines, r, dash))
                target = dash
        if parsed.start < target:  # a plain value less indented: nothing here holds the line
            target = parsed.start
    return tuple(path)


def _item_index(lines: list[str], row: int, dash: int) -> int:
    """Which item of its list the `- ` at column `dash` of `row` opens (0 for the first)."""
    count = 0
    for r in range(row - 1, -1, -1):
        parsed = _parse(lines[r])
        if parsed is None:
            continue
        if parsed.start < dash:
            break
        if parsed.start == dash and parsed.dashes and parsed.dashes[0] == dash:
            count += 1
    return count


def _siblings(lines: list[str], row: int, indent: int) -> frozenset[str]:
    """The keys written at column `indent` in the same mapping as `row` (above and below it)."""
    found = set()
    for step in (-1, 1):
        r = row + step
        while 0 <= r < len(lines):
            parsed = _parse(lines[r])
            r += step
            if parsed is None:
                continue
            if parsed.indent < indent or (parsed.indent == indent and parsed.key is None):
                break
            if parsed.indent == indent and parsed.key is not None:
                found.add(parsed.key)
                if parsed.dashes:  # the first key of a list item: the mapping starts here
                    break
    return frozenset(found)


def _in_block(lines: list[str], row: int, col: int) -> Cursor | None:
    """The cursor inside a block scalar (`key: |`): the field and the block's text up to the cursor."""
    here = lines[row][:col]
    here_indent = len(here) - len(here.lstrip(" ")) if here.strip() else None
    for r in range(row - 1, -1, -1):
        parsed = _parse(lines[r])
        if parsed is None:
            continue
        if here_indent is not None and parsed.indent >= here_indent and not _BLOCK.match(parsed.rest):
            continue
        if parsed.key is not None and _BLOCK.match(parsed.rest):
            body = lines[r + 1:row] + [here]
            return Cursor(_path_above(lines, r, parsed.indent) + (parsed.key,), "code", "\n".join(body))
        if here_indent is None or parsed.indent < here_indent:
            return None
    return None


def cursor_at(text: str, line: int, col: int) -> Cursor:
    """Where the cursor at `line`, `col` (from 1; `col` is the character it is before) is."""
    lines = text.split("\n")
    row = min(max(line - 1, 0), len(lines) - 1) if lines else 0
    current = lines[row] if lines else ""
    before = current[:col - 1]
    block = _in_block(lines, row, col - 1)
    if block is not None:
        return block
    parsed = _parse(before + "x")  # the cursor's own (possibly empty) word counts as written
    if parsed is None:
        return Cursor((), "key", "")
    if parsed.key is None:
        path = _path_above(lines, row, parsed.start)
        for dash in parsed.dashes:
            path += (_item_index(lines, row, dash),)
        typed = parsed.rest[:-1]
        if re.fullmatch(r"[\w-]*", typed):
            return Cursor(path, "key", typed, _siblings(lines, row, parsed.indent))
        return Cursor(path, "value", typed)
    path = _path_above(lines, row, parsed.start)
    for dash in parsed.dashes:
        path += (_item_index(lines, row, dash),)
    value = parsed.rest[:-1]
    flow = re.search(r"\[([^\[\]]*)$", value)  # inside `[a, b, ` of a list written on one line
    if flow is not None:
        items = flow.group(1).split(",")
        return Cursor(path + (parsed.key, len(items) - 1), "value", items[-1].strip().strip("\"'"))
    return Cursor(path + (parsed.key,), "value", value.lstrip("\"'"))
