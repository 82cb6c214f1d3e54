"""Every ruleset plays the same game compiled to closures and to generated code.

Each built-in and test-only ruleset, every player count and variant, is
loaded twice (`RULEPLAY_COMPILER=closures` and `=generated`) and played by
one seeded random agent move for move in lockstep: after every move the two
states must be identical as JSON (variables, flow, RNG state, history), with
the same legal moves in the same order, the same chance outcomes, the same
rules fired and logged, and the same error when a move fails; at the end the
same returns.  The default run plays the first moves of one game per
ruleset (its default player count, no variant); `-m slow` plays every
configuration's games to the end.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from ruleplay import load_game
from ruleplay.dsl import runtime as R
from ruleplay.engine.errors import RuleplayError

from test_random_playouts import rulesets

STEPS = 40
SLOW_GAMES, SLOW_STEPS = 3, 5_000


def _configurations() -> list:
    params = []
    for label, ruleset in rulesets():
        info = load_game(ruleset).info
        for players in range(info.min_players, info.max_players + 1):
            for variant in (None, *info.variants):
                params.append(pytest.param(ruleset, players, variant, id=f"{label}-{players}p-{variant or 'base'}"))
    return params


def _load(monkeypatch: pytest.MonkeyPatch, compiler: str, ruleset: str, players: int | None,
          variant: str | None) -> Any:
    monkeypatch.setenv("RULEPLAY_COMPILER", compiler)
    return load_game(ruleset, players, variant)


def _outcome(state: Any, move: Any) -> tuple[str, Any]:
    try:
        new = state.apply(move) if move is not None else state.apply_chance()
    except (R.RuleRuntimeError, RuleplayError) as err:
        return "error", (type(err).__name__, str(err))
    return "state", new


def _lockstep(closures: Any, generated: Any, seed: int, steps: int) -> None:
    rng = random.Random(seed)
    a, b = closures.new_state(seed), generated.new_state(seed)
    for step in range(steps):
        assert a.to_json() == b.to_json(), f"step {step}: the states differ"
        if a.is_terminal():
            assert b.is_terminal() and a.returns() == b.returns()
            return
        moves = [str(m) for m in a.legal_moves()]
        assert moves == [str(m) for m in b.legal_moves()], f"step {step}: the legal moves differ"
        assert a.is_chance_node() == b.is_chance_node()
        move = None
        if a.is_chance_node():
            assert str(a.chance_outcomes()) == str(b.chance_outcomes())
        else:
            move = rng.choice(moves)
        got_a, got_b = _outcome(a, move), _outcome(b, move)
        assert got_a[0] == got_b[0], f"step {step}: {got_a} but {got_b}"
        if got_a[0] == "error":
            assert got_a[1] == got_b[1]
            return
        a, b = got_a[1], got_b[1]
        assert (a.last_fired, a.last_log, a.last_events) == (b.last_fired, b.last_log, b.last_events), \
            f"step {step}: fired, logged or announced"


@pytest.mark.parametrize("label, ruleset", rulesets())
def test_closures_and_generated_code_play_the_same_game(monkeypatch, label, ruleset):
    _lockstep(_load(monkeypatch, "closures", ruleset, None, None),
              _load(monkeypatch, "generated", ruleset, None, None), seed=3, steps=STEPS)


@pytest.mark.slow
@pytest.mark.parametrize("ruleset, players, variant", _configurations())
def test_closures_and_generated_code_play_the_same_games_to_the_end(monkeypatch, ruleset, players, variant):
    closures = _load(monkeypatch, "closures", ruleset, players, variant)
    generated = _load(monkeypatch, "generated", ruleset, players, variant)
    for seed in range(SLOW_GAMES):
        _lockstep(closures, generated, seed, SLOW_STEPS)
