"""Nautilus, the card game, as the seed text alone: the yardstick for `nautilus-cards --variant seed-only`.

The same game as the ruleset's `seed-only` variant (no special cards):
divers 1-14 are dealt five to each player from a shuffled pile; players
alternate, the Nemo holder first, placing a diver from their hand in any
empty slot of the ten (NC-5.2, NC-5.5); a diver with an arrow (6 and 9
vertical, 7 and 8 horizontal) lets its player move another diver on that
side, straight across or along the side into an empty slot (NC-6.1 to NC-6.9),
if any such move exists.  With every slot full, slot i meets slot i + 5 for
domain card i; the higher diver wins it, except that the 1 beats the 14
(NC-7.4 to NC-7.7).  Then the divers are reshuffled, the Nemo token passes
and five new domain cards are laid out (NC-8.1 to NC-8.4), six rounds in all;
a player scores each domain in which their won points beat the other's (NC-9).

Divers are their values; a move is one int, `card << 4 | slot` for a
placement and `source << 4 | dest` for the arrow move, and the hand is kept
sorted, so `legal_moves()` lists the moves in the engine's order.  The
random number generator's state is part of the position (as in the engine),
so `apply` has value semantics: the same move on the same state gives the
same next state.
"""

from __future__ import annotations

import random

SIDE = 5
DOMAINS = 5
VERTICAL, HORIZONTAL = frozenset({6, 9}), frozenset({7, 8})
DOMAIN_CARDS = tuple((d, points) for d in range(DOMAINS) for points in (2, 2, 1, 1, 1, -1))
ALL_FILLED = (1 << 2 * SIDE) - 1
EMPTY_SLOTS = tuple(tuple(s for s in range(2 * SIDE) if not filled >> s & 1) for filled in range(ALL_FILLED + 1))
SIDE_SLOTS = (tuple(range(SIDE)), tuple(range(SIDE, 2 * SIDE)))


def facing(slot: int) -> int:
    return (slot + SIDE) % (2 * SIDE)


def award_winner(a: int, b: int) -> int:
    """The seat whose diver wins a domain space: seat 0's slot holds `a`, seat 1's `b` (NC-7.4 to NC-7.6)."""
    if a == 1 and b == 14:
        return 0
    if b == 1 and a == 14:
        return 1
    return 0 if a > b else 1


