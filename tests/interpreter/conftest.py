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


@pytest.fixture
def disk_full(monkeypatch: pytest.MonkeyPatch):
    """`disk_full(folder, room=0)`: from now on the files in `folder` take `room` more bytes in all, and a
    write past that is cut short and then refused with ENOSPC, as a full file system does.

    Fault injection at `os.write` (every ruleplay writer writes through it),
    matching each descriptor's file by its path in /proc/self/fd: the
    writes of pytest and of other folders go through untouched.
    """
    import errno
    import os

    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("needs /proc/self/fd to tell which file a write goes to")
    room: dict[str, int] = {}
    real_write = os.write

    def write(fd: int, data: bytes) -> int:
        try:
            folder = os.path.dirname(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            folder = ""
        if folder not in room:
            return real_write(fd, data)
        if room[folder] <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        written = real_write(fd, memoryview(data)[:room[folder]])
        room[folder] -= written
        return written

    def fill(folder: object, left: int = 0) -> None:
        room[os.path.realpath(str(folder))] = left

    monkeypatch.setattr(os, "write", write)
    return fill
