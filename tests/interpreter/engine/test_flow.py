"""The turn/phase/round loop: orders, stages, hooks, rounds and end timing."""

from __future__ import annotations

import pytest

from ruleplay import CHANCE, TERMINAL, DeadlockError, StepLimitError
from ruleplay.dsl.runtime import LimitError
from ruleplay.engine.errors import IllegalMoveError


ROUNDS = """
ruleplay: 1
game: rounds
players: {min: 2, max: 4}
state:
  log: {init: "[]"}
  passes: {init: "0"}
flow:
  rotate_start: true
  on_round_end: |
    append "end" + str(round) to log
  phases:
    - name: first
      order: each
      actions: [act]
    - name: second
      order: each
      first: next_seat(start_player)
      actions: [act]
actions:
  act:
    effects: |
      append phase + ":" + str(current) to log
end:
  - when: round == 2 and phase == "second"
    at: end_of_round
scoring:
  score: "0"
"""


def play_all(state):
    while not state.is_terminal():
        state = state.apply(state.legal_moves()[0])
    return state


def test_each_order_phases_and_rotating_start(make_game):
    game = make_game(ROUNDS, players=3)
    end = play_all(game.new_state())
    assert end.data["vars"]["log"] == [
        "first:0", "first:1", "first:2", "second:1", "second:2", "second:0", "end1",
        "first:1", "first:2", "first:0", "second:2", "second:0", "second:1", "end2",
    ]
    assert end.current_player == TERMINAL
    assert end.data["flow"]["ended_by"] == "end[0]"


def test_end_of_next_round(make_game):
    text = ROUNDS.replace("round == 2 and phase == \"second\"", "round == 1").replace(
        "at: end_of_round", "at: end_of_next_round")
    end = play_all(make_game(text, players=2).new_state())
    assert end.data["vars"]["log"][-1] == "end2"


def test_skip_if_leaves_seats_out(make_game):
    text = ROUNDS.replace("  rotate_start: true\n", "  rotate_start: true\n  skip_if: p == 1\n")
    end = play_all(make_game(text, players=3).new_state())
    assert not any(entry.endswith(":1") for entry in end.data["vars"]["log"])


ALL_SKIPPED = """
ruleplay: 1
game: all-skipped
players: 2
state:
  x: {init: "0"}
flow:
  skip_if: x >= SKIPPED_FROM
  phases:
    - name: a
      actions: [go]
actions:
  go:
    effects: x += 1
end:
  - when: x > 5
scoring:
  score: x
"""


@pytest.mark.parametrize("order", ["alternate", "each"])
@pytest.mark.parametrize("skipped_from", [0, 1])  # at the phase's start, after a turn
def test_a_phase_every_seat_of_which_is_skipped_is_rp505_at_the_skip_if_with_a_hint(make_game, skipped_from,
                                                                                      order):
    """An `each` phase no seat may act in is passed over, so phases of that order alone went round for
    ever: RP501 'the flow changed phase 1000 times', blaming end_if and next."""
    game = make_game(ALL_SKIPPED.replace("SKIPPED_FROM", str(skipped_from))
                     .replace("actions: [go]", f"actions: [go]\n      order: {order}"))
    with pytest.raises(DeadlockError, match="phase 'a': no player can act") as caught:
        game.new_state().apply("go")
    assert (caught.value.pos.line, caught.value.pos.col) == (8, 12)
    assert "`end:`" in caught.value.hint and "skip_if" in caught.value.hint


STAGES = """
ruleplay: 1
game: stages
players: 2
state:
  picked: {init: "null"}
  moves: {init: "[]"}
flow:
  phases:
    - name: main
      actions: [choose]
      stages:
        target: {actions: [go]}
        roll: {actions: [die], chance: true}
actions:
  choose:
    params: {piece: "range(3)"}
    effects: |
      picked = piece
      stage target
  go:
    params: {to: "range(2)"}
    effects: |
      append [current, picked, to] to moves
      if to == 1 { stage roll }
  die:
    chance: true
    weight: face
    params: {face: "[1, 2, 3]"}
    effects: |
      append ["die", face] to moves
end:
  - when: len(moves) >= 4
scoring:
  score: "0"
"""


