"""Shared by the native backend's tests: a game's native module, or a skip where the machine cannot build one.

Without cffi or a C compiler the tests of the native backend skip, except
under CI (`CI` set), which installs both (`.ci/run`): there a missing one
fails.  A built-in or test ruleset the lowering refuses is always a failure.
"""

from __future__ import annotations

import os

import pytest

from ruleplay.engine.game import Game
from ruleplay.engine.native import NativeGame
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

