"""The fast paths of a move against their simple reference: `apply_in_place`/`undo` against `apply`,
interned moves against moves built per listing, write-set copies against whole copies, the kept
initial state against a setup run anew.

Every built-in ruleset, player count and variant is played at random both
ways, state by state: the same data, legal moves, action numbers and fired
rules, and after every move taken back the same JSON as before it.  The
default run plays the first 100 moves of one game of the base game at every
player count and of each variant at its default count; the slow run plays
five whole games of every configuration.
"""

from __future__ import annotations

import json
import math
import random

import loaded
import pytest

from ruleplay import load_game
from ruleplay.engine.errors import RuleplayError
from ruleplay.engine.loader import builtin_games
from ruleplay.engine.moves import Move
from ruleplay.dsl import runtime as R
from ruleplay.runs.play import play_game

SPLIT = {name: loaded.configurations(name) for name in sorted(builtin_games())}
CORE = [(name, players, variant) for name, (core, _) in SPLIT.items() for players, variant in core]
FIRST_MOVES = 100  # moves of the default run's game: a seed game is longer, and the slow run plays them whole
CONFIGS = CORE + [(name, players, variant) for name, (_, rest) in SPLIT.items() for players, variant in rest]


def _step(state, rng):
    """The next move at random (None at a chance node: the state's own draw)."""
    return None if state.is_chance_node() else rng.choice(state.legal_moves())


def _play_both_ways(name: str, players: int, variant: str | None, seeds: range, moves: float = math.inf) -> None:
    """Random games of the configuration (up to `moves` moves each) made both ways, then taken back."""
    game = loaded.game(name, players, variant)
    rng = random.Random(f"{name}{players}{variant}")
    for seed in seeds:
        state = game.new_state(seed)
        walked = game.new_state(seed)
        saved = []
        while not state.is_terminal() and len(saved) < moves:
            before = state.dumps()
            move = _step(state, rng)
            nxt = state.apply_chance() if move is None else state.apply(move)
            assert state.dumps() == before, "apply() changed the state it was made from"
            saved.append(walked.dumps())
            if move is None:
                walked.apply_chance_in_place()
            else:
                walked.apply_in_place(move)
            assert walked.dumps() == nxt.dumps() and walked.data == nxt.data
            assert walked.legal_moves() == nxt.legal_moves()
            assert walked.legal_actions() == nxt.legal_actions() == \
                [game.move_to_index(str(m)) for m in nxt.legal_moves()]
            assert walked.last_fired == nxt.last_fired and walked.last_move == nxt.last_move
            state = nxt
        while saved:
            walked.undo()
            assert walked.dumps() == saved.pop()
        assert walked.dumps() == game.new_state(seed).dumps()


@pytest.mark.parametrize("name,players,variant", CORE)
def test_in_place_and_undo_play_as_apply_does(name, players, variant):
    _play_both_ways(name, players, variant, range(1), FIRST_MOVES)


@pytest.mark.slow
@pytest.mark.parametrize("name,players,variant", CONFIGS)
def test_in_place_and_undo_play_as_apply_does_over_many_games(name, players, variant):
    _play_both_ways(name, players, variant, range(1, 6))


def test_undo_without_a_move_in_place_is_refused():
    state = load_game("tic-tac-toe").new_state(0).apply("place(4)")
    with pytest.raises(RuleplayError, match="no move made in place"):
        state.undo()


def test_a_refused_move_in_place_leaves_the_state_as_it_was():
    state = load_game("tic-tac-toe").new_state(0)
    state.apply_in_place("place(4)")
    before = state.dumps()
    with pytest.raises(RuleplayError):
        state.apply_in_place("place(4)")
    assert state.dumps() == before
    assert str(state.undo()) == "place(4)"
    assert state.history == ()


def test_in_place_without_undo_forgets_what_undo_would_restore():
    state = load_game("tic-tac-toe").new_state(0)
    state.apply_in_place("place(4)")
    state.apply_in_place("place(0)", undo=False)
    assert [str(m) for m in state.history] == ["place(4)", "place(0)"]
    with pytest.raises(RuleplayError):
        state.undo()


@pytest.mark.parametrize("name", ["nautilus-cards", "lovci-pokladu", "kuhn-poker"])
def test_a_game_played_in_place_is_the_game_played_state_by_state(name):
    game = loaded.game(name)
    for seed in range(3):
        assert play_game(game, ["random"], seed, in_place=True) == play_game(game, ["random"], seed)


def test_in_place_play_refuses_a_watcher():
    with pytest.raises(ValueError, match="watcher"):
        play_game(load_game("tic-tac-toe"), ["random"], 0, lambda s, r: None, in_place=True)


# ------------------------------------------------------------------ interned moves
PICK = """\
ruleplay: 1
game: pick
players: 1
constants:
  values: [0, 1, 2]
state:
  log: {init: "[]"}
  spare: {init: "[1, 2]"}
flow:
  phases:
    - {name: play, order: alternate, actions: [pick, pass_one]}
actions:
  pick:
    params: {v: {of: values, from: "[2, 1.0, 0]"}}
    effects: append v to log
  pass_one:
    effects: append 9 to log
end:
  - when: len(log) == 3
"""


def test_listed_moves_are_shared_values_numbered_as_the_game_numbers_them(make_game):
    game = make_game(PICK)
    state = game.new_state(0)
    first, again = state.legal_moves(), state.apply("pass_one").legal_moves()
    assert [str(m) for m in first] == ["pick(0)", "pick(1.0)", "pick(2)", "pass_one"]
    assert first[0] is again[0] and first[2] is again[2] and first[3] is again[3]
    assert [m.index for m in first] == [game.move_to_index(m) for m in first] \
        == [game.move_to_index(str(m)) for m in first] == state.legal_actions() == [0, 1, 2, 3]
    assert game.index_to_move(2) is first[2]


