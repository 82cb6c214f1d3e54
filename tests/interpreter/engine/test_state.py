"""States as values: JSON round trips, copies, hashing, errors on bad moves and bad saves."""

from __future__ import annotations

import copy
import functools
import json
import re

import pytest

from ruleplay import (GameOverError, IllegalMoveError, Move, MoveParseError, SeatError, StateFormatError, load_game,
                      parse_move)
from ruleplay.engine.errors import RuleplayError

HIDDEN = """
ruleplay: 1
game: hidden
players: 2
components:
  card:
    properties: {rank: int}
    items:
      - {id: a, rank: 1}
      - {id: b, rank: 2}
      - {id: c, rank: 3}
      - {id: d, rank: 4}
state:
  deck: {init: components("card"), visibility: hidden}
  hand: {per_player: true, init: "[]", visibility: owner}
  table:
    init: "[]"
    visible_if: "true"
    back: "null"
  shown: {per_player: true, init: "[]", visibility: owner}
setup: |
  shuffle deck
  draw 1 from deck to hand[0]
  draw 1 from deck to hand[1]
flow:
  phases:
    - name: main
      actions: [play, peek]
actions:
  play:
    params:
      card: {of: 'components("card")', from: "hand[current]"}
    effects: |
      move card from hand[current] to table
  peek:
    require: [len(deck) > 0]
    effects: |
      append deck[0] to shown[current]
end:
  - when: len(table) == 2
scoring:
  score: sum([c.rank for c in table if c in table])
"""


def test_round_trip_copy_and_hash():
    game = load_game("tic-tac-toe")
    s = game.new_state(seed=3).apply("place(4)").apply("place(0)")
    data = json.loads(json.dumps(s.to_json()))
    back = game.state_from_json(data)
    assert back == s and hash(back) == hash(s)
    assert back.legal_moves() == s.legal_moves()
    assert [str(m) for m in back.history] == ["place(4)", "place(0)"]
    twin = s.copy()
    twin.data["vars"]["board"][8] = 1
    assert s.data["vars"]["board"][8] is None and twin != s


@pytest.mark.parametrize("copied", [copy.copy, copy.deepcopy])
def test_the_copy_module_copies_a_state_as_copy_does(copied):
    game = load_game("tic-tac-toe")
    s = game.new_state(seed=3).apply("place(4)")
    saved = s.dumps()
    twin = copied(s)
    assert twin == s and twin.game is s.game
    twin.apply_in_place("place(0)", undo=False)  # changes the copy's own data
    assert s.dumps() == saved
    other = copied(s)
    other.apply_in_place("place(1)")  # kept for undo() on that copy alone
    with pytest.raises(RuleplayError, match="no move made in place"):
        s.undo()
    assert s.dumps() == saved and str(other.undo()) == "place(1)"


def test_apply_leaves_the_old_state_alone():
    game = load_game("tic-tac-toe")
    s = game.new_state()
    s.apply("place(0)")
    assert s.data["vars"]["board"] == [None] * 9 and s.current_player == 0


def test_illegal_moves_are_typed_and_explained():
    game = load_game("tic-tac-toe")
    s = game.new_state().apply("place(0)")
    with pytest.raises(IllegalMoveError) as err:
        s.apply("place(0)")
    assert err.value.rule == "TT-2.2" and err.value.code == "RP605"
    assert "place(0)" in str(err.value) and "already marked" in str(err.value)
    with pytest.raises(IllegalMoveError, match="not a possible value"):
        s.apply("place(9)")
    with pytest.raises(IllegalMoveError, match="no action 'jump'"):
        s.apply("jump(1)")
    with pytest.raises(IllegalMoveError, match="takes 1 argument"):
        s.apply("place(1, 2)")
    with pytest.raises(IllegalMoveError, match="not player 0's turn"):
        s.apply("place(1)", player=0)
    for seat in (False, "1", 1.0):  # `"1"` was told 'not player 1's turn (player 1 is to move)'; False was 0
        with pytest.raises(SeatError, match="the player who moves is a seat number"):
            s.apply("place(1)", player=seat)
        with pytest.raises(SeatError):
            s.copy().apply_in_place("place(1)", player=seat)
    with pytest.raises(TypeError, match="budget must be a Budget"):  # it was an AttributeError in the move
        s.apply("place(1)", budget=5)
    with pytest.raises(MoveParseError):
        s.apply("place(")
    with pytest.raises(MoveParseError):
        game.parse_move("jump(3)")