class NautilusCards:
    """A position; `apply` returns a new one, like the engine's `State.apply`."""

    __slots__ = ("slots", "filled", "hands", "player", "pending", "board", "domain_pile", "diver_pile",
                 "points", "nemo", "round", "seed", "over")

    def __init__(self, slots: tuple[int, ...], filled: int, hands: tuple[tuple[int, ...], tuple[int, ...]],
                 player: int, pending: tuple[int, ...], board: tuple[tuple[int, int], ...],
                 domain_pile: tuple[tuple[int, int], ...], diver_pile: tuple[int, ...], points: tuple[int, ...],
                 nemo: int, round: int, seed: int, over: bool = False):
        self.slots = slots  # the diver in each slot, 0 for none
        self.filled = filled  # bit s: slot s holds a diver
        self.hands = hands  # sorted
        self.player = player
        self.pending = pending  # the arrow moves on offer, () when no arrow is being played
        self.board = board  # the five (domain, points) cards, space i faces slots i and i + 5
        self.domain_pile = domain_pile
        self.diver_pile = diver_pile
        self.points = points  # points won, seat p's domain d at p * DOMAINS + d
        self.nemo = nemo
        self.round = round
        self.seed = seed  # the shuffles' generator state, carried like the engine's
        self.over = over

    def legal_moves(self) -> list[int]:
        if self.pending:
            return list(self.pending)
        if self.over:
            return []
        empty = EMPTY_SLOTS[self.filled]
        return [card << 4 | slot for card in self.hands[self.player] for slot in empty]

    def apply(self, move: int) -> NautilusCards:
        player = self.player
        slots = list(self.slots)
        hands = self.hands
        if self.pending:
            source, dest = move >> 4, move & 15
            slots[dest] = slots[source]
            slots[source] = 0
            filled = self.filled ^ (1 << source | 1 << dest)
        else:
            card, slot = move >> 4, move & 15
            slots[slot] = card
            filled = self.filled | 1 << slot
            hand = list(hands[player])
            hand.remove(card)
            hands = (tuple(hand), hands[1]) if player == 0 else (hands[0], tuple(hand))
            if card in VERTICAL or card in HORIZONTAL:
                arrows = _arrow_moves(slots, slot, card in VERTICAL)
                if arrows:
                    return self._next(tuple(slots), filled, hands, player, arrows)
            if filled == ALL_FILLED:
                return self._end_round(slots, hands)
        return self._next(tuple(slots), filled, hands, 1 - player, ())

    def _next(self, slots: tuple[int, ...], filled: int, hands: tuple, player: int,
              pending: tuple[int, ...]) -> NautilusCards:
        return NautilusCards(slots, filled, hands, player, pending, self.board, self.domain_pile, self.diver_pile,
                             self.points, self.nemo, self.round, self.seed)

    def _end_round(self, slots: list[int], hands: tuple) -> NautilusCards:
        """Award the five domain cards; then, while domain cards remain, reshuffle and deal the next round."""
        points = list(self.points)
        for i, (domain, value) in enumerate(self.board):
            points[award_winner(slots[i], slots[i + SIDE]) * DOMAINS + domain] += value
        if not self.domain_pile:
            return NautilusCards(tuple(slots), ALL_FILLED, hands, self.player, (), (), (), self.diver_pile,
                                 tuple(points), self.nemo, self.round, self.seed, over=True)
        pile = list(self.diver_pile) + slots + list(hands[0]) + list(hands[1])
        shuffler = random.Random(self.seed)
        shuffler.shuffle(pile)
        nemo = 1 - self.nemo
        first, second = tuple(sorted(pile[:SIDE])), tuple(sorted(pile[SIDE:2 * SIDE]))
        return NautilusCards((0,) * (2 * SIDE), 0, (first, second) if nemo == 0 else (second, first), nemo, (),
                             self.domain_pile[:SIDE], self.domain_pile[SIDE:], tuple(pile[2 * SIDE:]),
                             tuple(points), nemo, self.round + 1, shuffler.getrandbits(64))

    def is_terminal(self) -> bool:
        return self.over

    def scores(self) -> list[int]:
        """Domains won: those in which a seat's points beat the other's (NC-9.7)."""
        p = self.points
        won = sum(p[d] > p[DOMAINS + d] for d in range(DOMAINS))
        lost = sum(p[DOMAINS + d] > p[d] for d in range(DOMAINS))
        return [won, lost]


def _arrow_moves(slots: list[int], arrow: int, vertical: bool) -> tuple[int, ...]:
    """Every (source, dest) the arrow card in slot `arrow` offers, source first (NC-6.2 to NC-6.7)."""
    moves = []
    side = SIDE_SLOTS[arrow // SIDE]
    for source in side:
        if source != arrow and slots[source]:
            if vertical:
                if not slots[facing(source)]:
                    moves.append(source << 4 | facing(source))
            else:
                moves.extend(source << 4 | dest for dest in side if not slots[dest])
    return tuple(moves)


def new_game(rng: random.Random) -> NautilusCards:
    """Shuffle the divers and the domain cards with a seed drawn from `rng`, lay out five cards, deal round 1."""
    shuffler = random.Random(rng.getrandbits(64))
    divers = list(range(1, 15))
    shuffler.shuffle(divers)
    domains = list(DOMAIN_CARDS)
    shuffler.shuffle(domains)
    hands = (tuple(sorted(divers[:SIDE])), tuple(sorted(divers[SIDE:2 * SIDE])))
    return NautilusCards((0,) * (2 * SIDE), 0, hands, 0, (), tuple(domains[:SIDE]), tuple(domains[SIDE:]),
                         tuple(divers[2 * SIDE:]), (0,) * (2 * DOMAINS), 0, 1, shuffler.getrandbits(64))