def test_stages_keep_the_player_and_chance_stage(make_game):
    game = make_game(STAGES)
    s = game.new_state(seed=3)
    assert [str(m) for m in s.legal_moves()] == ["choose(0)", "choose(1)", "choose(2)"]
    s = s.apply("choose(2)")
    assert s.current_player == 0 and s.data["flow"]["stage"] == "target"
    assert [str(m) for m in s.legal_moves()] == ["go(0)", "go(1)"]
    with pytest.raises(IllegalMoveError) as err:
        s.apply("choose(1)")
    assert err.value.code == "RP603"
    s = s.apply("go(1)")
    assert s.current_player == CHANCE
    outcomes = s.chance_outcomes()
    assert [(str(m), round(p, 6)) for m, p in outcomes] == [("die(1)", 0.166667), ("die(2)", 0.333333),
                                                           ("die(3)", 0.5)]
    s = s.apply_chance()
    assert s.current_player == 1 and s.data["flow"]["stage"] is None


def test_apply_chance_is_seeded(make_game):
    game = make_game(STAGES)
    def run(seed):
        s = game.new_state(seed=seed).apply("choose(0)").apply("go(1)")
        return s.apply_chance().data["vars"]["moves"][-1]
    assert run(5) == run(5)
    assert {tuple(run(k)) for k in range(30)} == {("die", 1), ("die", 2), ("die", 3)}


STUCK = """
ruleplay: 1
game: stuck
players: 2
state:
  n: {init: "0"}
flow:
  phases:
    - name: main
      actions: [inc]
      when_stuck: WHEN
actions:
  inc:
    require: [current == 0]
    effects: n += 1
end:
  - when: n >= 3
scoring:
  score: n
"""


def test_when_stuck_pass_skips_the_player(make_game):
    end = play_all(make_game(STUCK.replace("WHEN", "pass")).new_state())
    assert end.data["vars"]["n"] == 3


def test_when_stuck_error_names_player_and_phase(make_game):
    game = make_game(STUCK.replace("WHEN", "error"))
    with pytest.raises(DeadlockError, match="player 1 has no legal move in phase 'main'"):
        game.new_state().apply("inc")


def test_seats_that_all_pass_for_ever_get_an_error_that_says_how_to_end(make_game):
    """No seat can move and nothing ends the game: the passes stop with a rule error, and its hint the fix."""
    game = make_game(STUCK.replace("WHEN", "pass").replace("require: [current == 0]", "require: [n < 1]"))
    with pytest.raises(LimitError, match=r"passed 1000 turns in a row \(`when_stuck: pass`\)") as info:
        game.new_state().apply("inc")
    assert "when_stuck: end_game" in info.value.hint and "end condition" in info.value.hint


def test_seats_that_all_pass_until_the_listing_runs_out_of_work_get_the_same_advice(make_game):
    """Listing costly moves seat after seat runs out of the step's work before 1000 passes: the error still
    says that no seat could move and how to end the game, not only to raise the limit."""
    game = make_game(STUCK.replace("WHEN", "pass").replace("require: [current == 0]",
                                                           "require: ['len([i for i in range(400)]) > 0 and n < 1']"))
    with pytest.raises(LimitError, match=r"iteration limit exceeded in one move, listing the moves of seat after "
                                         r"seat who had none \(\d+ passed in a row, every seat at least "
                                         r"once: `when_stuck: pass`\)") as info:
        game.new_state().apply("inc")
    assert "when_stuck: end_game" in info.value.hint and info.value.code == "RP501"


def test_when_stuck_end_game(make_game):
    s = make_game(STUCK.replace("WHEN", "end_game")).new_state().apply("inc")
    assert s.is_terminal() and s.data["flow"]["ended_by"] == "stuck in main"


LOOP = """
ruleplay: 1
game: loop
players: 2
limits: {max_steps: 50}
state:
  n: {init: "0"}
flow:
  phases:
    - name: main
      actions: [inc]
actions:
  inc:
    effects: n += 1
end:
  - when: n < 0
scoring:
  score: n
"""


def test_step_limit_is_an_error_naming_the_phase(make_game):
    game = make_game(LOOP)
    s = game.new_state()
    with pytest.raises(StepLimitError, match="50 moves without ending .*phase 'main'"):
        for _ in range(100):
            s = s.apply("inc")


def test_phase_cycle_without_moves_is_caught(make_game):
    text = LOOP.replace("      actions: [inc]\n", "      actions: [inc]\n      on_begin: end_phase\n")
    game = make_game(text)
    from ruleplay.engine.errors import LimitError
    with pytest.raises(LimitError, match="without a move"):
        game.new_state()


