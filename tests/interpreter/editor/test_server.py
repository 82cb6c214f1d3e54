"""`ruleplay lsp` through the protocol: pygls's own client starts the command and talks to it over stdio.

Each test is one editor session: files opened, edits sent as an editor
sends them (unsaved), and what the server publishes and answers checked
exactly.
"""

from __future__ import annotations

import asyncio
import shutil
import time
from pathlib import Path

import pytest

pytest.importorskip("pygls", reason="the lsp extra is not installed (pip install -e '.[lsp]')")

from lsprotocol import types as T  # noqa: E402

from lsp_session import Session  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
MINI = """ruleplay: 1
game: mini
players: 2
spec: mini.md
state:
  count:
    init: "0"
flow:
  phases:
    - name: play
      actions: [tick]
actions:
  tick:
    rule: MI-1
    effects: count += 1
end:
  - when: count >= 3
    rule: MI-2
variants:
  long:
    patch:
      - {op: replace, path: "end[0].when", value: "count >= lenght"}
"""
SPEC = "# Mini\n\n- **MI-1** A move adds one to the count.\n  It is the only move.\n- **MI-2** The game ends at three.\n"


def _copy_builtin(tmp_path: Path, name: str) -> Path:
    (tmp_path / "rulesets").mkdir()
    shutil.copy(ROOT / "rulesets" / f"{name}.yaml", tmp_path / "rulesets")
    shutil.copytree(ROOT / "seeds", tmp_path / "seeds")
    return tmp_path / "rulesets" / f"{name}.yaml"


def _mini(tmp_path: Path) -> Path:
    (tmp_path / "mini.md").write_text(SPEC, encoding="utf-8")
    game = tmp_path / "mini.yaml"
    game.write_text(MINI, encoding="utf-8")
    return game


def _where(d: T.Diagnostic) -> tuple:
    return d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character


def test_diagnostics_of_the_base_and_of_a_variant_with_ranges_codes_hints_and_related_places(tmp_path: Path) -> None:
    game = _mini(tmp_path)

    async def session() -> None:
        async with Session() as s:
            uri = s.open(game)
            # the variant's typo is the only finding, said to be the variant's and pointing at its declaration
            (d,) = await s.wait_for(uri, lambda found: len(found) == 1)
            assert (d.code, d.severity, d.source) == ("RP210", T.DiagnosticSeverity.Error, "ruleplay")
            assert d.message == ("in variant long: unknown name `lenght`\nhint: a name is a state variable, a constant, "
                                 "a parameter, a `let` or loop name, or a flow value such as `current`")
            assert _where(d) == (21, 60, 21, 66)
            (related,) = d.related_information
            assert (related.message, related.location.uri, related.location.range.start.line) == (
                "variant long", uri, 19)
            # an unsaved edit: a key written twice, reported with the first one as a related place
            s.replace(uri, 18, 0, 0, "    rule: MI-2\n")
            (d,) = await s.wait_for(uri, lambda found: [x.code for x in found] == ["RP003"])
            assert d.message == "duplicate key 'rule' (first defined at line 18)\nhint: remove one of the two entries"
            assert _where(d) == (18, 4, 18, 8)
            (related,) = d.related_information
            assert (related.message, related.location.range.start.line) == ("'rule' first defined here", 17)
            s.replace(uri, 18, 0, 14, "")  # undone (an empty line left): the variant's finding is back
            await s.wait_for(uri, lambda found: [x.code for x in found] == ["RP210"])

    asyncio.run(session())


def test_a_base_file_edited_unsaved_shows_its_error_in_its_own_file(tmp_path: Path) -> None:
    base = tmp_path / "base.yaml"
    base.write_text(MINI.replace("spec: mini.md\n", "").split("variants:")[0], encoding="utf-8")
    main = tmp_path / "main.yaml"
    main.write_text("extends: base.yaml\ntitle: Main\n", encoding="utf-8")

    async def session() -> None:
        async with Session() as s:
            main_uri, base_uri = s.open(main), s.open(base)
            await s.wait_for(main_uri, lambda found: found == [])
            s.replace(base_uri, 13, 13, 18, "cont")  # `count += 1` -> `cont += 1`, not saved
            (d,) = await s.wait_for(base_uri, lambda found: len(found) == 1)
            assert (d.code, _where(d)) == ("RP210", (13, 13, 13, 17))
            assert await s.wait_for(main_uri, lambda found: found == []) == []
            assert "count += 1" in base.read_text(encoding="utf-8")  # the file is as it was saved
            # definition of `extends:` is the base file
            (loc,) = await s.definition(main_uri, 0, 11)
            assert loc.uri == base_uri
            s.close(base_uri)  # its edit is dropped: the ruleset reads the base as saved again
            assert await s.wait_for(base_uri, lambda found: found == []) == []

    asyncio.run(session())


