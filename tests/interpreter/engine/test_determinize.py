"""Determinization: a sampled state never looks different to its viewer, and every hidden arrangement the
viewer cannot rule out is sampled.

The arrangements are enumerated independently of `Determinizer`: every
permutation of the items in the places a viewer cannot see, kept when
`observe` shows the viewer exactly what it shows in the real state.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from ruleplay import load_game
from ruleplay.agents import make_agent
from ruleplay.engine.determinize import Determinizer
from ruleplay.engine.loader import builtin_games
from ruleplay.engine.rng import Rng

FACE_DOWN_DEAL = Path(__file__).resolve().parents[2] / "rulesets" / "face-down-deal.yaml"
SAMPLES = 4
POSITIONS = 8


def _seen(state, viewer):
    return json.dumps(state.observe(viewer), sort_keys=True)


def _positions(game, seed, steps):
    """States along one random playout, `steps` apart (at most POSITIONS of them)."""
    state, agent, n = game.new_state(seed), make_agent("random", seed), 0
    while not state.is_terminal() and n < POSITIONS * steps:
        state = state.apply_chance() if state.is_chance_node() else state.apply(agent.choose(state))
        n += 1
        if n % steps == 0:
            yield state


@pytest.mark.parametrize("name", builtin_games())
def test_a_determinization_never_changes_what_its_viewer_observes(name):
    game = load_game(name, players=2) if load_game(name).info.min_players <= 2 else load_game(name)
    steps = 1 if name in ("tic-tac-toe", "connect-four", "kuhn-poker") else 20
    rng, changed = Rng(7), 0
    for state in _positions(game, 11, steps):
        for viewer in range(game.info.players):
            sampler = Determinizer(state, viewer)
            for _ in range(SAMPLES):
                sample = sampler.sample(rng)
                assert _seen(sample, viewer) == _seen(state, viewer), f"{name}: seat {viewer} can tell"
                assert sample.history_view(viewer) == state.history_view(viewer)
                if state.current_player == viewer:  # a seat knows what it may do
                    assert [sample.move_view(m, viewer) for m in sample.legal_moves()] == [
                        state.move_view(m, viewer) for m in state.legal_moves()]
                changed += sample.data["vars"] != state.data["vars"]
    if game.info.hidden_information:
        assert changed, f"{name}: no determinization moved anything hidden"
    else:
        assert not changed, f"{name}: a game without hidden data was changed"


def _arrangements(state, viewer, places):
    """Every assignment of the items in `places` ((variable, seat or None) lists) that the viewer cannot
    tell from `state`, as a tuple of the places' lists."""
    vars_ = state.data["vars"]

    def at(v, place):
        name, seat = place
        return v[name] if seat is None else v[name][seat]

    sizes = [len(at(vars_, p)) for p in places]
    items = [x for p in places for x in at(vars_, p)]
    seen, found = _seen(state, viewer), set()
    for order in set(itertools.permutations(items)):
        data = json.loads(json.dumps(state.data))
        rest = list(order)
        for place, size in zip(places, sizes):
            at(data["vars"], place)[:] = rest[:size]
            rest = rest[size:]
        if _seen(state.with_data(data), viewer) == seen:
            found.add(_key(data["vars"], places))
    return found


def _key(vars_, places):
    return tuple(tuple(vars_[n] if s is None else vars_[n][s]) for n, s in places)


def _sampled(state, viewer, places, n):
    sampler, rng = Determinizer(state, viewer), Rng(3)
    return {_key(sampler.sample(rng).data["vars"], places) for _ in range(n)}


def test_every_consistent_deal_of_kuhn_poker_is_sampled():
    kuhn = load_game("kuhn-poker")
    start = kuhn.new_state(0)
    assert len(_arrangements(start, 0, [("deck", None)])) == 6  # before the deal: any order of the deck
    assert _sampled(start, 0, [("deck", None)], 200) == _arrangements(start, 0, [("deck", None)])
    dealt = start.apply("deal(Q, K)")
    for viewer, places in ((0, [("hand", 1), ("deck", None)]), (1, [("hand", 0), ("deck", None)])):
        every = _arrangements(dealt, viewer, places)
        assert len(every) == 2  # the other card is one of the two this seat does not hold
        assert _sampled(dealt, viewer, places, 100) == every


def test_every_consistent_arrangement_of_a_face_down_table_is_sampled():
    """Hidden deck, hidden hand and face-down cards showing their colour exchange cards, colour for colour."""
    game = load_game(FACE_DOWN_DEAL)
    state = game.new_state(0)
    places = [("deck", None), ("hand", 1), ("table", None)]
    every = _arrangements(state, 0, places)
    # Seat 0 holds r1 and sees a red and a blue back: r2 is on the table, the blues fill the other places.
    assert len(every) == 6
    assert _sampled(state, 0, places, 400) == every
    flipped = state.apply("flip(1)")  # b3 turned up: it stays where it is
    places = [("deck", None), ("hand", 0), ("table", None)]
    every = _arrangements(flipped, 1, places)
    # Seat 1 holds b1: the red back is r1 or r2, and the other two fill the deck and seat 0's hand.
    assert len(every) == 4 and all(arr[2][1] == "b3" for arr in every)
    assert _sampled(flipped, 1, places, 200) == every
