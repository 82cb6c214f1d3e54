"""`simulate` statistics and charts, `compare` and `tournament` on the command line."""

from __future__ import annotations

import builtins
import contextlib
import json
import shlex
import shutil
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from ruleplay.cli import main
from ruleplay.engine.loader import builtin_games

SEEDS = Path(builtin_games()["tic-tac-toe"]).parents[1] / "seeds"


def run(*args: object):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert "Traceback" not in result.output, result.output
    return result


@pytest.fixture
def misere(tmp_path: Path) -> tuple[Path, Path]:
    """tic-tac-toe and an `extends:` file of it where the three in a row loses."""
    rules = tmp_path / "rules"
    rules.mkdir()
    shutil.copy(builtin_games()["tic-tac-toe"], rules / "tic-tac-toe.yaml")
    shutil.copytree(SEEDS, tmp_path / "seeds")
    (rules / "misere.yaml").write_text(
        "extends: tic-tac-toe.yaml\n"
        "patch:\n"
        "  - {op: replace, path: scoring.score, value: 'if winner == p then 0 else 1'}\n")
    return rules / "tic-tac-toe.yaml", rules / "misere.yaml"


def test_simulate_prints_and_emits_the_statistics():
    text = run("simulate", "tic-tac-toe", "-n", "20", "--agents", "random,greedy")
    assert text.exit_code == 0
    assert "95% CI [" in text.output and "legal moves per decision" in text.output
    doc = json.loads(run("simulate", "tic-tac-toe", "-n", "20", "--json").output)
    stats = doc["statistics"]
    assert len(stats["win_rate"]) == 2 and stats["rules"]["fired"]["TT-2.1"]["games"] == 20
    assert doc["run"] == {**doc["run"], "executor": "process", "workers": 1}


def test_rotated_seats_report_per_agent_not_per_seat(tmp_path):
    """With --rotate the k-th figures are agent k's, over every seat it held: labelled `seat k` they read as
    seat k's (greedy's 'seat 1' win rate was the rate of greedy in both seats)."""
    result = run("simulate", "tic-tac-toe", "-n", "20", "--agents", "random,greedy", "--rotate",
                 "--plot", tmp_path / "charts")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any(line.startswith("  agent 1 (greedy): mean return") for line in lines)
    assert any(line.startswith("  agent 1 (greedy): ") and " wins (" in line for line in lines)
    assert not any(line.lstrip().startswith(("seat ", "player ")) for line in lines), result.output
    assert "win rate per agent" in (tmp_path / "charts" / "win-rates.svg").read_text(encoding="utf-8")


