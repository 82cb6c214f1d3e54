"""The README's Python API examples run, in order, and print what they say they print."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from docblocks import read_blocks

README = Path(__file__).resolve().parents[1] / "README.md"


def section_blocks(heading: str) -> list[str]:
    """The python blocks between `heading` and the next heading of its level."""
    text = README.read_text(encoding="utf-8").splitlines()
    first = text.index(heading) + 1
    last = next((i for i in range(first, len(text)) if text[i].startswith("## ")), len(text))
    return [b.text for b in read_blocks(README) if b.lang == "python" and first < b.line <= last]


def test_the_python_api_examples_run_and_print_their_comments():
    blocks = section_blocks("## Python API")
    assert len(blocks) == 2
    out = io.StringIO()
    names: dict = {}
    with contextlib.redirect_stdout(out):
        for code in blocks:
            exec(compile(code, str(README), "exec"), names)  # noqa: S102 - the README's own examples
    said = [line.split("#")[1].strip() for line in blocks[1].splitlines() if line.startswith("print(") and "#" in line]
    assert out.getvalue().splitlines()[-len(said):] == said
