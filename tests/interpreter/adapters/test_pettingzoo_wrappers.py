"""The environment's checks answer as PettingZoo's own wrappers do, which they are: same games, same errors."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("pettingzoo", reason="the PettingZoo adapter needs the `rl` extra")

import numpy as np
from pettingzoo.utils import wrappers
from ruleplay.pettingzoo import env, raw_env


def _standard(name: str):
    """The environment in PettingZoo's own wrappers, as `env()` wrapped it before they were subclassed."""
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(raw_env(name)))


def _play(e, seed: int) -> list:
    """Everything PettingZoo's loop sees of a random game."""
    rnd = random.Random(seed)
    e.reset(seed=seed)
    seen = []
    for agent in e.agent_iter():
        observation, reward, termination, truncation, info = e.last()
        seen.append((agent, observation["observation"].tolist(), observation["action_mask"].tolist(), reward,
                     termination, truncation, info))
        e.step(None if termination or truncation else rnd.choice(np.flatnonzero(observation["action_mask"]).tolist()))
    return seen + [e.rewards, e.agents]


def test_they_are_pettingzoos_wrappers():
    e = env("tic-tac-toe")
    assert isinstance(e, wrappers.OrderEnforcingWrapper)
    assert isinstance(e.env, wrappers.AssertOutOfBoundsWrapper)
    assert isinstance(e.unwrapped, raw_env)


@pytest.mark.parametrize("name", ["kuhn-poker", "nautilus-cards"])
def test_a_game_goes_as_in_the_standard_wrappers(name):
    for seed in range(3):
        assert _play(env(name), seed) == _play(_standard(name), seed)


@pytest.mark.parametrize("call", [lambda e: e.last(), lambda e: e.observe("player_0"), lambda e: e.step(0),
                                  lambda e: e.agent_iter(), lambda e: e.agent_selection])
def test_before_reset_each_call_fails_as_in_the_standard_wrappers(call):
    errors = []
    for e in (env("tic-tac-toe"), _standard("tic-tac-toe")):
        with pytest.raises(Exception) as caught:
            call(e)
        errors.append((type(caught.value), str(caught.value)))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("action", [9, -1, 2.0, np.int64(3), "4"])
def test_an_action_is_checked_against_the_action_space(action):
    outcomes = []
    for e in (env("tic-tac-toe"), _standard("tic-tac-toe")):
        e.reset(seed=0)
        try:
            e.step(action)
            outcomes.append(("made", e.unwrapped.game_state.history[-1]))
        except Exception as error:  # noqa: BLE001 - the two must fail alike, whatever the failure
            outcomes.append((type(error), str(error)))
    assert outcomes[0] == outcomes[1]


def test_a_step_without_a_look_in_between_is_refused_in_the_loop():
    e = env("tic-tac-toe")
    e.reset(seed=0)
    agents = iter(e.agent_iter())
    next(agents)
    with pytest.raises(AssertionError, match="need to call step"):
        next(agents)


def test_a_step_after_the_game_is_over_warns_as_pettingzoo_does(caplog):
    e = env("tic-tac-toe")
    _play(e, 0)
    e.step(None)
    assert "step() called after all agents are terminated or truncated" in caplog.text
