"""Connect Four and Kuhn poker: classic games whose known numbers prove the engine.

Both are pure data (`rulesets/*.yaml`).  Connect Four checks the grid
builtins and gravity through perft counts and known positions; Kuhn poker
checks explicit chance outcomes, declared returns and hidden information
against the textbook game (6 deals, 30 terminal histories).
"""

from __future__ import annotations

import itertools
import json

import pytest

from ruleplay import load_game
from ruleplay.runs.perft import perft, perft_table


def play(game, moves, seed=0):
    state = game.new_state(seed=seed)
    for m in moves:
        state = state.apply(m)
    return state


# ------------------------------------------------------------ connect four
@pytest.fixture(scope="module")
def c4():
    return load_game("connect-four", checking=True)


def drops(*cols: int) -> list[str]:
    return [f"drop({c})" for c in cols]


def test_connect_four_loads_without_warnings(c4):
    assert [d.format() for d in c4.model.diagnostics] == []


def test_connect_four_perft(c4):
    table = perft_table(c4.new_state(), 4)
    assert [(r.depth, r.nodes, r.terminals) for r in table] == [
        (1, 7, 0), (2, 49, 0), (3, 343, 0), (4, 2401, 0)]


def test_disc_falls_to_the_lowest_empty_cell(c4):
    state = play(c4, drops(3, 3))
    board = state.data["vars"]["board"]
    assert board[5 * 7 + 3] == 0  # bottom row, column 3: seat 0's disc
    assert board[4 * 7 + 3] == 1  # stacked on top of it
    assert sum(v is not None for v in board) == 2
    assert "CF-2.3" in state.last_fired


def test_full_column_is_refused(c4):
    state = play(c4, drops(0, 0, 0, 0, 0, 0))
    assert [str(m) for m in state.legal_moves()] == drops(1, 2, 3, 4, 5, 6)
    reason = state.explain("drop(0)")
    assert reason is not None and "full" in reason and "CF-2.2" in reason


# Each line: the drops, then the seat that wins with the last one.
WINS = {
    "vertical": (drops(0, 1, 0, 1, 0, 1, 0), 0),
    "horizontal": (drops(3, 3, 4, 4, 5, 5, 6), 0),
    "horizontal-gap-filled": (drops(0, 0, 1, 1, 3, 3, 2), 0),
    "diagonal-rising": (drops(0, 1, 1, 2, 2, 3, 2, 3, 3, 5, 3), 0),
    "diagonal-falling": (drops(6, 5, 5, 4, 4, 3, 4, 3, 3, 1, 3), 0),
    "second-player": (drops(0, 1, 0, 1, 2, 1, 6, 1), 1),
}


@pytest.mark.parametrize("line", sorted(WINS))
def test_four_in_a_row_wins(c4, line):
    moves, seat = WINS[line]
    before = play(c4, moves[:-1])
    assert not before.is_terminal()
    after = before.apply(moves[-1])
    assert after.is_terminal()
    assert "CF-3.1" in after.last_fired
    assert after.data["vars"]["winner"] == seat
    assert after.returns() == ([1.0, -1.0] if seat == 0 else [-1.0, 1.0])


def test_three_in_a_row_and_edge_wrap_do_not_win(c4):
    assert not play(c4, drops(0, 0, 1, 1, 3, 3)).is_terminal()
    # Seat 0 holds cells 32, 33, 34 (row 4, columns 4-6) and 35 (row 5, column 0): consecutive
    # numbers, but not a line on the board.
    state = play(c4, drops(0, 4, 4, 5, 5, 6, 6))
    board = state.data["vars"]["board"]
    assert [board[c] for c in (32, 33, 34, 35)] == [0, 0, 0, 0]
    assert not state.is_terminal()


# A 42-move game that fills the board with no four in a row anywhere.
DRAWN = drops(4, 3, 6, 0, 1, 4, 5, 5, 1, 1, 5, 0, 1, 6, 0, 1, 5, 5, 1, 0, 4, 6, 3, 2, 6, 6, 0, 4, 6, 5,
              2, 0, 4, 2, 4, 2, 2, 2, 3, 3, 3, 3)


def test_full_board_is_a_draw(c4):
    before = play(c4, DRAWN[:-1])
    assert not before.is_terminal()
    state = before.apply(DRAWN[-1])
    assert state.is_terminal()
    assert state.last_fired[-1] == "CF-3.2"
    assert state.data["vars"]["winner"] is None
    assert state.returns() == [0.0, 0.0]
    assert state.data["vars"]["supply"] == [0, 0]


