"""Test set-up shared by the interpreter's tests: a console that a script types at."""

from __future__ import annotations

from typing import Sequence

import pytest


class _Script:
    """A console that types the given lines and keeps everything shown (prompts included)."""

    def __init__(self, *lines: str):
        self.lines = list(lines)
        self.shown: list[str] = []
        self.choices: list[Sequence[str]] = []

    def show(self, text: str) -> None:
        self.shown.append(text)

    def ask(self, prompt: str, choices: Sequence[str]) -> str:
        self.shown.append(prompt)
        self.choices.append(choices)
        if not self.lines:
            raise EOFError
        return self.lines.pop(0)

    @property
    def text(self) -> str:
        return "\n".join(self.shown)


@pytest.fixture
def Script() -> type:
    """The class of a scripted console: `Script(*lines)` types `lines` and keeps what it is shown in `.text`."""
    return _Script