def test_compare_finds_that_misere_turns_the_winner(misere):
    base, variant = misere
    result = run("compare", base, "--variant", variant, "-n", "150", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["correction"] == "Bonferroni" and doc["confidence_per_comparison"] > 0.95
    found = {d["statistic"]: d for d in doc["differences"]}
    assert found["win_rate[0]"]["significant"] and found["win_rate[0]"]["difference"] < 0
    assert found["win_rate[0]"]["test"].startswith("Newcombe")
    assert not found["mean_length"]["significant"]  # the same moves are played: only the scores differ
    assert found["mean_length"]["test"].startswith("percentile bootstrap")
    text = run("compare", base, "--variant", variant, "-n", "30").output
    assert "Bonferroni" in text and "win_rate[0]" in text


def test_compare_resumes_its_results_files(misere, tmp_path):
    base, variant = misere
    first = json.loads(run("compare", base, "--variant", variant, "-n", "20", "--out", tmp_path / "o",
                           "--json").output)
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["A.jsonl", "B.jsonl"]
    again = json.loads(run("compare", base, "--variant", variant, "-n", "20", "--out", tmp_path / "o",
                           "--resume", "--json").output)
    assert again["b"]["resumed"] == 20 and again["differences"] == first["differences"]


def test_compare_refuses_a_ruleset_that_does_not_extend_the_game(misere, tmp_path):
    base, variant = misere
    other = tmp_path / "rules" / "connect-four.yaml"
    shutil.copy(builtin_games()["connect-four"], other)
    for sides in (["--variant", other], ["--variant", variant, "--variant", other]):
        result = run("compare", base, *sides, "-n", "5")
        assert result.exit_code == 2 and f"{other} does not extend {base}" in result.output, result.output


def test_compare_says_what_a_named_variant_changes():
    text = run("compare", "nautilus-cards", "--variant", "seed-only", "-n", "2").output
    assert text.splitlines()[1].startswith("  seed-only: ") and "(no description)" not in text


FAILS_ON_THREE = """\
ruleplay: 1
game: fails
players: 2
state:
  total: {init: "0"}
flow:
  phases:
    - name: play
      actions: [add]
actions:
  add:
    params:
      n: range(1, 4)
    effects: total += n
end:
  - when: total >= 6
scoring:
  score: "if current == p then 1 else 0"
variants:
  broken-on-three:
    description: adding 3 is a rule error
    patch:
      - {op: replace, path: actions.add.effects, value: "total += [1, 2][n - 1]"}
"""


def test_compare_reports_the_games_rule_errors_stopped_and_pairs_only_the_rest(tmp_path):
    path = tmp_path / "fails.yaml"
    path.write_text(FAILS_ON_THREE, encoding="utf-8")
    result = run("compare", path, "--variant", "broken-on-three", "-n", "60", "--seed", "3", "--json")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert doc["a"]["completed"] == 60 and 0 < doc["b"]["completed"] < 60
    assert doc["paired_games"] == doc["b"]["completed"]  # the games B finished, where no 3 was added
    for d in doc["differences"]:  # so the pairs are the same games on both sides: B - A is 0, A and B are not
        assert d["difference"] == 0 and d["low"] <= 0 <= d["high"], d
    assert any(d["a"] != d["b"] for d in doc["differences"])
    assert "broken-on-three: " in result.stderr and "games stopped on rule errors" in result.stderr
    assert "error RP500" in result.stderr
    commands = _replays(result.stderr)
    assert commands
    for command in commands:  # each printed command plays the failed game again
        assert command[3:5] == ["--variant", "broken-on-three"]
        assert "error RP500" in run(*command[1:]).output
    text = run("compare", path, "--variant", "broken-on-three", "-n", "60", "--seed", "3")
    assert text.exit_code == 1 and "(stopped on rule errors: B " in text.stdout
    assert f"over the {doc['paired_games']} games that finished on both sides" in text.stdout


def _replays(stderr: str) -> list[list[str]]:
    """The `ruleplay play` commands a batch printed under its failed games, as argument lists."""
    return [shlex.split(line.split("replay it: ", 1)[1]) for line in stderr.splitlines() if "replay it: " in line]


FAILS_FOR_FIRST = """\
ruleplay: 1
game: fails-for-first
players: 2
state:
  x: {init: "0"}
flow:
  phases:
    - name: a
      actions: [go]
actions:
  go:
    params: {d: "range(11)"}
    effects: x += 10 // d
end:
  - when: x > 0
scoring:
  score: x
"""


def test_simulate_prints_a_command_that_replays_each_failed_game_in_its_rotated_seating(tmp_path):
    path = tmp_path / "fails-for-first.yaml"  # the first agent divides by zero; random rarely does
    path.write_text(FAILS_FOR_FIRST, encoding="utf-8")
    result = run("simulate", path, "-n", "6", "--agents", "random,first", "--rotate", "--players", "2")
    assert result.exit_code == 1
    commands = _replays(result.stderr)
    assert len(commands) >= 3  # the odd games at least, where first moves first
    for command in commands:
        assert command[:3] == ["ruleplay", "play", str(path)] and command[3:5] == ["--players", "2"]
        assert command[command.index("--agents") + 1] == "first,random"
        assert "error RP500" in run(*command[1:]).output


PLAYER_COUNTS = """\
ruleplay: 1
game: counts
players: {min: 2, max: 4, default: 2}
state:
  x: {init: "0"}
flow:
  phases:
    - name: a
      actions: [go]
actions:
  go:
    effects: x += 1
end:
  - when: x > 2
scoring:
  score: x
variants:
  three-up:
    description: three or four players
    patch:
      - {op: set, path: players, value: {min: 3, max: 4, default: 3}}
  five:
    description: five players only
    patch:
      - {op: set, path: players, value: 5}
"""


@pytest.mark.parametrize("players", [[], ["--players", "5"], ["--players", "2"]])
def test_compare_says_when_no_player_count_suits_both_sides(tmp_path, players):
    path = tmp_path / "counts.yaml"
    path.write_text(PLAYER_COUNTS, encoding="utf-8")
    result = run("compare", path, "--variant", "five", "-n", "2", *players)
    assert result.exit_code == 2
    assert "A is for 2 to 4 players and B for 5: no player count suits both" in result.output, result.output
    assert "give --players" not in result.output and "use --players" not in result.output


def test_compare_asks_for_a_player_count_both_sides_take(tmp_path):
    path = tmp_path / "counts.yaml"
    path.write_text(PLAYER_COUNTS, encoding="utf-8")
    result = run("compare", path, "--variant", "three-up", "-n", "2")
    assert result.exit_code == 2 and "A has 2 players and B 3: give --players N for both (N from 3 to 4)" \
        in " ".join(result.output.split()), result.output
    doc = json.loads(run("compare", path, "--variant", "three-up", "-n", "2", "--players", "4", "--json").stdout)
    assert doc["a"]["players"] == doc["b"]["players"] == 4


def test_compare_needs_a_variant():
    result = run("compare", "tic-tac-toe")
    assert result.exit_code == 2 and "--variant V" in result.output


def test_tournament_plays_at_least_n_games_per_pairing_and_says_when_it_rounds_up():
    result = run("tournament", "tic-tac-toe", "--agents", "random,first", "-n", "3", "--json")
    pairing = json.loads(result.stdout)["pairings"][0]
    assert pairing["wins"] + pairing["draws"] + pairing["losses"] == 4  # 2 for each of the 2 seatings
    assert "note: 3 games per pairing do not share evenly between its 2 seatings: each pairing plays 2 per " \
           "seating, 4 in all" in result.stderr
    assert "note:" not in run("tournament", "tic-tac-toe", "--agents", "random,first", "-n", "4").stderr


def test_tournament_ranks_and_cross_tabulates():
    doc = json.loads(run("tournament", "tic-tac-toe", "--agents", "random,greedy", "-n", "60", "--json").output)
    assert [r["agent"] for r in doc["ranking"]] == ["greedy", "random"]
    best = doc["ranking"][0]
    assert best["ci95"][0] <= best["rating"] <= best["ci95"][1]
    pairing = doc["pairings"][0]
    assert pairing["wins"] + pairing["draws"] + pairing["losses"] == 60
    text = run("tournament", "tic-tac-toe", "--agents", "random,first", "-n", "10").output
    assert "cross-table" in text and "Elo" in text


def test_plots_are_written_and_a_missing_matplotlib_names_the_extra(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    result = run("simulate", "tic-tac-toe", "-n", "10", "--plot", tmp_path / "charts")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "charts").iterdir()) == sorted(
        f"{c}.{e}" for c in ("win-rates", "scores", "length", "rule-coverage") for e in ("png", "svg"))
    real = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    result = run("simulate", "tic-tac-toe", "-n", "10", "--plot", tmp_path / "more")
    assert result.exit_code == 2 and "ruleplay[plot]" in result.output


