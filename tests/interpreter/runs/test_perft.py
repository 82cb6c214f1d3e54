"""perft counts: the move generator against known figures."""

from __future__ import annotations

from ruleplay import load_game
from ruleplay.runs.perft import perft, perft_table

# Move sequences of exactly d decisions (games that ended earlier excluded), d = 1..9.
TIC_TAC_TOE = [9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]


def test_tic_tac_toe_perft_to_the_end():
    table = perft_table(load_game("tic-tac-toe").new_state(), 9)
    assert [r.nodes for r in table] == TIC_TAC_TOE
    assert table[-1].terminals == 255168  # every complete game of tic-tac-toe


def test_perft_and_perft_table_agree():
    state = load_game("tic-tac-toe").new_state()
    table = perft_table(state, 5)
    for depth in (1, 4, 5):
        single = perft(state, depth)
        assert (single.nodes, single.terminals) == (table[depth - 1].nodes, table[depth - 1].terminals)


def test_perft_counts_from_a_midgame_position():
    state = load_game("tic-tac-toe").new_state().apply("place(4)").apply("place(0)")
    assert perft(state, 1).nodes == 7
    assert perft(state, 2).nodes == 42
