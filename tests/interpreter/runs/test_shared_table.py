"""The table `ruleplay serve` shares between people's requests and the agents' thread."""

from __future__ import annotations

import threading
import time
from typing import Iterator

import pytest

from ruleplay import load_game
from ruleplay.runs.play import SeatingError
from ruleplay.runs.shared_table import SharedTable, TableRefusal, served_seats, told_error
from ruleplay.runs.table import Table


@pytest.mark.parametrize("agents, players, people, seats", [
    (["random"], 2, [0], (["human", "random"], {0})),
    (["random"], 3, [1], (["random", "human", "random"], {1})),
    (["greedy", "random"], 3, [1], (["greedy", "human", "random"], {1})),
    (["random"], 2, [0, 1], (["human", "human"], {0, 1})),
    (["human", "random", "human"], 3, None, (["human", "random", "human"], {0, 2})),
])
def test_seats_of_a_served_table(agents, players, people, seats):
    assert served_seats(agents, players, people) == seats


@pytest.mark.parametrize("agents, players, people, message", [
    (["random"], 2, None, "nobody plays at this table"),
    (["random"], 2, [2], "seat 2 is not a seat of this game (0..1)"),
    (["random"], 2, [0, 0], "--human names a seat twice"),
    (["human"], 2, [0], "--agents then names only the other seats' agents"),
    (["random", "greedy"], 3, [0, 1], "2 agents for the 1 seats without a person"),
])
def test_a_table_that_cannot_be_seated_says_why(agents, players, people, message):
    with pytest.raises(SeatingError, match=message.replace("(", r"\(").replace(")", r"\)")):
        served_seats(agents, players, people)


def _wait(shared: SharedTable, check, timeout: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while not check(shared.snapshot()):
        assert time.monotonic() < end, "the table never got there"
        time.sleep(0.01)


@pytest.fixture
def running() -> Iterator:
    threads: list[tuple[SharedTable, threading.Thread]] = []

    def start(shared: SharedTable) -> SharedTable:
        thread = threading.Thread(target=shared.run, daemon=True)
        thread.start()
        threads.append((shared, thread))
        return shared

    yield start
    for shared, thread in threads:
        shared.stop()
        thread.join(timeout=5)
        assert not thread.is_alive()


def test_a_person_and_an_agent_play_and_every_change_is_saved(running):
    game = load_game("tic-tac-toe")
    saved: list[int] = []
    shared = running(SharedTable(Table.new(game, ["human", "first"], 0, 3), {0},
                                 save=lambda table: saved.append(len(table.records))))
    snap = shared.snapshot()
    texts = [t for t, _ in shared.choices(snap.state, 0)]
    shared.play(0, texts[0], snap.version)
    _wait(shared, lambda s: len(s.records) == 2)  # the agent answered
    snap = shared.snapshot()
    assert [r.player for r in snap.records] == [0, 1] and snap.thinking is None
    assert saved[-1] == 2
    with pytest.raises(TableRefusal, match="moved on"):
        shared.play(0, texts[1], snap.version - 1)  # chosen on an older board
    with pytest.raises(TableRefusal, match="not player 1's turn"):
        shared.play(1, texts[1], snap.version)
    with pytest.raises(TableRefusal, match="is not one of your moves"):
        shared.play(0, "place(99)", snap.version)
    assert shared.undo(0) == 0
    snap = shared.snapshot()
    assert snap.records == () and snap.rounds == () and saved[-1] == 0
    with pytest.raises(TableRefusal, match="nothing to undo"):
        shared.undo(0)


def test_a_persons_only_move_is_played_for_them_and_undo_goes_past_it(running):
    """Nautilus (card game): with no special card to play, the before-placement step leaves the person one
    move (keep_for_later); the table plays it, marks it, and undo goes back to the decision before it."""
    game = load_game("nautilus-cards", variant=None)
    shared = running(SharedTable(Table.new(game, ["human", "first"], 0, 5), {0}))
    snap = shared.snapshot()
    keep = [t for t, _ in shared.choices(snap.state, 0)]
    assert keep[0].startswith("keep_special(")
    shared.play(0, keep[0], snap.version)
    _wait(shared, lambda s: s.forced)
    snap = shared.snapshot()
    forced = min(snap.forced)
    assert snap.records[forced - 1].player == 0 and snap.records[forced - 1].move == "keep_for_later"
    _wait(shared, lambda s: s.state.current_player == 0 and len(shared.choices(s.state, 0)) > 1)
    assert shared.undo(0) == 0  # back past the move played for the person, to their first decision
    assert shared.snapshot().forced == frozenset()


BROKEN = """
ruleplay: 1
game: broken
players: 2
state:
  hand: {per_player: true, init: '[["queen"], ["king"]][p]', visibility: owner}
flow:
  phases:
    - {name: play, actions: [go, stay]}
actions:
  go:
    effects: 'fail "no " + hand[1][0]'
  stay: {}
end:
  - when: "false"
"""


def test_a_rule_error_stops_the_table_and_is_told_without_its_text(make_game, running):
    """The error quotes seat 1's card: seat 0, a person in a game with secrets, is told there was one."""
    game = make_game(BROKEN)
    shared = running(SharedTable(Table.new(game, ["human", "first"], 0, 1), {0}))
    snap = shared.snapshot()
    shared.play(0, "stay", snap.version)
    _wait(shared, lambda s: s.error is not None)  # the agent (first) plays `go`, which fails
    error = shared.snapshot().error
    assert "no king" in str(error)
    assert "king" not in told_error(error, game.model.keeps_secrets, 0)
    assert "withheld from player 0" in told_error(error, game.model.keeps_secrets, 0)
    assert shared.choices(shared.snapshot().state, 0) == []