TRIGGERS = """
ruleplay: 1
game: triggers
players: 2
state:
  deck: {init: "range(6)"}
  hand: {init: "[]"}
  refills: {init: "0"}
flow:
  phases:
    - name: main
      actions: [discard]
triggers:
  - when: len(hand) == 0 and len(deck) > 0
    effects: |
      draw 2 from deck to hand
      refills += 1
actions:
  discard:
    params: {card: {of: "range(6)", from: hand}}
    effects: remove card from hand
end:
  - when: len(hand) == 0 and len(deck) == 0
scoring:
  score: refills
"""


def test_triggers_fire_until_settled(make_game):
    game = make_game(TRIGGERS)
    s = game.new_state()
    assert s.data["vars"]["hand"] == [0, 1] and s.data["vars"]["refills"] == 1
    s = s.apply("discard(0)")
    assert s.data["vars"]["refills"] == 1
    s = s.apply("discard(1)")
    assert s.data["vars"]["hand"] == [2, 3] and s.data["vars"]["refills"] == 2
    end = play_all(s)
    assert end.scores() == [3, 3]


def test_a_trigger_that_never_settles_is_caught(make_game):
    text = TRIGGERS.replace("      draw 2 from deck to hand\n", "")
    from ruleplay.engine.errors import LimitError
    with pytest.raises(LimitError, match="triggers fired"):
        make_game(text).new_state()


TOGGLES = """
ruleplay: 1
game: toggles
players: 2
state:
  x: {init: "0"}
  moves: {init: "0"}
flow:
  phases:
    - name: main
      actions: [go]
triggers:
  - when: moves > 0 and x == 0
    effects: x = 1
  - when: moves > 0 and x == 1
    rule: TG-2
    effects: x = 0
actions:
  go:
    effects: moves += 1
end:
  - when: moves > 3
scoring:
  score: x
"""


def test_triggers_that_undo_each_other_are_named_with_their_place(make_game):
    """Two triggers that undo each other stopped with "triggers fired 1000 times in a row" naming no trigger
    and no file:line:col; the phase loop's error names its loop."""
    from ruleplay.engine.errors import LimitError

    game = make_game(TOGGLES)
    with pytest.raises(LimitError) as err:
        game.new_state().apply("go")
    path = game.model.source.base.file
    assert err.value.message == ("triggers fired 1000 times in a row without settling: triggers[0] and "
                                 "triggers[1] (TG-2) fired in every pass")
    assert (err.value.pos.file, err.value.pos.line) == (path, 13)
    assert str(err.value).startswith(f"{path}:13:")
    assert err.value.hint == "each of these triggers makes another's condition true again: a trigger's effects " \
                             "must leave every trigger's condition false once the game has settled"


@pytest.mark.parametrize("flow, message, line", [
    ('{start_player: "5", phases: [{name: p, actions: [inc]}]}', "flow.start_player gave 5, not a seat 0..1", 5),
    ('{start_player: "true", phases: [{name: p, actions: [inc]}]}', "flow.start_player gave true, not a seat 0..1", 5),
    ('{phases: [{name: p, first: \'"a"\', actions: [inc]}]}', "phase 'p': `first` gave 'a', not a seat 0..1", 5),
])
def test_a_flow_value_that_is_not_a_seat_is_located_and_written_as_the_language_writes_it(make_game, flow,
                                                                                           message, line):
    from ruleplay.dsl.runtime import RuleRuntimeError

    game = make_game(f"ruleplay: 1\ngame: s\nplayers: 2\nstate: {{n: {{init: \"0\"}}}}\nflow: {flow}\n"
                     "actions: {inc: {effects: n += 1}}\nend: [{when: n >= 3}]\n")
    with pytest.raises(RuleRuntimeError) as err:
        game.new_state(0)
    assert err.value.message == message and err.value.pos is not None and err.value.pos.line == line


def test_seats_passing_for_ever_are_named_as_such(make_game):
    game = make_game("""
ruleplay: 1
game: stuck
players: 2
state: {n: {init: "0"}}
flow: {phases: [{name: main, actions: [inc], when_stuck: pass}]}
actions: {inc: {require: ["n > 100"], effects: n += 1}}
end: [{when: n >= 1}]
""")
    with pytest.raises(LimitError, match="every seat passed 1000 times without a move: pass in main") as err:
        game.new_state(0)
    assert "when_stuck: end_game" in err.value.hint
