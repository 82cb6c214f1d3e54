"""Reading a rule specification (Markdown) for its rule ids.

A rule is a list item that starts with its bold id: `- **NC-4.2** text`.
Only those count as rules; ids mentioned elsewhere in the prose do not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

RULE_LINE = re.compile(r"^\s*[-*]\s+\*\*([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+(?:\.[A-Za-z0-9]+)*)\*\*")


@dataclass(frozen=True)
class SpecRule:
    id: str
    line: int
    text: str


def read_spec(path: Path) -> list[SpecRule]:
    rules = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        m = RULE_LINE.match(line)
        if m:
            rules.append(SpecRule(m.group(1), n, line.strip()))
    return rules
