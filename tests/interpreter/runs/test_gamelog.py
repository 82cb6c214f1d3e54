"""Game logs: written atomically, replayed exactly, and refused with the line at fault."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

import ruleplay
from ruleplay import ReplayError, files, load_game
from ruleplay.runs.gamelog import replay, write_log
from ruleplay.runs.play import play_game

DICE = """
ruleplay: 1
game: dice-race
title: Dice race
players: 2
state:
  total: {per_player: true, init: "0"}
  rolled: {init: "0"}
flow:
  phases:
    - name: roll
      order: chance
      actions: [roll]
    - name: take
      order: each
      actions: [take, skip]
actions:
  roll:
    chance: true
    params:
      n: range(1, 7)
    effects: rolled = n
  take:
    effects: total[current] += rolled
  skip:
    effects: total[current] += 1
end:
  - when: max(total) >= 12
scoring:
  score: total[p]
"""


@pytest.fixture(scope="module")
def ttt():
    return load_game("tic-tac-toe")


@pytest.fixture
def log(tmp_path, ttt) -> Path:
    result = play_game(ttt, ["random"], seed=11)
    return write_log(tmp_path / "game.jsonl", result, "tic-tac-toe", ttt.info.ruleset_hash)


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def rewrite(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_log_layout(log, ttt):
    rows = lines(log)
    header, moves, end = rows[0], rows[1:-1], rows[-1]
    assert header == {"format": "ruleplay-log", "version": 1, "game": "tic-tac-toe", "ruleset": "tic-tac-toe",
                      "variant": None, "players": 2, "seed": 11, "ruleset_hash": ttt.info.ruleset_hash,
                      "engine": ruleplay.__version__, "agents": ["random", "random"]}
    assert [m["n"] for m in moves] == list(range(1, len(moves) + 1))
    assert [m["player"] for m in moves] == [i % 2 for i in range(len(moves))]
    assert all(m["rules"][0] == "TT-2.1" for m in moves)
    assert end["end"] is True and end["moves"] == len(moves)


def test_replay_reproduces_the_game(log, ttt):
    result = play_game(ttt, ["random"], seed=11)
    report = replay(log)
    assert (report.game, report.seed, report.moves) == ("tic-tac-toe", 11, result.length)
    assert (report.scores, report.returns) == (result.scores, result.returns)


def test_replay_draws_chance_outcomes_again(tmp_path):
    path = tmp_path / "dice.yaml"
    path.write_text(DICE)
    game = load_game(path)
    result = play_game(game, ["greedy", "random"], seed=3)
    assert any(r.player == ruleplay.CHANCE for r in result.records)
    log = write_log(tmp_path / "dice.jsonl", result, str(path), game.info.ruleset_hash)
    assert replay(log).moves == result.length
    rows = lines(log)
    first_roll = next(i for i, r in enumerate(rows) if r.get("player") == ruleplay.CHANCE)
    rolled = rows[first_roll]["move"]
    rows[first_roll]["move"] = "roll(6)" if rolled != "roll(6)" else "roll(1)"
    rewrite(log, rows)
    with pytest.raises(ReplayError, match=re.escape(f":{first_roll + 1}: chance gave {rolled}, the log says ")):
        replay(log)


def test_a_changed_move_is_refused_at_its_consequence(log):
    rows = lines(log)
    rows[1]["move"] = rows[2]["move"]  # move 1 now takes the cell that move 2 marks
    rewrite(log, rows)
    with pytest.raises(ReplayError) as info:
        replay(log)
    assert f"{log}:3: move {rows[2]['move']} does not replay" in str(info.value)
    assert "already marked" in str(info.value)


def test_a_changed_ruleset_names_both_hashes(log, ttt):
    rows = lines(log)
    rows[0]["ruleset_hash"] = "0000000000000000"
    rewrite(log, rows)
    with pytest.raises(ReplayError) as info:
        replay(log)
    assert str(info.value) == (f"{log}:1: the ruleset changed since the log was written: log has ruleset_hash "
                               f"0000000000000000, tic-tac-toe now has {ttt.info.ruleset_hash}")


@pytest.mark.parametrize("edit, message", [
    (lambda rows: rows[2].update(player=0), ":3: the log has player 0 to move, the game has player 1"),
    (lambda rows: rows[1].update(rules=[]), ":2: move place"),
    (lambda rows: rows[-1].update(scores=[5, 5]), ": final scores differ"),
    (lambda rows: rows[-1].update(moves=99), ": the end line counts 99 moves"),
    (lambda rows: rows[2].update(n=7), ":3: expected move number 2, found 7"),
    (lambda rows: rows[0].update(format="other-log"), ":1: unknown log format 'other-log'"),
    (lambda rows: rows[0].update(version=2), ":1: unknown log format"),
    (lambda rows: rows[0].update(seed="7"), ":1: header field 'seed' is \"7\", expected int"),
    (lambda rows: rows[0].update(seed=-1), ":1: header field 'seed': seed -1 is outside 0..18446744073709551615"),
    (lambda rows: rows[0].update(seed=2 ** 64), f":1: header field 'seed': seed {2 ** 64} is outside"),
    # numbers as JSON tells them apart, not as Python's == does (true and 1.0 are not 1)
    (lambda rows: rows[1].update(n=True), ":2: expected move number 1, found true"),
    (lambda rows: rows[1].update(n=1.0), ":2: expected move number 1, found 1.0"),
    (lambda rows: rows[0].update(version=1.0), ":1: unknown log format 'ruleplay-log' version 1.0"),
    (lambda rows: rows[-1].update(moves=float(rows[-1]["moves"])), ": the end line counts"),
    (lambda rows: rows[-1].update(scores=[float(v) for v in rows[-1]["scores"]]), ": final scores differ"),
    (lambda rows: rows[-1].update(scores=[v == 1 for v in rows[-1]["scores"]]), ": final scores differ"),
    (lambda rows: rows[-1].update(returns=[int(v) for v in rows[-1]["returns"]]), ": final returns differ"),
    (lambda rows: rows.pop(), ": truncated: no end line"),
    (lambda rows: rows.pop(-2), ": the log ends after"),
    (lambda rows: rows.append({"n": 99}), ": a line after the end line"),
])
def test_tampering_is_refused_with_the_line(log, edit, message):
    rows = lines(log)
    edit(rows)
    rewrite(log, rows)
    with pytest.raises(ReplayError, match=re.escape(message)):
        replay(log)


def _kuhn_log(folder: Path) -> Path:
    game = load_game("kuhn-poker")
    return write_log(folder / "kuhn.jsonl", play_game(game, ["random"], seed=2), "kuhn-poker", game.info.ruleset_hash)


@pytest.mark.parametrize("edit, message", [
    (lambda deal: deal.pop("seen_by"), 'is seen by [[0], [1]], the log has no seen_by'),
    (lambda deal: deal.update(seen_by=None), 'is seen by [[0], [1]], the log says null'),
    (lambda deal: deal.update(rules=[]), 'fired ["KP-2.2", "KP-2.3"], the log says []'),
])
def test_a_changed_field_is_named_in_the_logs_own_words(tmp_path, edit, message):
    """The log is JSON: what it holds is said as JSON (null, ["KP-2.2"]), and a field it lacks as missing."""
    log = _kuhn_log(tmp_path)
    rows = lines(log)
    edit(rows[1])
    rewrite(log, rows)
    with pytest.raises(ReplayError, match=re.escape(f":2: move {rows[1]['move']} {message}")):
        replay(log)


def test_a_public_move_given_a_seen_by_says_every_seat_sees_it(tmp_path):
    log = _kuhn_log(tmp_path)
    rows = lines(log)
    rows[2]["seen_by"] = []
    rewrite(log, rows)
    with pytest.raises(ReplayError, match=re.escape(f":3: move {rows[2]['move']} is seen by every seat (no "
                                                    f"seen_by), the log says []")):
        replay(log)


@pytest.mark.parametrize("damage, message", [
    ("\n", "a blank line, where every line holds one JSON object"),
    ("  \r\n", "a blank line, where every line holds one JSON object"),
    ('{"n": 2,\n', "not a JSON line (Expecting property name enclosed in double quotes at the end of the line)"),
    ('{"n": 2 "player": 1}\n', "not a JSON line (Expecting ',' delimiter at column 9)"),
])
def test_a_line_that_is_no_json_object_is_named_by_its_column_not_the_decoders_lines(log, damage, message):
    text = log.read_text().splitlines(keepends=True)
    log.write_text("".join(text[:2] + [damage] + text[2:]))
    with pytest.raises(ReplayError, match=re.escape(f"{log}:3: {message}")):
        replay(log)


@pytest.mark.parametrize("spelling", ["{action}( {args} )", "{action}({args}.0)", " {action}({args})"])
def test_a_move_written_otherwise_than_ruleplay_writes_it_is_refused(log, spelling):
    """The parser reads `place( 2 )` and `place(2.0)` as `place(2)`; a log line holds the move as written."""
    rows = lines(log)
    action, args = rows[2]["move"].rstrip(")").split("(")
    rows[2]["move"] = spelling.format(action=action, args=args)
    rewrite(log, rows)
    with pytest.raises(ReplayError, match=re.escape(f":3: the log writes the move {rows[2]['move']!r}, which "
                                                    f"ruleplay writes '{action}({args})'")):
        replay(log)


def test_a_key_given_twice_is_refused(log):
    """JSON readers disagree on `{"seed": 3, "seed": 4}` (first or last wins): a log must not be read two ways."""
    text = log.read_text()
    log.write_text(text.replace('"seed":', '"seed":3,"seed":', 1))
    with pytest.raises(ReplayError, match=re.escape(':1: not a JSON line (the key "seed" is given twice)')):
        replay(log)


def test_a_cut_line_is_malformed(log):
    text = log.read_text()
    log.write_text(text[: text.index("\n", text.index("\n") + 1) + 10])  # header, move 1, part of move 2
    with pytest.raises(ReplayError, match=r":3: not a JSON line"):
        replay(log)


def test_empty_and_missing_logs(tmp_path):
    (tmp_path / "empty.jsonl").write_text("")
    with pytest.raises(ReplayError, match="the log is empty"):
        replay(tmp_path / "empty.jsonl")
    with pytest.raises(ReplayError, match="cannot read the log"):
        replay(tmp_path / "missing.jsonl")


def test_writes_replace_the_file_whole_and_leave_no_temporaries(tmp_path, ttt):
    target = tmp_path / "game.jsonl"
    target.write_text("old content that is longer than nothing\n" * 50)
    result = play_game(ttt, ["first"], seed=0)
    write_log(target, result, "tic-tac-toe", ttt.info.ruleset_hash)
    assert replay(target).moves == result.length
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.jsonl"]
    with pytest.raises(OSError):
        write_log(tmp_path / "no-such-folder" / "game.jsonl", result, "tic-tac-toe", ttt.info.ruleset_hash)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.jsonl"]


@pytest.mark.timeout(30)  # reading a FIFO would wait for a writer for ever
def test_only_a_regular_file_is_replayed(tmp_path):
    fifo = tmp_path / "game.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(ReplayError) as info:
        replay(fifo)
    assert str(info.value) == f"{fifo}: cannot read the log: a FIFO (named pipe), not a regular file"
    with pytest.raises(ReplayError, match="cannot read the log: a folder, not a regular file"):
        replay(tmp_path)


def test_a_log_is_read_line_by_line_and_a_line_has_a_limit(log):
    text = log.read_text()
    first = text.index("\n") + 1
    log.write_text(text[:first] + "x" * (files.MAX_LINE_BYTES + 1) + "\n" + text[first:])
    with pytest.raises(ReplayError) as info:
        replay(log)
    assert str(info.value) == (f"{log}: cannot read the log: line 2 is longer than the limit of "
                               f"{files.MAX_LINE_BYTES} bytes")


def test_a_line_that_is_not_utf8_is_named(log):
    data = log.read_bytes()
    first = data.index(b"\n") + 1
    log.write_bytes(data[:first] + b'{"n": 1, "move": "\xff"}\n' + data[first:])
    with pytest.raises(ReplayError, match=r":2: the line is not UTF-8 text"):
        replay(log)
