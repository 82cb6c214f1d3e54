"""Read the fenced code blocks of a Markdown document, with what the document says about each.

The documentation's examples are tested, so that they cannot drift from the
engine.  A block is described either by attributes in its info string
(```yaml title="nim.yaml"```) or by an HTML comment on the line just before it
(`<!-- check: fragment -->`), which renders as nothing.  This module only
finds the blocks; the tests decide what each kind of block must do.
"""

from __future__ import annotations

import random
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
DIRECTIVE = re.compile(r"^\s*<!--\s*(?P<body>.*?)\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    """One fenced block: its language, info-string attributes, the directive before it, its text."""

    lang: str
    attrs: dict[str, str]
    directive: str | None
    text: str
    line: int  # 1-based line of the opening fence

    def where(self, doc: Path) -> str:
        return f"{doc.name}:{self.line}"


def _attrs(info: str) -> tuple[str, dict[str, str]]:
    words = shlex.split(info)
    if not words:
        return "", {}
    lang, rest = words[0], words[1:]
    attrs = {}
    for word in rest:
        key, _, value = word.partition("=")
        attrs[key] = value
    return lang, attrs


def read_blocks(path: Path) -> list[Block]:
    """Every fenced block of the document, in order."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, indent = m.group("fence"), len(m.group("indent"))
        lang, attrs = _attrs(m.group("info").strip())
        directive = None
        j = i - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        if j >= 0 and (d := DIRECTIVE.match(lines[j])):
            directive = d.group("body")
        body: list[str] = []
        k = i + 1
        while k < len(lines) and not lines[k].strip().startswith(fence):
            body.append(lines[k][indent:] if lines[k][:indent].strip() == "" else lines[k])
            k += 1
        if k >= len(lines):
            raise AssertionError(f"{path.name}:{i + 1}: code block never closed")
        out.append(Block(lang, attrs, directive, "\n".join(body) + "\n", i + 1))
        i = k + 1
    return out


@dataclass
class Directive:
    """`check: KIND ARG; key: value; …` parsed from an HTML comment."""

    kind: str
    arg: str = ""
    options: dict[str, str] = field(default_factory=dict)


def parse_directive(text: str | None) -> Directive | None:
    if text is None or not text.startswith("check:"):
        return None
    parts = [p.strip() for p in text[len("check:"):].split(";")]
    head = parts[0].split(None, 1)
    directive = Directive(head[0], head[1].strip() if len(head) > 1 else "")
    for part in parts[1:]:
        key, _, value = part.partition(":")
        directive.options[key.strip()] = value.strip()
    return directive


def play_random(game, seed: int, max_moves: int = 300):
    """A seeded random game; returns the last state (terminal, or after `max_moves`)."""
    rng = random.Random(seed)
    state = game.new_state(seed=seed)
    for _ in range(max_moves):
        if state.is_terminal():
            break
        state = state.apply_chance() if state.is_chance_node() else state.apply(rng.choice(state.legal_moves()))
    return state
