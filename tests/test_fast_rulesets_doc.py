"""docs/fast-rulesets.md: what it quotes is what the files say, and its commands' output has their form."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner
from docblocks import read_blocks

from ruleplay.cli import main

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "fast-rulesets.md"


def test_every_excerpt_is_in_the_file_it_names():
    excerpts = [b for b in read_blocks(DOC) if b.directive and b.directive.startswith("excerpt:")]
    assert len(excerpts) >= 4
    for block in excerpts:
        source = ROOT / block.directive.removeprefix("excerpt:").strip()
        assert block.text in source.read_text(encoding="utf-8"), f"{block.where(DOC)} is not in {source}"


def test_the_profiles_shown_have_the_commands_form():
    shown = [b.text for b in read_blocks(DOC) if b.text.startswith("othello (2 players): ")]
    assert len(shown) == 2
    out = CliRunner().invoke(main, ["profile", str(ROOT / "tests" / "rulesets" / "othello.yaml"), "--games", "1"])
    header = re.compile(r"othello \(2 players\): \d+ games?, \d+ moves in [\d.]+ s; the ruleset's own code took "
                        r"[\d.]+ s \(\d+%\), the engine the rest")
    for text in [out.output, *shown]:
        first, columns = text.splitlines()[:2]
        assert header.fullmatch(first), first
        assert columns.split() == ["own", "s", "own", "total", "s", "calls", "where", "what"]
