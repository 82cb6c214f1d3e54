"""The native state handle's steps: the legal moves each step reports, however many, and clones that step apart.

A step writes the legal moves after it into the handle's own `rp_io`, which
holds 64 of them; a state with more lists them once into a larger buffer,
which the handle's later steps write into.  Nautilus-cards offers up to 135
legal moves, so a random game crosses that line both ways.
"""

from __future__ import annotations

import random

from ruleplay import load_game
from ruleplay.engine.native import NativeState

from native_support import native_of


def test_a_game_with_more_legal_moves_than_the_io_holds_lists_them_as_the_python_engine():
    game = load_game("nautilus-cards")
    ng = native_of(game)
    assert ng.io_legal == 64
    rng = random.Random(7)
    handle, state = NativeState.new(ng, 3), game.new_state(3)
    counts = []
    while not state.is_terminal():
        assert handle.current_player() == state.current_player
        assert handle.legal_actions() == state.legal_actions()
        counts.append(len(state.legal_actions()))
        if state.current_player < 0:
            handle.apply_chance()
            state.apply_chance_in_place()
        else:
            action = rng.choice(state.legal_actions())
            handle.apply_action(action)
            state.apply_in_place(game.index_to_move(action))
    assert handle.is_terminal() and handle.returns() == state.returns()
    assert handle.to_state().data == state.data
    big = [k for k, n in enumerate(counts) if n > ng.io_legal]
    assert big and any(counts[k + 1] <= ng.io_legal for k in big if k + 1 < len(counts))  # over 64 and back


def test_a_clone_of_a_grown_handle_steps_apart_from_it():
    game = load_game("nautilus-cards")
    ng = native_of(game)
    rng = random.Random(1)
    handle = NativeState.new(ng, 5)
    while len(handle.legal_actions()) <= ng.io_legal:  # to a state with more legal moves than the io holds
        if handle.is_chance_node():
            handle.apply_chance()
        else:
            handle.apply_action(rng.choice(handle.legal_actions()))
        assert not handle.is_terminal()
    before = handle.to_state()
    other = handle.clone()
    assert other.legal_actions() == handle.legal_actions() == before.legal_actions()
    move = handle.legal_actions()[-1]
    other.apply_action(move)
    after = before.copy()
    after.apply_in_place(game.index_to_move(move))
    assert other.legal_actions() == after.legal_actions()
    assert other.to_state().data == after.data
    assert handle.to_state().data == before.data and handle.legal_actions() == before.legal_actions()
