"""The hand-written baselines play the built-in games exactly: same legal moves in the same order, same results.

Each test walks random engine games and drives the baseline in lockstep
with the same moves, so a rule the baseline gets wrong (a missed line, an
arrow move too many, a crab exception the wrong way round) shows up as the
first position where the two disagree.  The card game's shuffles cannot be
shared move for move, so there the baseline position is rebuilt from the
engine's state data and compared after every move; at a round's end, where
the two shuffle differently, only what follows from the rules is compared.
"""

from __future__ import annotations

import random
import statistics

import pytest

from benchmarks import connect_four, nautilus_cards, tictactoe
from benchmarks.measure import perft
from benchmarks.nautilus_cards import DOMAINS, VERTICAL, NautilusCards, _arrow_moves
from ruleplay import load_game


def _lockstep(game_name: str, new_game, games: int) -> None:
    game = load_game(game_name)
    for seed in range(games):
        rng = random.Random(seed)
        state, hand = game.new_state(seed), new_game(rng)
        while not state.is_terminal():
            legal = state.legal_moves()
            assert [m.args[0] for m in legal] == list(hand.legal_moves()), (seed, state.history)
            move = rng.choice(legal)
            state, hand = state.apply(move), hand.apply(move.args[0])
            assert hand.is_terminal() == state.is_terminal(), (seed, state.history)
        assert hand.returns() == state.scores(), (seed, state.history)


def test_tic_tac_toe_plays_the_ruleset():
    _lockstep("tic-tac-toe", tictactoe.new_game, 300)


def test_connect_four_plays_the_ruleset():
    _lockstep("connect-four", connect_four.new_game, 60)


def test_tic_tac_toe_perft_is_the_known_count():
    """Move sequences by depth, the published figures (the first wins come at depth 5)."""
    start = tictactoe.new_game()
    assert [perft(start, d) for d in range(1, 8)] == [9, 72, 504, 3024, 15120, 54720, 148176]


def test_connect_four_perft_is_the_known_count():
    start = connect_four.new_game()
    assert [perft(start, d) for d in range(1, 7)] == [7, 49, 343, 2401, 16807, 117649]


@pytest.mark.parametrize(("moves", "winner"), [
    ([3, 3, 4, 4, 5, 5, 6], 0),  # along the bottom row
    ([0, 1, 0, 1, 0, 1, 0], 0),  # up a column
    ([0, 1, 1, 2, 2, 3, 2, 3, 3, 6, 3], 0),  # up to the right
    ([6, 5, 5, 4, 4, 3, 4, 3, 3, 0, 3], 0),  # up to the left
    ([6, 0, 6, 1, 6, 2, 5, 3], 1),
])
def test_connect_four_finds_every_direction_of_four(moves, winner):
    state = connect_four.new_game()
    for col in moves:
        assert not state.is_terminal()
        state = state.apply(col)
    assert state.is_terminal() and state.winner == winner


# ---------------------------------------------------------------- the card game

DOMAIN_NAMES = ["science", "exploration", "navigation", "engineering", "war"]
POINTS = {"2": 2, "1": 1, "ink": -1}


def _diver(card: str | None) -> int:
    return 0 if card is None else int(card[1:])


def _domain_card(card: str) -> tuple[int, int]:
    """`war-2#1` -> (4, 2): the domain's index and the card's points."""
    domain, _, points = card.partition("#")[0].rpartition("-")
    return DOMAIN_NAMES.index(domain), POINTS[points]


def _from_engine(state) -> NautilusCards:
    """The baseline position of an engine state of `nautilus-cards --variant seed-only`."""
    v, flow = state.data["vars"], state.data["flow"]
    slots = tuple(_diver(c) for c in v["slots"])
    points = [0] * (2 * DOMAINS)
    for seat, pile in enumerate(v["won"]):
        for domain, value in map(_domain_card, pile):
            points[seat * DOMAINS + domain] += value
    arrow = v["arrow_slot"]
    pending = _arrow_moves(list(slots), arrow, slots[arrow] in VERTICAL) if flow["stage"] == "arrow" else ()
    player = flow["player"] if not flow["done"] else state.data["flow"]["seat"]
    return NautilusCards(slots, sum(1 << s for s, c in enumerate(slots) if c),
                         tuple(tuple(sorted(map(_diver, h))) for h in v["hand"]), player, pending,
                         tuple(map(_domain_card, v["board"])), tuple(map(_domain_card, v["domain_pile"])),
                         tuple(map(_diver, v["diver_pile"])), tuple(points), v["nemo"], flow["round"], 0,
                         flow["done"])


