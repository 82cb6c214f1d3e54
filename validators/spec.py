"""Reading a rule specification (Markdown) for its rule ids.

A rule is a list item that starts with its bold id: `- **NC-4.2** text`.
Only those count as rules; ids mentioned elsewhere in the prose do not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ruleplay.dsl.variants import file_kind, read_regular

RULE_LINE = re.compile(r"^\s*[-*]\s+\*\*([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+(?:\.[A-Za-z0-9]+)*)\*\*")


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
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise OSError(f"{path} is not UTF-8 text ({err.reason} at byte {err.start})") from None
    rules = []
    for n, line in enumerate(text.splitlines(), start=1):
        m = RULE_LINE.match(line)
        if m:
            rules.append(SpecRule(m.group(1), n, line.strip()))
    return rules
