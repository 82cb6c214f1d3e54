"""Scenario files: the runner passes what holds, and fails with located messages on what does not."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from ruleplay.authoring.mutation import mutate
from ruleplay.authoring.runner import ScenarioError, ScenarioResult, run_scenarios

REPO = Path(__file__).resolve().parents[3]
TTT_SCENARIOS = REPO / "scenarios" / "tic-tac-toe"

# A tiny game with a chance event and a hidden variable, for `move: chance` and `observe:`.
COIN = """\
ruleplay: 1
game: coin
players: 2
state:
  coin:
    init: "null"
    visibility: hidden
  guess:
    init: "null"
flow:
  phases:
    - name: flip
      order: chance
      actions: [flip]
      end_if: coin != null
      next: call
    - name: call
      order: alternate
      actions: [guess]
actions:
  flip:
    chance: true
    params:
      side: '["heads", "tails"]'
    effects: coin = side
  guess:
    params:
      side: '["heads", "tails"]'
    effects: guess = side
end:
  - when: guess != null
scoring:
  score: "if (guess == coin) == (p == 0) then 1 else 0"
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def run_one(path: Path) -> ScenarioResult:
    [result] = run_scenarios([path])
    return result


def only_failure(result: ScenarioResult) -> str:
    assert not result.passed
    assert len(result.failures) == 1, "\n".join(result.failures)
    return result.failures[0]


# ------------------------------------------------------------------ passing
def test_good_scenario_passes(tmp_path: Path) -> None:
    path = write(tmp_path, "win.yaml", """\
        game: tic-tac-toe
        players: 2
        variant: null
        seed: 5
        name: X wins on the top row
        steps:
          - moves: [place(0), place(3), place(1), place(4)]
          - expect: {check: "len(legal) == 5", message: five cells left}
          - move: place(2)
          - fired: [TT-2.1, TT-3.1]
          - expect:
              - winner == 0
              - terminal
              - '"TT-3.1" in fired'
              - scores == [1, 0]
          - terminal: true
          - scores: [1, 0]
          - returns: [1, -1]
          - illegal: place(8)
            code: RP606
        """)
    result = run_one(path)
    assert result == ScenarioResult(str(path), "X wins on the top row", True, [])


def test_short_form_and_default_name(tmp_path: Path) -> None:
    path = write(tmp_path, "short.yaml", """\
        game: tic-tac-toe
        moves: [place(4)]
        expect: board[4] == 0
        illegal:
          - {move: place(4), rule: TT-2.2, code: RP605}
          - {move: place(9), code: RP604}
        """)
    result = run_one(path)
    assert (result.passed, result.name, result.failures) == (True, "short", [])


def test_setup_arranges_a_position_and_checks_call_game_functions(tmp_path: Path) -> None:
    path = write(tmp_path, "setup.yaml", """\
        game: tic-tac-toe
        setup: |
          board[0] = 0
          board[4] = 0
        steps:
          - expect:
              - len(legal) == 7
              - current == 0
              - not completes_line(0, 8)
          - illegal: place(4)
            rule: TT-2.2
          - move: place(8)
          - expect:
              - winner == 0
              - completes_line(0, 8)
        """)
    assert run_one(path).failures == []


def test_a_flow_statement_in_the_setup_is_refused_as_in_a_rulesets_setup(tmp_path: Path) -> None:
    path = write(tmp_path, "goto.yaml", """\
        game: tic-tac-toe
        setup: |
          board[0] = 0
          goto nowhere
        steps:
          - expect: board[0] == 0
        """)
    failure = only_failure(run_one(path))
    assert "goto.yaml:4:3: error RP324: `goto nowhere` in the scenario's setup does nothing" in failure
    assert "`move:` steps" in failure


STUCK = """\
ruleplay: 1
game: stuck
players: 2
state:
  n: {init: "1"}
flow:
  phases:
    - name: main
      actions: [inc]
      when_stuck: pass
actions:
  inc:
    require: [n < 5 and (current == 1 or n > 0)]
    effects: n += 1
end:
  - when: n >= 3
"""


