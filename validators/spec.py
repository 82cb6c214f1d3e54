"""Reading a rule specification (Markdown) for its rule ids.

A rule is a list item that starts with its bold id: `- **NC-4.2** text`.
Only those count as rules; ids mentioned elsewhere in the prose do not, nor
do rule lines inside fenced code blocks (``` or ~~~), where a spec shows the
format by example.  Every rule line is returned, an id defined twice
included, so the citation check can report the second one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ruleplay.dsl.variants import file_kind, read_regular

RULE_LINE = re.compile(r"^\s*[-*]\s+\*\*([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+(?:\.[A-Za-z0-9]+)*)\*\*")
LINE_END = re.compile(r"\r\n|\r|\n")  # where editors end a line (not at \u2028 or \x0c, as `splitlines` does)
# A fence opens with three or more backticks or tildes (a backtick fence's info string holds no backtick) and
# closes with at least as many of the same character and nothing else; indented, as inside list items, too.
FENCE = re.compile(r"^\s*(`{3,}(?!.*`)|~{3,})")


@dataclass(frozen=True)
class SpecRule:
    id: str
    line: int
    text: str


MAX_SPEC_BYTES = 4_000_000  # a rule text many times the length of any game's rulebook


def read_spec(path: Path) -> list[SpecRule]:
    """The rules of a spec file; OSError if it is not a regular file, too large or not UTF-8 text.

    A FIFO is refused without waiting for a writer (`read_regular` opens
    without blocking), and the error says what the path is.
    """
    kind = file_kind(path)
    if kind != "a regular file":
        raise OSError(f"{path} is {kind or 'missing'}, not a regular file")
    try:
        raw = read_regular(path, MAX_SPEC_BYTES)
    except OSError as err:
        raise OSError(f"{path}: {err.strerror or err}") from None
    if len(raw) > MAX_SPEC_BYTES:
        raise OSError(f"{path} is over {MAX_SPEC_BYTES} bytes")
    try:
        # "utf-8-sig": an editor's byte-order mark is no text, and it hid the first line's rule
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise OSError(f"{path} is not UTF-8 text ({err.reason} at byte {err.start})") from None
    rules = []
    fence = ""  # the fence of the code block the line is in, "" outside code
    # `splitlines` also split at \u2028 and \x0c: every rule after one was reported a line below where it is.
    for n, line in enumerate(LINE_END.split(text), start=1):
        found = FENCE.match(line)
        if fence:
            if found and _closes(fence, found.group(1), line[found.end():]):
                fence = ""
            continue
        if found:
            fence = found.group(1)
            continue
        m = RULE_LINE.match(line)
        if m:
            rules.append(SpecRule(m.group(1), n, line.strip()))
    return rules


def _closes(fence: str, mark: str, rest: str) -> bool:
    """Whether a fence line `mark` + `rest` closes the code block `fence` opened (CommonMark's rule)."""
    return mark[0] == fence[0] and len(mark) >= len(fence) and not rest.strip()
