"""A game log names its ruleset portably, and replay follows that name only into the log's own folder.

A log may come from anyone: a `ruleset` field naming /etc/passwd must not
make replay read that file and echo its first line in a YAML error.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from ruleplay import ReplayError, load_game
from ruleplay.engine.loader import builtin_games
from ruleplay.runs.gamelog import logged_ruleset, replay, write_log
from ruleplay.runs.play import play_game
from ruleplay.runs.ruleset_ref import UnsafeRulesetReference, recorded, resolve

SECRET = "root:x:0:0:the-secret-first-line"


def ttt_text() -> str:
    text = builtin_games()["tic-tac-toe"].read_text(encoding="utf-8")
    return "\n".join(line for line in text.splitlines() if not line.startswith("spec:")) + "\n"


@pytest.fixture
def game_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "games"
    (folder / "rules").mkdir(parents=True)
    (folder / "rules" / "ttt.yaml").write_text(ttt_text(), encoding="utf-8")
    return folder


def logged(log: Path, ruleset: str) -> Path:
    game = load_game(ruleset)
    return write_log(log, play_game(game, ["random"], seed=3), ruleset, game.info.ruleset_hash)


def header(log: Path) -> dict:
    return json.loads(log.read_text().splitlines()[0])


def set_ruleset(log: Path, ref: str) -> None:
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    rows[0]["ruleset"] = ref
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_a_log_records_its_ruleset_relative_to_itself_and_replays_after_a_move(game_folder: Path, tmp_path: Path,
                                                                               monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    log = logged(game_folder / "game.jsonl", "games/rules/ttt.yaml")  # named relative to the working folder
    assert header(log)["ruleset"] == "rules/ttt.yaml"
    moved = tmp_path / "elsewhere"
    shutil.move(game_folder, moved)
    monkeypatch.chdir("/")
    assert logged_ruleset(moved / "game.jsonl") == str(Path(os.path.realpath(moved)) / "rules" / "ttt.yaml")
    assert replay(moved / "game.jsonl").moves > 0


def test_a_built_in_game_is_recorded_by_name(tmp_path: Path) -> None:
    assert header(logged(tmp_path / "game.jsonl", "tic-tac-toe"))["ruleset"] == "tic-tac-toe"
    assert recorded(builtin_games()["tic-tac-toe"], tmp_path / "x.jsonl").endswith("tic-tac-toe.yaml")


def test_a_file_named_like_a_built_in_is_recorded_as_a_path(tmp_path: Path) -> None:
    (tmp_path / "tic-tac-toe").write_text(ttt_text(), encoding="utf-8")
    assert recorded(tmp_path / "tic-tac-toe", tmp_path / "game.jsonl") == "./tic-tac-toe"


@pytest.mark.parametrize("ref,why", [
    ("/etc/passwd", "is an absolute path"),
    ("/proc/self/environ", "is an absolute path"),
    ("~/rules.yaml", "is an absolute path"),
    ("../secret.yaml", "leads outside the folder"),
    ("rules/../../secret.yaml", "leads outside the folder"),
    ("", "is empty"),
    (".", "names the folder itself"),
])
def test_a_log_naming_a_file_out_of_its_folder_is_refused_unread(game_folder: Path, tmp_path: Path, ref: str,
                                                                  why: str) -> None:
    (tmp_path / "secret.yaml").write_text(SECRET + "\n", encoding="utf-8")
    log = logged(game_folder / "game.jsonl", str(game_folder / "rules" / "ttt.yaml"))
    set_ruleset(log, ref)
    with pytest.raises(ReplayError) as caught:
        replay(log)
    message = str(caught.value)
    assert message.startswith(f"{log}:1: the log's `ruleset` {ref!r} {why}")
    assert "--ruleset PATH" in message and "root:" not in message
    assert logged_ruleset(log) is None


def test_a_symbolic_link_out_of_the_folder_is_refused(game_folder: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.yaml").write_text(SECRET + "\n", encoding="utf-8")
    (game_folder / "link.yaml").symlink_to(tmp_path / "secret.yaml")
    (game_folder / "out").symlink_to(tmp_path, target_is_directory=True)
    log = logged(game_folder / "game.jsonl", str(game_folder / "rules" / "ttt.yaml"))
    for ref in ("link.yaml", "out/secret.yaml"):
        set_ruleset(log, ref)
        with pytest.raises(ReplayError, match="leads outside the folder") as caught:
            replay(log)
        assert "root:" not in str(caught.value)


def test_a_symbolic_link_to_the_log_is_resolved_before_its_folder_is_taken(game_folder: Path,
                                                                           tmp_path: Path) -> None:
    log = logged(game_folder / "game.jsonl", str(game_folder / "rules" / "ttt.yaml"))
    (tmp_path / "link.jsonl").symlink_to(log)
    assert replay(tmp_path / "link.jsonl").moves > 0  # `rules/ttt.yaml` beside the real log, not beside the link


def test_a_ruleset_outside_the_log_folder_replays_when_the_caller_names_it(game_folder: Path,
                                                                           tmp_path: Path) -> None:
    ruleset = game_folder / "rules" / "ttt.yaml"
    log = logged(tmp_path / "game.jsonl", str(ruleset))
    assert header(log)["ruleset"] == "games/rules/ttt.yaml"
    deeper = game_folder / "logs"
    deeper.mkdir()
    log = logged(deeper / "game.jsonl", str(ruleset))
    assert header(log)["ruleset"] == "../rules/ttt.yaml"  # honest, and refused on replay without the caller's choice
    with pytest.raises(ReplayError, match="leads outside the folder"):
        replay(log)
    assert replay(log, ruleset=ruleset).ruleset == str(ruleset)


def test_resolve_keeps_a_path_under_the_folder(game_folder: Path) -> None:
    assert resolve("rules/ttt.yaml", game_folder / "x.jsonl", "ruleset") == \
        str(Path(os.path.realpath(game_folder)) / "rules" / "ttt.yaml")
    assert resolve("tic-tac-toe", game_folder / "x.jsonl", "ruleset") == "tic-tac-toe"
    with pytest.raises(UnsafeRulesetReference, match="^`game` 'a\\\\x00b' is not a usable file name"):
        resolve("a\0b", game_folder / "x.yaml", "game")