def _encode(move) -> int:
    """place(d7, 3) -> 7 << 4 | 3; arrow_move(2, 4) -> 2 << 4 | 4."""
    first, second = move.args
    return (_diver(first) if move.action == "place" else first) << 4 | second


RULED = ("slots", "filled", "hands", "player", "pending", "board", "domain_pile", "diver_pile", "points", "nemo",
         "round", "over")
AFTER_SHUFFLE = ("filled", "player", "pending", "board", "domain_pile", "points", "nemo", "round", "over")


def _fields(position: NautilusCards, names: tuple[str, ...]) -> dict:
    return {name: getattr(position, name) for name in names}


def test_the_card_game_plays_the_seed_only_variant():
    game = load_game("nautilus-cards", variant="seed-only")
    arrows = 0
    for seed in range(25):
        rng = random.Random(seed)
        state = game.new_state(seed)
        while not state.is_terminal():
            legal = state.legal_moves()
            hand = _from_engine(state)
            assert hand.legal_moves() == [_encode(m) for m in legal], (seed, state.history)
            move = rng.choice(legal)
            arrows += move.action == "arrow_move"
            state, expected = state.apply(move), hand.apply(_encode(move))
            actual = _from_engine(state)
            if state.round == hand.round and not state.is_terminal():
                assert _fields(expected, RULED) == _fields(actual, RULED), (seed, state.history)
            else:  # the round ended: the divers were shuffled and dealt, each side its own way
                assert _fields(expected, AFTER_SHUFFLE) == _fields(actual, AFTER_SHUFFLE), (seed, state.history)
                divers = lambda p: sorted(p.diver_pile + p.hands[0] + p.hands[1] + tuple(c for c in p.slots if c))
                assert divers(expected) == divers(actual) == list(range(1, 15))
        assert hand.apply(_encode(move)).scores() == state.scores(), (seed, state.history)
    assert arrows > 25, "the games played too few arrow moves to test them"


def test_the_crab_beats_only_the_fourteen():
    assert nautilus_cards.award_winner(1, 14) == 0 and nautilus_cards.award_winner(14, 1) == 1
    assert nautilus_cards.award_winner(1, 13) == 1 and nautilus_cards.award_winner(13, 14) == 1


def _results(new_state, games: int) -> list[tuple[int, tuple[int, ...]]]:
    """(length, scores) of random games `k` = 0..games-1, each seeded with `random.Random(k)`."""
    out = []
    for k in range(games):
        rng = random.Random(k)
        state, length = new_state(rng), 0
        while not state.is_terminal():
            state = state.apply(rng.choice(state.legal_moves()))
            length += 1
        out.append((length, tuple(state.scores())))
    return out


@pytest.mark.slow
def test_the_card_games_agree_on_length_and_winners_over_many_games():
    """Each side with its own shuffles: mean length and each result's share within 4 standard errors."""
    game = load_game("nautilus-cards", variant="seed-only")
    games = 300
    engine = _results(lambda rng: game.new_state(rng.getrandbits(32)), games)
    hand = _results(nautilus_cards.new_game, games)
    a, b = [n for n, _ in engine], [n for n, _ in hand]
    error = (statistics.variance(a) / games + statistics.variance(b) / games) ** 0.5
    assert abs(statistics.mean(a) - statistics.mean(b)) < 4 * error
    assert min(a) >= 10 * 6 and min(b) >= 10 * 6  # six rounds of ten placements, and any arrow moves
    for outcome in (lambda s: s[0] > s[1], lambda s: s[0] == s[1]):
        p = statistics.mean(outcome(s) for _, s in engine)
        q = statistics.mean(outcome(s) for _, s in hand)
        error = ((p * (1 - p) + q * (1 - q)) / games) ** 0.5
        assert abs(p - q) < 4 * max(error, 0.01)