def test_a_scheduler_that_does_not_answer_is_rp652_with_a_hint(monkeypatch):
    pytest.importorskip("distributed")
    import socket

    from ruleplay.runs import cluster

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 1)  # 30 s in a real run
    with socket.socket() as s:  # a port no scheduler listens on
        s.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{s.getsockname()[1]}"
        result = run("simulate", "tic-tac-toe", "-n", "2", "--executor", f"dask://{address}")
        doc = json.loads(run("compare", "nautilus-cards", "--variant", "seed-only", "-n", "2", "--executor",
                             f"dask://{address}", "--json").stdout)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error RP652: no Dask scheduler answered at {address} (")
    assert "hint: start one there (`dask scheduler`" in result.stderr
    assert doc["error"]["code"] == "RP652" and "--executor dask-local" in doc["error"]["hint"]


@contextlib.contextmanager
def foreign_server(reply: bytes | None):
    """A TCP server on a free local port that is no Dask scheduler: it accepts every connection and then
    says nothing (`reply` None), closes it (b""), or sends `reply` and keeps it open; yields HOST:PORT."""
    import socket
    import threading

    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:  # closed at the end of the test
                return
            held.append(conn)
            if reply == b"":
                conn.close()
            elif reply is not None:
                conn.sendall(reply)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"127.0.0.1:{server.getsockname()[1]}"
    finally:
        server.close()
        for conn in held:
            conn.close()


@pytest.mark.timeout(60)
@pytest.mark.parametrize("reply, said", [
    (None, "something there accepts connections but said nothing in 2 s"),
    (b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n" * 4, "something there answered, but not as Dask does"),
    (b"\x02\x00\x00\x00\x00\x00\x00\x00" + b"\xff" * 64, "something there answered, but not as Dask does"),
    (b"", "something there accepts connections, then closes them"),
], ids=["silent", "http", "bytes", "closes"])
def test_a_port_that_is_no_dask_scheduler_is_rp652_naming_it(monkeypatch, reply, said):
    """A port that accepted and never spoke hung simulate past 80 s; one that answered garbage ended in
    `internal error MemoryError` (Dask took the garbage for a length)."""
    pytest.importorskip("distributed")
    from ruleplay.runs import cluster

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 2)  # 30 s in a real run
    with foreign_server(reply) as address:
        started = time.monotonic()
        result = run("simulate", "tic-tac-toe", "-n", "2", "--executor", f"dask://{address}")
        assert time.monotonic() - started < 20
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error RP652: no Dask scheduler at {address}: {said}"), result.stderr
    assert "hint: check the host and port the scheduler printed" in result.stderr


def test_tournament_lists_the_games_rule_errors_stopped_with_commands_that_replay_them(tmp_path):
    path = tmp_path / "fails-for-first.yaml"
    path.write_text(FAILS_FOR_FIRST, encoding="utf-8")
    result = run("tournament", path, "--agents", "random,first", "-n", "4")
    assert result.exit_code == 1 and "games stopped on rule errors and are not counted" in result.stderr
    assert "seating first, random: " in result.stderr
    commands = _replays(result.stderr)
    assert commands and all(command[command.index("--agents") + 1] == "first,random" for command in commands)
    assert "error RP500" in run(*commands[0][1:]).output
    doc = json.loads(run("tournament", path, "--agents", "random,first", "-n", "4", "--json").stdout)
    assert [f["agents"] for f in doc["failures"]] == [["first", "random"]]
    assert doc["failures"][0]["errors"][0]["code"] == "RP500"


@pytest.mark.parametrize(("players", "advice"), [
    ("{min: 1, max: 3}", "takes up to 3 players: give --players 2 or more"),
    ("{min: 1, max: 1}", "compare agents there with simulate"),
])
def test_a_tournament_of_a_one_player_game_is_a_usage_error(tmp_path, players, advice):
    """A one-player game has no opponent whose return a seat's is compared with: a ZeroDivisionError."""
    path = tmp_path / "solo.yaml"
    path.write_text(SOLO.replace("PLAYERS", players), encoding="utf-8")
    result = run("tournament", path, "--agents", "random,first", "-n", "2", "--players", "1")
    assert result.exit_code == 2 and "has one player" in result.output and advice in result.output
    assert "internal error" not in result.output


SOLO = """ruleplay: 1
game: solo
players: PLAYERS
state:
  n: {init: "0"}
flow:
  phases:
    - name: main
      actions: [go]
actions:
  go:
    effects: n += 1
end:
  - when: n >= 3
scoring:
  score: n
"""


@pytest.mark.parametrize("score", [str(2 ** 1024 - 1), str(2 ** 1023), "1.5 * " + "1" + "0" * 308])
def test_batches_of_scores_past_a_float_report_finite_figures(tmp_path, score):
    """A whole score of 1024 bits stopped simulate, compare and tournament with an internal OverflowError,
    and scores near the largest float gave a mean of infinity (Infinity in the JSON, invalid)."""
    path = tmp_path / "huge.yaml"
    path.write_text(SOLO.replace("PLAYERS", "2").replace("score: n", f"score: if current == 0 then {score} else 0"),
                    encoding="utf-8")
    for command in (["simulate", path, "-n", "5", "--json"], ["compare", path, "--variant", path, "-n", "5", "--json"],
                    ["tournament", path, "--agents", "random,first", "-n", "2", "--json"]):
        result = run(*command)
        assert result.exit_code == 0, result.output
        assert "Infinity" not in result.stdout and "NaN" not in result.stdout
        json.loads(result.stdout)


def test_plot_draws_a_seat_that_never_wins(tmp_path):
    """A seat with no wins in 5 games had a Wilson low end of 2.8e-17, a negative error bar: an internal
    ValueError from matplotlib."""
    pytest.importorskip("matplotlib")
    path = tmp_path / "first-wins.yaml"
    path.write_text(SOLO.replace("PLAYERS", "2").replace("score: n", "score: if p == 0 then 1 else 0"),
                    encoding="utf-8")
    result = run("simulate", path, "-n", "5", "--plot", tmp_path / "charts")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "charts" / "win-rates.svg").is_file()