def test_a_position_set_up_is_settled_as_play_would_settle_it(tmp_path: Path) -> None:
    """A seat with no move passes (`when_stuck`), and a position already over ends, as after a hook.

    At the start seat 0 can move (n is 1); the position set up takes its move away."""
    write(tmp_path, "stuck.yaml", STUCK)
    passes = write(tmp_path, "passes.yaml", """\
        game: stuck.yaml
        setup: n = 0
        steps:
          - expect:
              - current == 1
              - legal == ["inc"]
        """)
    assert run_one(passes).failures == []
    over = write(tmp_path, "over.yaml", """\
        game: stuck.yaml
        setup: n = 3
        steps:
          - terminal: true
        """)
    assert run_one(over).failures == []


def test_game_by_relative_path_chance_moves_and_observations(tmp_path: Path) -> None:
    write(tmp_path, "games/coin.yaml", COIN)
    path = write(tmp_path, "coin-scenario.yaml", """\
        game: games/coin.yaml
        seed: 1
        steps:
          - expect: 'legal == ["flip(heads)", "flip(tails)"]'
          - move: chance
          - observe: 1
            expect:
              - state.coin.hidden == true
              - viewer == 1 and current == 0 and not terminal
          - expect: coin in ["heads", "tails"]
          - move: guess(heads)
          - terminal: true
        """)
    assert run_one(path).failures == []