def test_move_after_the_end():
    game = load_game("tic-tac-toe")
    s = game.new_state()
    for m in ["place(0)", "place(3)", "place(1)", "place(4)", "place(2)"]:
        s = s.apply(m)
    assert s.is_terminal() and s.returns() == [1.0, -1.0] and s.scores() == [1, 0]
    with pytest.raises(GameOverError):
        s.apply("place(8)")


def test_move_text_and_json_forms_parse_back():
    for text in ["pass", "place(4)", 'say("two words", -3, true, null)', "go([1, 2], x)"]:
        move = parse_move(text)
        assert parse_move(str(move)) == move
        assert Move.from_json(json.loads(json.dumps(move.to_json()))) == move


def test_action_numbering_is_a_bijection():
    game = load_game("tic-tac-toe")
    assert game.num_distinct_actions == 9
    for i in range(9):
        assert game.move_to_index(game.index_to_move(i)) == i
    s = game.new_state().apply("place(4)")
    assert s.legal_actions() == [0, 1, 2, 3, 5, 6, 7, 8]


@pytest.mark.parametrize("mangle, message", [
    (lambda d: d.pop("data"), "exactly the keys"),
    (lambda d: d.update(ruleset_hash="0" * 16), "ruleset changed"),
    (lambda d: d["data"]["flow"].update(phase="nowhere"), "unknown phase"),
    (lambda d: d["data"]["flow"].update(player=7), "not a seat"),
    (lambda d: d["data"]["vars"].pop("board"), "do not match"),
    (lambda d: d["data"].update(rng=-1), "64-bit"),
    (lambda d: d.update(history=["place("]), "bad move"),
    (lambda d: d["data"]["flow"].update(phase=["play"]), "unknown phase"),
    (lambda d: d["data"]["flow"].update(stage=["x"]), "unknown stage"),
    (lambda d: d["data"]["flow"].update(done="yes"), "flow.done must be true or false"),
    (lambda d: d["data"]["flow"].update(player=True), "not a seat"),
    (lambda d: d["data"]["flow"].update(player=-3), "not a seat, chance"),
    (lambda d: d["data"]["flow"].update(player=-4), "exactly when the game is over"),
    (lambda d: d["data"]["flow"].update(round=10 ** 30), "flow.round must be a non-negative int"),
    (lambda d: d["data"]["flow"].update(ended_by=[1]), "ended_by must be null or a rule id"),
    (lambda d: d["data"]["flow"].update(queue=[0, 9]), "queue must be a list of seats"),
    (lambda d: d["data"]["vars"].update(winner=float("nan")), "holds nan, not a finite number"),
    (lambda d: d["data"]["vars"].update(winner=10 ** 400), "integer over 1024 bits"),
    (lambda d: d["data"]["vars"].update(winner={1: 2}), "keys that are not text"),
    (lambda d: d["data"]["vars"].update(winner=functools.reduce(lambda x, _: [x], range(10_000), None)),
     "nested more than 200 levels deep"),
])
def test_tampered_states_are_refused(mangle, message):
    game = load_game("tic-tac-toe")
    data = game.new_state().apply("place(1)").to_json()
    mangle(data)
    with pytest.raises(StateFormatError, match=message):
        game.state_from_json(data)
    with pytest.raises(StateFormatError, match="not valid JSON"):
        game.state_from_json('{"format": 1,')


def test_state_text_must_be_strict_json():
    game = load_game("tic-tac-toe")
    text = json.dumps(game.new_state().to_json())
    with pytest.raises(StateFormatError, match="NaN is not a JSON number"):
        game.state_from_json(text.replace('"winner": null', '"winner": NaN'))
    with pytest.raises(StateFormatError, match="nested too deeply"):
        game.state_from_json("[" * 100_000 + "]" * 100_000)
    with pytest.raises(StateFormatError, match='the key "winner" is given twice'):  # first or last? neither
        game.state_from_json(text.replace('"winner": null', '"winner": 0, "winner": null'))


