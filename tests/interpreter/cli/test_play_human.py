"""`ruleplay play --human`: usage errors, a whole game typed on stdin, leaving, resuming, bad saved games."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ruleplay.cli import main


def run(*args: object, input: str | None = None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


@pytest.mark.parametrize("args, message", [
    (["--human", "5"], "seat 5 is not a seat of this game (0..1)"),
    (["--human", "0", "--json"], "drop --json/--report"),
    (["--human", "0", "--as", "1"], "drop --as"),
    (["--agents", "human,human"], "2 human seats: a table has one person"),
    (["--human", "1", "--agents", "human"], "--agents then names only the other seats' agents"),
    (["--resume"], "--resume continues the game saved in --log FILE"),
])
def test_usage_errors_say_what_to_give(args, message):
    result = run("play", "tic-tac-toe", *args, input="")
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


def test_headless_commands_refuse_the_human_agent():
    result = run("simulate", "tic-tac-toe", "-n", "2", "--agents", "human")
    assert result.exit_code == 2 and "the human agent needs a person at the table" in result.output


def test_a_game_typed_on_stdin_to_its_end_writes_a_whole_log(tmp_path):
    log = tmp_path / "game.jsonl"
    result = run("play", "tic-tac-toe", "--agents", "human,random", "--seed", "1", "--log", log, input="1\n" * 5)
    assert result.exit_code == 0, result.output
    assert "player 0 you (human), player 1 random" in result.output and "result: " in result.output
    assert json.loads(log.read_text().splitlines()[-1])["end"] is True
    assert run("replay", log).exit_code == 0


def test_leaving_saves_and_resume_finishes_the_game(tmp_path):
    log = tmp_path / "game.jsonl"
    left = run("play", "tic-tac-toe", "--human", "1", "--agents", "greedy", "--seed", "2", "--log", log, input="1\nq\n")
    assert left.exit_code == 0, left.output
    assert f"saved after 3 moves to {log}" in left.output and "--resume" in left.output
    replayed = run("replay", log)
    assert replayed.exit_code == 1 and "no end line after 3 moves" in replayed.output
    resumed = run("play", "tic-tac-toe", "--log", log, "--resume", input="1\n" * 4)
    assert resumed.exit_code == 0, resumed.output
    assert "resumed from" in resumed.output and "1. player 0: " in resumed.output and "result: " in resumed.output
    assert run("replay", log).exit_code == 0
    again = run("play", "tic-tac-toe", "--log", log, "--resume", input="")
    assert again.exit_code == 1 and "the game is over" in again.output and "nothing to resume" in again.output


def test_a_game_left_unfinished_is_not_replaced_by_a_new_one(tmp_path):
    """Forgetting --resume must not cost the saved game: a new game (with a person or not) refuses its log."""
    log = tmp_path / "game.jsonl"
    run("play", "tic-tac-toe", "--human", "1", "--agents", "greedy", "--seed", "2", "--log", log, input="1\nq\n")
    saved = log.read_text()
    for args in (["--human", "0", "--agents", "random"], []):
        result = run("play", "tic-tac-toe", *args, "--seed", "1", "--log", log, input="q\n")
        assert result.exit_code == 2, result.output
        assert "holds a game left unfinished after 3 moves: continue it with --resume" in result.output
        assert log.read_text() == saved
    assert run("play", "tic-tac-toe", "--seed", "1", "--log", log, "--overwrite").exit_code == 0  # asked for
    assert log.read_text() != saved
    finished = tmp_path / "done.jsonl"  # a finished game's log is an output like any other: kept unless asked
    assert run("play", "tic-tac-toe", "--seed", "1", "--log", finished).exit_code == 0
    kept = finished.read_text()
    result = run("play", "tic-tac-toe", "--seed", "2", "--log", finished)
    assert result.exit_code == 2 and f"{finished} exists: add --overwrite" in result.output
    assert finished.read_text() == kept
    assert run("play", "tic-tac-toe", "--seed", "2", "--log", finished, "--overwrite").exit_code == 0
    assert finished.read_text() != kept


def test_a_table_without_a_seed_draws_one_the_person_is_not_shown(tmp_path):
    """The default seed is 0, and a seed fixes every deal: a person could look each one up beforehand."""
    seeds = set()
    for k in range(2):
        log = tmp_path / f"game{k}.jsonl"
        result = run("play", "kuhn-poker", "--human", "0", "--log", log, input="q\n")
        assert result.exit_code == 0, result.output
        seed = json.loads(log.read_text().splitlines()[0])["seed"]
        assert "a seed drawn at random and not shown" in result.output and f"seed {seed}" not in result.output
        seeds.add(seed)
        resumed = run("play", "kuhn-poker", "--log", log, "--resume", input="q\n")
        assert "the saved game's seed" in resumed.output and f"seed {seed}" not in resumed.output
    assert len(seeds) == 2
    given = run("play", "kuhn-poker", "--human", "0", "--seed", "7", input="q\n")
    assert "Kuhn poker: seed 7," in given.output


def test_the_end_of_input_saves_the_game(tmp_path):
    log = tmp_path / "game.jsonl"
    result = run("play", "kuhn-poker", "--human", "0", "--seed", "3", "--log", log, input="")
    assert result.exit_code == 0 and "saved after 1 moves" in result.output and "Traceback" not in result.output
    assert len(log.read_text().splitlines()) == 2  # the header and the deal: no end line


def test_resume_checks_the_log_and_the_options_given_again(tmp_path):
    log = tmp_path / "game.jsonl"
    run("play", "tic-tac-toe", "--human", "0", "--seed", "1", "--log", log, input="1\nq\n")
    assert run("play", "tic-tac-toe", "--log", tmp_path / "none.jsonl", "--resume").output.count(
        "no saved game") == 1
    seed = run("play", "tic-tac-toe", "--log", log, "--resume", "--seed", "9", input="")
    assert seed.exit_code == 2 and "the saved game was played with another seed; leave --seed out" in seed.output
    assert "--seed 1" not in seed.output  # the seed fixes every hidden card: the person is not told it
    seats = run("play", "tic-tac-toe", "--log", log, "--resume", "--human", "1", input="")
    assert seats.exit_code == 2 and "the saved game seats human, random" in seats.output
    same = run("play", "tic-tac-toe", "--log", log, "--resume", "--seed", "1", "--human", "0", input="q\n")
    assert same.exit_code == 0, same.output
    other = run("play", "connect-four", "--log", log, "--resume", input="")
    assert other.exit_code == 1 and "the log is for game 'tic-tac-toe', the ruleset is 'connect-four'" in other.output
    lines = log.read_text().splitlines()
    log.write_text("\n".join(lines[:-1] + [lines[-1].replace("place(", "place(1")]) + "\n")
    bad = run("play", "tic-tac-toe", "--log", log, "--resume", input="")
    assert bad.exit_code == 1 and f"{log}:3: " in bad.output and "Traceback" not in bad.output


DIVIDES = """\
ruleplay: 1
game: divides
players: 2
state:
  x: {init: "0"}
