"""The `ruleplay` command: outputs, JSON forms, exit codes, and errors without tracebacks."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import networkx as nx
import pytest
from click.testing import CliRunner

from ruleplay import load_game
from ruleplay.cli import main
from ruleplay.engine.loader import builtin_games
from ruleplay.runs.perft import perft
from ruleplay.validators.schema import schema

REPO = Path(__file__).resolve().parents[3]

GRAPHS = """
graphs:
  ring: {board: grid, perimeter: true}
  flow: {directed: true, edges: [[a, b], [b, "c d"], ["say \\"hi\\"", a]]}
"""


def run(*args: str):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert "Traceback" not in result.output
    return result


def tic_tac_toe_text() -> str:
    """The built-in ruleset without its spec link (relative to the built-in folder)."""
    text = builtin_games()["tic-tac-toe"].read_text(encoding="utf-8")
    return "\n".join(line for line in text.splitlines() if not line.startswith("spec:")) + "\n"


@pytest.fixture
def ruleset(tmp_path):
    """ruleset(name, extra_text="", replace=("old", "new")) -> path of a tic-tac-toe derivative."""
    def make(name: str, extra: str = "", replace: tuple[str, str] = ("", "")) -> Path:
        path = tmp_path / f"{name}.yaml"
        path.write_text(tic_tac_toe_text().replace(*replace) + extra, encoding="utf-8")
        return path
    return make


# ---------------------------------------------------------------- inspection

def test_list_shows_the_built_in_games():
    result = run("list")
    assert result.exit_code == 0
    assert any(line.startswith("tic-tac-toe") and line.endswith("  Tic-tac-toe (2 players)")
               for line in result.stdout.splitlines())
    data = json.loads(run("list", "--json").stdout)
    by_name = {g["name"]: g for g in data}
    assert set(by_name) == set(builtin_games())
    assert by_name["tic-tac-toe"] == load_game("tic-tac-toe").info.to_dict()


def test_schema_prints_the_ruleset_schema():
    result = run("schema")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == schema()


def test_validate_a_good_ruleset_with_smoke_games():
    result = run("validate", "tic-tac-toe", "--smoke", "3")
    assert result.exit_code == 0, result.output
    assert "tic-tac-toe: valid (0 warnings)" in result.output
    assert "smoke: 3 of 3 random games ended" in result.output


def test_validate_reports_every_diagnostic_and_exits_1(ruleset):
    path = ruleset("bad", replace=("players: 2", "players: two"))
    result = run("validate", path)
    assert result.exit_code == 1
    assert f"{path}:6:10: error RP107" in result.output
    assert "    players: two\n             ^" in result.output
    data = json.loads(run("validate", path, "--json").stdout)
    assert data[0]["ok"] is False and data[0]["diagnostics"][0]["code"] == "RP107"


def test_validate_smoke_catches_a_game_that_never_ends(ruleset):
    path = ruleset("short", "limits:\n  max_steps: 3\n")
    result = run("validate", path, "--smoke", "2")
    assert result.exit_code == 1
    assert "error RP504" in result.output and "0 of 2 random games ended" in result.output
    replay = [line.split("replay it: ", 1)[1] for line in result.output.splitlines() if "replay it: " in line]
    assert len(replay) == 2 and replay[0].startswith(f"ruleplay play {path} --agents random,random --seed ")
    again = run(*replay[0].split()[1:])
    assert again.exit_code == 1 and "error RP504" in again.output


def test_graph_exports_dot_graphml_and_json(ruleset):
    path = ruleset("graphs", GRAPHS)
    game = load_game(path)
    dot = run("graph", path)
    assert dot.exit_code == 0
    assert 'graph "ring" {\n  "0";' in dot.output
    assert 'digraph "flow" {' in dot.output and '"say \\"hi\\"" -> "a";' in dot.output
    xml = run("graph", path, "--format", "graphml", "--name", "ring")
    parsed = nx.parse_graphml(xml.stdout)
    ring = game.model.nx_graphs["ring"]
    assert sorted(parsed.nodes) == sorted(str(n) for n in ring.nodes)
    assert {frozenset(e) for e in parsed.edges} == {frozenset(map(str, e)) for e in ring.edges}
    data = json.loads(run("graph", path, "--json", "--name", "flow").stdout)
    assert data["graphs"]["flow"] == {"directed": True, "nodes": ["a", "b", "c d", 'say "hi"'],
                                      "edges": [["a", "b"], ["b", "c d"], ['say "hi"', "a"]]}


def test_graph_errors(ruleset, tmp_path):
    path = ruleset("graphs", GRAPHS)
    assert run("graph", path, "--format", "graphml").exit_code == 2  # two graphs: choose one
    unknown = run("graph", path, "--name", "nope")
    assert unknown.exit_code == 2 and "graphs: ring, flow" in unknown.output
    none = run("graph", "tic-tac-toe")
    assert none.exit_code == 1 and "declares no graphs" in none.output
    foreign = tmp_path / "state.json"
    foreign.write_text(json.dumps(load_game("tic-tac-toe").new_state(0).to_json()))
    result = run("graph", path, "--state", foreign)
    assert result.exit_code == 1 and "ruleset changed" in result.output
    assert result.output.startswith(f"error RP620: {foreign}: ")  # which file, as render says it
    own = tmp_path / "own.json"
    own.write_text(json.dumps(load_game(path).new_state(0).apply("place(4)").to_json()))
    assert run("graph", path, "--state", own, "--name", "ring").output == run("graph", path, "--name", "ring").output


def test_perft_matches_the_library():
    data = json.loads(run("perft", "tic-tac-toe", "--depth", "3", "--json").stdout)
    timing = {"seconds": data.pop("seconds"), "nodes_per_s": data.pop("nodes_per_s")}  # the only timing fields
    assert data.pop("backend") == "python"  # the tests' default (tests/conftest.py)
    assert data == perft(load_game("tic-tac-toe").new_state(0), 3).to_dict()
    assert timing["seconds"] >= 0 and timing["nodes_per_s"] >= 0
    assert data["nodes"] == 9 * 8 * 7
    assert re.fullmatch(r"perft 2: 72 nodes, 0 terminal states \([0-9,]+ nodes/s, [0-9.]+ CPU seconds\)\n",
                        run("perft", "tic-tac-toe", "--depth", "2").output)


# ------------------------------------------------------------------- playing

def test_play_shows_each_move_and_state():
    result = run("play", "tic-tac-toe", "--agents", "first", "--seed", "0")
    assert result.exit_code == 0
    out = result.output
    assert out.startswith("Tic-tac-toe: seed 0, player 0 first, player 1 first\n")
    assert "\n1. player 0: place(0)  [TT-2.1]\n" in out
    assert "\n7. player 0: place(6)  [TT-2.1, TT-3.1" in out  # the winning move fires the line rule
    assert "  2    X   .   .\n" in out
    assert out.endswith("result: winner: player 0; scores [1, 0], returns [1.0, -1.0], 7 moves\n")


def test_play_json_and_log_then_replay(tmp_path):
    log = tmp_path / "game.jsonl"
    result = run("play", "tic-tac-toe", "--agents", "greedy,random", "--seed", "4", "--log", log, "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert set(data) >= {"game", "variant", "players", "seed", "moves", "scores", "returns"}
    assert (data["game"], data["seed"], data["players"]) == ("tic-tac-toe", 4, 2)
    replayed = run("replay", log, "--json")
    assert replayed.exit_code == 0
    assert json.loads(replayed.stdout)["returns"] == data["returns"]
    assert run("replay", log).output.startswith(f"{log}: replays (tic-tac-toe, seed 4,")
    log.write_text(log.read_text().replace('"ruleset_hash":"', '"ruleset_hash":"x'))
    failed = run("replay", log)
    assert failed.exit_code == 1 and "error RP630" in failed.output and "ruleset changed" in failed.output


def test_play_rule_error_is_one_message(ruleset):
    path = ruleset("boom", replace=("board[cell] = current\n", "board[cell] = current\n      board[cell + 20] = 1\n"))
    result = run("play", path)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error RP500: {path}:55:7: cannot assign at index ")
    # and the line it points at, with a caret under the column, as a load error shows its line
    assert result.stderr.splitlines()[1:] == ["          board[cell + 20] = 1", "          ^"]
    error = json.loads(run("play", path, "--json").stdout)["error"]
    assert error["code"] == "RP500" and error["pos"]["file"] == str(path) and error["pos"]["line"] > 0


def test_usage_errors_exit_2():
    assert run("play", "tic-tac-toe", "--agents", "minimax").exit_code == 2
    assert run("play", "tic-tac-toe", "--agents", "random,random,random").exit_code == 2
    assert run("simulate", "tic-tac-toe", "-n", "0").exit_code == 2
    assert run("perft", "tic-tac-toe").exit_code == 2
    assert run("replay", "no-such-log.jsonl").exit_code == 2
    assert run("scenario").exit_code == 2


def test_an_unknown_game_exits_1_and_a_player_count_or_variant_it_lacks_is_a_usage_error():
    unknown = run("play", "no-such-game")
    assert unknown.exit_code == 1 and "error RP009: no game or file named 'no-such-game'" in unknown.output
    players = run("play", "tic-tac-toe", "--players", "3")
    assert players.exit_code == 2, players.output
    assert "Invalid value for --players: tic-tac-toe is for 2 players, not 3 (RP302;" in players.output
    for command in (["simulate", "nautilus-cards", "--json"], ["play", "nautilus-cards", "--human", "0"],
                    ["compare", "nautilus-cards", "-n", "1"], ["perft", "nautilus-cards", "--depth", "1"]):
        variant = run(*command, "--variant", "seed-onyl")
        assert variant.exit_code == 2, (command, variant.output)
        assert ("Invalid value for --variant: nautilus-cards has no variant 'seed-onyl' (RP405; did you mean "
                "'seed-only'? variants: no-crab-exception, seed-only)") in variant.output
    validated = run("validate", "nautilus-cards", "--variant", "seed-onyl", "--json")  # a check's finding
    assert validated.exit_code == 1 and json.loads(validated.stdout)[0]["diagnostics"][0]["code"] == "RP405"


def test_simulate_summary():
    result = run("simulate", "tic-tac-toe", "-n", "6", "--agents", "greedy,random", "--seed", "3", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert {"games", "wins", "draws", "win_rate", "mean_length", "run", "statistics"} <= set(data)
    assert data["run"]["playouts_per_s"] > 0
    assert data["games"] == 6 and sum(data["wins"]) + data["draws"] == 6
    text = run("simulate", "tic-tac-toe", "-n", "6", "--agents", "greedy,random", "--seed", "3").output
    assert f"  player 0 (greedy): {data['wins'][0]} wins" in text


def test_simulate_rule_errors_exit_1(ruleset):
    path = ruleset("short", "limits:\n  max_steps: 3\n")
    result = run("simulate", path, "-n", "2")
    assert result.exit_code == 1
    assert "2 games (2 stopped on rule errors)" in result.output and "game 1 (seed " in result.output
    data = json.loads(run("simulate", path, "-n", "2", "--json").stdout)
    assert [e["index"] for e in data["errors"]] == [0, 1]


def test_bench_reports_rates():
    data = json.loads(run("bench", "tic-tac-toe", "--seconds", "0.05", "--runs", "2", "--json").stdout)
    assert len(data["runs"]) == 2 and all(r["playouts"] >= 1 for r in data["runs"])
    assert data["min_playouts_per_s"] <= data["playouts_per_s"] <= data["max_playouts_per_s"]
    assert 5 <= data["mean_length"] <= 9
    costs = [r["baseline_ops_per_s"] / r["playouts_per_s"] for r in data["runs"]]
    assert data["baseline_ops_per_playout"] == pytest.approx(sum(costs) / 2)  # the median of two runs


# ----------------------------------------------------------------- scenarios

SCENARIO_PASS = """
game: tic-tac-toe
name: X opens in the centre
moves: [place(4)]
expect:
  - board[4] == 0
