"""The PettingZoo environment passes PettingZoo's own test suite on every built-in game, and keeps secrets."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("pettingzoo", reason="the PettingZoo adapter needs the `rl` extra")

import numpy as np
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel
from ruleplay import IllegalMoveError, load_game
from ruleplay.pettingzoo import env, raw_env

CYCLES = 60


def _maker(config):
    name, players, variant = config
    return lambda render_mode=None: env(name, players=players, variant=variant, render_mode=render_mode)


def test_api_test(config):
    api_test(_maker(config)(), num_cycles=CYCLES)


def test_seed_test(config):
    seed_test(_maker(config), num_cycles=CYCLES)


def test_render_test(config):
    render_test(_maker(config))


def test_parallel_api_test(config):
    parallel_api_test(turn_based_aec_to_parallel(_maker(config)()), num_cycles=CYCLES)


def _play_to_end(e, seed):
    e.reset(seed=seed)
    for _agent in e.agent_iter():
        obs, _reward, done, truncated, _ = e.last()
        e.step(None if done or truncated else int(np.flatnonzero(obs["action_mask"])[0]))
    return e


def test_a_whole_game_ends_with_every_seat_rewarded_its_return():
    e = raw_env("tic-tac-toe")
    _play_to_end(e, 0)  # the first legal cell each turn: X takes the left column
    assert e.game_state.returns() == [1.0, -1.0]
    assert e.agents == []


def test_rewards_reach_every_agent_through_last():
    e = env("kuhn-poker")
    e.reset(seed=5)
    seen = {}
    for agent in e.agent_iter():
        obs, reward, done, _truncated, _ = e.last()
        if done:
            seen[agent] = reward
        e.step(None if done else int(np.flatnonzero(obs["action_mask"])[-1]))  # the highest: bet, then fold
    assert seen == {"player_0": 1.0, "player_1": -1.0}


def test_chance_is_played_inside_and_one_seed_gives_one_game():
    first = raw_env("kuhn-poker")
    first.reset(seed=11)
    again = raw_env("kuhn-poker")
    again.reset(seed=11)
    assert first.game_state.history == again.game_state.history
    assert first.game_state.history[0].action == "deal"  # dealt before the first agent is asked
    deals = set()
    for seed in range(40):
        first.reset(seed=seed)
        deals.add(first.game_state.history[0])
    assert len(deals) == 6


def test_an_unseeded_reset_continues_the_seeded_sequence():
    a, b = raw_env("kuhn-poker"), raw_env("kuhn-poker")
    a.reset(seed=1)
    b.reset(seed=1)
    deals_a, deals_b = [], []
    for _ in range(10):
        a.reset()
        b.reset()
        deals_a.append(a.game_state.history[0])
        deals_b.append(b.game_state.history[0])
    assert deals_a == deals_b and len(set(deals_a)) > 1


def test_the_observation_shows_only_the_agents_own_card():
    game = load_game("kuhn-poker")
    e = raw_env(game)
    base = game.new_state()
    views = {}
    for a, b in (("J", "Q"), ("J", "K"), ("Q", "J")):
        e.reset(seed=0)
        e.game_state = base.apply(f"deal({a}, {b})")
        views[a, b] = (e.observe("player_0")["observation"], e.observe("player_1")["observation"])
    assert np.array_equal(views["J", "Q"][0], views["J", "K"][0])  # seat 1's card is not in seat 0's view
    assert not np.array_equal(views["J", "Q"][1], views["J", "K"][1])
    assert not np.array_equal(views["J", "Q"][0], views["Q", "J"][0])  # seat 0's own card is


def test_only_the_agent_to_move_has_legal_actions():
    e = raw_env("tic-tac-toe")
    e.reset(seed=0)
    assert e.observe("player_0")["action_mask"].tolist() == [1] * 9
    assert e.observe("player_1")["action_mask"].tolist() == [0] * 9


def test_an_illegal_action_is_refused_with_the_rules_reason():
    e = env("tic-tac-toe")
    e.reset(seed=0)
    e.step(4)
    with pytest.raises(IllegalMoveError, match=r"place\(4\).*already marked.*TT-2\.2"):
        e.step(4)


def test_an_action_out_of_range_is_refused():
    e = raw_env("tic-tac-toe")
    e.reset(seed=0)
    with pytest.raises(IllegalMoveError, match=r"an int 0\.\.8"):
        e.step(9)


@pytest.mark.parametrize("seed, error", [(-1, ValueError), (2 ** 64, ValueError), (True, TypeError),
                                         (1.5, TypeError), ("x", TypeError), (np.int64(-1), ValueError),
                                         (np.bool_(True), TypeError), (np.float64(3.0), TypeError)])
def test_a_seed_that_is_no_seed_is_refused(seed, error):
    with pytest.raises(error, match="seed"):
        raw_env("tic-tac-toe").reset(seed=seed)


@pytest.mark.parametrize("seed", [np.int64(3), np.uint64(3), np.int8(3)])
def test_a_numpy_integer_seed_is_the_seed_of_that_int(seed):
    ours, theirs = raw_env("kuhn-poker"), raw_env("kuhn-poker")
    ours.reset(seed=seed)
    theirs.reset(seed=3)
    assert ours.game_state.dumps() == theirs.game_state.dumps()
    ours.reset(seed=np.uint64(2 ** 64 - 1))


def test_using_the_environment_before_reset_or_with_another_name_says_what_is_wrong():
    e = raw_env("tic-tac-toe")
    for call in (lambda: e.step(4), lambda: e.observe("player_0")):
        with pytest.raises(RuntimeError, match=r"call reset\(\) before"):
            call()
    e.reset(seed=0)
    for call in (lambda: e.observe("player_9"), lambda: e.action_space("x"), lambda: e.observation_space(0)):
        with pytest.raises(ValueError, match="not an agent of this game: the agents are player_0, player_1"):
            call()


def test_render_modes():
    e = raw_env("tic-tac-toe", render_mode="ansi")
    e.reset(seed=0)
    e.step(0)
    assert "X" in e.render() and "player 1 to move" in e.render()
    assert raw_env("tic-tac-toe").render() is None
    with pytest.raises(ValueError, match="render_mode 'rgb_array' is not one of ansi, human"):
        raw_env("tic-tac-toe", render_mode="rgb_array")


def test_a_loaded_game_takes_no_second_player_count():
    with pytest.raises(ValueError, match=r"players= and variant= go with a ruleset name"):
        raw_env(load_game("nautilus", players=2), players=3)


def test_a_bad_player_count_is_the_loaders_error():
    from ruleplay import RulesetError
    with pytest.raises(RulesetError, match="players"):
        raw_env("tic-tac-toe", players=5)


def test_the_native_and_python_backends_play_alike(config):
    """The same seed and the same actions give the same observations, masks, rewards and states on both."""
    name, players, variant = config
    native, python = (raw_env(name, players, variant, backend=b) for b in ("native", "python"))
    rnd = random.Random(0)
    for seed in (0, 1):
        native.reset(seed=seed)
        python.reset(seed=seed)
        for agent in python.agent_iter():
            assert native.agent_selection == agent
            seen = [e.last() for e in (native, python)]
            for key in ("observation", "action_mask"):
                assert np.array_equal(seen[0][0][key], seen[1][0][key])
            assert seen[0][1:] == seen[1][1:]  # reward, termination, truncation, info
            assert native.game_state.dumps() == python.game_state.dumps()
            action = None if seen[1][2] else rnd.choice(np.flatnonzero(seen[1][0]["action_mask"]).tolist())
            native.step(action)
            python.step(action)
        assert native.agents == [] and native.rewards == python.rewards


def test_the_python_backend_passes_the_api_test():
    api_test(env("kuhn-poker", backend="python"), num_cycles=CYCLES)


def test_an_illegal_action_on_the_native_backend_changes_nothing():
    e = raw_env("tic-tac-toe", backend="native")
    e.reset(seed=0)
    e.step(4)
    before = e.game_state
    with pytest.raises(IllegalMoveError, match=r"place\(4\).*already marked.*TT-2\.2"):
        e.step(4)
    assert e.game_state == before and e.agent_selection == "player_1"
    e.step(0)
    assert e.game_state.history[-1] == e.game.index_to_move(0)


def test_a_position_of_the_same_game_loaded_again_can_be_set_and_another_games_cannot():
    e = raw_env("kuhn-poker")
    e.reset(seed=0)
    e.game_state = load_game("kuhn-poker").new_state().apply("deal(K, J)")  # another load of the same ruleset
    assert e.game_state.history[-1].args == ("K", "J") and e.observe("player_0")["action_mask"].sum() == 2
    with pytest.raises(ValueError, match=r"another game \(tic-tac-toe, 2 players, variant None\)"):
        e.game_state = load_game("tic-tac-toe").new_state()
