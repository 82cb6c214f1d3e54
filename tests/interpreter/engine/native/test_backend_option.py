"""`--backend auto|python|native` on the commands that play games, and what each report says of it.

The results are the same on both backends; every JSON report names the
backend the games played on; `auto` says on stderr, once, why it plays on
Python when it does; `native` that cannot be is an error (RP670, exit 1).
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ruleplay import load_game
from ruleplay.cli import main

from native_support import native_of


def run(*args: str, env: dict | None = None):
    return CliRunner().invoke(main, list(args), env=env)


@pytest.fixture(autouse=True)
def _compiled():
    native_of(load_game("tic-tac-toe"))


def _report(*args: str, env: dict | None = None) -> dict:
    result = run(*args, "--json", env=env)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_simulate_reports_the_same_games_on_both_backends_and_names_each():
    native = _report("simulate", "tic-tac-toe", "-n", "30", "--backend", "native")
    python = _report("simulate", "tic-tac-toe", "-n", "30", "--backend", "python")
    assert native["run"]["backend"] == "native" and python["run"]["backend"] == "python"
    for part in (native, python):
        del part["run"]
    assert native == python


def test_auto_plays_natively_what_it_can_and_says_why_when_it_cannot():
    result = run("simulate", "tic-tac-toe", "-n", "5", "--backend", "auto", "--json")
    assert json.loads(result.stdout)["run"]["backend"] == "native" and "note:" not in result.stderr
    greedy = run("simulate", "tic-tac-toe", "-n", "5", "--agents", "greedy", "--json")  # $RULEPLAY_BACKEND: python
    assert json.loads(greedy.stdout)["run"]["backend"] == "python"
    auto = run("simulate", "tic-tac-toe", "-n", "5", "--agents", "greedy", "--backend", "auto", "--json")
    assert auto.exit_code == 0 and json.loads(auto.stdout)["run"]["backend"] == "python"
    assert auto.stderr.count("note: playing on the Python engine") == 1 and "greedy" in auto.stderr


def test_native_that_cannot_be_is_an_error():
    result = run("simulate", "tic-tac-toe", "-n", "5", "--agents", "greedy", "--backend", "native")
    assert result.exit_code == 1 and "RP670" in result.output and "greedy" in result.output


def test_perft_and_bench_name_their_backend_and_count_alike():
    native = _report("perft", "tic-tac-toe", "--depth", "4", "--backend", "native")
    python = _report("perft", "tic-tac-toe", "--depth", "4", "--backend", "python")
    assert (native["backend"], python["backend"]) == ("native", "python")
    assert (native["nodes"], native["terminals"]) == (python["nodes"], python["terminals"])
    bench = _report("bench", "tic-tac-toe", "--seconds", "0.05", "--runs", "1", "--backend", "native")
    assert bench["backend"] == "native" and bench["playouts_per_s"] > 0


def test_compare_and_tournament_name_their_backend():
    compared = _report("compare", "nautilus-cards", "--variant", "seed-only", "-n", "4", "--backend", "python")
    assert {compared["a"]["run"]["backend"], compared["b"]["run"]["backend"]} == {"python"}
    native = _report("compare", "nautilus-cards", "--variant", "seed-only", "-n", "4", "--backend", "native")
    assert {native["a"]["run"]["backend"], native["b"]["run"]["backend"]} == {"native"}
    for report in (compared, native):  # the same games, their arcs judged alike (by the heuristic `domains`)
        del report["a"]["run"], report["b"]["run"]
    assert native == compared
    ranked = _report("tournament", "tic-tac-toe", "--agents", "random,first", "-n", "4", "--backend", "native")
    assert ranked["backend"] == "native"


def test_validate_native_says_what_keeps_a_ruleset_on_python(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_text("ruleplay: 1\ngame: big\nplayers: 2\nstate:\n  n: {init: \"0\"}\nflow:\n  phases:\n"
                    "    - {name: play, actions: [go]}\nactions:\n  go:\n    effects: |\n"
                    "      n = n + 99999999999999999999999\nend:\n  - when: n > 0\n", encoding="utf-8")
    result = run("validate", str(path), "--native")
    assert result.exit_code == 0  # valid: it plays, on the Python engine
    assert f"native: plays on the Python engine: the native backend does not lower an int past 64 bits " \
           f"({path}:12:15)" in result.output
    entry = json.loads(run("validate", str(path), "--native", "--json").stdout)[0]
    assert entry["native"] == {"lowers": False, "builds": False, "agrees": None, "at": f"{path}:12:15",
                               "reason": "the native backend does not lower an int past 64 bits",
                               "heuristics_on_python": {}, "determinization_on_python": None}
    played = json.loads(run("validate", "kuhn-poker", "--native", "--smoke", "6", "--json").stdout)[0]
    assert played["native"] == {"lowers": True, "builds": True, "agrees": True, "reason": None, "at": None,
                                "heuristics_on_python": {}, "determinization_on_python": None}


HEURISTIC_PAST_64_BITS = """ruleplay: 1
game: far
players: 2
state:
  n: {init: "0"}
flow:
  phases:
    - {name: play, actions: [go]}
actions:
  go:
    params: {k: "range(1, 3)"}
    effects: n = n + k
end:
  - when: n >= 6
scoring:
  score: n * (p + 1)
heuristics:
  far: {value: "99999999999999999999999 * n * seat"}
variants:
  longer:
    patch:
      - {op: replace, path: "end[0].when", value: n >= 9}
"""


def test_a_heuristic_the_module_lacks_judges_on_python(tmp_path):
    """The game lowers but for its heuristic: validate --native says so, compare (which judges positions by it)
    plays on Python under auto, with a note, and refuses --backend native."""
    path = tmp_path / "far.yaml"
    path.write_text(HEURISTIC_PAST_64_BITS, encoding="utf-8")
    entry = json.loads(run("validate", str(path), "--native", "--json").stdout)[0]
    assert entry["native"]["lowers"] and entry["native"]["builds"]
    assert entry["native"]["heuristics_on_python"] == {
        "far": {"reason": "the native backend does not lower an int past 64 bits", "at": f"{path}:18:17"}}
    shown = run("validate", str(path), "--native").output
    assert "native: heuristic far judges positions (compare, analyze) on the Python engine" in shown
    auto = run("compare", str(path), "--variant", "longer", "-n", "3", "--backend", "auto", "--json")
    assert auto.exit_code == 0, auto.output
    assert {json.loads(auto.stdout)[side]["run"]["backend"] for side in "ab"} == {"python"}
    assert auto.stderr.count("note: playing on the Python engine: the heuristic far judges each position") == 1
    refused = run("compare", str(path), "--variant", "longer", "-n", "3", "--backend", "native")
    assert refused.exit_code == 1 and "RP670" in refused.output and "heuristic far" in refused.output


def test_analyze_measures_the_same_games_natively():
    """analyze's batches judge every position; natively they are the same games, with the same metrics (the
    skill chain's search agents search on the Python engine under python, natively under native)."""
    args = ("analyze", "kuhn-poker", "-n", "12", "--depth-games", "0")
    native, python = _report(*args, "--backend", "native"), _report(*args, "--backend", "python")
    assert {s["batch"]["run"]["backend"] for s in native["rulesets"]} == {"native"}
    for report in (native, python):
        for s in report["rulesets"]:
            del s["batch"]["run"]
    assert native == python
