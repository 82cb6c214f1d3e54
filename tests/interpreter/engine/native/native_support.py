"""Shared by the native backend's tests: a game's native module, or a skip where the machine cannot build one.

Without cffi or a C compiler the tests of the native backend skip, except
under CI (`CI` set), which installs both (`.ci/run`): there a missing one
fails.  A built-in or test ruleset the lowering refuses is always a failure.
"""

from __future__ import annotations

import json
import os

import pytest

from ruleplay.engine.errors import RuleplayError
from ruleplay.engine.game import Game
from ruleplay.engine.legal import CHANCE
from ruleplay.engine.native import NativeGame, NativeState
from ruleplay.engine.rng import Rng, seed_state
from ruleplay.engine.native.build import BuildError, compiler_identity


def _buildable() -> str | None:
    """Why no module can be built here, or None."""
    try:
        import cffi  # noqa: F401
    except ImportError:
        return "cffi is not installed (the `native` extra)"
    try:
        compiler_identity()
    except BuildError as err:
        return str(err)
    return None


WHY_NOT = _buildable()


def native_of(game: Game) -> NativeGame:
    """`game`'s native module; skipped (failed under CI) where none can be built."""
    if WHY_NOT is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI installs what the native backend needs, but {WHY_NOT}")
        pytest.skip(WHY_NOT)
    return NativeGame.of(game)


def outcome(run) -> object:
    """What `run()` (a whole game, native or Python) came to: its result, or the rules' error it raised."""
    try:
        result = run()
    except RuleplayError as err:
        return ("error", type(err).__name__, err.code, str(err))
    return ("game", result.moves, result.scores, result.returns, result.ended_by)


def lockstep(game: Game, seed: int, steps: int) -> list[str]:
    """One random game made on a native state and on a `State` side by side, compared after every move; the
    moves played."""
    ng = native_of(game)
    native = NativeState.new(ng, seed)
    python = game.new_state(seed)
    pick = Rng(seed_state(seed))
    played = []
    for _ in range(steps):
        assert native.current_player() == python.current_player
        assert native.is_terminal() == python.is_terminal()
        mirrored = native.to_state()
        assert json.dumps(mirrored.data, sort_keys=True) == json.dumps(python.data, sort_keys=True)
        assert mirrored == python and mirrored.history == python.history
        assert native.last_fired == python.last_fired
        if python.is_terminal():
            assert native.returns() == python.returns() and native.scores() == python.scores()
            break
        assert native.legal_actions() == python.legal_actions()
        if python.current_player == CHANCE:
            assert native.chance_outcomes() == [(game.move_to_index(m), p) for m, p in python.chance_outcomes()]
            native.apply_chance()
            python = python.apply_chance()
        else:
            actions = python.legal_actions()
            action = actions[pick.below(len(actions))]
            played.append(str(game.index_to_move(action)))
            native.apply_action(action)
            python = python.apply(game.index_to_move(action))
    return played
