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


SEALED_BIDS = Path(__file__).resolve().parents[2] / "rulesets" / "sealed-bids.yaml"


def _after_bid(game, card):
    state = game.new_state(1)
    while state.is_chance_node():
        state = state.apply_chance()
    return state.apply(next(m for m in state.legal_moves() if m.args == (card,)))


def test_a_sealed_bid_kept_as_a_component_is_redrawn_from_the_cards_its_seat_may_hold():
    """Seat 0 bids a4 face down: seat 1 knows only that the bid is one of seat 0's five cards, and every one
    of them is drawn as the bid, the other four as the hand (docs/agents.md, what a determinization redraws)."""
    state = _after_bid(load_game(str(SEALED_BIDS)), "a4")
    determinizer, rng = Determinizer(state, 1), Rng(5)
    draws = [determinizer.sample(rng).data["vars"] for _ in range(200)]
    assert {tuple(v["bid"][0]) for v in draws} == {("a1",), ("a2",), ("a3",), ("a4",), ("a5",)}
    assert all(sorted(v["hand"][0] + v["bid"][0]) == ["a1", "a2", "a3", "a4", "a5"] for v in draws)
    assert all(v["bid"][1] == [] and v["hand"][1] == state.data["vars"]["hand"][1] for v in draws)
    assert determinizer.fallbacks == 0


def test_a_secret_kept_as_a_single_value_keeps_its_real_value(tmp_path):
    """The documented limit: a bid kept as a number is not a list's item, so every draw keeps it."""
    text = SEALED_BIDS.read_text(encoding="utf-8")
    for old, new in [('init: "[]"\n    visibility: owner', 'init: "null"\n    visibility: owner'),
                     ("append card to bid[current]", "bid[current] = card.rank"),
                     ("bid[0][0].rank", "bid[0]"), ("bid[1][0].rank", "bid[1]"), ("bid = [[], []]", "bid = [null, null]")]:
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / "sealed-numbers.yaml"
    path.write_text(text, encoding="utf-8")
    (tmp_path / "sealed-bids.md").write_text((SEALED_BIDS.parent / "sealed-bids.md").read_text(encoding="utf-8"))
    state = _after_bid(load_game(str(path)), "a4")
    determinizer, rng = Determinizer(state, 1), Rng(5)
    assert {determinizer.sample(rng).data["vars"]["bid"][0] for _ in range(50)} == {4}


def test_sampling_with_another_generator_says_which_one_it_needs():
    import random

    state = load_game("kuhn-poker").new_state(1)
    with pytest.raises(TypeError, match=r"needs a ruleplay\.engine\.rng\.Rng .* not Random"):
        Determinizer(state, 0).sample(random.Random(1))


HIDDEN_DICE = """\
ruleplay: 1
game: hidden-dice
players: 2
state:
  dice: {per_player: true, init: "[]", visibility: owner}
  bid: {init: "0"}
flow:
  phases:
    - name: roll0
      order: chance
      actions: [roll0]
    - name: roll1
      order: chance
      actions: [roll1]
    - name: bid
      actions: [call]
actions:
  roll0:
    chance: true
    params:
      a: {of: "range(1, 7)", seen_by: "[0]"}
      b: {of: "range(1, 7)", seen_by: "[0]"}
    weight: "if a == 6 then 5 else 1"
    effects: dice[0] = [a, b]
  roll1:
    chance: true
    params:
      a: {of: "range(1, 7)", seen_by: "[1]"}
      b: {of: "range(1, 7)", seen_by: "[1]"}
    effects: dice[1] = [a, b]
  call:
    params:
      n: range(2, 13)
    effects: |
      bid = n
      end_game
scoring:
  score: "if sum(dice[0]) + sum(dice[1]) >= bid then p else 1 - p"
"""


