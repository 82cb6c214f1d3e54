"""`ruleplay new DIR --from GAME`: an editable copy of a built-in game that works where it is written."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ruleplay import load_game
from ruleplay.authoring.mutation import default_scenarios, mutate
from ruleplay.authoring.runner import run_scenarios
from ruleplay.authoring.starters import SCHEMA_FILE, builtin_scenarios, copy_files, scenarios_dir
from ruleplay.cli import main
from ruleplay.engine.loader import builtin_games
from ruleplay.validators.citations import spec_path


def _new(folder: Path, game: str, *extra: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, ["new", str(folder), "--from", game, *extra])


def test_each_built_in_game_ships_its_scenarios() -> None:
    assert sorted(p.name for p in scenarios_dir().iterdir() if p.is_dir()) == sorted(builtin_games())
    assert builtin_scenarios("tic-tac-toe") == scenarios_dir() / "tic-tac-toe"
    assert builtin_scenarios("no-such-game") is None


def test_a_copy_is_the_built_in_text_with_only_its_links_rewritten(tmp_path: Path) -> None:
    result = _new(tmp_path / "mine", "tic-tac-toe")
    assert result.exit_code == 0, result.output
    copy = tmp_path / "mine" / "tic-tac-toe.yaml"
    original = builtin_games()["tic-tac-toe"].read_text(encoding="utf-8").splitlines()
    changed = [line for line in difflib.unified_diff(original, copy.read_text(encoding="utf-8").splitlines(),
                                                     lineterm="", n=0) if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert changed == ["-# yaml-language-server: $schema=../dsl/schema.json",
                       "+# yaml-language-server: $schema=ruleset.schema.json",
                       "+copied_from: tic-tac-toe",
                       "-spec: ../seeds/tic-tac-toe.md", "+spec: tic-tac-toe.md"]
    assert json.loads((tmp_path / "mine" / SCHEMA_FILE).read_text(encoding="utf-8"))["title"] == "ruleplay ruleset"
    game = load_game(copy)
    assert game.name == "tic-tac-toe" and spec_path(game.model) == ((tmp_path / "mine" / "tic-tac-toe.md").resolve(), "")
    assert [d.code for d in game.model.diagnostics] == []
    assert result.output.splitlines()[-3:] == [f"  ruleplay validate {copy}", f"  ruleplay scenario {tmp_path / 'mine'}",
                                               f"  ruleplay compare tic-tac-toe --variant {copy}"]


@pytest.mark.parametrize("game", ["tic-tac-toe", "kuhn-poker"])
def test_a_copy_passes_its_scenarios_and_its_mutants_are_caught_where_it_is(game: str, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    assert _new(tmp_path, game).exit_code == 0
    copy = tmp_path / f"{game}.yaml"
    results = run_scenarios([tmp_path])
    assert len(results) == len(list(builtin_scenarios(game).rglob("*.yaml"))) and all(r.passed for r in results)
    monkeypatch.chdir(tmp_path.parent)
    assert default_scenarios(str(copy)) == tmp_path.resolve()
    report = mutate(str(copy), None)
    assert report.rules_tested and report.survivors == []


def test_a_variant_s_scenarios_are_copied_beside_the_ruleset_under_the_variant_s_name(tmp_path: Path) -> None:
    files = copy_files("lovci-pokladu", tmp_path)
    names = [p.name for p in files]
    assert names[:3] == ["lovci-pokladu.yaml", "lovci-pokladu.md", SCHEMA_FILE]
    assert "no-sharks-open-water.yaml" in names and all(p.parent == tmp_path for p in files)
    assert files[tmp_path / "no-sharks-open-water.yaml"].startswith("game: lovci-pokladu.yaml\nvariant: no-sharks\n")


def test_compare_takes_a_copy_or_a_file_that_extends_the_game_and_refuses_another(tmp_path: Path) -> None:
    assert _new(tmp_path / "copy", "tic-tac-toe").exit_code == 0
    copy = tmp_path / "copy" / "tic-tac-toe.yaml"
    copy.write_text(copy.read_text(encoding="utf-8").replace("title: Tic-tac-toe", "title: Tic-tac-toe, edited"),
                    encoding="utf-8")
    result = CliRunner().invoke(main, ["compare", "tic-tac-toe", "--variant", str(copy), "-n", "3", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["labels"] == ["base", "Tic-tac-toe, edited"]  # named by its title
    text = CliRunner().invoke(main, ["compare", "tic-tac-toe", "--variant", str(copy), "-n", "3"]).output
    assert text.startswith("tic-tac-toe: base (A) against Tic-tac-toe, edited (B), 3 games each")
    assert f"  Tic-tac-toe, edited: the file {copy}\n" in text
    other = tmp_path / "copy" / "other.yaml"  # beside the spec it names
    other.write_text(copy.read_text(encoding="utf-8").replace("copied_from: tic-tac-toe\n", ""), encoding="utf-8")
    refused = CliRunner().invoke(main, ["compare", "tic-tac-toe", "--variant", str(other), "-n", "3"])
    assert refused.exit_code == 2
    assert f"{other} does not extend tic-tac-toe and is no copy of it" in refused.output
    assert "`ruleplay new DIR --from tic-tac-toe` says `copied_from: tic-tac-toe`" in " ".join(refused.output.split())


def test_new_replaces_no_file_unasked_and_never_a_built_in_one(tmp_path: Path) -> None:
    assert _new(tmp_path, "tic-tac-toe").exit_code == 0
    ruleset = tmp_path / "tic-tac-toe.yaml"
    ruleset.write_text("mine\n", encoding="utf-8")
    again = _new(tmp_path, "tic-tac-toe")
    assert again.exit_code == 2 and "already holds tic-tac-toe.yaml, tic-tac-toe.md" in again.output
    assert "add --overwrite to replace them" in again.output and ruleset.read_text(encoding="utf-8") == "mine\n"
    assert _new(tmp_path, "tic-tac-toe", "--overwrite").exit_code == 0
    assert ruleset.read_text(encoding="utf-8").startswith("# yaml-language-server")
    installed = builtin_games()["tic-tac-toe"].parent
    into_the_package = _new(installed, "tic-tac-toe", "--overwrite")
    assert into_the_package.exit_code == 2 and "is a file of the built-in game tic-tac-toe" in into_the_package.output
    unknown = _new(tmp_path / "x", "nautilus-card")
    assert unknown.exit_code == 2 and "did you mean 'nautilus-cards'?" in unknown.output
    a_file = _new(ruleset, "tic-tac-toe")
    assert a_file.exit_code == 2 and "is a file" in a_file.output


def test_new_reports_what_it_wrote_as_json(tmp_path: Path) -> None:
    result = _new(tmp_path, "kuhn-poker", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["game"], data["ruleset"], data["spec"]) == ("kuhn-poker", str(tmp_path / "kuhn-poker.yaml"),
                                                             str(tmp_path / "kuhn-poker.md"))
    assert sorted(Path(p).name for p in data["scenarios"]) == sorted(
        p.name for p in builtin_scenarios("kuhn-poker").glob("*.yaml"))
