"""The Gymnasium environments: one game passes Gymnasium's checker, a batch answers as SyncVectorEnv over them."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("gymnasium", reason="the Gymnasium environments need the `rl` extra")

import gymnasium
import numpy as np
from gymnasium.utils import env_checker, passive_env_checker
from ruleplay import IllegalMoveError
from ruleplay.pettingzoo import TurnEnv, raw_env, turn_env, vector_env

STEPS = 300
LONGEST = 20_000  # batch steps: longer than any built-in game's step limit


def test_one_game_passes_gymnasiums_checks(config):
    """Gymnasium's checker, but for its random actions: an illegal move raises the rules' reason (as in the
    PettingZoo environment) rather than being played, so the steps are checked along games of legal ones."""
    env = turn_env(*config)
    for check in (env_checker.check_reset_return_type, env_checker.check_reset_seed_determinism,
                  env_checker.check_reset_options, env_checker.check_reset_return_info_deprecation):
        check(env)
    rnd = random.Random(0)
    for seed in (1, 2):
        observation, _ = passive_env_checker.env_reset_passive_checker(env, seed=seed)
        for _ in range(STEPS):
            action = rnd.choice(np.flatnonzero(observation["action_mask"]).tolist())
            observation, _, over, _, _ = passive_env_checker.env_step_passive_checker(env, action)
            if over:
                break


@pytest.mark.parametrize("backend", ["native", "python"])
def test_a_batch_answers_as_sync_vector_env_over_single_games(config, backend):
    """Seeds, observations, masks, rewards, autoreset and infos: equal, step for step, over several games."""
    games = 4
    ours = vector_env(*config[:1], num_envs=games, players=config[1], variant=config[2], backend=backend)
    theirs = gymnasium.vector.SyncVectorEnv([lambda: TurnEnv(*config, backend="python")] * games)
    rnd = random.Random(5)
    seen = [ours.reset(seed=11), theirs.reset(seed=11)]
    steps = ended = 0
    while steps < STEPS or not ended:  # on until a game has ended and its slot started again
        _assert_same(*seen)
        masks = seen[1][0]["action_mask"]
        actions = np.array([rnd.choice(np.flatnonzero(m).tolist() or [0]) for m in masks])
        seen = [ours.step(actions), theirs.step(actions)]
        ended += seen[1][2].sum()
        steps += 1
        assert steps < LONGEST, "no game ended within the engine's step limit"
    _assert_same(*seen)


def _assert_same(a, b):
    assert len(a) == len(b)
    for ours, theirs in zip(a, b):
        if isinstance(ours, dict):
            assert sorted(ours) == sorted(theirs)
            for key in ours:
                assert np.array_equal(ours[key], theirs[key]), key
                assert ours[key].dtype == theirs[key].dtype, key
        else:
            assert np.array_equal(ours, theirs) and ours.dtype == theirs.dtype


def test_the_seat_to_move_is_in_the_info_and_rewards_go_to_the_mover():
    env = turn_env("tic-tac-toe")
    observation, info = env.reset(seed=0)
    assert info == {"player": 0} and observation["action_mask"].tolist() == [1] * 9
    for cell in (0, 3, 1, 4):
        _, reward, over, _, info = env.step(cell)
        assert (reward, over) == (0.0, False)
    observation, reward, over, truncated, info = env.step(2)  # X completes the top row
    assert (reward, over, truncated, info["player"]) == (1.0, True, False, -4)
    assert info["returns"].tolist() == [1.0, -1.0] and observation["action_mask"].tolist() == [0] * 9
    with pytest.raises(RuntimeError, match="the game is over"):
        env.step(5)


def test_the_games_of_the_batch_follow_their_seeds():
    batch = vector_env("kuhn-poker", num_envs=3)
    observations, _ = batch.reset(seed=7)
    single = raw_env("kuhn-poker")
    for slot in range(3):
        one = turn_env("kuhn-poker")
        alone, _ = one.reset(seed=7 + slot)
        assert np.array_equal(alone["observation"], observations["observation"][slot])
    assert single.stepper.backend == batch.games.stepper.backend == "native"


def test_a_game_the_python_engine_holds_is_written_beside_the_native_ones():
    """A batch whose games are partly held by the Python engine (after a hand-over) writes those rows in Python
    and the rest in one native call: the same rows as a batch all native."""
    from ruleplay.adapters.held import PythonHandle

    batch = vector_env("nautilus-cards", num_envs=4)
    batch.reset(seed=3)
    for _ in range(5):
        observations, *_ = batch.step(np.array([np.flatnonzero(m)[-1] for m in batch._masks]))
    batch.games.held[1] = PythonHandle(batch.games.held[1].to_state())
    batch.games.held[2] = PythonHandle(batch.games.held[2].to_state())
    batch._observations[:] = -1.0
    batch._masks[:] = 7
    batch._observe()
    assert np.array_equal(batch._observations, observations["observation"])
    assert np.array_equal(batch._masks, observations["action_mask"])


def test_bad_calls_say_what_is_wrong():
    batch = vector_env("tic-tac-toe", num_envs=2)
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        batch.step(np.array([0, 0]))
    batch.reset(seed=0)
    with pytest.raises(ValueError, match=r"one action per game, shape \(2,\)"):
        batch.step(np.array([0]))
    with pytest.raises(ValueError, match="one seed per game: 1 for 2 games"):
        batch.reset(seed=[1])
    with pytest.raises(IllegalMoveError, match=r"an int 0\.\.8"):
        batch.step(np.array([0, 9]))
    with pytest.raises(ValueError, match="num_envs must be a whole number"):
        vector_env("tic-tac-toe", num_envs=0)