# -------------------------------------------------------------- kuhn poker
CARDS = ("J", "Q", "K")


@pytest.fixture(scope="module")
def kuhn():
    return load_game("kuhn-poker", checking=True)


def test_kuhn_loads_without_warnings(kuhn):
    assert [d.format() for d in kuhn.model.diagnostics] == []
    assert kuhn.info.chance and kuhn.info.hidden_information and kuhn.info.utility == "declared"


def test_six_equally_likely_deals(kuhn):
    root = kuhn.new_state()
    assert root.is_chance_node()
    outcomes = root.chance_outcomes()
    assert sorted(m.args for m, _ in outcomes) == sorted(itertools.permutations(CARDS, 2))
    assert [p for _, p in outcomes] == pytest.approx([1 / 6] * 6)


def terminal_states(state):
    """Every terminal state below `state`, expanding chance outcomes and decisions alike."""
    if state.is_terminal():
        return [state]
    moves = [m for m, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_moves()
    return [t for m in moves for t in terminal_states(state.apply(m))]


def test_thirty_terminal_histories(kuhn):
    root = kuhn.new_state()
    assert perft(root, 3).terminals == 30
    ends = terminal_states(root)
    assert len(ends) == 30
    assert len({tuple(str(m) for m in s.history) for s in ends}) == 30
    for s in ends:
        returns = s.returns()
        assert sum(returns) == 0
        assert all(-2 <= r <= 2 for r in returns)
        assert s.scores() == returns


# Payoffs [seat 0, seat 1] of every betting line for two deals (seat 0's card first).
PAYOFFS = {
    ("J", "K"): {"check check": [-1, 1], "bet call": [-2, 2], "bet fold": [1, -1],
                 "check bet call": [-2, 2], "check bet fold": [-1, 1]},
    ("K", "Q"): {"check check": [1, -1], "bet call": [2, -2], "bet fold": [1, -1],
                 "check bet call": [2, -2], "check bet fold": [-1, 1]},
}


@pytest.mark.parametrize("deal,line", [(d, line) for d, lines in PAYOFFS.items() for line in lines])
def test_betting_line_payoffs(kuhn, deal, line):
    state = play(kuhn, [f"deal({deal[0]}, {deal[1]})"] + line.split())
    assert state.is_terminal()
    assert state.returns() == PAYOFFS[deal][line]
    assert state.data["vars"]["pot"] == 0


def test_player_sees_only_their_own_card(kuhn):
    state = play(kuhn, ["deal(Q, K)"])
    assert state.observe(0)["state"]["hand"][0] == ["Q"]
    assert state.observe(1)["state"]["hand"][1] == ["K"]
    assert "Q" not in json.dumps(state.observe(1)) and "K" not in json.dumps(state.observe(0))


def _view(state, seat):
    return json.dumps(state.observe(seat), sort_keys=True)


def test_seat_1_never_sees_seat_0s_card_before_showdown(kuhn):
    """Deals that differ only in seat 0's card look the same to seat 1 until the cards are shown."""
    root = kuhn.new_state()
    deals = [root.apply(m) for m, _ in root.chance_outcomes()]
    pairs = [(a, b) for a, b in itertools.combinations(deals, 2)
             if a.data["vars"]["hand"][1] == b.data["vars"]["hand"][1]]
    assert len(pairs) == 3  # one per card seat 1 can hold
    compared = {"hidden": 0, "shown": 0}

    def walk(a, b):
        assert a.legal_moves() == b.legal_moves()
        assert _view(a, 0) != _view(b, 0)  # seat 0 does see the difference
        if any(card is not None for card in a.data["vars"]["shown"]):
            assert _view(a, 1) != _view(b, 1)
            compared["shown"] += 1
        else:
            assert _view(a, 1) == _view(b, 1)
            compared["hidden"] += 1
        for m in a.legal_moves():
            walk(a.apply(m), b.apply(m))

    for a, b in pairs:
        walk(a, b)
    # Per pair: 4 decision points (after the deal, check, bet, check-bet) and 2 folds stay hidden;
    # 3 showdowns (check-check, bet-call, check-bet-call) reveal.
    assert compared == {"hidden": 3 * 6, "shown": 3 * 3}