"""


def test_scenario_pass_and_fail(tmp_path):
    good = tmp_path / "good.yaml"
    good.write_text(SCENARIO_PASS)
    bad = tmp_path / "bad.yaml"
    bad.write_text(SCENARIO_PASS.replace("board[4] == 0", "board[4] == 1").replace("opens", "fails"))
    ok = run("scenario", good)
    assert ok.exit_code == 0 and f"PASS {good}: X opens in the centre" in ok.output
    result = run("scenario", good, bad)
    assert result.exit_code == 1
    assert f"FAIL {bad}: X fails in the centre" in result.output and "1 passed, 1 failed" in result.output
    data = json.loads(run("scenario", good, bad, "--json").stdout)
    assert [s["passed"] for s in data["scenarios"]] == [True, False] and data["mutation"] is None


def test_scenario_players_and_variant_replace_each_files_own():
    sharks = REPO / "scenarios" / "lovci-pokladu" / "shark.yaml"
    assert run("scenario", sharks).exit_code == 0
    no_sharks = run("scenario", sharks, "--variant", "no-sharks")
    assert no_sharks.exit_code == 1 and "0 passed, 1 failed" in no_sharks.output
    assert "expected LP-9.7, LP-9.6 to fire" in no_sharks.output  # played as the variant: the shark is open water
    six = REPO / "scenarios" / "lovci-pokladu" / "crowded-six.yaml"
    five = run("scenario", six, "--players", "5")
    assert five.exit_code == 1 and '[side_of(p) for p in seats()] = ["S", "W", "N", "E", "S"]' in five.output  # seated for five
    unknown = run("scenario", sharks, "--variant", "nope")
    assert unknown.exit_code == 2 and "has no variant 'nope'" in unknown.output


ONES = """\
ruleplay: 1
game: ones
players: 2
state:
  total: {init: "0"}
