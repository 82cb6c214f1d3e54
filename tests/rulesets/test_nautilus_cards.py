"""The Nautilus card game (`rulesets/nautilus-cards.yaml`): conservation and hidden information.

Seeded random games in checking mode (the ruleset's invariants after every
move) are also counted here independently of those invariants: every diver,
domain card and special card is in exactly one place after every move.  The
no-leak tests change only what a player may not see (the opponent's hand,
the order of the diver pile, the opponent's won pile) and require that
player's observation to stay byte-identical, while the change does show to
the player allowed to see it.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from functools import lru_cache

import pytest

from ruleplay import load_game

VARIANTS = [None, "seed-only"]
GAMES_PER_VARIANT = 3


@lru_cache(maxsize=None)
def checked(variant: str | None):
    """The game in checking mode (the ruleset's invariants after every move), loaded once."""
    return load_game("nautilus-cards", variant=variant, checking=True)


@pytest.fixture(params=VARIANTS, ids=["base", "seed-only"])
def game(request):
    return checked(request.param)


def seen_by(state, player: int) -> str:
    return json.dumps(state.observe(player), sort_keys=True)


def arranged(game, seed: int, **changes):
    """A new state with some variables replaced, rebuilt from JSON so its legal moves are recomputed."""
    saved = game.new_state(seed=seed).to_json()
    saved["data"]["vars"].update(changes)
    return game.state_from_json(saved)


def with_vars(state, change):
    """A copy of `state` whose variables `change(vars)` edits in place."""
    saved = state.to_json()
    change(saved["data"]["vars"])
    return state.game.state_from_json(saved)


def places(state) -> dict[str, Counter]:
    """Every card of each kind, counted over every place a card can be."""
    v = state.data["vars"]
    kinds = state.game.model.components_by_kind
    in_slots = Counter(c for c in v["slots"] if c is not None)
    divers = Counter(v["diver_pile"] + sum(v["hand"], []) + sum(v["extra"], []) + sum(v["loot"], []))
    specials = Counter(v["special_pile"] + sum(v["specials"], []) + sum(v["offer"], []) + v["specials_played"]
                       + v["specials_discarded"])
    for card, n in in_slots.items():
        (divers if card in kinds["diver"] else specials)[card] += n
    return {"diver": divers, "domain_card": Counter(v["domain_pile"] + v["board"] + sum(v["won"], [])),
            "special": specials}


def random_game(game, seed: int):
    """The states of one seeded random game."""
    choose = random.Random(seed)
    state = game.new_state(seed=seed)
    yield state
    while not state.is_terminal():
        state = state.apply_chance() if state.is_chance_node() else state.apply(choose.choice(state.legal_moves()))
        yield state


# ------------------------------------------------------------ conservation
def test_every_card_is_in_exactly_one_place_after_every_move(game):
    kinds = game.model.components_by_kind
    expected = {kind: Counter(kinds.get(kind, [])) for kind in ("diver", "domain_card", "special")}
    assert sum(expected["diver"].values()) == 14 and sum(expected["domain_card"].values()) == 30
    assert sum(expected["special"].values()) == (6 if game.model.variant is None else 0)
    for seed in range(GAMES_PER_VARIANT):
        last = None
        for last in random_game(game, seed):
            assert places(last) == expected, f"seed {seed}, round {last.round}, after {last.history[-1:]}"
        assert last is not None and last.is_terminal() and last.round == 6
        assert sum(len(w) for w in last.data["vars"]["won"]) == 30


# --------------------------------------------------------- hidden information
def test_the_opponents_hand_and_the_diver_pile_order_do_not_show(game):
    state = game.new_state(seed=5)
    v = state.data["vars"]
    hand1, pile = v["hand"][1], v["diver_pile"]

    def swap_hand_and_pile(vars_):
        vars_["hand"][1] = [pile[0]] + hand1[1:]
        vars_["diver_pile"] = list(reversed([hand1[0]] + pile[1:]))

    other = with_vars(state, swap_hand_and_pile)
    assert other.data["vars"]["hand"][1] != hand1
    assert seen_by(other, 0) == seen_by(state, 0)
    assert seen_by(other, 1) != seen_by(state, 1), "the change must show to the hand's owner"


def test_won_piles_are_known_card_by_card_to_both_players(game):
    """NC-A8: every won card lay face up on the board when it was awarded; a player remembers it."""
    state = None
    for state in random_game(game, seed=2):
        if state.round == 3:
            break
    assert state is not None and state.round == 3
    won = state.data["vars"]["won"]
    assert len(won[1]) >= 2 and len(set(won[1])) > 1
    assert state.observe(0)["state"]["won"] == won == state.observe(1)["state"]["won"]


# ------------------------------------------------------------- special cards
@pytest.fixture
def base_game():
    return checked(None)


def eye_position(base_game, hand0: list[str], hand1: list[str], pile: list[str]):
    """Seat 0 is offered the Eye and the Anchor, with the given hands."""
    return arranged(base_game, 3, hand=[hand0, hand1], diver_pile=pile, offer=[["eye", "anchor"], []],
                    special_pile=["kraken", "fishbone", "diving_module", "harpoon"])


def test_the_eye_shows_the_opponents_hand_to_its_player_only(base_game):
    hands = (["d1", "d2", "d3", "d4", "d5"], ["d10", "d11", "d12", "d13", "d14"])
    state = eye_position(base_game, *hands, ["d6", "d7", "d8", "d9"]).apply("keep_special(eye)").apply("use_eye")
    assert state.observe(0)["state"]["seen"][0] == ["anchor", *hands[1]]
    assert state.observe(1)["state"]["seen"][0] == {"hidden": 6}
    assert "d12" not in json.dumps(state.observe(1)["state"]["seen"])

    # Before the Eye, seat 0 cannot tell two hands of seat 1 apart; after it, it can.
    swapped = (hands[0], ["d9", "d11", "d12", "d13", "d14"])
    other = eye_position(base_game, *swapped, ["d6", "d7", "d8", "d10"]).apply("keep_special(eye)")
    before = eye_position(base_game, *hands, ["d6", "d7", "d8", "d9"]).apply("keep_special(eye)")
    assert seen_by(other, 0) == seen_by(before, 0)
    assert seen_by(other.apply("use_eye"), 0) != seen_by(state, 0)
    # Seat 1 learns nothing of seat 0's hand from the Eye being played.
    other0 = eye_position(base_game, ["d6", "d2", "d3", "d4", "d5"], hands[1], ["d1", "d7", "d8", "d9"])
    after0 = other0.apply("keep_special(eye)").apply("use_eye")
    assert seen_by(after0, 1) == seen_by(state, 1)


def test_the_harpooned_diver_shows_to_the_harpoon_player_only(base_game):
    def harpooned(hand0: list[str], pile: list[str]):
        start = arranged(base_game, 4, hand=[hand0, ["d10", "d11", "d12", "d13", "d14"]], diver_pile=pile,
                         offer=[["harpoon", "anchor"], []], special_pile=["kraken", "fishbone", "eye", "diving_module"])
        return start.apply("keep_special(harpoon)").apply("use_harpoon").apply("harpoon_take(2)")  # the d12

    state = harpooned(["d1", "d2", "d3", "d4", "d5"], ["d6", "d7", "d8", "d9"])
    assert state.observe(0)["state"]["loot"][0] == ["d12"]
    assert state.observe(1)["state"]["loot"][0] == {"hidden": 1}
    other = harpooned(["d9", "d2", "d3", "d4", "d5"], ["d6", "d7", "d8", "d1"])
    assert seen_by(other, 1) == seen_by(state, 1)
    assert seen_by(other, 0) != seen_by(state, 0)


# ------------------------------------------------------- moves through each player's eyes (NC-A15, NC-A10)
def _offered(base_game):
    return arranged(base_game, 4, offer=[["harpoon", "diving_module"], []],
                    special_pile=["kraken", "fishbone", "eye", "anchor"])


def test_the_special_card_kept_is_shown_to_its_keeper_only(base_game):
    start = _offered(base_game)
    assert start.move_view("keep_special(harpoon)", 0) == "keep_special(harpoon)"
    assert start.move_view("keep_special(harpoon)", 1) == "keep_special(?)"
    kept = start.apply("keep_special(harpoon)")
    assert kept.observe(1)["history"][-1] == "keep_special(?)"
    assert kept.observe(0)["history"][-1] == "keep_special(harpoon)"
    assert "harpoon" not in json.dumps(kept.observe(1))
    other = _offered(base_game).apply("keep_special(diving_module)")
    assert other.observe(1)["history"] == kept.observe(1)["history"]


def test_the_diver_kept_from_the_diving_module_is_shown_to_its_holder_only(base_game):
    state = _offered(base_game).apply("keep_special(diving_module)").apply("use_diving_module")
    extra = state.data["vars"]["extra"][0]
    kept = state.apply(f"dive_keep({extra[0]})")
    assert kept.observe(1)["history"][-1] == "dive_keep(?)" and kept.observe(0)["history"][-1] == f"dive_keep({extra[0]})"
    assert extra[0] not in json.dumps(kept.observe(1))


def test_the_harpoon_draws_a_place_in_the_hand_so_its_outcomes_show_no_card(base_game):
    state = _offered(base_game).apply("keep_special(harpoon)").apply("use_harpoon")
    hand = state.data["vars"]["hand"][1]
    outcomes = state.chance_outcomes()
    assert [str(m) for m, _ in outcomes] == [f"harpoon_take({i})" for i in range(len(hand))]
    assert all(abs(p - 1 / len(hand)) < 1e-12 for _, p in outcomes)
    taken = state.apply("harpoon_take(1)")
    assert taken.data["vars"]["loot"][0] == [hand[1]]
    for seat in (0, 1):
        assert taken.observe(seat)["history"][-1] == "harpoon_take(1)"


def test_a_saved_state_keeps_who_saw_each_move(base_game):
    kept = _offered(base_game).apply("keep_special(harpoon)")
    saved = kept.to_json()
    assert saved["history"][-1] == {"move": "keep_special(harpoon)", "seen_by": [[0]]}
    again = base_game.state_from_json(json.dumps(saved))
    assert again.observe(1)["history"] == kept.observe(1)["history"]
    assert again.observe(1)["history"][-1] == "keep_special(?)"
