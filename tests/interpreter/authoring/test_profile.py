"""`authoring.profile`: every piece of a ruleset's code timed while its games play, and the games unchanged."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ruleplay import load_game
from ruleplay.cli import main
from ruleplay.authoring.profile import profile
from ruleplay.runs.play import play_game

OTHELLO = Path(__file__).resolve().parents[2] / "rulesets" / "othello.yaml"

COUNTDOWN = """\
ruleplay: 1
game: countdown
players: 2
state:
  left: {init: "4"}
functions:
  fact:
    params: [n]
    value: if n <= 1 then 1 else n * fact(n - 1)
flow:
  phases:
    - name: main
      actions: [tick]
actions:
  tick:
    require:
      - check: fact(left) > 0
    effects: left -= 1
end:
  - when: left == 0
scoring:
  score: p
"""


def by_what(report):
    return {p.what: p for p in report.pieces}


def test_the_games_play_as_they_do_unprofiled():
    report = profile(load_game(OTHELLO), 3, ["random"], 5)
    plain = load_game(OTHELLO)
    assert report.moves == sum(play_game(plain, ["random"], 5 + k).length for k in range(3))


def test_each_piece_with_its_file_line_calls_and_times():
    report = profile(load_game(OTHELLO), 2, ["random"], 1)
    pieces = by_what(report)
    run, check = pieces["function run"], pieces["requirement 1 of place"]
    assert (run.file, run.line, check.line, pieces["effects of place"].line) == (str(OTHELLO), 32, 51, 54)
    assert run.calls > check.calls > 0 and pieces["end condition 1"].calls == report.moves + report.games  # and once as each game starts
    assert check.total >= run.total > 0  # the requirement calls `run`: its total holds what `run` took
    assert all(p.own <= p.total + 1e-9 for p in report.pieces)
    assert [p.own for p in report.pieces] == sorted((p.own for p in report.pieces), reverse=True)
    assert 0 < report.ruleset_seconds <= report.seconds
    again = profile(load_game(OTHELLO), 2, ["random"], 1)
    assert {p.what: p.calls for p in again.pieces} == {p.what: p.calls for p in report.pieces}


def test_a_recursive_function_counts_every_call_and_its_total_once(make_game):
    report = profile(make_game(COUNTDOWN), 1, ["first"], 0)
    fact, check = by_what(report)["function fact"], by_what(report)["requirement 1 of tick"]
    assert check.calls == 4 and fact.calls == 4 + 3 + 2 + 1  # fact(4), fact(3), fact(2), fact(1) and inner calls
    assert fact.total <= check.total  # counted from the outermost call only
    assert "setup" not in by_what(report)  # a piece the ruleset does not write is not listed


def test_the_command_ranks_the_pieces_and_gives_json():
    text = CliRunner().invoke(main, ["profile", str(OTHELLO), "--games", "2", "--top", "3"])
    assert text.exit_code == 0, text.output
    lines = text.output.splitlines()
    assert lines[0].startswith("othello (2 players): 2 games, ") and "the ruleset's own code took" in lines[0]
    assert lines[1].split() == ["own", "s", "own", "total", "s", "calls", "where", "what"]
    assert len(lines) == 6 and lines[-1].startswith("… ") and "--top 0" in lines[-1]
    every = CliRunner().invoke(main, ["profile", str(OTHELLO), "--games", "2", "--top", "0"]).output.splitlines()
    assert any(line.endswith("function run") and "othello.yaml:32  " in line for line in every)
    more = int(lines[-1].split()[1])  # "… N more pieces ran"
    assert len(every) == 2 + 3 + more and not every[-1].startswith("…")
    data = json.loads(CliRunner().invoke(main, ["profile", str(OTHELLO), "--games", "1", "--json"]).output)
    assert data["games"] == 1 and data["pieces"][0].keys() == {"what", "path", "file", "line", "calls",
                                                              "own_seconds", "total_seconds", "own_share"}
    assert {p["path"] for p in data["pieces"]} >= {"functions.run.value", "actions.place.require[0].check"}
