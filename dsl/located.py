"""Where DSL text sits in its ruleset file, and the syntax error that points there.

Kept apart from the Lark side of parsing (`dsl.larkparse`) so that every
module which only names a position or catches a syntax error — the YAML
loader, the variants, the engine's builders — can do so without loading Lark.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import ast as A


@dataclass(frozen=True)
class Origin:
    """Where a piece of DSL text sits in its file.

    `line`/`col` locate the text's first character; later lines of a block
    scalar start at column `indent + 1`.  Text that YAML rewrote on reading
    (folded lines, escapes in quotes) carries `points` instead: the file line
    and column of each of its characters.
    """

    file: str = "<text>"
    line: int = 1
    col: int = 1
    indent: int = 0
    points: tuple[tuple[tuple[int, int], ...], ...] = ()  # per line of text, per character

    def pos(self, line: int, col: int) -> A.Pos:
        if self.points:
            index = min(max(line, 1), len(self.points)) - 1
            row = self.points[index]
            if 0 < col <= len(row):
                return A.Pos(self.file, *row[col - 1])
            # Past the end of the line (or an empty last line): just after the last character seen.
            last_line, last_col = next(r[-1] for r in reversed(self.points[: index + 1]) if r)
            return A.Pos(self.file, last_line, last_col + max(col - len(row), 1))
        if line <= 1:
            return A.Pos(self.file, self.line, self.col + col - 1)
        return A.Pos(self.file, self.line + line - 1, self.indent + col)


class DslSyntaxError(Exception):
    """A syntax error in DSL text, located in the ruleset file."""

    def __init__(self, message: str, pos: A.Pos, hint: str = "", code: str = "RP200"):
        super().__init__(message)
        self.message = message
        self.pos = pos
        self.hint = hint
        self.code = code

