"""Built-in games are starting points: `extends:` and `include:` name them, and what they name is found
where they live."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ruleplay import load_game
from ruleplay.cli import main
from ruleplay.dsl.diagnostics import RulesetError
from ruleplay.engine.loader import builtin_games
from ruleplay.validators.citations import spec_path

SEEDS = Path(next(iter(builtin_games().values()))).parent.parent / "seeds"


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_variant_extends_a_built_in_game_by_its_name_and_keeps_its_spec(tmp_path: Path) -> None:
    ink = _write(tmp_path, "ink.yaml", "extends: nautilus-cards\ntitle: Ink worth two\n"
                                       "patch:\n  - {op: replace, path: constants.slots_per_side, value: 5}\n")
    game = load_game(ink)
    assert game.name == "nautilus-cards" and game.info.title == "Ink worth two"
    assert spec_path(game.model) == ((SEEDS / "nautilus-cards.md").resolve(), "")
    assert [d for d in game.model.diagnostics if d.code in ("RP403", "RP404")] == []
    result = CliRunner().invoke(main, ["validate", str(ink)])
    assert result.exit_code == 0 and result.output == f"{ink}: valid (0 warnings)\n"


def test_a_spec_the_variant_names_is_read_beside_the_variant(tmp_path: Path) -> None:
    _write(tmp_path, "mine.md", (SEEDS / "tic-tac-toe.md").read_text(encoding="utf-8"))
    mine = _write(tmp_path, "mine.yaml", "extends: tic-tac-toe\nspec: mine.md\n")
    assert spec_path(load_game(mine).model) == ((tmp_path / "mine.md").resolve(), "")


def test_a_file_includes_a_built_in_game_by_its_name(tmp_path: Path) -> None:
    copy = _write(tmp_path, "poker.yaml", "ruleplay: 1\ngame: my-poker\ninclude: [kuhn-poker]\n")
    game = load_game(copy)
    assert game.name == "my-poker" and game.info.title == "Kuhn poker" and game.info.hidden_information
    assert spec_path(game.model)[0] == (SEEDS / "kuhn-poker.md").resolve()


def test_a_diagnostic_in_an_extended_built_in_points_into_the_built_in_file(tmp_path: Path) -> None:
    broken = _write(tmp_path, "broken.yaml", "extends: tic-tac-toe\nconstants:\n  lines: []\n")
    with pytest.raises(RulesetError) as caught:
        load_game(broken)
    [first, *_] = caught.value.diagnostics
    assert (first.code, Path(first.file), first.path) == ("RP210", builtin_games()["tic-tac-toe"],
                                                           "render[0].cell")
    assert "unknown name `marks`" in first.message and "marks[item]" in first.source_line


def test_a_built_in_name_names_the_built_in_and_dot_slash_names_a_file_of_that_name(tmp_path: Path) -> None:
    _write(tmp_path, "tic-tac-toe", "ruleplay: 1\ngame: look-alike\nplayers: 1\nflow:\n  phases:\n"
                                    "    - {name: p, actions: [stop]}\nactions:\n  stop: {effects: end_game}\n")
    assert load_game(_write(tmp_path, "a.yaml", "extends: tic-tac-toe\n")).name == "tic-tac-toe"
    assert load_game(_write(tmp_path, "b.yaml", "extends: ./tic-tac-toe\n")).name == "look-alike"


def test_a_name_that_is_neither_a_built_in_nor_a_file_says_how_built_ins_are_named(tmp_path: Path) -> None:
    wrong = _write(tmp_path, "c.yaml", "extends: tic-tac-toe.yaml\n")
    with pytest.raises(RulesetError) as caught:
        load_game(wrong)
    [error] = caught.value.diagnostics
    assert error.code == "RP404" and error.message == "extends 'tic-tac-toe.yaml' does not exist"
    assert error.hint.endswith("; a built-in game is named without .yaml")


def test_the_variant_docs_example_extends_the_built_in_and_changes_the_ink_blots(tmp_path: Path) -> None:
    page = (Path(__file__).resolve().parents[3] / "docs" / "variants.md").read_text(encoding="utf-8")
    example = page.split("```yaml\n", 1)[1].split("```", 1)[0]
    game = load_game(_write(tmp_path, "ink.yaml", example))
    points = {item: game.model.component_props[item]["points"] for item in game.model.components_by_kind["domain_card"]
              if item.endswith("-ink")}
    assert points == {f"{domain}-ink": 2 for domain in ("science", "exploration", "navigation", "engineering", "war")}
    assert game.info.title == "Nautilus (card game), ink blots worth 2"