def test_hover_definition_and_references_of_rule_ids_and_names(tmp_path: Path) -> None:
    game = _mini(tmp_path)
    spec_uri = (tmp_path / "mini.md").as_uri()

    async def session() -> None:
        async with Session() as s:
            uri = s.open(game)
            await s.wait_for(uri, lambda found: len(found) == 1)
            assert await s.hover(uri, 13, 12) == "**MI-1** A move adds one to the count. It is the only move.\n\n" \
                                                 "(mini.md, line 3)"
            (loc,) = await s.definition(uri, 13, 12)
            assert (loc.uri, loc.range.start.line, loc.range.start.character) == (spec_uri, 2, 4)
            refs = await s.references(uri, 13, 12)
            assert [(r.uri, r.range.start.line) for r in refs] == [(spec_uri, 2), (uri, 13)]
            assert await s.hover(uri, 14, 14) == "**state variable** `count`: `int`\n```yaml\ncount:\n  init: \"0\"\n```"
            (loc,) = await s.definition(uri, 16, 12)  # the `count` of `count >= 3`
            assert (loc.range.start.line, loc.range.start.character) == (5, 2)
            refs = await s.references(uri, 5, 3, declaration=False)
            assert [(r.range.start.line, r.range.start.character) for r in refs] == [(14, 13), (16, 10)]
            (loc,) = await s.definition(uri, 10, 17)  # `tick` in the phase's actions
            assert (loc.range.start.line, loc.range.start.character) == (12, 2)

    asyncio.run(session())


def test_completion_of_fields_names_and_rule_ids(tmp_path: Path) -> None:
    game = _mini(tmp_path)

    async def session() -> None:
        async with Session() as s:
            uri = s.open(game)
            await s.wait_for(uri, lambda found: len(found) == 1)
            s.replace(uri, 14, 23, 23, " + co")  # `effects: count += 1 + co`
            items = await s.complete(uri, 14, 28)
            assert [(i.label, i.kind) for i in items] == [("count", T.CompletionItemKind.Variable),
                                                          ("components", T.CompletionItemKind.Function)]
            s.replace(uri, 13, 14, 14, "\n    re")  # a key being typed in actions.tick
            items = {i.label: i for i in await s.complete(uri, 14, 6)}
            assert sorted(items) == ["require"]
            assert items["require"].insert_text == "require: "
            assert items["require"].documentation.value.startswith("Conditions the move must meet")
            s.replace(uri, 14, 4, 6, "rule: M")
            assert [i.label for i in await s.complete(uri, 14, 11)] == ["MI-1", "MI-2"]

    asyncio.run(session())


def test_keystroke_to_diagnostics_on_the_largest_built_in_ruleset(tmp_path: Path) -> None:
    """Measured, not asserted below a figure (the machine may be loaded): the diagnostic must come."""
    ruleset = _copy_builtin(tmp_path, "nautilus")
    lines = ruleset.read_text(encoding="utf-8").splitlines()
    row = next(i for i, line in enumerate(lines) if line.strip() == "money[p] -= n")  # in procedures.pay
    col = lines[row].index("money[p]")

    async def session() -> float:
        async with Session() as s:
            uri = s.open(ruleset)
            await s.wait_for(uri, lambda found: found == [])
            start = time.perf_counter()
            s.replace(uri, row, col, col + 5, "monye")
            (d,) = await s.wait_for(uri, lambda found: len(found) >= 1)
            assert (d.code, d.range.start.line, d.range.start.character) == ("RP210", row, col)
            return time.perf_counter() - start

    print(f"nautilus: keystroke to diagnostics {asyncio.run(session()):.2f} s")
