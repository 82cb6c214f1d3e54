"""Texts for people: alike copies without their numbers, values in words, moves offered once."""

from __future__ import annotations

from ruleplay import load_game
from ruleplay.engine.people import distinct_moves, for_people, plain_text

CARDS = """
ruleplay: 1
game: alike
players: 2
components:
  card:
    alike: true
    items:
      - {id: red-1, copies: 2}
      - {id: red-10, copies: 2}
  token:
    items:
      - {id: t, copies: 2}
state:
  hand: {per_player: true, init: '["red-1#1", "red-1#2", "red-10#2"]'}
flow:
  phases:
    - name: main
      actions: [play]
actions:
  play:
    params:
      card: {of: 'components("card")', from: "hand[current]"}
    effects: remove card from hand[current]
end:
  - when: len(hand[0]) == 0
scoring:
  score: "0"
"""


def test_alike_copies_lose_their_numbers_and_others_keep_them(make_game):
    model = make_game(CARDS).model
    assert for_people(model, "play(red-1#2) then red-10#1, t#2 and red-1#22x") == "play(red-1) then red-10, t#2 and red-1#22x"


def test_moves_a_person_reads_alike_are_offered_once(make_game):
    state = make_game(CARDS).new_state(0)
    offered = distinct_moves(state.game.model, state.legal_moves())
    assert [(text, str(move)) for text, move in offered] == [('play("red-1")', 'play("red-1#1")'),
                                                             ('play("red-10")', 'play("red-10#2")')]


def test_values_are_written_in_words_not_json():
    model = load_game("nautilus-cards").model
    assert plain_text(model, [["science-1#2", "d4"], {"hidden": 3}]) == "[science-1 d4] 3 hidden"
    assert plain_text(model, {"hidden": True}) == "hidden"
    assert plain_text(model, [None, True, 2.5, {"a": []}]) == ". yes 2.5 a: none"
    assert plain_text(model, []) == "none"
