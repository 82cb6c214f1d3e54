"""Compiler-style diagnostics: code, location, message, caret line, hint.

Every problem the loader or a validator finds becomes a `Diagnostic`; they are
collected (never raised one at a time) so an author sees all of them at once.
`RulesetError` carries the whole list out of `load_game`.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .errors import RuleplayError

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Related:
    """Another place a diagnostic is about: where a name given twice was given first, say."""

    message: str
    file: str
    line: int
    col: int

    def format(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: {self.message}"


@dataclass(frozen=True)
class Diagnostic:
    code: str
    message: str
    file: str = "<input>"
    line: int = 0
    col: int = 0
    severity: str = ERROR
    hint: str = ""
    path: str = ""  # YAML path such as actions.place.require[0]
    source_line: str = field(default="", compare=False)
    related: tuple[Related, ...] = ()

    def format(self) -> str:
        where = f"{self.file}:{self.line}:{self.col}" if self.line else self.file
        out = [f"{where}: {self.severity} {self.code}: {self.message}"]
        if self.source_line:
            out.extend(caret_lines(self.source_line, self.col))
        if self.path:
            out.append(f"  at: {self.path}")
        if self.hint:
            out.append(f"  hint: {self.hint}")
        out.extend(f"  see: {r.format()}" for r in self.related)
        return printable("\n".join(out))

    def to_dict(self) -> dict:
        data = asdict(self)
        data.pop("source_line")
        return data


_SURROGATE = re.compile("[\ud800-\udfff]")


def printable(text: str) -> str:
    """Text any UTF-8 stream can take: a lone surrogate becomes its escape (`\\udcff`).

    The loader refuses surrogates in a ruleset's text, but a file name that is
    not valid UTF-8 reaches Python as one (`os.fsdecode`), and a diagnostic
    naming that file must still print rather than raise while reporting.
    """
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


MAX_SHOWN = 120  # characters of a source line shown above the caret


def caret_lines(source_line: str, col: int) -> list[str]:
    """The source line (clipped around `col` when long) and a caret under column `col`, indented."""
    shown, at = _clip(source_line.rstrip("\n"), col)
    return ["    " + shown, "    " + " " * max(at - 1, 0) + "^"]


def _clip(line: str, col: int) -> tuple[str, int]:
    """A window of a long source line around `col`, and the caret's column in it."""
    if len(line) <= MAX_SHOWN:
        return line, col
    start = max(0, min(col - 1 - MAX_SHOWN // 2, len(line) - MAX_SHOWN))
    before = "…" if start else ""
    after = "…" if start + MAX_SHOWN < len(line) else ""
    return before + line[start:start + MAX_SHOWN] + after, col - start + len(before)


class RulesetError(RuleplayError):
    """Raised when a ruleset cannot be loaded; holds every diagnostic found (`code` is the first error's)."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = diagnostics
        errors = [d for d in diagnostics if d.severity == ERROR]
        first = errors[0].format() if errors else "invalid ruleset"
        more = f"\n(+{len(errors) - 1} more)" if len(errors) > 1 else ""
        super().__init__(first + more, errors[0].code if errors else "RP100")

    def __reduce__(self) -> tuple:
        """Made again from its diagnostics, so it crosses to another process whole (a worker's load)."""
        return type(self), (self.diagnostics,)

    def format(self) -> str:
        return "\n".join(d.format() for d in self.diagnostics)

    def to_json(self) -> str:
        return json.dumps([d.to_dict() for d in self.diagnostics], indent=2)


class SourceLines:
    """Caches file lines so diagnostics can show the offending source line."""

    def __init__(self) -> None:
        self._cache: dict[str, list[str]] = {}

    def add(self, file: str, text: str) -> None:
        self._cache[file] = text.splitlines()

    def line(self, file: str, line: int) -> str:
        lines = self._cache.get(file)
        if lines is None:
            try:
                lines = Path(file).read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                lines = []
            self._cache[file] = lines
        return lines[line - 1] if 0 < line <= len(lines) else ""


def sort_key(d: Diagnostic) -> tuple:
    return (d.file, d.line, d.col, d.code)