flow:
  phases:
    - name: a
      actions: [go]
actions:
  go:
    params:
      d: range(3)
    effects: x += 10 // d
end:
  - when: x > 40
scoring:
  score: x
"""

# Seat 0 is dealt two cards of the four; listing seat 0's moves reads the other hand, and fails on a card
# the table lacks: the failure's text would name a card seat 0 cannot see.
PEEKS = """\
ruleplay: 1
game: peeks
players: 2
components:
  card:
    items: [{id: c1}, {id: c2}, {id: c3}, {id: c4}]
constants:
  table: {c1: 1}
state:
  deck: {visibility: hidden, init: 'components("card")'}
  hand: {per_player: true, init: "[]", visibility: owner}
  taken: {init: "0"}
setup: |
  shuffle deck
  for p in seats() { draw 2 from deck to hand[p] }
flow:
  phases:
    - name: a
      actions: [steal]
actions:
  steal:
    params:
      c: {of: 'components("card")', from: "hand[1 - current]", where: "table[c] == 1", seen_by: current}
    effects: |
      move c from hand[1 - current] to hand[current]
      taken += 1
end:
  - when: taken >= 1
scoring:
  score: len(hand[p])
"""


def test_a_game_a_rule_error_stops_is_saved_up_to_it(tmp_path):
    rules, log = tmp_path / "divides.yaml", tmp_path / "game.jsonl"
    rules.write_text(DIVIDES, encoding="utf-8")
    result = run("play", rules, "--human", "0", "--agents", "first", "--seed", "1", "--log", log, input="go(1)\n")
    assert result.exit_code == 1 and "division by zero" in result.output  # no hidden information: all of it
    assert f"saved to {log}: the 1 move before a rule error stopped the game" in result.output
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [line.get("move") for line in lines[1:]] == ["go(1)"] and "end" not in lines[-1]


def test_a_rule_error_shown_to_a_seat_does_not_quote_what_it_cannot_see(tmp_path):
    rules = tmp_path / "peeks.yaml"
    rules.write_text(PEEKS, encoding="utf-8")
    whole = run("play", rules, "--seed", "1")
    assert whole.exit_code == 1 and "no key 'c" in whole.output  # the author, seeing everything, is told all
    for args in (["--human", "0", "--agents", "random"], ["--as", "0"], ["--as", "0", "--json"]):
        seen = run("play", rules, "--seed", "1", *args, input="1\n")
        assert seen.exit_code == 1 and "RP500" in seen.output and "peeks.yaml" in seen.output, seen.output
        assert "its text is withheld from player 0" in seen.output and "no key" not in seen.output


def test_a_log_of_agents_alone_is_not_resumed_at_a_table(tmp_path):
    log = tmp_path / "game.jsonl"
    run("play", "tic-tac-toe", "--human", "0", "--seed", "1", "--log", log, input="q\n")
    lines = log.read_text().splitlines()
    log.write_text("\n".join([lines[0].replace('"human"', '"first"')] + lines[1:]) + "\n")  # no person's seat
    result = run("play", "tic-tac-toe", "--log", log, "--resume", "--human", "1", input="")
    assert result.exit_code == 1
    assert "the game was played by agents first, random, with no person at the table" in result.output


def test_a_logged_agent_naming_a_heuristic_the_game_lacks_is_refused_before_play(tmp_path):
    """--agents is checked for it; a log's agents were not, and the agent stopped the resumed game at its
    first decision with an internal ValueError."""
    log = tmp_path / "game.jsonl"
    run("play", "tic-tac-toe", "--human", "0", "--seed", "1", "--log", log, input="q\n")
    lines = log.read_text().splitlines()
    log.write_text("\n".join([lines[0].replace('"random"', '"greedy:heuristic=zz"')] + lines[1:]) + "\n")
    result = run("play", "tic-tac-toe", "--log", log, "--resume", input="1\nq\n")
    assert result.exit_code == 1 and "internal error" not in result.output, result.output
    assert "do not seat a table: agent 'greedy': tic-tac-toe has no heuristic 'zz'" in result.output


def test_the_card_game_at_the_table_reads_like_a_game(tmp_path):
    """Nautilus (card game), seed 5: the places are numbered, the hand is words, a seat's only move is
    played with a notice, `help ACTION` quotes the spec, `? MOVE` refuses in the player's terms, and the
    awards of a round are told as lines of their own with their rule."""
    log = tmp_path / "game.jsonl"
    typed = "1\nhelp place\n? place(d5, 0)\n? place(d2, 0)\n" + "1\n" * 30 + "q\n"
    result = run("play", "nautilus-cards", "--human", "0", "--agents", "first", "--seed", "5", "--log", log,
                 input=typed)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "seat 0's side (slots 0-4): 0:. 1:. 2:. 3:. 4:." in out
    assert "your hand: d9 d2 d8 d13 d4" in out and '["d9"' not in out and "your seen: []" not in out
    assert "your only move, played for you: keep_for_later" in out
    assert ("place:\n  NC-5.2: A placement puts one diver card from the player's hand face up into a slot along "
            "the Nautilus, facing a domain card.") in out
    assert "  refused when: that slot is already filled (NC-5.5)" in out
    assert "d5 is not in your hand (the `from:` choices for 'card') [NC-5.2]" in out
    assert "place(d2, 0) is legal" in out
    awards = [line for line in out.splitlines() if line.startswith("   >> player ") and " wins " in line]
    assert len(awards) >= 5 and len(awards) % 5 == 0 and all(line.endswith("  [NC-7.7]") for line in awards)
    assert "-- end of round 1 --" in out
    assert "#" not in "".join(line for line in out.splitlines() if line.startswith("domains: "))


def test_undo_goes_back_past_a_move_played_for_the_person(tmp_path):
    result = run("play", "nautilus-cards", "--human", "0", "--agents", "first", "--seed", "5", input="1\nu\nq\n")
    assert result.exit_code == 0, result.output
    assert result.output.count("your only move, played for you: keep_for_later") == 1
    assert "undone: back to your first decision" in result.output


def _forged(log, game, person, seed):
    """Change the log's first agent move to another legal move (rules and seen_by as that move gives them);
    the log is cut after it.  The move number, the move written and the move forged."""
    from ruleplay import load_game
    from ruleplay.runs.gamelog import move_line, read_log
    from ruleplay.runs.play import MoveRecord

    records = read_log(log).records
    n = next(r.n for r in records if r.player not in (-1, person))  # the agent's first move
    state = load_game(game).new_state(seed)
    for record in records[:n - 1]:
        state = state.apply_chance() if record.player == -1 else state.apply(record.move)
    other = next(m for m in state.legal_moves() if str(m) != records[n - 1].move)
    lines = log.read_text().splitlines()
    lines[n] = json.dumps(move_line(MoveRecord.of(n, records[n - 1].player, state.apply(other))), separators=(",", ":"))
    log.write_text("\n".join(lines[:n + 1]) + "\n")
    assert len(read_log(log).records) == n  # the forged line replays: every move in it is legal
    return n, records[n - 1], other


@pytest.mark.parametrize("game, person, agent", [("tic-tac-toe", 0, "random"), ("kuhn-poker", 1, "ismcts:iterations=30")])
def test_a_log_whose_agent_moves_were_changed_is_not_resumed(tmp_path, game, person, agent):
    """A person's log with an agent's move changed to another legal one resumed, showing the agent as having
    played it. Agents are seeded per decision: a resume asks each again and refuses the changed line."""
    log = tmp_path / "game.jsonl"
    left = run("play", game, "--human", str(person), "--agents", agent, "--seed", "7", "--log", log,
               input="1\nq\n")
    assert left.exit_code == 0, left.output
    n, written, other = _forged(log, game, person, 7)
    result = run("play", game, "--log", log, "--resume", input="q\n")
    assert result.exit_code == 1, result.output
    assert f"error RP630: {log}:{n + 1}: the log has {agent} at seat {written.player} play {other}, where " \
           f"it plays {written.move}: the line was changed; continue from an unchanged log" in result.output


def test_the_moves_of_a_search_on_a_time_budget_are_taken_as_logged(tmp_path):
    """A search given seconds= does not decide the same way twice: asking it again would refuse honest logs."""
    log = tmp_path / "game.jsonl"
    agent = "mcts:seconds=0.01"
    left = run("play", "tic-tac-toe", "--human", "0", "--agents", agent, "--seed", "7", "--log", log,
               input="1\nq\n")
    assert left.exit_code == 0, left.output
    _forged(log, "tic-tac-toe", 0, 7)
    result = run("play", "tic-tac-toe", "--log", log, "--resume", input="q\n")
    assert result.exit_code == 0, result.output
    assert f"note: the logged moves of {agent} at seat 1 are taken as they are: a search with a time budget " \
           f"(seconds=) does not decide the same way twice, so they cannot be checked" in result.output
