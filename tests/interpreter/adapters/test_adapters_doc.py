"""docs/adapters.md is exact: its Python examples run, and its tic-tac-toe figure is the encoder's."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo", reason="the adapters need the `rl` extra")
pytest.importorskip("pyspiel", reason="the adapters need the `rl` extra")

from docblocks import read_blocks
from ruleplay import load_game
from ruleplay.adapters.encoding import Encoding

DOC = Path(__file__).resolve().parents[3] / "docs" / "adapters.md"
EXAMPLES = [b for b in read_blocks(DOC) if b.lang == "python"]


def test_the_page_has_examples():
    assert len(EXAMPLES) == 3


@pytest.mark.parametrize("block", EXAMPLES, ids=lambda b: f"line-{b.line}")
def test_each_python_example_runs(block, tmp_path, capsys):
    script = tmp_path / "example.py"
    script.write_text(block.text, encoding="utf-8")
    runpy.run_path(str(script), run_name="__main__")
    assert capsys.readouterr().out.strip()


def test_the_tic_tac_toe_size_the_page_gives():
    assert "Tic-tac-toe, for instance, has 53 numbers" in DOC.read_text(encoding="utf-8")
    assert Encoding(load_game("tic-tac-toe")).size == 53