# ------------------------------------------------------------------ failing
def test_wrong_expect_is_located_and_shows_values(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", """\
        game: tic-tac-toe
        steps:
          - move: place(0)
          - expect: board[0] == 1
          - expect: {check: "current == 0", message: O moves next}
        """)
    result = run_one(path)
    assert result.failures[0].splitlines()[0] == (
        f"{path}:4:13: error RP642: expected `board[0] == 1` to be true on the state, but it is false "
        "(board[0] = 0)")
    assert result.failures[1].splitlines()[0] == (
        f"{path}:5:21: error RP642: O moves next: expected `current == 0` to be true on the state, but it is "
        "false (current = 1)")
    assert len(result.failures) == 2


def test_a_false_check_shows_the_values_of_its_parts(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", """\
        game: tic-tac-toe
        steps:
          - move: place(0)
          - expect: current == 1 and "place(0)" in legal
          - expect: board[0] == 1 or not (len(legal) == 8)
          - expect: not (board[1] == null)
          - expect: current == 1 and (board[4] == 0 or board[0] == 1) and turn > 5
        """)
    first, second, third, fourth = (f.splitlines()[0] for f in run_one(path).failures)
    legal = '["place(1)", "place(2)", "place(3)", "place(4)", "place(5)", "place(6)", "place(7)", "place(8)"]'
    assert first.endswith("to be true on the state, but it is false: `current == 1` is true, "
                          f'`"place(0)" in legal` is false (legal = {legal})')
    assert second.endswith("but it is false: `board[0] == 1` is false (board[0] = 0), "
                           "`not len(legal) == 8` is false (`len(legal) == 8` is true (len(legal) = 8))")
    assert third.endswith("but it is false: `board[1] == null` is true (board[1] = null)")
    assert fourth.endswith("but it is false: `current == 1` is true, `board[4] == 0 or board[0] == 1` is false "
                           "(`board[4] == 0` is false (board[4] = null), `board[0] == 1` is false (board[0] = 0))")


def test_expect_that_is_not_a_boolean_fails(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", "game: tic-tac-toe\nexpect: len(legal)\n")
    assert "but it is 9, not a boolean" in only_failure(run_one(path))


def test_illegal_move_that_is_legal_fails(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", """\
        game: tic-tac-toe
        steps:
          - move: place(0)
          - illegal: place(1)
            rule: TT-2.2
        """)
    assert only_failure(run_one(path)).splitlines()[0] == (
        f"{path}:4:14: error RP642: expected place(1) to be refused by rule TT-2.2, but it is legal")


def test_illegal_move_refused_by_another_rule_fails(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", """\
        game: tic-tac-toe
        steps:
          - move: place(0)
          - illegal: place(0)
            rule: TT-2.1
          - illegal: place(0)
            code: RP604
        """)
    first, second = run_one(path).failures
    assert first.splitlines()[0] == (
        f"{path}:4:14: error RP642: expected place(0) to be refused by rule TT-2.1, but it was refused by rule "
        "TT-2.2 with code RP605: that cell is already marked")
    assert second.startswith(f"{path}:6:14: error RP642: expected place(0) to be refused with code RP604, but it "
                             "was refused by rule TT-2.2 with code RP605")


def test_mistyped_illegal_move_never_passes_as_a_refusal(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", """\
        game: tic-tac-toe
        steps:
          - illegal: plcae(0)
            code: RP602
          - illegal: place(0
            code: RP604
        """)
    unknown, unreadable = run_one(path).failures
    assert unknown.startswith(f"{path}:3:14: error RP642: expected plcae(0) to be refused with code RP602, but "
                              "the move text does not parse")
    assert "there is no action 'plcae'" in unknown
    assert unreadable.startswith(f"{path}:5:14: error RP642: expected place(0 to be refused with code RP604, "
                                 "but the move text does not parse")


def test_illegal_citing_a_rule_the_ruleset_never_cites_fails(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", """\
        game: tic-tac-toe
        illegal:
          - {move: place(0), rule: TT-2.7}
        """)
    failure = only_failure(run_one(path))
    assert failure.startswith(f"{path}:3:12: error RP641: rule TT-2.7 is not cited anywhere in the ruleset")


def test_typo_in_a_move_stops_the_scenario(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", """\
        game: tic-tac-toe
        steps:
          - moves: [place(0), plac(1)]
          - expect: winner == 0
        """)
    failure = only_failure(run_one(path))
    assert failure.startswith(f"{path}:3:23: error RP643: cannot read move plac(1):")


def test_refused_move_step_says_why_and_what_is_legal(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", "game: tic-tac-toe\nmoves: [place(0), place(0)]\n")
    failure = only_failure(run_one(path))
    assert failure.startswith(f"{path}:2:19: error RP643: move place(0) was refused by rule TT-2.2 (RP605): "
                              "that cell is already marked")
    assert "hint: legal now: place(1), place(2)" in failure


def test_other_expectations_report_expected_and_seen(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", """\
        game: tic-tac-toe
        steps:
          - move: place(0)
          - fired: TT-3.1
          - terminal: true
          - scores: [1, 0]
          - returns: [1, -1]
          - move: chance
        """)
    fired, terminal, scores, returns, chance = run_one(path).failures
    assert fired.startswith(f"{path}:4:12: error RP642: expected TT-3.1 to fire on the last move, but the rules "
                            "fired were [TT-2.1]")
    assert terminal.startswith(f"{path}:5:15: error RP642: expected the game to be over, but it is not over "
                               "(player 1 to move")
    assert scores.startswith(f"{path}:6:13: error RP642: expected scores [1, 0], but they are [0, 0]")
    assert returns.startswith(f"{path}:7:14: error RP642: expected returns [1, -1], but they are [0.0, 0.0]")
    assert chance.startswith(f"{path}:8:11: error RP643: `move: chance` samples a chance outcome, but player 1 "
                             "is to move")


def test_unknown_names_are_reported_before_any_move(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", """\
        game: tic-tac-toe
        steps:
          - moves: [place(0), place(0)]
          - expect: winer == 0
          - observe: 0
            expect: board[0] == 0
        """)
    state_name, observed_name = run_one(path).failures
    assert state_name.startswith(f"{path}:4:13: error RP210: unknown name `winer`")
    assert "did you mean 'winner'" in state_name
    assert observed_name.startswith(f"{path}:6:13: error RP210: unknown name `board`")
    assert "the game's variables are under `state.`" in observed_name


def test_observing_a_seat_that_does_not_exist_fails(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml",
                 "game: tic-tac-toe\nsteps:\n  - observe: 2\n    expect: [viewer == 2, current == 0]\n")
    assert only_failure(run_one(path)).startswith(
        f"{path}:3:14: error RP641: `observe: 2` is not a seat of this 2-player game")


def test_bad_yaml_is_located(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", "game: tic-tac-toe\nsteps:\n  - move: [place(0)\n  - expect: true\n")
    failure = only_failure(run_one(path))
    assert failure.startswith(f"{path}:3:11: error RP002: YAML syntax error: expected ',' or ']'")


@pytest.mark.parametrize("text, expected", [
    ("game: tic-tac-toe\nsteps:\n  - expct: winner == 0\n",
     ":3:5: error RP103: unknown key 'expct' (allowed: move, moves, illegal, rule, code, expect, observe, fired, "
     "terminal, scores, returns)"),
    ("game: tic-tac-toe\nseed: 1\nname: n\nstep:\n  - move: place(0)\n",
     ":4:1: error RP103: unknown key 'step'"),
    ("game: tic-tac-toe\nsteps:\n  - expect: {check: winner == 0, mesage: x}\n",
     ":3:34: error RP103: unknown key 'mesage' (allowed: check, message)"),
    ("game: tic-tac-toe\nsteps:\n  - fired: 3\n",
     ":3:12: error RP107: 3 is not a rule id or a list of rule ids"),
    ("game: tic-tac-toe\nsteps:\n  - illegal: place(0)\n    code: 605\n",
     ":4:11: error RP101: expected string, got 605"),
    ("game: tic-tac-toe\nsteps:\n  - move: place(0)\n    expect: winner == 0\n",
     ":4:5: error RP641: a step does one thing, this one has move, expect"),
    ("game: tic-tac-toe\nsteps:\n  - illegal: place(0)\n",
     ":3:5: error RP641: an `illegal:` step must name the refusing `rule:` or error `code:`"),
    ("game: tic-tac-toe\nsteps:\n  - move: place(0)\n    rule: TT-2.1\n",
     ":4:5: error RP641: `rule:` only qualifies an `illegal:` step"),
    ("game: tic-tac-toe\nsteps:\n  - observe: 1\n",
     ":3:5: error RP641: `observe:` needs `expect:` checks"),
    ("game: tic-tac-toe\nmoves: [place(0)]\nsteps:\n  - move: place(1)\n",
     ":2:1: error RP641: `moves:` at the top level is the short form; it cannot be mixed with `steps:`"),
    ("game: tic-tac-toe\nseed: -1\nmoves: [place(0)]\n", ":2:7: error RP106: -1 is less than the minimum of 0"),
    ("game: tic-tac-toe\n", ":1:1: error RP641: the scenario has nothing to do"),
    ("steps:\n  - move: place(0)\n", ":1:1: error RP102: 'game' is required here"),
    ("- game: tic-tac-toe\n", ":1:1: error RP641: a scenario is a mapping"),
])
def test_malformed_scenario_files_give_located_errors(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, "s.yaml", text)
    assert only_failure(run_one(path)).splitlines()[0].startswith(f"{path}{expected}")


def test_unknown_game_and_missing_file_fail_cleanly(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", "game: no-such-game\nmoves: [a]\n")
    failure = only_failure(run_one(path))
    assert failure.startswith(f"{path}:1:7: error RP643: cannot load game 'no-such-game':")
    assert "RP009" in failure
    missing = tmp_path / "missing.yaml"
    assert only_failure(run_one(missing)) == f"{missing}: error RP641: cannot read the scenario: No such file or " \
                                              "directory"


@pytest.mark.timeout(30)  # reading a FIFO would wait for a writer for ever
def test_only_a_regular_file_is_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    assert only_failure(run_one(fifo)) == f"{fifo}: error RP641: cannot read the scenario: a FIFO (named pipe), " \
                                           "not a regular file"
    write(tmp_path, "good.yaml", "game: tic-tac-toe\nmoves: [place(0)]\n")
    results = run_scenarios([tmp_path])  # a FIFO in a folder fails on its own; the others still run
    assert [(Path(r.file).name, r.passed) for r in results] == [("good.yaml", True), ("pipe.yaml", False)]


@pytest.mark.parametrize("files", [[], ["notes.txt"], ["sub/notes.txt"]])
def test_a_folder_without_scenarios_is_an_error_not_a_pass(tmp_path: Path, files: list[str]) -> None:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    for name in files:
        write(folder, name, "not a scenario")
    with pytest.raises(ScenarioError) as caught:
        run_scenarios([write(tmp_path, "good.yaml", "game: tic-tac-toe\nmoves: [place(0)]\n"), folder])
    assert caught.value.code == "RP640" and caught.value.message == f"no scenario files (*.yaml) in {folder}"
    with pytest.raises(ScenarioError, match="no scenario files given"):
        run_scenarios([])


def test_directories_expand_to_sorted_yaml_files(tmp_path: Path) -> None:
    write(tmp_path, "b/two.yaml", "game: tic-tac-toe\nmoves: [place(1)]\n")
    write(tmp_path, "a.yaml", "game: tic-tac-toe\nmoves: [place(0)]\n")
    write(tmp_path, "notes.txt", "not a scenario")
    results = run_scenarios([tmp_path])
    assert [(Path(r.file).name, r.passed) for r in results] == [("a.yaml", True), ("two.yaml", True)]


# ----------------------------------------------------------------- mutation
def test_mutate_kills_every_behavioural_rule_of_tic_tac_toe(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # a built-in game's scenarios are found wherever the command runs
    report = mutate("tic-tac-toe", None)
    assert report.game == "tic-tac-toe"
    # TT-1.1 is cited only by an assumption and TT-1.2 only by the `play` phase: switching either off
    # changes nothing in the model, so neither has a mutant to test.
    assert report.rules_tested == ["TT-2.1", "TT-2.2", "TT-3.1", "TT-3.2"]
    assert report.survivors == []
    assert sorted(report.killed) == report.rules_tested
    assert all(how.startswith(str(TTT_SCENARIOS)) for how in report.killed.values())


def test_mutate_finds_survivors_of_a_weak_scenario_set(tmp_path: Path) -> None:
    write(tmp_path, "weak.yaml", """\
        game: tic-tac-toe
        moves: [place(0), place(4)]
        expect:
          - board[0] == 0
          - board[4] == 1
        """)
    report = mutate("tic-tac-toe", [tmp_path])
    assert report.survivors == ["TT-2.2", "TT-3.1", "TT-3.2"]
    assert list(report.killed) == ["TT-2.1"]
    assert report.killed["TT-2.1"].startswith(f"{tmp_path / 'weak.yaml'}:1:7: error RP643: cannot start the game")


COUNT = """\
ruleplay: 1
game: count
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


def test_mutate_plays_only_the_scenarios_written_for_the_variant(tmp_path: Path) -> None:
    write(tmp_path, "count.yaml", COUNT)
    write(tmp_path, "s/base.yaml", "game: ../count.yaml\nmoves: [add_two, add_one]\nexpect: total == 3\n")
    write(tmp_path, "s/ones.yaml", "game: ../count.yaml\nvariant: ones\nmoves: [add_one, add_one]\n"
                                   "expect: total == 2\n")
    game, folder = str(tmp_path / "count.yaml"), tmp_path / "s"
    # `../count.yaml` leaves the scenarios' folder: the caller chooses the ruleset instead.
    with pytest.raises(ScenarioError, match="leads outside the folder"):
        mutate(game, [folder], variant="ones")
    # The base scenario uses an action the variant removes: it must not run against the variant.
    ones = mutate(game, [folder], variant="ones", ruleset=game)
    assert (ones.rules_tested, ones.survivors) == (["R-1"], [])
    assert ones.killed["R-1"].startswith(str(folder / "ones.yaml"))
    base = mutate(game, [folder], ruleset=game)
    assert (base.rules_tested, base.survivors) == (["R-1", "R-2"], [])
    assert all(how.startswith(str(folder / "base.yaml")) for how in base.killed.values())
    with pytest.raises(ScenarioError, match="no scenario for variant 'ones'"):
        mutate(game, [folder / "base.yaml"], variant="ones", ruleset=game)


def test_mutate_plays_every_scenario_at_the_players_given_instead_of_its_own(tmp_path: Path) -> None:
    write(tmp_path, "count.yaml", COUNT.replace("players: 2", "players: {min: 2, max: 3}"))
    write(tmp_path, "s/two.yaml", "game: ../count.yaml\nplayers: 2\nmoves: [add_one, add_one]\n"
                                  "expect: current == 0\n")
    game, folder = str(tmp_path / "count.yaml"), tmp_path / "s"
    assert list(mutate(game, [folder], ruleset=game).killed) == ["R-1"]
    # At three players the scenario fails, as `scenario --players 3` reports: the mutants of the
    # three-player game must not be judged by it played at two.
    [run] = run_scenarios([folder], ruleset=game, players=3)
    assert not run.passed
    with pytest.raises(ScenarioError, match="must pass on the unmodified game"):
        mutate(game, [folder], players=3, ruleset=game)


def test_mutate_refuses_scenarios_that_fail_on_the_unmodified_game(tmp_path: Path) -> None:
    write(tmp_path, "wrong.yaml", "game: tic-tac-toe\nmoves: [place(0)]\nexpect: winner == 0\n")
    with pytest.raises(ScenarioError, match="must pass on the unmodified game") as caught:
        mutate("tic-tac-toe", [tmp_path])
    assert any("wrong.yaml:3:9: error RP642" in f for f in caught.value.failures)


def test_mutate_refuses_an_empty_folder_and_scenarios_of_another_game(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(ScenarioError, match="no scenario files"):
        mutate("tic-tac-toe", [tmp_path / "empty"])
    write(tmp_path, "other/coin.yaml", COIN)
    write(tmp_path, "other/s.yaml", "game: coin.yaml\nmoves: [chance]\n")
    with pytest.raises(ScenarioError, match="is for .*coin.yaml, not for tic-tac-toe"):
        mutate("tic-tac-toe", [tmp_path / "other" / "s.yaml"])


def test_a_folder_s_rulesets_and_variant_files_are_not_run_as_scenarios(tmp_path: Path) -> None:
    ruleset = Path(__file__).resolve().parents[3] / "rulesets" / "tic-tac-toe.yaml"
    write(tmp_path, "ttt.yaml", "".join(line for line in ruleset.read_text(encoding="utf-8").splitlines(True)
                                        if not line.startswith("spec:")))
    write(tmp_path, "sub/variant.yaml", "extends: ../ttt.yaml\npatch: []\n")
    write(tmp_path, "opening.yaml", "game: ttt.yaml\nmoves: [place(4)]\nexpect: board[4] == 0\n")
    assert [(Path(r.file).name, r.passed) for r in run_scenarios([tmp_path])] == [("opening.yaml", True)]
    assert not run_scenarios([tmp_path / "ttt.yaml"])[0].passed  # a file named on its own is tried as a scenario


def test_an_observation_check_may_call_the_games_functions_of_seats(tmp_path: Path) -> None:
    """An `observe:` check calling seats() ended in `internal error KeyError: 'players'`: the check had no flow."""
    path = write(tmp_path, "s.yaml", """\
        game: tic-tac-toe
        steps:
          - observe: 1
            expect: ["seats() == [0, 1]", "len(seats()) == 2", "next_seat(viewer) == 0"]
          - observe: 0
            expect: len(seats()) == 3
        """)
    failure = only_failure(run_one(path))
    assert failure.startswith(f"{path}:6:13: error RP642: expected `len(seats()) == 3` to be true on the "
                              "observation of player 0, but it is false (len(seats()) = 2)"), failure


BIG = str(2**1024 - 1)  # the largest whole number the rules make: over the largest float


@pytest.mark.parametrize("expected, failure", [
    (BIG, None),
    (f"{2**1024 - 2}", f"expected scores [{2**1024 - 2}, {2**1024 - 2}], but they are [{BIG}, {BIG}]"),
    (f"{2**1000}", f"expected scores [{2**1000}, {2**1000}], but they are [{BIG}, {BIG}]"),
    ("1.5", f"expected scores [1.5, 1.5], but they are [{BIG}, {BIG}]"),
])
def test_a_score_of_a_thousand_bits_is_compared_exactly(tmp_path: Path, expected: str, failure: str | None) -> None:
    """A scenario expecting a 1024-bit score ended in `internal error OverflowError` (a float comparison)."""
    text = (REPO / "rulesets" / "tic-tac-toe.yaml").read_text(encoding="utf-8")
    rules = "\n".join(line for line in text.splitlines() if not line.startswith("spec:")) + "\n"
    write(tmp_path, "big.yaml", rules.replace('score: "if winner == p then 1 else 0"', f'score: "{BIG}"'))
    path = write(tmp_path, "s.yaml", f"game: big.yaml\nsteps:\n  - scores: [{expected}, {expected}]\n")
    result = run_one(path)
    if failure is None:
        assert result.passed, result.failures
    else:
        assert only_failure(result).startswith(f"{path}:3:13: error RP642: {failure}")