def test_a_from_value_spelled_otherwise_than_its_of_value_is_kept_as_given(make_game):
    state = make_game(PICK).new_state(0)
    one = state.legal_moves()[1]
    assert one.args == (1.0,) and type(one.args[0]) is float  # `from:` gave 1.0: played as given, as before
    assert one == Move("pick", (1,))
    assert state.apply(one).data["vars"]["log"] == [1.0]


def test_a_move_text_is_formatted_once():
    move = load_game("tic-tac-toe").new_state(0).legal_moves()[0]
    assert str(move) is str(move) == "place(0)"


# ------------------------------------------------------------------ write-set copies
def test_variables_no_effect_writes_are_shared_and_the_others_copied(make_game):
    game = make_game(PICK)
    assert game.model.written_vars == frozenset({"log"})
    state = game.new_state(0)
    after = state.apply("pass_one")
    assert after.data["vars"]["spare"] is state.data["vars"]["spare"]
    assert after.data["vars"]["log"] is not state.data["vars"]["log"]
    assert state.data["vars"]["log"] == [] and after.data["vars"]["log"] == [9]


def test_a_procedure_or_trigger_that_writes_a_variable_puts_it_in_the_write_set(make_game):
    game = make_game(PICK.replace("    effects: append 9 to log", "    effects: call bump()")
                     + "procedures:\n  bump: {effects: append 9 to log}\n"
                     + "triggers:\n  - {when: 'len(log) == 2', effects: 'spare = []'}\n")
    assert game.model.written_vars == frozenset({"log", "spare"})


def test_a_move_copies_only_what_its_action_its_procedures_and_the_flow_can_write(make_game):
    game = make_game(PICK.replace("    effects: append 9 to log", "    effects: call outer()")
                     + "procedures:\n  outer: {effects: call inner()}\n  inner: {effects: append 9 to spare}\n"
                     + "triggers:\n  - {when: 'len(log) == 9', effects: 'append 0 to log'}\n")
    assert game.model.written_vars == frozenset({"log", "spare"})
    # `pick` writes log; `pass_one` writes spare through two procedures, and log through the trigger
    assert game.model.written_by_action == {"pick": frozenset({"log"}), "pass_one": frozenset({"log", "spare"})}
    state = game.new_state(0)
    picked = state.apply("pick(0)")
    assert picked.data["vars"]["spare"] is state.data["vars"]["spare"]
    passed = state.apply("pass_one")
    assert passed.data["vars"]["spare"] == [1, 2, 9] and state.data["vars"]["spare"] == [1, 2]


def test_setup_alone_writing_a_variable_leaves_it_shared(make_game):
    game = make_game(PICK.replace("flow:", "setup: spare = [5]\nflow:"))
    assert game.model.written_vars == frozenset({"log"})
    state = game.new_state(0)
    assert state.data["vars"]["spare"] == [5]
    assert state.apply("pass_one").data["vars"]["spare"] is state.data["vars"]["spare"]


# ------------------------------------------------------------------ the kept initial state
def _counting_setup(game):
    runs = []
    setup = game.model.setup

    def counted(ctx: R.Ctx) -> None:
        runs.append(1)
        setup(ctx)

    game.model.setup = counted
    return runs


def test_a_setup_that_draws_nothing_runs_once(make_game):
    game = make_game(PICK)
    runs = _counting_setup(game)
    states = [game.new_state(seed) for seed in (0, 1, 0)]
    assert len(runs) == 1
    assert states[0].dumps() == states[2].dumps() != states[1].dumps()  # only the generator differs
    assert json.loads(states[0].dumps())["data"]["vars"] == json.loads(states[1].dumps())["data"]["vars"]
    states[0].data["vars"]["spare"].append(7)  # a new state is a copy of its own
    assert game.new_state(0).data["vars"]["spare"] == [1, 2]


def test_a_setup_that_draws_runs_for_every_state(make_game):
    game = make_game(PICK.replace("flow:", "setup: shuffle spare\nflow:"))
    runs = _counting_setup(game)
    orders = {tuple(game.new_state(seed).data["vars"]["spare"]) for seed in range(8)}
    assert len(runs) == 8 and orders == {(1, 2), (2, 1)}


@pytest.mark.parametrize("name", sorted(builtin_games()))
def test_every_kept_initial_state_is_the_state_setup_makes(name):
    game = loaded.game(name)
    for seed in (0, 1, 2):
        assert game.new_state(seed).dumps() == loaded.game(name)._set_up(seed)[0].dumps()


PAIRS = """
ruleplay: 1
game: pairs
players: 1
constants:
  spots: [[0, 1], [1.0, 2], ["a", 3]]
state:
  log: {init: "[]"}
flow:
  phases:
    - {name: play, order: alternate, actions: [go]}
actions:
  go:
    params: {at: {of: spots, from: '[["a", 3], [1, 2], [0, 1]]'}}
    effects: append at to log
end:
  - when: len(log) == 2
"""


def test_from_pairs_are_the_interned_moves_unless_their_of_value_is_spelled_otherwise(make_game):
    game = make_game(PAIRS)
    state = game.new_state(0)
    moves, again = state.legal_moves(), state.apply("go([0, 1])").legal_moves()
    assert [str(m) for m in moves] == ["go([0, 1])", "go([1, 2])", "go([a, 3])"]
    assert moves[0] is again[0] and moves[2] is again[2]  # plain pairs: the `of:` values' own moves
    assert moves[1] is not again[1] and moves[1].args == ((1, 2),)  # `of:` says [1.0, 2]: kept as given
    assert state.apply(moves[1]).data["vars"]["log"] == [[1, 2]]
