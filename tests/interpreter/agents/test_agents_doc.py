"""docs/agents.md's Python example runs as written."""

from __future__ import annotations

import runpy
from pathlib import Path

from docblocks import read_blocks

DOC = Path(__file__).resolve().parents[3] / "docs" / "agents.md"


def test_the_python_example_runs(tmp_path):
    (block,) = [b for b in read_blocks(DOC) if b.lang == "python"]
    script = tmp_path / "example.py"
    script.write_text(block.text + "\nassert state.current_player == 1 and len(state.history) == 1\n", encoding="utf-8")
    runpy.run_path(str(script), run_name="__main__")
