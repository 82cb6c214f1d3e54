"""A game at the table: seating, undo by replay, leaving and resuming, and what the person is shown."""

from __future__ import annotations

import json
import re

import pytest

from ruleplay import load_game
from ruleplay.agents.human import HumanAgent
from ruleplay.runs.gamelog import read_log, write_log
from ruleplay.runs.play import SeatingError
from ruleplay.runs.table import Table, table_seats


def test_seating_puts_the_person_where_asked_and_the_agents_around():
    assert table_seats(["random"], 3, 1) == (["random", "human", "random"], 1)
    assert table_seats(["first", "greedy"], 3, 0) == (["human", "first", "greedy"], 0)
    assert table_seats(["random", "human"], 2) == (["random", "human"], 1)
    for agents, players, human, message in (
            (["random"], 2, 5, "seat 5 is not a seat of this game (0..1)"),
            (["human"], 2, 0, "--agents then names only the other seats' agents"),
            (["random", "first", "greedy"], 3, 0, "3 agents for the 2 other seats"),
            (["human", "human"], 2, None, "2 human seats: a table has one person"),
            (["random"], 2, None, "0 human seats")):
        with pytest.raises(SeatingError, match=re.escape(message)):
            table_seats(agents, players, human)


def table(game: str = "tic-tac-toe", seed: int = 1, human: int = 0) -> Table:
    g = load_game(game)
    return Table.new(g, table_seats(["random"], g.info.players, human)[0], human, seed)


def test_a_game_played_to_its_end_keeps_every_move(Script):
    t = table()
    assert t.play(HumanAgent(console=Script(*["1"] * 5))) == "end"
    assert t.state.is_terminal() and [r.n for r in t.records] == list(range(1, len(t.records) + 1))
    assert {r.player for r in t.records[::2]} == {0}


def test_undo_goes_back_to_the_persons_previous_decision_and_the_reply_is_the_same(Script):
    t = table()
    console = Script("u", "5", "u", "5", "1", "u", "q")
    assert t.play(HumanAgent(console=console)) == "quit"
    text = console.text
    assert "nothing to undo: this is your first decision" in text
    assert "undone: back to your first decision" in text and "undone: back to your decision after move 2" in text
    # the same move is answered the same way after an undo: agents are seeded by the position's move number
    assert [r.move for r in t.records] == ["place(4)", t.records[1].move]
    fresh = table()
    fresh.play(HumanAgent(console=Script("5", "q")))
    assert [r.move for r in fresh.records] == [r.move for r in t.records]
    assert t.state.data == fresh.state.data  # the state after undo is the replayed one, equal to the state play reached


def test_a_game_left_and_resumed_goes_on_as_if_never_left(tmp_path, Script):
    answers = ["1", "1", "1", "1", "1"]
    whole = table(seed=4)
    whole.play(HumanAgent(console=Script(*answers)))
    left = table(seed=4)
    assert left.play(HumanAgent(console=Script(*answers[:2], "q"))) == "quit"
    log = tmp_path / "saved.jsonl"
    write_log(log, left.result(), "tic-tac-toe", left.game.info.ruleset_hash, finished=False)
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert "end" not in lines[-1] and lines[0]["agents"] == ["human", "random"]
    logged = read_log(log)
    assert logged.end is None and logged.state.data == left.state.data and len(logged.records) == 4
    resumed = Table(logged.game, left.seats, 0, 4, logged.records, logged.state)
    assert resumed.play(HumanAgent(console=Script(*answers[2:]))) == "end"
    assert [r.move for r in resumed.records] == [r.move for r in whole.records]
    assert resumed.result().returns == whole.result().returns


def _hidden_tokens(state, me: int) -> set[str]:
    """Words naming what `me` may not see now: everything in the state that its observation lacks."""
    def words(value) -> set[str]:
        return set(re.findall(r"[A-Za-z0-9_-]+", json.dumps(value)))
    seen = words(state.observe(me))
    return {w for w in words(state.data["vars"]) - seen if not w.isdigit()}  # numbers: counts, not names


def _check_hidden(state, text: str, checked: list) -> None:
    hidden = _hidden_tokens(state, 0)
    leaked = {w for w in hidden if re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", text)}
    assert not leaked, f"shown to seat 0 after move {len(state.history)}: {leaked} in {text}"
    checked.append(hidden)


@pytest.mark.parametrize("game, seed", [("kuhn-poker", 2), ("kuhn-poker", 5), ("nautilus-cards", 3)])
def test_the_person_never_sees_what_their_seat_may_not(game, seed, Script):
    """What is printed for the person (each move of the others, the board and the moves at each decision)
    holds no word of the state that the person's observation then lacks: the others' cards, the deck."""
    t = table(game, seed)
    checked: list = []

    class Watching(Script):
        def ask(self, prompt, choices):
            _check_hidden(t.state, "\n".join(self.shown), checked)
            self.shown.clear()
            return "1"

    def watch(state, record):
        _check_hidden(state, f"{record.n}. {record.views[0] if record.views else record.move}", checked)

    assert t.play(HumanAgent(console=Watching()), watch) == "end"
    assert any(checked), "the game never hid anything from the person: the check proved nothing"
