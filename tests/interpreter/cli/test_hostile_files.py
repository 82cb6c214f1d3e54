"""The command line against hostile files: outputs that exist or are inputs, bad output paths, chosen rulesets,
escapes.

An output file that exists is kept unless `--overwrite` says to replace it;
an output given as a file the same command reads (by any name: a hard link,
a symbolic link) is a usage error before anything is written, `--overwrite`
or not; an output path
the OS refuses is a usage error, never a traceback; a log's or scenario's
ruleset is followed only into its own folder unless `--ruleset` chooses one;
and nothing a file holds reaches the terminal as a control sequence.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from ruleplay import load_game
from ruleplay.cli import main
from ruleplay.cli.output import json_text, terminal_safe
from ruleplay.engine.loader import builtin_games

REPO = Path(__file__).resolve().parents[3]
SECRET = "root:x:0:0:the-secret-first-line"
ESCAPES = "\x1b]0;owned\x07\x1b[2J\x9b31m\u202eevil\x7f"


def run(*args: object):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert "Traceback" not in result.output
    return result


def ttt_text(replace: tuple[str, str] = ("", "")) -> str:
    text = builtin_games()["tic-tac-toe"].read_text(encoding="utf-8")
    return "\n".join(line for line in text.splitlines() if not line.startswith("spec:")).replace(*replace) + "\n"


@pytest.fixture
def game(tmp_path: Path) -> Path:
    path = tmp_path / "ttt.yaml"
    path.write_text(ttt_text(), encoding="utf-8")
    return path


def unchanged(path: Path, text: str) -> bool:
    return path.read_text(encoding="utf-8") == text


# ------------------------------------------------------------ outputs that exist
@pytest.fixture
def finished_log(tmp_path: Path) -> Path:
    log = tmp_path / "game.jsonl"
    assert run("play", "tic-tac-toe", "--seed", "1", "--log", log).exit_code == 0
    return log


@pytest.mark.parametrize("command", [
    ["play", "tic-tac-toe", "--log"], ["play", "tic-tac-toe", "--report"], ["replay", "{log}", "--report"],
    ["view", "{log}", "-o"], ["render", "{log}", "-o"], ["simulate", "tic-tac-toe", "-n", "2", "--report"],
    ["validate", "tic-tac-toe", "--report"], ["perft", "tic-tac-toe", "--depth", "1", "--report"],
], ids=lambda command: " ".join(command[::2]))
def test_an_output_file_that_exists_is_replaced_only_with_overwrite(finished_log: Path, command: list[str]) -> None:
    target = finished_log.with_name("mine.txt")
    target.write_text("a file of the user's\n", encoding="utf-8")
    args = [part.format(log=finished_log) for part in command]
    result = run(*args, target)
    assert result.exit_code == 2 and f"{target} exists: add --overwrite to replace it" in result.output
    assert unchanged(target, "a file of the user's\n")
    result = run(*args, target, "--overwrite")
    assert result.exit_code == 0, result.output
    assert not unchanged(target, "a file of the user's\n")


def test_charts_that_exist_are_replaced_only_with_overwrite(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    charts = tmp_path / "charts"
    charts.mkdir()
    (charts / "scores.svg").write_text("mine\n", encoding="utf-8")
    result = run("simulate", "tic-tac-toe", "-n", "4", "--plot", charts)
    assert result.exit_code == 2 and "already holds scores.svg: add --overwrite" in result.output
    assert unchanged(charts / "scores.svg", "mine\n") and len(list(charts.iterdir())) == 1
    assert run("simulate", "tic-tac-toe", "-n", "4", "--plot", charts, "--overwrite").exit_code == 0
    assert len(list(charts.iterdir())) == 8 and not unchanged(charts / "scores.svg", "mine\n")


# ------------------------------------------------------------ outputs that are inputs
def links(path: Path) -> list[Path]:
    """The file itself, a symbolic link to it and a hard link to it."""
    soft, hard = path.with_name("soft-" + path.name), path.with_name("hard-" + path.name)
    soft.symlink_to(path)
    os.link(path, hard)
    return [path, soft, hard]


@pytest.mark.parametrize("command", [
    ["validate", "{game}", "--report"],
    ["play", "{game}", "--report"],
    ["play", "{game}", "--log"],
    ["perft", "{game}", "--depth", "1", "--report"],
    ["graph", "{game}", "--json", "--report"],
    ["simulate", "{game}", "-n", "2", "--report"],
    ["simulate", "{game}", "-n", "2", "--out"],
    ["simulate", "{game}", "-n", "2", "--resume", "--out"],
    ["bench", "{game}", "--seconds", "0.01", "--runs", "1", "--report"],
])
def test_an_output_naming_the_ruleset_is_refused(game: Path, command: list[str]) -> None:
    text = game.read_text(encoding="utf-8")
    for target in links(game):
        result = run(*[part.format(game=game) for part in command], target, "--overwrite")  # never an input
        assert result.exit_code == 2, result.output
        assert f"{target} is the ruleset" in result.output and "choose another file" in result.output
        assert unchanged(game, text)


def test_an_output_naming_an_invalid_ruleset_is_refused_too(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("ruleplay: 1\ngame: bad\n", encoding="utf-8")
    result = run("validate", bad, "--report", bad, "--overwrite")
    assert result.exit_code == 2 and "is the ruleset" in result.output
    assert unchanged(bad, "ruleplay: 1\ngame: bad\n")


def test_an_output_naming_an_extended_or_included_file_or_the_spec_is_refused(tmp_path: Path) -> None:
    (tmp_path / "ttt.yaml").write_text(ttt_text(("description: Three in a row on a 3x3 grid.",
                                                 "include: [extra.yaml]")), encoding="utf-8")
    (tmp_path / "extra.yaml").write_text("description: from an include\n", encoding="utf-8")
    (tmp_path / "rules.md").write_text((REPO / "seeds" / "tic-tac-toe.md").read_text(encoding="utf-8"),
                                       encoding="utf-8")
    ruleset = tmp_path / "main.yaml"
    ruleset.write_text("ruleplay: 1\nextends: ttt.yaml\ngame: main\nspec: rules.md\n", encoding="utf-8")
    assert run("validate", ruleset).exit_code == 0
    log, state = tmp_path / "g.jsonl", tmp_path / "s.json"
    assert run("play", ruleset, "--seed", "1", "--log", log).exit_code == 0
    state.write_text(load_game(ruleset).new_state(1).dumps(), encoding="utf-8")
    # the commands that find the game in a log or a saved state, and learn its files only once it is loaded
    for command in (["validate", ruleset, "--report"], ["replay", log, "--report"], ["view", log, "-o"],
                    ["render", log, "-o"], ["render", state, "--ruleset", ruleset, "-o"]):
        for target in ("ttt.yaml", "extra.yaml", "rules.md"):
            before = (tmp_path / target).read_text(encoding="utf-8")
            result = run(*command, tmp_path / target, "--overwrite")
            assert result.exit_code == 2, (command, result.output)
            assert "a file of the ruleset" in result.output
            assert unchanged(tmp_path / target, before)


def test_an_output_naming_a_scenario_or_its_game_is_refused(game: Path, tmp_path: Path) -> None:
    scenario = tmp_path / "s.yaml"
    text = "game: ttt.yaml\nmoves: [place(0)]\n"
    scenario.write_text(text, encoding="utf-8")
    for target, what in ((scenario, "a scenario file"), (game, "ruleset")):
        result = run("scenario", scenario, "--report", target, "--overwrite")
        assert result.exit_code == 2 and what in result.output, result.output
    assert unchanged(scenario, text) and unchanged(game, ttt_text())
    result = run("scenario", tmp_path, "--report", tmp_path / "s.yaml", "--overwrite")  # a file found in a folder
    assert result.exit_code == 2 and "a scenario file" in result.output
    scenario.write_text("game: ttt.yaml\n", encoding="utf-8")  # malformed: never gets to load its game
    result = run("scenario", scenario, "--ruleset", game, "--report", game, "--overwrite")
    assert result.exit_code == 2 and "is the ruleset" in result.output and unchanged(game, ttt_text())


@pytest.mark.parametrize("broken", ["game: ttt.yaml\nsteps:\n  - moves: [place(1)\n",  # YAML that does not parse
                                    "game: ttt.yaml\nsteps: []\n"])  # a scenario the schema refuses
def test_a_scenario_that_fails_before_its_game_loads_still_protects_the_game(game: Path, tmp_path: Path,
                                                                            broken: str) -> None:
    game.write_text(ttt_text() + "spec: rules.md\n", encoding="utf-8")
    (tmp_path / "rules.md").write_text((REPO / "seeds" / "tic-tac-toe.md").read_text(encoding="utf-8"),
                                       encoding="utf-8")
    scenario = tmp_path / "s.yaml"
    scenario.write_text(broken, encoding="utf-8")
    for target in (game, tmp_path / "rules.md"):
        before = target.read_text(encoding="utf-8")
        result = run("scenario", scenario, "--report", target, "--overwrite")
        assert result.exit_code == 2 and "that this command reads" in result.output, result.output
        assert unchanged(target, before)


def test_an_output_naming_the_log_or_the_saved_state_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    assert run("play", "tic-tac-toe", "--log", log).exit_code == 0
    text = log.read_text()
    result = run("replay", log, "--report", log, "--overwrite")
    assert result.exit_code == 2 and "is the game log" in result.output and unchanged(log, text)
    state = tmp_path / "state.json"
    state.write_text("{}")
    result = run("graph", "tic-tac-toe", "--state", state, "--json", "--report", state, "--overwrite")
    assert result.exit_code == 2 and "is the saved state" in result.output and unchanged(state, "{}")


def test_two_outputs_naming_one_file_are_refused(tmp_path: Path) -> None:
    for name in ("new.json", "old.json"):
        result = run("play", "tic-tac-toe", "--log", tmp_path / name, "--report", tmp_path / name)
        assert result.exit_code == 2 and "is also the --log file" in result.output, result.output
        (tmp_path / "old.json").write_text("keep\n")
    assert unchanged(tmp_path / "old.json", "keep\n")


def test_resume_reads_and_extends_its_own_out_file(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    assert run("simulate", "tic-tac-toe", "-n", "3", "--out", out).exit_code == 0
    result = run("simulate", "tic-tac-toe", "-n", "3", "--out", out, "--resume")
    assert result.exit_code == 0, result.output
    assert "3 games read back" in result.output


# ------------------------------------------------------------ output paths the OS refuses
@pytest.mark.parametrize("option", [["perft", "tic-tac-toe", "--depth", "1", "--report"],
                                    ["play", "tic-tac-toe", "--log"],
                                    ["simulate", "tic-tac-toe", "-n", "1", "--out"]])
def test_an_output_path_the_os_refuses_is_a_usage_error(tmp_path: Path, option: list[str]) -> None:
    for target in (tmp_path / ("x" * 300), tmp_path / ("d" * 250) / ("d" * 250) / "f",
                   Path("/" + "/".join(["d" * 200] * 25))):
        result = run(*option, target)
        assert result.exit_code == 2, result.output
        assert "File name too long" in result.output or "no folder" in result.output


def test_an_output_in_a_folder_without_write_permission_is_a_clear_error(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root may write anywhere")
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        result = run("perft", "tic-tac-toe", "--depth", "1", "--report", folder / "r.json")
        assert result.exit_code == 1 and "cannot write the report" in result.output
    finally:
        folder.chmod(0o700)


# ------------------------------------------------------------ --ruleset
def test_replay_and_scenario_take_the_ruleset_the_user_names(game: Path, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    log = logs / "game.jsonl"
    assert run("play", game, "--log", log).exit_code == 0
    refused = run("replay", log)
    assert refused.exit_code == 1 and "leads outside the folder" in refused.output
    assert "--ruleset PATH" in refused.output
    assert run("replay", log, "--ruleset", game).exit_code == 0
    (logs / "s.yaml").write_text("game: ../ttt.yaml\nmoves: [place(0)]\n", encoding="utf-8")
    refused = run("scenario", logs / "s.yaml")
    assert refused.exit_code == 1 and "error RP641: the scenario's `game` '../ttt.yaml' leads" in refused.output
    assert run("scenario", logs / "s.yaml", "--ruleset", game).exit_code == 0


def test_a_log_naming_a_system_file_shows_nothing_of_it(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    log = tmp_path / "logs" / "game.jsonl"
    assert run("play", "tic-tac-toe", "--log", log).exit_code == 0
    secret = tmp_path / "secret"
    secret.write_text(SECRET + "\n")
    for ref in ("/etc/passwd", "/proc/self/environ", str(secret), "../secret", "./../logs/../secret"):
        rows = [json.loads(line) for line in log.read_text().splitlines()]
        rows[0]["ruleset"] = ref
        log.write_text("".join(json.dumps(r) + "\n" for r in rows))
        result = run("replay", log)
        assert result.exit_code == 1 and "root:" not in result.output, result.output


# ------------------------------------------------------------ terminal escapes
def test_terminal_safe_escapes_what_a_terminal_obeys() -> None:
    assert terminal_safe("a\tb\nc" + ESCAPES) == "a\tb\nc\\x1b]0;owned\\x07\\x1b[2J\\x9b31m\\u202eevil\\x7f"
    assert terminal_safe("é ü 漢 \u200d") == "é ü 漢 \u200d"
    value = {"k\u2066": ESCAPES}
    text = json_text(value)
    assert json.loads(text) == value
    assert not any(ch in text for ch in "\x1b\x07\x9b\u202e\x7f\u2066")


def test_control_characters_of_a_ruleset_never_reach_the_terminal(tmp_path: Path) -> None:
    evil = ESCAPES.replace("\x1b", "\\e").replace("\x07", "\\a").replace("\x9b", "\\x9b").replace(
        "\u202e", "\\u202e").replace("\x7f", "\\x7f")
    path = tmp_path / "evil.yaml"
    path.write_text(ttt_text(("title: Tic-tac-toe", f'title: "T{evil}"')).replace(
        "\nend:", f'\nrender:\n  - text: \'"{evil}"\'\nend:', 1), encoding="utf-8")
    outputs = [run("list"), run("play", path), run("play", path, "--json"), run("validate", path),
               run("simulate", path, "-n", "2"), run("graph", path, "--format", "graphml"),
               run("play", path, "--agents", "nobody\x1b[2J")]
    for result in outputs:
        assert not any(ch in result.output for ch in "\x1b\x07\x9b\u202e\x7f"), result.output


def test_a_results_file_message_is_escaped(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    assert run("simulate", "tic-tac-toe", "-n", "2", "--out", out).exit_code == 0
    lines = out.read_text().splitlines()
    lines[1] = json.dumps({**json.loads(lines[1]), "index": "\x1b[2J"})
    out.write_text("\n".join(lines) + "\n")
    result = run("simulate", "tic-tac-toe", "-n", "2", "--out", out, "--resume")
    assert result.exit_code == 1 and "\x1b" not in result.output
