"""Hex and Breakthrough: perft against move generators written here, independently of ruleplay.

Neither game has a perft table everyone quotes, so the figures come from
two small hand-written generators (plain Python over (x, y) squares, no
ruleplay code) and from what follows from the rules alone: Hex stones never
move or go, so until a chain can exist (2n - 1 stones on an n x n board) the
count at depth d is n²!/(n² - d)!; and the two Breakthrough armies start
four rows apart, so at depth 2 each of White's 22 first moves meets all of
Black's 22.
"""

from __future__ import annotations

import math
import random
from functools import lru_cache
from pathlib import Path


from ruleplay import load_game
from ruleplay.dsl import runtime as R
from ruleplay.dsl.builtins import BUILTINS
from ruleplay.runs.perft import perft_table
from ruleplay.runs.simulate import simulate
from ruleplay.runs.workers import GameSpec

HERE = Path(__file__).resolve().parent


def load(name: str, variant: str | None = None):
    return load_game(HERE / f"{name}.yaml", variant=variant, checking=True)


# ------------------------------------------------------------------- Hex
HEX_STEPS = [(0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0)]


def hex_wins(stones: dict, n: int, seat: int, at: tuple[int, int]) -> bool:
    """Whether the chain through `at` joins the seat's edges: Red (0) top and bottom, Blue (1) left and right."""
    seen, todo = {at}, [at]
    while todo:
        x, y = todo.pop()
        for dx, dy in HEX_STEPS:
            nxt = (x + dx, y + dy)
            if nxt not in seen and stones.get(nxt) == seat:
                seen.add(nxt)
                todo.append(nxt)
    axis = 1 if seat == 0 else 0
    return {c[axis] for c in seen} >= {0, n - 1}


def hex_perft(n: int, depth: int) -> list[tuple[int, int]]:
    """(sequences of exactly d moves, games over within d moves) for d = 1..depth."""
    nodes, ends = [0] * (depth + 1), [0] * (depth + 1)

    def walk(stones: dict, k: int) -> None:
        for y in range(n):
            for x in range(n):
                if (x, y) in stones:
                    continue
                seat = k % 2
                stones[(x, y)] = seat
                nodes[k + 1] += 1
                if hex_wins(stones, n, seat, (x, y)):
                    ends[k + 1] += 1
                elif k + 1 < depth:
                    walk(stones, k + 1)
                del stones[(x, y)]

    walk({}, 0)
    return [(nodes[d], sum(ends[: d + 1])) for d in range(1, depth + 1)]


def test_hex_perft_on_the_11x11_board_is_the_count_of_placements():
    table = perft_table(load("hex").new_state(), 1)
    assert [(r.nodes, r.terminals) for r in table] == [(math.perm(121, 1), 0)]


def test_the_independent_hex_generator_agrees_with_the_placement_count_before_any_chain():
    assert hex_perft(3, 4) == [(math.perm(9, d), 0) for d in range(1, 5)]


def test_hex_perft_on_the_small_board_matches_the_independent_generator():
    table = perft_table(load("hex", "small").new_state(), 5)
    assert [(r.nodes, r.terminals) for r in table] == hex_perft(3, 5)
    assert table[4].terminals > 0  # Red's third stone can close a chain


def test_hex_neighbours_are_the_six_declared_steps():
    game = load("hex")
    ctx = R.Ctx({}, {"players": 2}, game.model)
    around = BUILTINS["neighbors"].fn(ctx, "board", 12, "hex")  # (1, 1)
    assert sorted(around) == sorted((1 + dx) + (1 + dy) * 11 for dx, dy in HEX_STEPS)
    assert len(BUILTINS["neighbors"].fn(ctx, "board", 0, "hex")) == 2  # the acute corner
    assert len(BUILTINS["neighbors"].fn(ctx, "board", 10, "hex")) == 3  # the obtuse corner


def test_a_red_chain_top_to_bottom_wins_hex():
    state = load("hex", "small").new_state()
    for move in ["place(1)", "place(0)", "place(4)", "place(3)", "place(7)"]:
        state = state.apply(move)
    assert state.is_terminal() and state.returns() == [1.0, -1.0]
    assert state.data["flow"]["ended_by"] == "HX-3.1"


def test_a_blue_chain_left_to_right_wins_hex_and_a_red_one_does_not_count_for_blue():
    state = load("hex", "small").new_state()
    for move in ["place(0)", "place(3)", "place(1)", "place(4)", "place(8)", "place(5)"]:
        state = state.apply(move)
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]


