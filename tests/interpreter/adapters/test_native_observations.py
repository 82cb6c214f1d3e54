"""Observation vectors and action masks written natively equal the Python encoding, and keep other seats' secrets."""

from __future__ import annotations

import random

import numpy as np
import pytest
from ruleplay import load_game
from ruleplay.adapters.encoding import Encoding
from ruleplay.adapters.held import PythonHandle, Stepper
from ruleplay.engine.determinize import Determinizer
from ruleplay.engine.native import NativeState, NativeUnavailable
from ruleplay.engine.rng import Rng

from native_support import native_of

SEEDS = (0, 1)


def _native(config):
    game = load_game(*config)
    native_of(game)  # a skip where no module can be built here (a failure under CI)
    encoding = Encoding(game)
    return game, encoding, encoding.native_writer(native_of(game))


def _states(game, seed):
    """Every state of a random game of seed `seed`, chance nodes included, as native handles."""
    rnd = random.Random(seed)
    handle = NativeState.new(native_of(game), seed)
    while True:
        yield handle
        if handle.is_terminal():
            return
        if handle.is_chance_node():
            handle.apply_chance()
        else:
            handle.apply_action(rnd.choice(handle.legal_actions()))


def test_every_vector_of_random_games_equals_the_python_encoding(config):
    game, encoding, writer = _native(config)
    assert writer.available, "every built-in ruleset's visible_if and back are lowered"
    out = np.empty(encoding.size, np.float32)
    for seed in SEEDS:
        for handle in _states(game, seed):
            state = handle.to_state()
            assert sorted(handle.legal_actions()) == sorted(state.legal_actions())
            for seat in range(game.model.players):
                out.fill(np.nan)
                assert writer.write(handle.native, seat, out)
                expected = np.asarray(encoding.encode(state.observe(seat)), np.float32)
                assert np.array_equal(out, expected), (seed, len(state.history), seat,
                                                       np.flatnonzero(out != expected)[:8])


HIDDEN = [("kuhn-poker", 2, None), ("nautilus-cards", 2, None), ("lovci-pokladu", 3, None), ("nautilus", 3, None)]


@pytest.mark.parametrize("hidden", HIDDEN, ids=lambda c: f"{c[0]}-{c[1]}p")
def test_what_a_seat_may_not_see_never_reaches_its_vector(hidden):
    """Each state is redrawn as the seat might believe it to be (`Determinizer`: what it cannot see moved
    about, its own view unchanged): its native vector stays the same, while the states differ."""
    game, encoding, writer = _native(hidden)
    ng = native_of(game)
    here, there = np.empty(encoding.size, np.float32), np.empty(encoding.size, np.float32)
    redrawn = 0
    states = [handle.to_state() for handle in _states(game, 3)]
    for state in states[::max(1, len(states) // 8)]:
        handle = NativeState.of(ng, state)
        for seat in range(game.model.players):
            assert writer.write(handle.native, seat, here)
            for k in range(3):
                other = Determinizer(state, seat).sample(Rng(k))
                redrawn += other.data["vars"] != state.data["vars"]
                assert writer.write(NativeState.of(ng, other).native, seat, there)
                assert np.array_equal(here, there), (len(state.history), seat, np.flatnonzero(here != there)[:8])
    assert redrawn > 0  # the secrets did move: the test could see a leak


def test_a_layout_whose_counts_are_not_one_per_component_is_refused():
    """Each count is written at its component's place: a layout giving a variable's entries fewer counts than the
    game has components (though of the right size in all) would have them written past the entry."""
    game, encoding, writer = _native(("kuhn-poker", 2, None))
    handle = NativeState.new(native_of(game), 0)
    out = np.empty(encoding.size, np.float32)
    assert writer.write(handle.native, 0, out)
    hand = list(game.model.vars).index("hand")
    assert writer.layout.counts[hand] == len(game.model.component_ids)
    writer.layout.counts[hand] -= 1
    writer.layout.cells[hand] += 1  # hand[0] and hand[1]: 2 counts fewer, 8 numbers of items more
    writer.layout.size += 6
    assert not writer.write(handle.native, 0, np.empty(encoding.size + 6, np.float32))


def test_the_adapters_choose_their_backend():
    game = load_game("tic-tac-toe")
    encoding = Encoding(game)
    assert Stepper(game, encoding).backend == "native"
    python = Stepper(game, encoding, "python")
    assert python.backend == "python" and isinstance(python.new(0), PythonHandle)
    with pytest.raises(ValueError, match="backend 'fast' is not one of auto, python, native"):
        Stepper(game, encoding, "fast")


def test_native_is_refused_with_the_reason_where_the_game_has_no_module(make_game, monkeypatch):
    game = load_game("tic-tac-toe")
    monkeypatch.setattr("ruleplay.engine.native.NativeGame.of",
                        lambda g: (_ for _ in ()).throw(NativeUnavailable("no C compiler here")))
    with pytest.raises(NativeUnavailable, match="no C compiler here"):
        Stepper(game, Encoding(game), "native")
    auto = Stepper(game, Encoding(game))
    assert auto.backend == "python" and auto.why_not == "no C compiler here"
