"""docs/tutorial.md cannot rot: its files are assembled, loaded, played, and its commands re-run.

Blocks whose info string has `title="FILE"` are sections of FILE; joined in
order they make the tutorial's files (the ruleset, its spec, a Python script,
a scenario).  A ```sh block after `<!-- run -->` is run in the folder of those
files (`; exit: N` expects that exit code, `; edit: FILE | OLD | NEW` runs it
on a copy with one text replaced, `; sections: FILE N` on a copy where FILE holds only
its first N sections), and a ```text block after `<!-- output -->`
must be exactly what the commands before it printed.
"""

from __future__ import annotations

import contextlib
import io
import runpy
import shutil
from collections import OrderedDict
from pathlib import Path

import pytest
from click.testing import CliRunner

from docblocks import Block, play_random, read_blocks
from ruleplay import load_game
from ruleplay.cli import main
from ruleplay.authoring.runner import run_scenarios

DOC = Path(__file__).resolve().parent.parent / "docs" / "tutorial.md"
BLOCKS = read_blocks(DOC)


def sections(name: str) -> list[str]:
    return [b.text for b in BLOCKS if b.attrs.get("title") == name]


def files() -> "OrderedDict[str, str]":
    out: OrderedDict[str, str] = OrderedDict()
    for block in BLOCKS:
        if "title" in block.attrs:
            out[block.attrs["title"]] = "".join(sections(block.attrs["title"]))
    return out


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for name, text in files().items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def run_line(line: str, cwd: Path, monkeypatch) -> tuple[int, str]:
    """One shell line of the tutorial (`ruleplay …` or `python FILE`, optionally `> FILE`), run in-process."""
    command, _, target = line.partition(" > ")
    words = command.split()
    monkeypatch.chdir(cwd)
    if words[0] == "ruleplay":
        result = CliRunner().invoke(main, words[1:], prog_name="ruleplay")
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        code, out = result.exit_code, result.output
    elif words[0] == "python":
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            runpy.run_path(str(cwd / words[1]), run_name="__main__")
        code, out = 0, buffer.getvalue()
    else:
        raise AssertionError(f"the tutorial runs only ruleplay and python, not: {line}")
    if target:
        (cwd / target.strip()).write_text(out, encoding="utf-8")
        return code, ""
    return code, out


def options(block: Block) -> dict[str, str]:
    parts = [p.strip() for p in (block.directive or "").split(";")]
    return {k.strip(): v.strip() for k, _, v in (p.partition(":") for p in parts[1:])}


def test_every_block_is_a_file_section_a_command_or_its_output():
    for i, block in enumerate(BLOCKS):
        if "title" in block.attrs:
            continue
        if block.lang == "sh":
            assert (block.directive or "").startswith("run"), f"{block.where(DOC)}: mark it <!-- run -->"
        else:
            assert block.lang == "text" and block.directive == "output", \
                f"{block.where(DOC)}: a block is a titled file section, a command or the command's output"
            assert BLOCKS[i - 1].lang == "sh", f"{block.where(DOC)}: output must follow a command"


def test_the_ruleset_loads_without_a_single_diagnostic(folder):
    game = load_game(folder / "nim.yaml", checking=True)
    assert [d.format() for d in game.model.diagnostics] == []
    assert game.info.num_distinct_actions == 15
    for seed in range(5):
        end = play_random(game, seed)
        assert end.is_terminal() and sorted(end.returns()) == [-1.0, 1.0]


def test_the_scenario_passes(folder):
    scenarios = [folder / name for name, text in files().items()
                 if name.endswith(".yaml") and "\nsteps:" in "\n" + text]
    assert scenarios, "the tutorial should end with a scenario"
    results = run_scenarios(scenarios)
    assert [r.failures for r in results] == [[] for _ in results]
    assert all(r.passed for r in results)


def test_every_command_and_its_output(folder, monkeypatch):
    for i, block in enumerate(BLOCKS):
        if block.lang != "sh":
            continue
        opts = options(block)
        cwd = folder
        if "edit" in opts or "sections" in opts:
            cwd = folder / f"copy-{i}"
            shutil.copytree(folder, cwd)
        if "sections" in opts:
            name, count = opts["sections"].split()
            (cwd / name).write_text("".join(sections(name)[: int(count)]), encoding="utf-8")
        if "edit" in opts:
            name, old, new = (s.strip() for s in opts["edit"].split("|"))
            text = (cwd / name).read_text(encoding="utf-8")
            assert old in text, f"{block.where(DOC)}: {old!r} is not in {name}"
            (cwd / name).write_text(text.replace(old, new, 1), encoding="utf-8")
        printed = ""
        for line in filter(None, (ln.strip() for ln in block.text.splitlines())):
            code, out = run_line(line, cwd, monkeypatch)
            assert code == int(opts.get("exit", "0")), f"{block.where(DOC)}: `{line}` exited {code}:\n{out}"
            printed += out
        following = BLOCKS[i + 1] if i + 1 < len(BLOCKS) else None
        if following is not None and following.directive == "output":
            assert printed == following.text, f"{following.where(DOC)}: the command printed:\n{printed}"