def test_hex_random_games_always_have_a_winner():
    """Hex cannot end in a draw: a full board always holds exactly one winning chain."""
    game = load("hex", "small")
    for seed in range(20):
        rng = random.Random(seed)
        state = game.new_state(seed)
        while not state.is_terminal():
            state = state.apply(rng.choice(state.legal_moves()))
        assert sorted(state.returns()) == [-1.0, 1.0]


# ----------------------------------------------------------- Breakthrough
SIZE = 8


def bt_start() -> tuple:
    """Rows 0-1 Black (1), rows 6-7 White (0), as one tuple of 64 squares (row by row)."""
    return tuple(1 if y < 2 else 0 if y >= SIZE - 2 else None for y in range(SIZE) for x in range(SIZE))


def bt_moves(board: tuple, seat: int) -> list[tuple[int, int]]:
    dy = -1 if seat == 0 else 1
    out = []
    for a, piece in enumerate(board):
        if piece != seat:
            continue
        x, y = a % SIZE, a // SIZE
        ny = y + dy
        if not 0 <= ny < SIZE:
            continue
        for dx in (-1, 0, 1):
            nx = x + dx
            if not 0 <= nx < SIZE:
                continue
            b = ny * SIZE + nx
            if (dx == 0 and board[b] is None) or (dx != 0 and board[b] != seat):
                out.append((a, b))
    return out


@lru_cache(maxsize=None)
def bt_count(board: tuple, seat: int, depth: int) -> tuple[int, int]:
    """(sequences of exactly `depth` moves, games over within `depth` moves) from a position."""
    if depth == 0:
        return 1, 0
    nodes = ends = 0
    for a, b in bt_moves(board, seat):
        after = list(board)
        after[b], after[a] = seat, None
        after_t = tuple(after)
        won = b // SIZE == (0 if seat == 0 else SIZE - 1) or (1 - seat) not in after_t
        if won or not bt_moves(after_t, 1 - seat):
            ends += 1
            nodes += depth == 1
            continue
        n, e = bt_count(after_t, 1 - seat, depth - 1)
        nodes, ends = nodes + n, ends + e
    return nodes, ends


def test_the_independent_breakthrough_generator_gives_22_first_moves_and_22_replies_to_each():
    assert [bt_count(bt_start(), 0, d)[0] for d in (1, 2)] == [22, 22 * 22]


def test_breakthrough_perft_matches_the_independent_generator():
    table = perft_table(load("breakthrough").new_state(), 3)
    assert [(r.nodes, r.terminals) for r in table] == [bt_count(bt_start(), 0, d) for d in (1, 2, 3)]


def test_breakthrough_moves_and_captures_from_a_midgame_position():
    game = load("breakthrough")
    state = game.new_state()
    for move in ["move(51, 43)", "move(12, 20)", "move(43, 35)", "move(20, 28)"]:
        state = state.apply(move)
    legal = {str(m) for m in state.legal_moves()}
    board = tuple(state.data["vars"]["squares"])
    assert legal == {f"move({a}, {b})" for a, b in bt_moves(board, 0)}
    assert {"move(35, 27)", "move(35, 28)"} <= legal  # straight on to an empty square, aslant onto a capture
    assert "move(28, 36)" not in legal  # not White's piece


def test_a_breakthrough_game_ends_naming_both_of_its_end_rules():
    """The one end condition encodes reaching the far row and capturing every piece: both are recorded."""
    game = load("breakthrough")
    rng = random.Random(5)
    state = game.new_state(5)
    while not state.is_terminal():
        state = state.apply(rng.choice(state.legal_moves()))
    assert state.data["flow"]["ended_by"] == "BT-3.1+BT-3.2"
    report = simulate(GameSpec(str(HERE / "breakthrough.yaml")), 4, seed=1)
    assert report.ended_by == {"BT-3.1+BT-3.2": 4}


def test_breakthrough_tables_are_derived_once_at_load():
    constants = load("breakthrough").model.constants
    assert constants["straight"][0][8] == 0 and constants["straight"][0][0] is None
    assert constants["diagonal"][1][0] == [9] and sorted(constants["diagonal"][0][10]) == [1, 3]
    assert constants["goal"] == [list(range(8)), list(range(56, 64))]
    assert constants["home"] == [list(range(48, 64)), list(range(16))]
