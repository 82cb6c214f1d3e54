"""Othello (tests/rulesets/othello.yaml): its moves against a generator written here, independently of ruleplay.

The ruleset is written with `let` in a function, `index_where`, a
comprehension of two `for` clauses and a forced pass that is a move
(`fallback: true`); the move generator below is plain Python.  Perft is
also the figure every Othello program quotes (4, 12, 56, 244, 1396, 8200).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ruleplay import load_game
from ruleplay.agents import make_agent
from ruleplay.runs.perft import perft_table

RULESET = Path(__file__).resolve().parent / "othello.yaml"
STEPS = [(0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1)]


def turned(board: list, p: int, c: int) -> list[int]:
    """The squares a disc of p on c turns over."""
    out = []
    for dx, dy in STEPS:
        x, y, run = c % 8 + dx, c // 8 + dy, []
        while 0 <= x < 8 and 0 <= y < 8 and board[y * 8 + x] == 1 - p:
            run.append(y * 8 + x)
            x, y = x + dx, y + dy
        if run and 0 <= x < 8 and 0 <= y < 8 and board[y * 8 + x] == p:
            out += run
    return out


def moves(board: list, p: int) -> list[str]:
    placed = [f"place({c})" for c in range(64) if board[c] is None and turned(board, p, c)]
    return placed or ["pass_turn"]


def perft(board: list, p: int, depth: int, passes: int = 0) -> int:
    if passes == 2 or None not in board:
        return 0
    total = 0
    for move in moves(board, p):
        if depth == 1:
            total += 1
            continue
        after, done = list(board), 0
        if move == "pass_turn":
            done = passes + 1
        else:
            c = int(move[6:-1])
            for x in turned(board, p, c) + [c]:
                after[x] = p
        total += perft(after, 1 - p, depth - 1, done)
    return total


@pytest.mark.parametrize("depth", [4, pytest.param(6, marks=pytest.mark.slow)])
def test_perft_matches_the_generator_here_and_the_quoted_figures(depth):
    start = load_game(RULESET).new_state()
    board = start.data["vars"]["board"]
    table = perft_table(start, depth)
    quoted = [4, 12, 56, 244, 1396, 8200][:depth]
    assert [r.nodes for r in table] == [perft(board, 0, d) for d in range(1, depth + 1)] == quoted


def test_random_games_list_the_generators_moves_and_pass_as_a_move():
    game = load_game(RULESET)
    passes = 0
    for seed in range(6):
        agent = make_agent("random", seed)
        state = game.new_state(seed)
        while not state.is_terminal():
            vars_ = state.data["vars"]
            assert [str(m) for m in state.legal_moves()] == moves(vars_["board"], state.current_player)
            move = agent.choose(state)
            passes += str(move) == "pass_turn"
            state = state.apply(move)
        assert state.data["vars"]["passes"] == 2 or None not in state.data["vars"]["board"]
        assert state.scores() == [state.data["vars"]["board"].count(p) for p in (0, 1)]
    assert passes > 0, "no game passed: pick seeds that do"