flow:
  phases:
    - name: play
      actions: [add_one, add_two]
actions:
  add_one: {rule: R-1, effects: total += 1}
  add_two: {rule: R-2, effects: total += 2}
end:
  - when: total >= 3
variants:
  ones:
    patch:
      - {op: remove, path: actions.add_two}
      - {op: set, path: "flow.phases[0].actions", value: [add_one]}
"""


def test_scenario_mutate_with_a_variant_is_judged_by_the_scenarios_written_for_it(tmp_path):
    (tmp_path / "ones.yaml").write_text(ONES)
    (tmp_path / "base.yaml").write_text("game: ones.yaml\nmoves: [add_two]\nexpect: total == 2\n")
    (tmp_path / "only.yaml").write_text("game: ones.yaml\nvariant: ones\nmoves: [add_one]\nexpect: total == 1\n")
    result = run("scenario", tmp_path / "base.yaml", tmp_path / "only.yaml", "--mutate", tmp_path / "ones.yaml",
                 "--variant", "ones")
    # The run plays both as the variant (base.yaml fails there); the mutants are judged by only.yaml.
    assert result.exit_code == 1 and "1 passed, 1 failed" in result.output
    assert "1 rules tested, 1 caught, 0 survived" in result.output
    assert "judged by the scenarios written for it" in " ".join(run("scenario", "--help").output.split())


def test_scenario_mutate_and_ruleset_naming_two_rulesets_is_a_usage_error(tmp_path):
    good = tmp_path / "good.yaml"
    good.write_text(SCENARIO_PASS)
    result = run("scenario", good, "--mutate", "tic-tac-toe", "--ruleset", "kuhn-poker")
    assert result.exit_code == 2
    assert "--mutate tic-tac-toe and --ruleset kuhn-poker name two rulesets: --mutate GAME turns GAME's rules " \
           "off" in " ".join(result.output.split()), result.output
    same = run("scenario", good, "--mutate", "tic-tac-toe", "--ruleset", builtin_games()["tic-tac-toe"], "--json")
    assert json.loads(same.stdout)["mutation"]["rules_tested"], same.output


# ------------------------------------------------------- the real executable

def executable() -> str:
    beside = Path(sys.executable).parent / "ruleplay"
    found = str(beside) if beside.exists() else shutil.which("ruleplay")
    assert found, "the ruleplay command is not installed (pip install -e .)"
    return found


def test_executable_plays_a_game_as_json():
    proc = subprocess.run([executable(), "play", "tic-tac-toe", "--seed", "5", "--json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["seed"] == 5 and data["moves"] == [str(m) for m in _replayed_moves(data["moves"])]


def _replayed_moves(moves: list[str]) -> list:
    """The moves are legal in order: replay them through the library."""
    state = load_game("tic-tac-toe").new_state(5)
    for text in moves:
        state = state.apply(text)
    assert state.is_terminal()
    return list(state.history)


def test_executable_reports_an_invalid_ruleset_without_traceback(ruleset):
    path = ruleset("bad", replace=("players: 2", "players: two"))
    proc = subprocess.run([executable(), "validate", str(path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert f"{path}:6:10: error RP107" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr


# ------------------------------------------------ killed simulations lose nothing

KILL_RUN = ["simulate", "tic-tac-toe", "-n", "4000", "--seed", "11", "--workers", "2"]


def _game_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()[1:] if path.exists() else []


def _kill_midway(args: list[str], out: Path, sig: signal.Signals) -> subprocess.CompletedProcess:
    """Start the run, wait until some games are in `out`, send `sig`; the run must not have finished."""
    # A test run started in the background (`pytest &`) inherits an ignored SIGINT, which a child would keep:
    # give the child the default handler, as a command typed at a terminal has.
    proc = subprocess.Popen([executable(), *args, "--out", str(out)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while len(_game_lines(out)) < 100 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=120)
    assert len(_game_lines(out)) < 4000, "the run ended before the signal: make it longer"
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> list[str]:
    whole = tmp_path_factory.mktemp("whole") / "whole.jsonl"
    subprocess.run([executable(), *KILL_RUN, "--out", str(whole)], check=True, capture_output=True, timeout=300)
    return sorted(_game_lines(whole))


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
def test_a_killed_simulation_keeps_every_finished_game_and_resumes(tmp_path, sig, uninterrupted):
    cut = tmp_path / "cut.jsonl"
    killed = _kill_midway(KILL_RUN, cut, sig)
    if sig == signal.SIGINT:
        assert killed.returncode == 130
        assert "finish the run by giving the same command with --resume" in killed.stderr
    assert "Traceback" not in killed.stderr
    kept = _game_lines(cut)
    complete = cut.read_text(encoding="utf-8").endswith("\n")
    for line in kept[:-1] if not complete else kept:  # every finished game intact (SIGKILL may tear the last)
        assert json.loads(line)["index"] in range(4000)
    resumed = subprocess.run([executable(), *KILL_RUN, "--out", str(cut), "--resume", "--json"],
                             capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["resumed"] >= len(kept) - 1
    assert sorted(_game_lines(cut)) == uninterrupted


def test_simulate_resume_needs_out():
    result = CliRunner().invoke(main, ["simulate", "tic-tac-toe", "--resume"])
    assert result.exit_code == 2 and "--resume completes the results file given with --out" in result.output


def test_simulate_refuses_to_overwrite_results(tmp_path):
    out = tmp_path / "r.jsonl"
    assert CliRunner().invoke(main, ["simulate", "tic-tac-toe", "-n", "3", "--out", str(out)]).exit_code == 0
    again = CliRunner().invoke(main, ["simulate", "tic-tac-toe", "-n", "3", "--out", str(out)])
    assert again.exit_code == 1 and "error RP650" in again.output and "exists: add --resume" in again.output


# ------------------------------------------------------------ --report FILE

def test_report_writes_the_json_document_to_a_file(tmp_path):
    path = tmp_path / "perft.json"
    printed = CliRunner().invoke(main, ["perft", "tic-tac-toe", "--depth", "2", "--json"])
    written = CliRunner().invoke(main, ["perft", "tic-tac-toe", "--depth", "2", "--report", str(path)])
    assert written.exit_code == 0 and f"report written to {path}" in written.output
    counts = [{k: v for k, v in json.loads(text).items() if k not in ("seconds", "nodes_per_s")}
              for text in (path.read_text(), printed.output)]
    assert counts == [{"depth": 2, "nodes": 72, "terminals": 0, "backend": "python"}] * 2
    assert set(json.loads(path.read_text())) == {"depth", "nodes", "terminals", "seconds", "nodes_per_s", "backend"}


def test_report_of_a_failure_holds_the_error(tmp_path):
    path = tmp_path / "v.json"
    result = CliRunner().invoke(main, ["validate", str(tmp_path / "missing.yaml"), "--report", str(path)])
    assert result.exit_code == 1
    assert json.loads(path.read_text())[0]["diagnostics"][0]["code"] == "RP009"


def test_report_that_cannot_be_written_is_one_clear_error(tmp_path, disk_full):
    disk_full(tmp_path, 10)
    path = tmp_path / "r.json"
    result = CliRunner().invoke(main, ["perft", "tic-tac-toe", "--depth", "1", "--report", str(path)])
    assert result.exit_code == 1
    assert f"error RP680: cannot write the report {path}: No space left on device" in result.output
    assert isinstance(result.exception, SystemExit)  # no traceback
    assert os.listdir(tmp_path) == []  # neither the report nor its temporary file
    folder = CliRunner().invoke(main, ["perft", "tic-tac-toe", "--depth", "1", "--report", str(tmp_path)])
    assert folder.exit_code == 2
    missing = CliRunner().invoke(main, ["perft", "tic-tac-toe", "--depth", "1", "--report", str(tmp_path / "no" / "r.json")])
    assert missing.exit_code == 2 and "no folder" in missing.output


# ------------------------------------------------- files that are not regular files

@pytest.fixture
def fifo(tmp_path) -> Path:
    path = tmp_path / "pipe.jsonl"
    os.mkfifo(path)
    return path


@pytest.mark.timeout(30)  # reading a FIFO would wait for a writer for ever
def test_inputs_must_be_regular_files(fifo):
    replayed = run("replay", fifo)
    assert replayed.exit_code == 1
    assert replayed.output == f"error RP630: {fifo}: cannot read the log: a FIFO (named pipe), not a regular file\n"
    state = run("graph", "tic-tac-toe", "--state", fifo)
    assert state.exit_code == 1
    assert state.output == (f"error RP620: {fifo}: cannot read the saved state: a FIFO (named pipe), "
                            f"not a regular file\n")
    scenario = run("scenario", fifo)
    assert scenario.exit_code == 1 and "error RP641: cannot read the scenario: a FIFO (named pipe)" in scenario.output
    ruleset = run("play", fifo)
    assert ruleset.exit_code == 1
    assert ruleset.output.startswith(f"{fifo}: error RP009: {fifo} is a FIFO (named pipe), not a regular file\n")
    folder = run("validate", fifo.parent)
    assert folder.exit_code == 1 and f"error RP009: {fifo.parent} is a folder, not a regular file" in folder.output


def test_a_ruleset_that_is_a_link_loop_is_named_one(tmp_path):
    """A symbolic-link loop was reported as "no game or file named ..."."""
    loop, other = tmp_path / "loop.yaml", tmp_path / "other.yaml"
    loop.symlink_to(other.name)
    other.symlink_to(loop.name)
    for command in (["validate", loop], ["play", loop], ["simulate", loop, "-n", "1"]):
        result = run(*command)
        assert result.exit_code == 1
        assert f"error RP009: {loop} is a symbolic link that leads round in a loop, to no file" in result.output
        assert "no game or file named" not in result.output


def test_a_saved_state_has_a_size_limit(tmp_path, monkeypatch):
    path = tmp_path / "state.json"
    path.write_text(json.dumps(load_game("tic-tac-toe").new_state(0).to_json()))
    monkeypatch.setattr("ruleplay.cli.graph.MAX_STATE_BYTES", 100)
    result = run("graph", "tic-tac-toe", "--state", path)
    assert result.exit_code == 1
    assert result.output == (f"error RP620: {path}: cannot read the saved state: the file is "
                             f"{path.stat().st_size} bytes, over the limit of 100\n")


@pytest.mark.timeout(30)
@pytest.mark.parametrize("args", [
    ["perft", "tic-tac-toe", "--depth", "1", "--report"],
    ["play", "tic-tac-toe", "--log"],
    ["simulate", "tic-tac-toe", "-n", "2", "--out"],
    ["simulate", "tic-tac-toe", "-n", "2", "--resume", "--out"],
], ids=["report", "log", "out", "resume"])
def test_outputs_never_replace_what_is_not_a_regular_file(tmp_path, fifo, args):
    link = tmp_path / "link"
    link.symlink_to(fifo)
    for target in (fifo, link):
        result = run(*args, target)
        assert result.exit_code == 2, result.output
        assert f"{target} is a FIFO (named pipe), not a regular file" in result.output
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "pipe.jsonl"]


@pytest.mark.parametrize("args", [
    ["perft", "tic-tac-toe", "--depth", "1", "--report"],
    ["play", "tic-tac-toe", "--log"],
], ids=["report", "log"])
def test_outputs_are_written_through_a_symbolic_link(tmp_path, args):
    target = tmp_path / "run-1.json"
    target.write_text("old\n")
    link = tmp_path / "latest.json"
    link.symlink_to(target.name)
    assert run(*args, link).exit_code == 2 and target.read_text() == "old\n"  # an existing file: asked first
    assert run(*args, link, "--overwrite").exit_code == 0
    assert link.is_symlink() and target.read_text() != "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["latest.json", "run-1.json"]


def must_not_run(*args, **kwargs):
    raise AssertionError("the arguments should have been refused")


@pytest.mark.parametrize("seconds", ["nan", "inf", "-inf", "3601"])
def test_bench_seconds_must_be_a_finite_bounded_time(monkeypatch, seconds):
    monkeypatch.setattr("ruleplay.runs.bench.bench", must_not_run)
    result = run("bench", "tic-tac-toe", "--seconds", seconds, "--runs", "1")
    assert result.exit_code == 2 and "Invalid value for '--seconds'" in result.output


def test_game_counts_are_bounded(monkeypatch):
    monkeypatch.setattr("ruleplay.runs.simulate.simulate", must_not_run)
    games = run("simulate", "tic-tac-toe", "-n", "1000000001")
    assert games.exit_code == 2 and "1000000001 is not in the range 1<=x<=1000000000" in games.output
    smoke = run("validate", "tic-tac-toe", "--smoke", "1000001")
    assert smoke.exit_code == 2 and "1000001 is not in the range 0<=x<=1000000" in smoke.output


@pytest.mark.parametrize("files", [[], ["notes.txt"]])
def test_a_scenario_folder_without_scenarios_fails(tmp_path, files):
    for name in files:
        (tmp_path / name).write_text("x")
    result = run("scenario", tmp_path)
    assert result.exit_code == 1
    assert result.output == f"error RP640: no scenario files (*.yaml) in {tmp_path}\n"
    data = json.loads(run("scenario", tmp_path, "--json").stdout)
    assert data["error"]["code"] == "RP640"


def test_an_empty_game_name_is_named():
    result = run("play", "")
    assert result.exit_code == 1 and result.output.startswith("'': error RP009: the game name is empty\n")


@pytest.mark.parametrize("command", ["simulate", "compare", "tournament"])
def test_headless_commands_offer_only_agents_that_play_without_a_person(command):
    text = " ".join(run(command, "--help").output.split())
    assert "Agents: random; first; greedy" in text and "scale" in text
    assert "human" not in text and "None" not in text  # no `x<=None` for an unbounded number


@pytest.mark.parametrize("command", ["simulate", "compare", "tournament"])
def test_headless_commands_refuse_the_human_agent_as_a_usage_error(command):
    result = run(command, "tic-tac-toe", "--agents", "human,random")
    assert result.exit_code == 2 and "the human agent needs a person at the table" in result.output


def test_a_file_named_like_a_built_in_game_is_noted_not_read(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tic-tac-toe.yaml").write_text("not read\n")
    result = run("play", "tic-tac-toe", "--seed", "1")
    assert result.exit_code == 0 and "note: tic-tac-toe is the built-in game, not the file tic-tac-toe.yaml here " \
        "(give ./tic-tac-toe.yaml to play the file)" in result.output
    assert "note:" not in run("play", "connect-four", "--seed", "1").output


def test_play_offers_the_human_agent_too():
    assert "human" in " ".join(run("play", "--help").output.split())


def test_a_reader_that_goes_away_does_not_cost_the_games_log(tmp_path):
    """`ruleplay play GAME --log FILE | head -1`: the game is played to its end unseen and its log written."""
    log = tmp_path / "g.jsonl"
    proc = subprocess.Popen([executable(), "play", "nautilus-cards", "--seed", "3", "--log", str(log)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()  # as `head -1` does after its line
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0, stderr
    assert stderr == ""
    replayed = run("replay", str(log))
    assert replayed.exit_code == 0 and "replays (nautilus-cards, seed 3" in replayed.output, replayed.output


@pytest.mark.parametrize("args", [["perft", "nautilus", "--depth", "12"], ["bench", "nautilus", "--seconds", "100"]])
def test_ctrl_c_stops_a_command_with_the_shells_code_and_no_traceback(args):
    """130, as `simulate` and a table already gave; click alone says "Aborted!" and exits 1, the code of
    an invalid ruleset."""
    proc = subprocess.Popen([executable(), *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(3)  # past the imports and the load: the command is at work
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert stderr.rstrip().endswith("interrupted") and "Traceback" not in stderr and "Aborted" not in stderr


def test_bench_refuses_more_runs_than_anyone_waits_for():
    result = run("bench", "tic-tac-toe", "--seconds", "0.01", "--runs", "100000000000000000000")
    assert result.exit_code == 2 and "--runs" in result.output, result.output


@pytest.mark.parametrize("command", [["play", "kuhn-poker"], ["simulate", "kuhn-poker", "-n", "1"],
                                     ["compare", "nautilus-cards", "--variant", "seed-only", "-n", "1"],
                                     ["tournament", "tic-tac-toe", "--agents", "random,first", "-n", "2"],
                                     ["perft", "tic-tac-toe", "--depth", "1"]])
def test_a_seed_outside_64_bits_is_a_usage_error(command):
    for seed in ("-1", str(2 ** 64)):
        result = run(*command, "--seed", seed)
        assert result.exit_code == 2 and f"Invalid value for '--seed': {seed} is not in the range" in result.output
    assert run(*command, "--seed", str(2 ** 64 - 1)).exit_code == 0


def test_a_perft_depth_past_any_game_is_refused_and_one_past_the_end_counts_the_whole_tree():
    assert run("perft", "tic-tac-toe", "--depth", str(10 ** 20)).exit_code == 2
    whole = json.loads(run("perft", "kuhn-poker", "--depth", str(10 ** 7), "--json").stdout)
    assert whole["nodes"] == 0 and whole["terminals"] == json.loads(
        run("perft", "kuhn-poker", "--depth", "60", "--json").stdout)["terminals"] > 0


def test_a_log_written_below_its_rulesets_folder_says_that_reading_it_back_needs_the_ruleset(tmp_path):
    rules, seeds = tmp_path / "rulesets", tmp_path / "seeds"
    (rules / "sub").mkdir(parents=True), seeds.mkdir()
    shutil.copy(builtin_games()["tic-tac-toe"], rules / "ttt.yaml")
    shutil.copy(Path(builtin_games()["tic-tac-toe"]).parents[1] / "seeds" / "tic-tac-toe.md", seeds)
    below = CliRunner().invoke(main, ["play", str(rules / "ttt.yaml"), "--log", str(rules / "sub" / "a.jsonl")])
    assert below.exit_code == 0 and "names its ruleset '../ttt.yaml', outside the log's folder" in below.stderr
    beside = CliRunner().invoke(main, ["play", str(rules / "ttt.yaml"), "--log", str(rules / "b.jsonl")])
    assert beside.exit_code == 0 and "note:" not in beside.stderr


def _many_actions(count: int) -> str:
    """A valid ruleset of `count` actions and variables, some 220 bytes of YAML each."""
    lines = ["ruleplay: 1", "game: many", "players: 2", "state:"]
    lines += [f"  v{i}: {{init: \"0\"}}" for i in range(count)]
    lines += ["flow:", "  phases:", "    - name: main", f"      actions: [{', '.join(f'a{i}' for i in range(count))}]",
              "actions:"]
    for i in range(count):
        lines += [f"  a{i}:", "    params:", "      k: range(3)", "    require:", f"      - check: v{i} < 5 and k >= 0",
                  "    effects: |", f"      v{i} += k + 1",
                  f"      if v{i} > 3 {{ v{(i + 1) % count} = len([x for x in range(4) if x > k]) }}"]
    return "\n".join(lines + ["end:", "  - when: v0 > 4", "scoring:", "  score: v0"]) + "\n"


@pytest.mark.slow  # about a minute: five loads of a 0.2 MB ruleset
def test_validating_several_large_rulesets_takes_the_memory_of_one(tmp_path):
    """`validate` of four 0.9 MB rulesets in one command peaked at 592 MB and grew with each file (one: 266 MB)."""
    paths = []
    for k in range(4):
        paths.append(tmp_path / f"many{k}.yaml")
        paths[-1].write_text(_many_actions(800).replace("game: many", f"game: many{k}"), encoding="utf-8")
    peak = "import sys; from ruleplay.cli import main\ntry: main(sys.argv[1:])\nexcept SystemExit: pass\n" \
           "print([l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1])"
    one, four = (int(subprocess.run([sys.executable, "-c", peak, "validate", *map(str, files)], capture_output=True,
                                    text=True, check=True, timeout=600).stdout.split()[-1])
                 for files in (paths[:1], paths))
    assert four < 1.3 * one, f"one file: {one >> 10} MB at most, four: {four >> 10} MB"
