"""A step the native module cannot make as the rules say is made by the Python engine, and play goes on.

Each ruleset here meets, at some move, something the module gives up on:
a rule error (`fail`, a bad index), a limit (the work budget, the call
depth), or a value the module does not hold (an int past 64 bits, a `from:`
value written otherwise than its `of:` value, the text of a power of two).
The native playout must end exactly as the Python engine's game does,
error message included, and a native state stepped past such a move must
be the Python engine's state, or fail with its error and stay as it was.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from ruleplay import load_game
from ruleplay.engine.errors import RuleplayError
from ruleplay.engine.native import NativeState, playout
from ruleplay.runs.play import agent_seed, game_seed, play_game
from ruleplay.runs.workers import GameSpec
from ruleplay.runs.simulate import simulate

from native_support import native_of, outcome

BASE = """\
ruleplay: 1
game: hand-over
players: 2
state:
  x: {init: "1"}
  n: {init: "0"}
  seen: {init: "[]"}
constants:
  small: [1, 2, 3]
functions:
  deep:
    params: [k]
    value: "if k == 0 then 0 else 1 + deep(k - 1)"
flow:
  phases:
    - {name: play, order: alternate, actions: [go]}
actions:
  go:
    params:
      v: {of: "[1, 2, 3]", from: FROM}
    effects: |
      n += 1
      EFFECTS
end:
  - when: n >= 30
scoring:
  score: "if x > 10 then 1 else 0"
limits: LIMITS
"""

CASES = {
    # a rule error at move 7: the game stops with the Python engine's own message
    "fail": ("small", "if n == 7 { fail \"stopped at seven\" }", "{}"),
    "bad-index": ("small", "if n == 5 { x = small[n] }", "{}"),
    # an int past 64 bits from move 7 on: the Python engine plays the rest
    "big-int": ("small", "x = x * 1000000", "{}"),
    # the work budget runs out at move 10, in the Python engine as in the module
    "budget": ("small", "repeat n * 40 { append 1 to seen }", "{iterations_per_move: 400}"),
    # the call depth: 90 nested calls pass, and the native module, which stops at 100, hands over the rest
    "depth": ("small", "x = deep(n * 4)", "{max_depth: 200}"),
    # `from:` gives 2.0 for the `of:` value 2: a move the Python engine writes go(2.0)
    "float-from": ('"[1, 2.0, 3]"', "x += v", "{}"),
    # the text of a float that is a power of two is left to the Python engine
    "power-of-two": ("small", "append str(0.5 * n) to seen", "{}"),
}


HANDED_OVER = {"big-int", "depth", "float-from", "power-of-two"}  # games that end, played on by Python


def _game(tmp_path, case: str):
    source, effects, limits = CASES[case]
    text = BASE.replace("FROM", source).replace("EFFECTS", textwrap.indent(effects, "      ").strip())
    path = tmp_path / f"{case}.yaml"
    path.write_text(text.replace("LIMITS", limits), encoding="utf-8")
    return load_game(path)


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_playout_ends_as_the_python_engine_ends_it(tmp_path, case):
    game = _game(tmp_path, case)
    ng = native_of(game)
    handed = []
    for index in range(4):
        seed = game_seed(2, index)

        def native_game():
            game = playout(ng, [0, 0], [agent_seed(seed, 0), agent_seed(seed, 1)], seed)
            handed.append(game.handed_over)
            return game

        assert outcome(native_game) == outcome(lambda: play_game(game, ["random"], seed))
    assert any(handed) == (case in HANDED_OVER)  # the module did give up where it must (and only there)


@pytest.mark.parametrize("case", sorted(CASES))
def test_simulate_counts_the_same_failures_and_games(tmp_path, case):
    game = _game(tmp_path, case)
    native_of(game)
    path = str(tmp_path / f"{case}.yaml")
    native = simulate(GameSpec(path, backend="native"), 6, seed=3)
    python = simulate(GameSpec(path), 6, seed=3)
    assert native.backend == "native" and python.backend == "python"
    assert [(o.digest, o.scores, o.returns, o.failure, o.fired, o.decisions, o.branching)
            for o in native.outcomes] == [(o.digest, o.scores, o.returns, o.failure, o.fired, o.decisions,
                                           o.branching) for o in python.outcomes]


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_stepped_state_goes_on_as_the_python_engines(tmp_path, case):
    game = _game(tmp_path, case)
    ng = native_of(game)
    native = NativeState.new(ng, 9)
    python = game.new_state(9)
    for step in range(40):
        if python.is_terminal():
            break
        action = python.legal_actions()[step % len(python.legal_actions())]
        assert native.legal_actions() == python.legal_actions()
        try:
            after = python.apply(game.index_to_move(action))
        except RuleplayError as err:
            with pytest.raises(type(err)) as raised:
                native.apply_action(action)
            assert str(raised.value) == str(err)
            assert native.to_state() == python  # a failed step leaves the state as it was
            return
        native.apply_action(action)
        python = after
        mirrored = native.to_state()
        assert json.dumps(mirrored.data, sort_keys=True) == json.dumps(python.data, sort_keys=True)
        assert mirrored.history == python.history and native.last_fired == python.last_fired
