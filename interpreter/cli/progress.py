"""Progress of a long run on stderr: how much is done, at what rate, and the time left.

`simulate`, `compare`, `tournament`, `analyze`, `perft` and `scenario
--mutate` can run for minutes or hours; without a word on the terminal a
user cannot tell a long run from a stuck one.  So each shows a progress
bar (rich) on stderr, and only when stderr is a terminal: a pipe, a file
or a test runner reading stderr gets nothing, so logs and captured output
stay clean.  Stdout is never written, so `--json` output (or `--report`)
holds only its document, whatever stderr is.

A run that ends within `SHOWN_AFTER` seconds shows nothing (no bar that
flashes up and is gone); a longer one shows the bar from then on.  The bar
redraws only when told to, at most `REDRAWS_PER_S` times a second, never
from a thread of its own: batches fork worker processes, and forking a
process that runs threads is unsafe.  Commands import this module when
they run, so the command line starts without loading rich's progress.
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, ProgressColumn, TextColumn
from rich.progress import Progress as Bar
from rich.text import Text

from .output import terminal_safe

REDRAWS_PER_S = 10
SHOWN_AFTER = 0.5  # seconds
BAR_WIDTH = 20  # characters: the whole line fits an 80-column terminal


class _Rate(ProgressColumn):
    """Units a second, from rich's moving estimate of the task's speed."""

    def __init__(self, unit: str):
        super().__init__()
        self.unit = unit

    def render(self, task: Any) -> Text:
        speed = task.speed
        if speed is None:
            return Text("")
        return Text(f"{speed:,.2f} {self.unit}/s" if speed < 10 else f"{speed:,.0f} {self.unit}/s")


class _Times(ProgressColumn):
    """The time taken so far and, once a rate is known and there is a total, the time left."""

    def render(self, task: Any) -> Text:
        text = f"{_clock(task.elapsed or 0)} elapsed"
        if task.total is not None and task.time_remaining is not None:
            text += f", {_clock(task.time_remaining)} left"
        return Text(text, style="progress.elapsed")


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class Progress:
    """One run's progress, used as a context manager: `advance(k)` as k more units finish (games, rules),
    or `update(done)` to set what is done; nothing at all when stderr is not a terminal.

    `total` None shows a count and a rate, without a bar or a time left (an
    amount of work not known in advance).  `share` counts in shares of the
    whole instead (perft's estimate of the tree walked, 0 to 1), shown as a
    percentage, with `extra` text beside it (the states reached).
    """

    def __init__(self, label: str, total: int | None, unit: str, share: bool = False):
        self.label, self.total, self.unit, self.share = terminal_safe(label), total, unit, share
        self.active = sys.stderr.isatty()
        self._bar: Bar | None = None
        self._started = time.monotonic()
        self._done, self._extra = 0.0, ""
        self._drawn = 0.0

    def __enter__(self) -> "Progress":
        self._started = time.monotonic()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
        self.active = False

    def advance(self, k: int = 1) -> None:
        self.update(self._done + k)

    def update(self, done: float, extra: str | None = None, total: int | None = None) -> None:
        """`done` units (or the share done) so far; `extra` text beside the counts; `total` once known."""
        if not self.active:
            return
        self.total = self.total if total is None else total
        self._done = done
        self._extra = self._extra if extra is None else extra
        if self._bar is None:
            if time.monotonic() - self._started < SHOWN_AFTER:
                return
            self._bar = self._new_bar()
        self._bar.update(self._bar.task_ids[0], completed=done, extra=self._extra,
                         total=1.0 if self.share else self.total)
        self._draw()

    def _new_bar(self) -> Bar:
        columns: list[Any] = [TextColumn("{task.description}", markup=False)]
        if self.share:
            columns += [BarColumn(bar_width=BAR_WIDTH), TextColumn("{task.percentage:>3.0f}%"),
                        TextColumn("{task.fields[extra]}", markup=False), _Times()]
        elif self.total is not None:
            columns += [BarColumn(bar_width=BAR_WIDTH),
                        TextColumn("{task.completed:,.0f}/{task.total:,.0f} " + self.unit), _Rate(self.unit), _Times()]
        else:
            columns += [TextColumn("{task.completed:,.0f} " + self.unit), _Rate(self.unit), _Times()]
        bar = Bar(*columns, console=Console(stderr=True), transient=True, auto_refresh=False)
        bar.add_task(self.label, total=1.0 if self.share else self.total, completed=self._done, extra=self._extra)
        bar.tasks[0].start_time = bar.get_time() - (time.monotonic() - self._started)  # elapsed: since the run began
        bar.start()
        return bar

    def _draw(self) -> None:
        assert self._bar is not None
        now = time.monotonic()
        if now - self._drawn >= 1 / REDRAWS_PER_S or self._bar.tasks[0].finished:
            self._bar.refresh()
            self._drawn = now
