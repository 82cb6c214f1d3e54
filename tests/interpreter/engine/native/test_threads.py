"""Native games played on several threads at once (a worker pool's) are the games one thread plays.

The runtime keeps small lists' blocks in free lists per thread, and a context keeps the pool of the thread that
set it up (rp_value.c): lists made on one thread and freed on another must still end in a sound pool.  The
module's calls release the GIL, so these threads run the C code side by side.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from ruleplay import load_game
from ruleplay.engine.native import NativeState

from native_support import lockstep, native_of

SEEDS = range(6)


def test_lockstep_games_on_threads_are_one_threads():
    game = load_game("connect-four")
    alone = [lockstep(game, seed, 60) for seed in SEEDS]
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(lambda seed: lockstep(game, seed, 60), SEEDS)) == alone


def test_states_made_on_threads_play_on_after_they_leave_them():
    game = load_game("connect-four")
    ng = native_of(game)

    def opened(seed: int) -> NativeState:
        state = NativeState.new(ng, seed)
        for _ in range(5):
            state.apply_action(state.legal_actions()[seed % len(state.legal_actions())])
        return state

    def finished(state: NativeState) -> object:
        while not state.is_terminal():
            state.apply_action(state.legal_actions()[0])
        return state.to_state().data, state.returns()

    with ThreadPoolExecutor(4) as pool:
        states = list(pool.map(opened, SEEDS))
    # their lists, made in the workers' pools, are freed into this thread's as the games go on and are dropped
    assert [finished(state) for state in states] == [finished(opened(seed)) for seed in SEEDS]
