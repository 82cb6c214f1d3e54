"""Hostile input at every public entry point ends in one of ruleplay's own errors, never an internal one.

Each example takes a valid document — a saved state, a game log, a
scenario file, a results file, a move text, a command line — and breaks one
part of it with a value chosen to hurt: integers past the 1024-bit cap,
floats at the edges, lone surrogates, terminal escapes, deep nesting, wrong
types, paths to files that are not rulesets.  The API must answer or raise
a `RuleplayError`/`RulesetError`/`RuleRuntimeError` (a wrong Python type
passed to the API may stay a TypeError); a command must exit 0, 1 or 2 with
no traceback and no "internal error" line.  Loading mutated rulesets is
covered by tests/validators/test_fuzz_loading.py.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ruleplay import RuleplayError, RulesetError, load_game
from ruleplay.cli import main
from ruleplay.engine.errors import RuleRuntimeError

OWN_ERRORS = (RuleplayError, RulesetError, RuleRuntimeError)
GAMES = ["tic-tac-toe", "kuhn-poker", "nautilus-cards"]

NASTY_TEXT = ["", " ", "\ud800", "\udfff", "\x1b[31mred\x1b[0m", "\x00", "\u202e", "\n", "é" * 3, "x" * 5000,
              "../../../../etc/passwd", "/etc/passwd", "/proc/self/environ", "1e999", "NaN", "place(", "place)",
              "place(1,)", "pl ace(1)", "__class__", "a-b", "true", "null", "১", "１", "𝟙𝟘", "0x_1", "place(1.0)"]
nasty_scalar = (st.sampled_from([2 ** 1024, -2 ** 1100, 2 ** 63, -1, 0, 1, 10 ** 400, 5e-324, 1.7976931348623157e308,
                                 -0.0, True, False, None])
                | st.sampled_from(NASTY_TEXT) | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                | st.text(max_size=8))
nasty_value = st.recursive(nasty_scalar, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.sampled_from(["", "vars", "flow", "a", "\x1b"]), inner, max_size=3),
                           max_leaves=5)
EXAMPLES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                            HealthCheck.too_slow])


def _paths(doc: Any, here: tuple = ()) -> list[tuple]:
    """Every place in a JSON document, the document itself included."""
    out = [here]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _paths(v, here + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += _paths(v, here + (i,))
    return out


def _replaced(doc: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    out = copy.deepcopy(doc)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


@st.composite
def broken(draw: st.DrawFn, doc: Any) -> Any:
    """`doc` with one place replaced by a nasty value (or deeply nested, or one key dropped)."""
    places = _paths(doc)
    path = draw(st.sampled_from(places))
    how = draw(st.sampled_from(["replace", "replace", "deep", "drop"]))
    if how == "deep":
        return _replaced(doc, path, DEEP)
    if how == "drop" and path:
        out = copy.deepcopy(doc)
        node = out
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
        return out
    return _replaced(doc, path, draw(nasty_value))


DEEP = "<a list nested 3000 deep>"  # written out only in the JSON text: Python's json and deepcopy recurse


def _dumps(doc: Any) -> str:
    return json.dumps(doc, ensure_ascii=False, allow_nan=True).replace(json.dumps(DEEP), "[" * 3000 + "]" * 3000)


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    return path


def _cli(*args: Any) -> None:
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"ruleplay {' '.join(map(str, args))[:200]} raised {result.exception!r}")
    assert result.exit_code in (0, 1, 2), result.output
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output[-2000:]


@pytest.fixture(scope="module")
def games() -> dict:
    return {name: load_game(name) for name in GAMES}


def _played(game: Any, moves: int) -> Any:
    state = game.new_state(5)
    for _ in range(moves):
        if state.is_terminal():
            break
        state = state.apply_chance() if state.is_chance_node() else state.apply(state.legal_moves()[0])
    return state


# ------------------------------------------------------------------ the API


@EXAMPLES
@given(name=st.sampled_from(GAMES), moves=st.integers(0, 12), data=st.data())
def test_a_tampered_saved_state_is_refused_or_plays_on(games, name, moves, data):
    game = games[name]
    doc = _played(game, moves).to_json()
    tampered = data.draw(broken(doc))
    for given_as in (tampered, _dumps(tampered)):
        try:
            state = game.state_from_json(given_as)
        except OWN_ERRORS:
            continue
        try:  # a state that was accepted must be usable: every query answers or raises an own error
            if not state.is_terminal():
                moves_now = state.legal_moves()
                if moves_now:
                    state.apply(moves_now[0])
            state.observe(0)
            state.render()
            state.scores()
            state.returns()
            state.dumps()
        except OWN_ERRORS:
            pass


@EXAMPLES
@given(name=st.sampled_from(GAMES), text=st.sampled_from(NASTY_TEXT) | st.text(max_size=30), moves=st.integers(0, 6))
def test_any_move_text_is_played_or_refused(games, name, text, moves):
    state = _played(games[name], moves)
    for attempt in (lambda: state.apply(text), lambda: state.explain(text), lambda: games[name].parse_move(text),
                    lambda: games[name].move_to_index(text)):
        try:
            attempt()
        except OWN_ERRORS:
            pass


# -------------------------------------------------------------- the commands


@EXAMPLES
@given(data=st.data())
def test_a_tampered_game_log_does_not_replay_and_says_why(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("log")
    log = folder / "game.jsonl"
    CliRunner().invoke(main, ["play", "tic-tac-toe", "--seed", "3", "--log", str(log)])
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    k = data.draw(st.integers(0, len(lines) - 1))
    lines[k] = data.draw(broken(lines[k]))
    _write(log, "\n".join(_dumps(line) for line in lines) + "\n")
    _cli("replay", log)


SCENARIO = {"game": "tic-tac-toe", "name": "X wins", "steps": [
    {"moves": ["place(0)", "place(3)", "place(1)", "place(4)"]}, {"move": "place(2)"}, {"expect": ["winner == 0"]},
    {"terminal": True}, {"scores": [1, 0]}, {"illegal": "place(8)", "code": "RP606"}]}


@EXAMPLES
@given(scenario=broken(SCENARIO))
def test_a_tampered_scenario_fails_with_a_located_message(tmp_path_factory, scenario):
    path = _write(tmp_path_factory.mktemp("scenario") / "s.yaml", _dumps(scenario))
    _cli("scenario", path)


@EXAMPLES
@given(data=st.data())
def test_a_tampered_results_file_is_not_resumed_blindly(tmp_path_factory, data):
    out = tmp_path_factory.mktemp("results") / "runs.jsonl"
    args = ["simulate", "tic-tac-toe", "-n", "4", "--seed", "2", "--out", out]
    CliRunner().invoke(main, [str(a) for a in args])
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    k = data.draw(st.integers(0, len(lines) - 1))
    lines[k] = data.draw(broken(lines[k]))
    _write(out, "\n".join(_dumps(line) for line in lines) + "\n")
    _cli(*args, "--resume")


@EXAMPLES
@given(data=st.data())
def test_graph_at_a_tampered_state_is_drawn_or_refused(tmp_path_factory, games, data):
    doc = data.draw(broken(_played(games["tic-tac-toe"], 3).to_json()))
    path = _write(tmp_path_factory.mktemp("state") / "state.json", _dumps(doc))
    _cli("graph", "tic-tac-toe", "--state", path, "--json")


OPTIONS = {"--seed": ["-1", "2" * 30, "1e3", "x", ""], "--players": ["0", "-2", "99", "2.0", "১"],
           "--agents": ["", ",", "random,,random", "\x1b[2J", "mcts", "random" * 50], "--variant": ["", "\ud800", "x"],
           "--depth": ["-1", "x", "1" * 25], "-n": ["0", "-5", "10" * 12, "x"], "--workers": ["0", "-1", "x"]}


@EXAMPLES
@given(command=st.sampled_from(["play", "simulate", "perft", "validate", "bench"]),
       game=st.sampled_from(GAMES + NASTY_TEXT[:8]),
       options=st.dictionaries(st.sampled_from(sorted(OPTIONS)), st.none(), max_size=3), data=st.data())
def test_any_command_line_is_run_or_refused_with_a_message(command, game, options, data):
    args = [command, game]
    for option in options:
        args += [option, data.draw(st.sampled_from(OPTIONS[option]))]
    if command == "perft" and "--depth" not in options:
        args += ["--depth", "1"]
    if command == "bench":
        args += ["--seconds", "0.01", "--runs", "1"]
    if command == "simulate" and "-n" not in options:
        args += ["-n", "2"]
    _cli(*args)
