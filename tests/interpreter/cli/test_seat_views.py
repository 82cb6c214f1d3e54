"""`play --as` and `replay --as` show a game through one seat's eyes; logs keep who saw each private move."""

from __future__ import annotations

import json

from click.testing import CliRunner

from ruleplay.cli import main


def run(*args: object):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_play_as_a_seat_masks_what_it_may_not_see(tmp_path):
    dealt = run("play", "kuhn-poker", "--seed", "2", "--as", "1")
    assert dealt.exit_code == 0, dealt.output
    assert "1. chance: deal(?, " in dealt.output and "as seen by player 1" in dealt.output
    assert "player 1 sees: " in dealt.output
    whole = run("play", "kuhn-poker", "--seed", "2")
    assert "1. chance: deal(?, " not in whole.output  # the all-seeing view names both cards
    data = json.loads(run("play", "kuhn-poker", "--seed", "2", "--as", "0", "--json").output)
    assert data["seat"] == 0 and data["moves"][0].endswith(", ?)") and data["observation"]["hand"][1] == {"hidden": 1}


def test_a_seat_shown_a_game_without_a_seed_is_not_told_one(tmp_path):
    """With the default seed 0 a seat's viewer could replay the game and read every hidden card."""
    deals, logged = set(), set()
    for k in range(12):
        log = tmp_path / f"game{k}.jsonl"
        result = run("play", "kuhn-poker", "--as", "0", "--log", log)
        assert result.exit_code == 0 and "a seed drawn at random and not shown" in result.output
        assert "seed 0" not in result.output
        header, deal = (json.loads(line) for line in log.read_text().splitlines()[:2])
        deals.add(deal["move"])
        logged.add(header["seed"])  # the log, which holds every card anyway, keeps the seed
    assert len(logged) == 12 and len(deals) > 1
    assert json.loads(run("play", "kuhn-poker", "--as", "0", "--json").output)["seed"] is None
    assert json.loads(run("play", "kuhn-poker", "--as", "0", "--seed", "5", "--json").output)["seed"] == 5


def test_a_seat_that_is_not_in_the_game_is_a_usage_error(tmp_path):
    log = tmp_path / "game.jsonl"
    assert run("play", "kuhn-poker", "--seed", "1", "--log", log).exit_code == 0
    for command in (["play", "kuhn-poker"], ["replay", log], ["view", log, "-o", tmp_path / "p.html"],
                    ["render", log, "-o", tmp_path / "p.svg"]):
        result = run(*command, "--as", "2")
        assert result.exit_code == 2, (command, result.output)
        assert "Invalid value for --as: seat 2 is not a seat of this game (0..1)" in result.output


def test_a_log_records_who_saw_each_private_move_and_replays_it_for_a_seat(tmp_path):
    log = tmp_path / "game.jsonl"
    assert run("play", "nautilus-cards", "--seed", "3", "--log", log).exit_code == 0
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    private = [line for line in lines if "seen_by" in line]
    assert private and private[0]["move"].startswith("keep_special(") and private[0]["seen_by"] == [[0]]
    shown = run("replay", log, "--as", "1")
    assert shown.exit_code == 0 and "1. keep_special(?)" in shown.output
    report = json.loads(run("replay", log, "--as", "0", "--json").output)
    assert report["views"][0] == private[0]["move"]


def test_a_replay_shown_to_a_seat_does_not_give_the_seed(tmp_path):
    """With the seed, `ruleplay play GAME --seed S` plays the game again and shows every hidden card."""
    log = tmp_path / "game.jsonl"
    assert run("play", "kuhn-poker", "--seed", "7", "--log", log).exit_code == 0
    whole, seen = run("replay", log), run("replay", log, "--as", "1")
    assert "seed 7," in whole.output and "seed 7" not in seen.output and "the seed not shown" in seen.output
    assert json.loads(run("replay", log, "--json").output)["seed"] == 7
    assert json.loads(run("replay", log, "--as", "1", "--json").output)["seed"] is None


def test_a_log_whose_seen_by_was_changed_does_not_replay(tmp_path):
    log = tmp_path / "game.jsonl"
    run("play", "nautilus-cards", "--seed", "3", "--log", log)
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    first = next(line for line in lines if "seen_by" in line)
    first["seen_by"] = [[0, 1]]  # made public after the fact
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = run("replay", log)
    assert result.exit_code == 1 and "is seen by [[0]], the log says [[0, 1]]" in result.output


PEEKS = """\
ruleplay: 1
game: peeks
players: 2
constants:
  seat_of: {jack: 0, king: 1}
state:
  hand: {per_player: true, init: '[["jack"], ["queen"]][p]', visibility: owner}
  table: {init: "[1]", visible_if: "viewer == seat_of[hand[1][0]]"}
  n: {init: "0"}
flow:
  phases:
    - {name: play, actions: [tick]}
actions:
  tick: {effects: n += 1}
end:
  - when: n >= 2
"""


def test_a_seats_picture_and_page_do_not_quote_what_it_cannot_see(tmp_path):
    """`visible_if` fails on seat 1's queen: a seat's picture or page says where, the all-seeing page what."""
    rules, log = tmp_path / "peeks.yaml", tmp_path / "game.jsonl"
    rules.write_text(PEEKS, encoding="utf-8")
    assert run("play", rules, "--seed", "1", "--log", log).exit_code == 0
    for command in (["render", log, "--format", "svg", "-o", tmp_path / "p.svg"], ["view", log, "-o", tmp_path / "p.html"]):
        seen = run(*command, "--as", "0")
        assert seen.exit_code == 1 and "RP500" in seen.output and "peeks.yaml:8:" in seen.output, seen.output
        assert "its text is withheld from player 0" in seen.output and "queen" not in seen.output
    whole = run("view", log, "-o", tmp_path / "all.html")
    assert whole.exit_code == 1 and "no key 'queen' in map" in whole.output