def test_observation_hides_what_a_player_cannot_see(make_game):
    game = make_game(HIDDEN)
    s = game.new_state(seed=1)
    mine, theirs = s.data["vars"]["hand"]
    obs = s.observe(0)
    assert obs["state"]["hand"] == [mine, {"hidden": 1}]
    assert obs["state"]["deck"] == {"hidden": 2}
    assert "rng" not in json.dumps(obs)
    # Two states that differ only in what player 0 cannot see look identical to player 0.
    other = s.copy()
    other.data["vars"]["hand"][1], other.data["vars"]["deck"][0] = (
        [other.data["vars"]["deck"][0]], other.data["vars"]["hand"][1][0])
    assert json.dumps(other.observe(0), sort_keys=True) == json.dumps(obs, sort_keys=True)
    assert json.dumps(other.observe(1), sort_keys=True) != json.dumps(s.observe(1), sort_keys=True)


def test_private_knowledge_stays_with_its_owner(make_game):
    game = make_game(HIDDEN)
    s = game.new_state(seed=2).apply("peek")
    seen = s.data["vars"]["shown"][0]
    assert s.observe(0)["state"]["shown"][0] == seen
    assert s.observe(1)["state"]["shown"][0] == {"hidden": 1}


def test_face_down_items_show_their_back(make_game):
    game = make_game(HIDDEN.replace('visible_if: "true"', "visible_if: viewer == 0"))
    s = game.new_state(seed=1)
    card = s.data["vars"]["hand"][0][0]
    s = s.apply(f"play({card})")
    assert s.observe(0)["state"]["table"] == [card]
    assert s.observe(1)["state"]["table"] == [None]


def test_chance_and_a_seat_cannot_trade_places_in_a_saved_state():
    """A seat put where chance deals would choose the deal; chance put where a seat decides would play for it."""
    game = load_game("kuhn-poker")
    dealing = game.new_state(1).to_json()
    dealing["data"]["flow"].update(player=0, seat=0)
    with pytest.raises(StateFormatError, match="flow.player is 0, but in phase 'deal' chance moves"):
        game.state_from_json(dealing)
    state = game.new_state(1)
    betting = state.apply_chance().to_json()
    betting["data"]["flow"].update(player=-1)
    with pytest.raises(StateFormatError, match="flow.player is -1, but in phase 'betting' a seat moves"):
        game.state_from_json(betting)


def test_equal_states_hash_and_save_alike(make_game):
    """1 == 1.0 == true in Python; a state holding one must not equal a state holding another."""
    game = make_game("""
ruleplay: 1
game: halves
players: 2
state:
  v: {init: "0"}
flow:
  phases: [{name: play, order: alternate, actions: [one, halves]}]
actions:
  one: {effects: v = 1}
  halves: {effects: v = 0.5 + 0.5}
end:
  - when: v != 0
""")
    start = game.new_state()
    one, halves = start.apply("one"), start.apply("halves")
    assert one.data == halves.data and one.dumps() != halves.dumps()
    assert one != halves and len({one, halves}) == 2
    assert one == one.copy() and hash(one) == hash(game.state_from_json(one.dumps()))


def test_a_map_is_walked_alike_from_a_state_and_from_its_save(make_game):
    """A map was walked in the order its keys were added, which a saved state (its keys sorted) does not
    keep: equal states, of one hash, then played on differently."""
    game = make_game("""
ruleplay: 1
game: keyed
players: 2
constants:
  start: {z: 0}
state:
  seen: {init: start}
  order: {init: "[]"}
flow:
  phases: [{name: play, actions: [mark]}]
actions:
  mark:
    effects: |
      seen.b = 1
      seen.a = 2
      order = [k for k in seen]
      for k in seen { append k to order }
      append any(k == "a" for k in seen) to order
end:
  - when: len(order) > 10
""")
    played = game.new_state().apply("mark")
    loaded = game.state_from_json(json.loads(played.dumps()))
    assert list(played.data["vars"]["seen"]) != list(loaded.data["vars"]["seen"])  # the save sorts the keys
    assert played == loaded and hash(played) == hash(loaded)
    assert played.data["vars"]["order"] == ["a", "b", "z"] * 2 + [True]
    assert played.apply("mark").dumps() == loaded.apply("mark").dumps()


