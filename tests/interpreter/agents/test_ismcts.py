"""ISMCTS: decides from what its seat observes only, reasons over the hidden cards, and stays reproducible."""

from __future__ import annotations

import statistics

import pytest

from ruleplay import load_game
from ruleplay.agents import make_agent
from ruleplay.runs.play import play_game


@pytest.fixture(scope="module")
def kuhn():
    return load_game("kuhn-poker")


def _after(game, *moves):
    state = game.new_state(0)
    for move in moves:
        state = state.apply(move)
    return state


@pytest.mark.parametrize("seed", range(3))
def test_states_its_seat_cannot_tell_apart_get_the_same_move(kuhn, seed):
    """Only the opponent's card differs: a search that peeked at it would come out differently."""
    for one, other, moves in ((("deal(Q, J)"), ("deal(Q, K)"), ()), (("deal(J, Q)"), ("deal(K, Q)"), ("bet",))):
        a, b = _after(kuhn, one, *moves), _after(kuhn, other, *moves)
        seat = a.current_player
        assert a.observe(seat) == b.observe(seat)
        spec = "ismcts:iterations=300"
        assert make_agent(spec, seed).choose(a) == make_agent(spec, seed).choose(b)


def test_it_reasons_over_the_cards_it_cannot_see(kuhn):
    # Facing a bet, the jack loses to either hidden card and the king beats either.
    assert str(make_agent("ismcts:iterations=200", 1).choose(_after(kuhn, "deal(J, Q)", "check", "bet"))) == "fold"
    assert str(make_agent("ismcts:iterations=200", 1).choose(_after(kuhn, "deal(K, Q)", "check", "bet"))) == "call"


def test_reproducible_and_legal_in_a_hidden_card_game():
    cards = load_game("nautilus-cards", players=2)
    state = cards.new_state(3)
    moves = []
    for _ in range(6):
        if state.is_chance_node():
            state = state.apply_chance()
            continue
        move = make_agent("ismcts:iterations=6:depth=2", 9).choose(state)
        assert move == make_agent("ismcts:iterations=6:depth=2", 9).choose(state)
        moves.append(move)
        state = state.apply(move)
    assert make_agent("ismcts:seconds=0.05:depth=2", 1).choose(state) in state.legal_moves()


@pytest.mark.slow
def test_positive_expected_chips_against_random_at_kuhn_poker(kuhn):
    chips = [play_game(kuhn, ["ismcts:iterations=300", "random"] if s % 2 == 0 else
                       ["random", "ismcts:iterations=300"], seed=s).returns[s % 2] for s in range(600)]
    mean, half = statistics.mean(chips), 1.96 * statistics.stdev(chips) / len(chips) ** 0.5
    assert mean - half > 0, f"mean {mean:.3f} +- {half:.3f} chips a game"
