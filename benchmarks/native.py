"""The native backend's contenders: whole games played in C (`batch`), and the state handle stepped from Python.

It imports `ruleplay.engine.native` from whichever tree `ruleplay` was
imported from (the installed checkout in `run`, a worker's own tree in
`against` and `startup`), only when called, so the rest of `benchmarks`
runs where there is no native backend: an older commit, a machine without
cffi or a C compiler.  `NoNative` says why a game cannot be measured
natively, as a line of a report.
"""

from __future__ import annotations

import random
from typing import Any, Callable

from .measure import BatchPlayer

BATCH_SEED = 0  # the batch whose games are played: those of `ruleplay simulate --seed 0`
RANDOM_AGENT = 0  # the module's code for a seat played by the random agent


class NoNative(RuntimeError):
    """The game cannot be played natively here: no native backend in this tree, or its module cannot be built."""


def module_of(game: Any) -> Any:
    """The game's `NativeGame` (compiled, or found in the cache); NoNative with the reason when there is none."""
    try:
        from ruleplay.engine.native import NativeGame, NativeUnavailable
    except ImportError:
        raise NoNative("this tree has no native backend") from None
    try:
        return NativeGame.of(game)
    except NativeUnavailable as error:
        raise NoNative(str(error)) from None


def batch_player(native: Any) -> BatchPlayer:
    """Games of batch `BATCH_SEED` played in C, every seat by the random agent, as `ruleplay bench` plays them."""
    from ruleplay.engine.native import batch

    kinds = [RANDOM_AGENT] * native.game.info.players
    return lambda first, count: batch(native, BATCH_SEED, first, count, kinds)


def new_handle(native: Any) -> Callable[[random.Random], Any]:
    """A `NativeState` at the start of a game whose seed is drawn from the rng, for `measure.action_playout`."""
    from ruleplay.engine.native import NativeState

    return lambda rng: NativeState.new(native, rng.getrandbits(32))


def perft_counter(native: Any, count: Callable[..., Any], depth: int) -> Callable[[], int]:
    """The leaf count of `count` (the tree's `perft`) from the initial state in the native module; NoNative when
    the module gives up within `depth`, where `count` would quietly count the whole tree on the Python engine."""
    from ruleplay.engine.native import perft_counts

    if perft_counts(native, native.game.new_state(0), depth) is None:
        raise NoNative(f"the native module gives up within depth {depth} (the Python engine would count it)")
    return lambda: count(native.game.new_state(0), depth, native=native).nodes