def test_a_hidden_roll_of_numbers_is_drawn_again_by_its_weights_not_kept(tmp_path):
    """Permuting seat 0's dice would keep the numbers rolled (which pair, only not which die): seat 1 does
    not know them, so a determinization plays the game again with seat 0's roll drawn anew, and seat 1's
    own roll, which it saw, as it was."""
    path = tmp_path / "hidden-dice.yaml"
    path.write_text(HIDDEN_DICE, encoding="utf-8")
    game = load_game(path)
    state = game.new_state(3)
    while state.is_chance_node():
        state = state.apply_chance()
    determinizer, rng = Determinizer(state, 1), Rng(9)
    draws = [determinizer.sample(rng) for _ in range(600)]
    seen = json.dumps(state.observe(1), sort_keys=True)
    assert all(json.dumps(d.observe(1), sort_keys=True) == seen for d in draws) and determinizer.fallbacks == 0
    assert all(d.data["vars"]["dice"][1] == state.data["vars"]["dice"][1] for d in draws)
    assert all(d.history == state.history for d in draws)  # the state's own record, as documented
    first = [d.data["vars"]["dice"][0][0] for d in draws]
    assert set(first) == {1, 2, 3, 4, 5, 6} and {d.data["vars"]["dice"][0][1] for d in draws} == set(first)
    assert 0.4 < first.count(6) / len(first) < 0.6  # by the weights: a first die's 6 is 5 in 10


PEEK_AND_RETURN = """\
ruleplay: 1
game: peek-and-return
players: 2
components:
  card: {items: [{id: a}, {id: b}, {id: c}, {id: d}, {id: e}]}
state:
  pile: {init: components("card"), visibility: hidden}
  peek: {per_player: true, init: "[]", visibility: owner}
  hand: {per_player: true, init: "[]", visibility: owner}
  seen: {per_player: true, init: "[]", visibility: owner}
  n: {init: "0"}
setup: draw 2 from pile to peek[0]
flow:
  phases:
    - {name: main, actions: [keep, wait]}
actions:
  keep:
    params: {card: {of: components("card"), from: "peek[current]", seen_by: current}}
    effects: |
      move card from peek[current] to hand[current]
      for other in peek[current] {
        remove other from peek[current]
        prepend other to pile
        append other to seen[current]
      }
  wait:
    require: ["len(peek[current]) == 0"]
    effects: n += 1
end:
  - when: n >= 2
"""


def test_a_card_recorded_where_its_viewer_sees_neither_place_is_redrawn_with_its_record(make_game):
    """Seat 0 keeps one of two cards and returns the other on top of the pile, noting it in `seen[0]`.

    Seat 1 sees neither place, so keeping a or keeping b is the same to it: its draws must be the same,
    and the card on top of the pile must be the one noted, whichever card that is.
    """
    game = make_game(PEEK_AND_RETURN)
    start = game.new_state(0)
    kept = [start.apply(f"keep({card})") for card in start.data["vars"]["peek"][0]]
    assert _seen(kept[0], 1) == _seen(kept[1], 1)
    draws = [[Determinizer(state, 1).sample(Rng(seed)).data["vars"] for seed in range(20)] for state in kept]
    assert draws[0] == draws[1]
    assert all(v["pile"][0] == v["seen"][0][0] and v["seen"][0][0] not in v["hand"][0] for v in draws[0])
    assert len({v["pile"][0] for v in draws[0]}) > 2  # not only the two cards seat 0 held


@pytest.mark.parametrize("name, nothing", [("connect-four", True), ("tic-tac-toe", True), ("nautilus-cards", False),
                                           ("kuhn-poker", False)])
def test_redraws_nothing_exactly_where_every_sample_is_the_real_state_with_a_fresh_generator(name, nothing):
    game = load_game(name)
    state = game.new_state(5)
    while state.is_chance_node():
        state.apply_chance_in_place()
    sampler = Determinizer(state, state.current_player)
    assert sampler.redraws_nothing is nothing
    rng, again = Rng(9), Rng(9)
    drawn = sampler.sample(rng)
    if nothing:
        assert drawn.data == dict(state.data, rng=again.next64()) and rng.state == again.state
    else:  # something is dealt anew in some draw
        assert any(sampler.sample(rng).data["vars"] != state.data["vars"] for _ in range(10))
