"""Regenerate the builtin-function table of docs/dsl.md from dsl/builtins.py.

The table lives between the markers `<!-- builtins:start -->` and
`<!-- builtins:end -->`; everything it says (name, arguments, result type,
description) comes from the `BUILTINS` registry and the functions'
docstrings, so the reference cannot disagree with the engine.  Run

    python docs/build_reference.py

after adding or changing a builtin; `tests/test_dsl_doc.py` fails while the
table is stale.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

from ruleplay.dsl.builtins import BUILTINS, Builtin

DOC = Path(__file__).resolve().parent / "dsl.md"
START, END = "<!-- builtins:start -->", "<!-- builtins:end -->"


def signature(spec: Builtin) -> str:
    """`name(a, b?, n=1)`: `?` marks an argument that may be left out."""
    params = list(inspect.signature(spec.fn).parameters.values())
    if spec.needs_ctx:
        params = params[1:]
    parts = []
    for p in params:
        if p.default is inspect.Parameter.empty:
            parts.append(p.name)
        elif p.default is None:
            parts.append(f"{p.name}?")
        else:
            parts.append(f"{p.name}={p.default!r}")
    return f"{spec.name}({', '.join(parts)})"


def builtin_table() -> str:
    """The Markdown table of every builtin, in registry order."""
    rows = ["| function | result | what it gives |", "|---|---|---|"]
    for spec in BUILTINS.values():
        doc = " ".join(spec.doc.split()).replace("|", "\\|")
        rows.append(f"| `{signature(spec)}` | {spec.returns} | {doc} |")
    return "\n".join(rows)


def with_table(text: str) -> str:
    """The document text with the table between the markers replaced."""
    head, start, rest = text.partition(START)
    _, end, tail = rest.partition(END)
    if not start or not end:
        raise SystemExit(f"{DOC}: the markers {START} and {END} are missing")
    return f"{head}{START}\n{builtin_table()}\n{END}{tail}"


def main() -> int:
    text = DOC.read_text(encoding="utf-8")
    new = with_table(text)
    if new != text:
        DOC.write_text(new, encoding="utf-8")
        print(f"updated the builtin table in {DOC}")
    else:
        print(f"{DOC}: the builtin table is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