@pytest.mark.parametrize("text", ["place( 1 )", "place(1.0)", " place(1)", "place(1) "])
def test_a_history_move_written_otherwise_than_ruleplay_writes_it_is_refused(text):
    """`place(1.0)` is read as `place(1)`: kept, the state would equal the original but save differently."""
    game = load_game("tic-tac-toe")
    data = game.new_state().apply("place(1)").to_json()
    data["history"] = [text]
    with pytest.raises(StateFormatError, match=re.escape(f"`history` writes the move {text!r}, which ruleplay "
                                                         f"writes 'place(1)'")):
        game.state_from_json(data)


@pytest.mark.parametrize("seed", [-1, 2 ** 64, 2 ** 64 + 5])
def test_a_seed_outside_64_bits_is_refused_not_wrapped(seed):
    """Seeds are reduced modulo 2^64: -1 would silently be the game of 2^64-1, 2^64 + 5 that of 5."""
    game = load_game("kuhn-poker")
    with pytest.raises(ValueError, match=f"seed {seed} is outside 0..{2 ** 64 - 1}"):
        game.new_state(seed)
    assert game.new_state(2 ** 64 - 1).dumps() != game.new_state(0).dumps()


def test_same_seed_same_game_in_any_order():
    game = load_game("tic-tac-toe")
    a = game.new_state(seed=11)
    b = game.new_state(seed=11)
    assert a.dumps() == b.dumps()


def test_a_saved_position_where_the_seat_to_move_cannot_move_is_refused_not_listed_empty():
    from ruleplay.engine.errors import DeadlockError

    game = load_game("tic-tac-toe")
    saved = game.new_state(seed=1).to_json()
    saved["data"]["vars"]["board"] = [0, 1, 0, 0, 1, 1, 1, 0, 0]  # full, no line: the rules would have ended it
    state = game.state_from_json(saved)
    assert not state.is_terminal()
    with pytest.raises(DeadlockError, match="player 0 has no legal move in phase 'play' and the game is not over"):
        state.legal_moves()
    saved["data"]["flow"].update(done=True, player=-4)  # the same position, over: no moves, and no error
    assert game.state_from_json(saved).legal_moves() == []


SEALED_CALL = """\
ruleplay: 1
game: sealed-call
players: 2
state:
  hand: {per_player: true, init: '[["jack"], [HELD]][p]', visibility: owner}
  n: {init: "0"}
flow:
  phases:
    - {name: play, actions: [tick, call]}
actions:
  tick: {effects: n += 1}
  call:
    params: {card: {of: '["jack", "queen", "king"]', where: 'card in hand[current]'}}
    require:
      - {check: '"queen" not in hand[1 - current]', message: "the other seat holds the queen"}
      - {check: n >= 10, message: "too early to call"}
    effects: n += 1
end:
  - when: n >= 2
"""


def test_a_seat_is_told_why_a_move_is_refused_only_from_what_it_sees(make_game):
    """Two states seat 0 cannot tell apart (seat 1 holds the queen or the king) refuse the same moves, and
    must give seat 0 the same reasons; the operator is told the first check that refuses."""
    states = [make_game(SEALED_CALL.replace("HELD", f'"{held}"'), name=f"{held}.yaml").new_state(0)
              for held in ("queen", "king")]
    assert states[0].explain("call(jack)") == "illegal move call(jack): the other seat holds the queen"
    for move in ("call(jack)", "call(king)", "call(queen)", "tick"):
        told = [state.explain(move, 0) for state in states]
        assert told[0] == told[1], move
    assert states[0].explain("call(jack)", 0) == "illegal move call(jack): too early to call"
    assert states[0].explain("tick", 0) is None
