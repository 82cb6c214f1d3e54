"""Scenario files from anyone: `game:` reaches only into the scenario's folder, and folders of any depth are walked.

A scenario's `game:` naming /etc/passwd must not make the runner read it and
show its first line in a YAML error; the user may still choose any ruleset
with `ruleset=` (`--ruleset PATH`).
"""

from __future__ import annotations

import inspect
import os
import sys
from pathlib import Path

import pytest

from ruleplay.authoring.mutation import mutate
from ruleplay.authoring.runner import ScenarioError, run_scenarios, scenario_files
from ruleplay.engine.loader import builtin_games

SECRET = "root:x:0:0:the-secret-first-line"


def ttt_text() -> str:
    text = builtin_games()["tic-tac-toe"].read_text(encoding="utf-8")
    return "\n".join(line for line in text.splitlines() if not line.startswith("spec:")) + "\n"


def scenario(path: Path, game: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"game: {game}\nmoves: [place(0)]\nexpect: board[0] == 0\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("game,why", [
    ("/etc/passwd", "is an absolute path"),
    ("/proc/self/environ", "is an absolute path"),
    ("../secret.yaml", "leads outside the folder"),
    ("sub/../../secret.yaml", "leads outside the folder"),
    ("link.yaml", "leads outside the folder"),
])
def test_a_game_out_of_the_scenario_folder_is_refused_unread(tmp_path: Path, game: str, why: str) -> None:
    (tmp_path / "secret.yaml").write_text(SECRET + "\n", encoding="utf-8")
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "link.yaml").symlink_to(tmp_path / "secret.yaml")
    path = scenario(tmp_path / "s" / "t.yaml", game)
    [result] = run_scenarios([path])
    [failure] = result.failures
    assert failure.startswith(f"{path}:1:7: error RP641: the scenario's `game` {game!r} {why}")
    assert "--ruleset PATH" in failure and "root:" not in failure


def test_a_game_beside_or_below_the_scenario_is_played(tmp_path: Path) -> None:
    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "ttt.yaml").write_text(ttt_text(), encoding="utf-8")
    (tmp_path / "ttt.yaml").write_text(ttt_text(), encoding="utf-8")
    for game in ("games/ttt.yaml", "ttt.yaml", "./games/../ttt.yaml", "tic-tac-toe"):
        [result] = run_scenarios([scenario(tmp_path / "t.scenario", game)])
        assert result.failures == [], game


def test_the_caller_may_choose_a_ruleset_anywhere(tmp_path: Path) -> None:
    ruleset = tmp_path / "ttt.yaml"
    ruleset.write_text(ttt_text(), encoding="utf-8")
    path = scenario(tmp_path / "s" / "t.yaml", "../ttt.yaml")
    [result] = run_scenarios([path], ruleset=str(ruleset))
    assert result.failures == []
    report = mutate(str(ruleset), [path], ruleset=str(ruleset))
    assert report.rules_tested


def test_an_unknown_game_is_named_as_written(tmp_path: Path) -> None:
    path = scenario(tmp_path / "t.yaml", "no-such-game")
    [result] = run_scenarios([path])
    assert result.failures[0].startswith(f"{path}:1:7: error RP643: cannot load game 'no-such-game':")


def test_a_folder_deeper_than_the_recursion_limit_is_walked(tmp_path: Path) -> None:
    # A lowered limit stands for a deeper tree: one deeper than the real limit would break shutil.rmtree
    # (pytest's clean-up of tmp_path), which recurses too.
    depth = 400
    folder = tmp_path / "s"
    deep = folder.joinpath(*["d"] * depth)
    deep.mkdir(parents=True)
    scenario(deep / "t.yaml", "tic-tac-toe")
    scenario(folder / "top.yaml", "tic-tac-toe")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + depth // 2)
    try:
        found = scenario_files([folder])
    finally:
        sys.setrecursionlimit(limit)
    assert [p.name for p in found] == ["t.yaml", "top.yaml"]


def test_a_link_loop_in_a_scenario_folder_ends(tmp_path: Path) -> None:
    folder = tmp_path / "s"
    scenario(folder / "a" / "t.yaml", "tic-tac-toe")
    (folder / "a" / "loop").symlink_to(folder, target_is_directory=True)
    assert [p.relative_to(folder).as_posix() for p in scenario_files([folder])] == ["a/t.yaml"]


def test_a_folder_that_cannot_be_listed_is_named(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root lists every folder")
    folder = tmp_path / "s"
    scenario(folder / "t.yaml", "tic-tac-toe")
    (folder / "locked").mkdir()
    (folder / "locked").chmod(0)
    try:
        with pytest.raises(ScenarioError, match="cannot list the scenario folder .*locked: Permission denied"):
            scenario_files([folder])
    finally:
        (folder / "locked").chmod(0o700)
