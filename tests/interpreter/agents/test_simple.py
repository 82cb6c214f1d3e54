"""Agents: seeded and reproducible, legal, and the greedy one takes wins and avoids losses."""

from __future__ import annotations

import pytest

from ruleplay import load_game
from ruleplay.agents import AGENTS, FirstAgent, GreedyAgent, RandomAgent, make_agent
from ruleplay.runs.play import agent_seed, play_game

# A game where a player can lose on their own move: `resign` ends it at once
# as a loss for the mover, `wait` carries on to a draw after six waits.
RESIGN_GAME = """
ruleplay: 1
game: resign-or-wait
title: Resign or wait
players: 2
state:
  loser: {init: "null"}
  waits: {init: "0"}
flow:
  phases:
    - name: play
      order: alternate
      actions: [resign, wait]
actions:
  resign:
    effects: loser = current
  wait:
    effects: waits += 1
end:
  - when: loser != null
  - when: waits >= 6
scoring:
  score: "if loser == p then 0 else 1"
"""


@pytest.fixture(scope="module")
def ttt():
    return load_game("tic-tac-toe")


def choices(agent, game, seed: int) -> list[str]:
    """Let `agent` play both seats of a whole game; the moves it chose."""
    state = game.new_state(seed)
    out = []
    while not state.is_terminal():
        move = agent.choose(state)
        assert move in state.legal_moves()
        out.append(str(move))
        state = state.apply(move)
    return out


def test_random_agent_is_reproducible_from_its_seed(ttt):
    assert choices(RandomAgent(5), ttt, 0) == choices(RandomAgent(5), ttt, 0)


def test_random_agent_seeds_give_different_games(ttt):
    games = {tuple(choices(RandomAgent(seed), ttt, 0)) for seed in range(8)}
    assert len(games) > 1


def test_random_agent_reaches_every_legal_move(ttt):
    agent = RandomAgent(1)
    state = ttt.new_state(0)
    picked = {str(agent.choose(state)) for _ in range(200)}
    assert picked == {str(m) for m in state.legal_moves()}


def test_first_agent_plays_the_first_legal_move(ttt):
    state = ttt.new_state(0)
    for _ in range(3):
        move = FirstAgent().choose(state)
        assert move == state.legal_moves()[0]
        state = state.apply(move)


@pytest.mark.parametrize("seed", range(5))
def test_greedy_agent_completes_a_line(ttt, seed):
    state = ttt.new_state(0)
    for text in ("place(0)", "place(3)", "place(1)", "place(4)"):
        state = state.apply(text)
    assert str(GreedyAgent(seed).choose(state)) == "place(2)"


def test_greedy_agent_never_resigns_while_it_can_wait(make_game):
    game = make_game(RESIGN_GAME)
    for seed in range(6):
        result = play_game(game, ["greedy"], seed)
        assert "resign" not in result.moves
        assert result.returns[0] == result.returns[1]
    randoms = [play_game(game, ["random"], seed).moves for seed in range(20)]
    assert any("resign" in moves for moves in randoms), "the check above would pass for any agent"


def test_registry_builds_each_agent_and_names_them_on_error():
    assert isinstance(make_agent("random", 3), RandomAgent)
    assert isinstance(make_agent("first"), FirstAgent)
    assert isinstance(make_agent("greedy", 1), GreedyAgent)
    with pytest.raises(ValueError) as info:
        make_agent("minimax")
    assert str(info.value) == f"unknown agent 'minimax' (agents: {', '.join(AGENTS)})"


def test_seats_get_different_agent_seeds():
    assert agent_seed(0, 0) != agent_seed(0, 1)
    assert agent_seed(0, 0) != agent_seed(1, 0)


def test_greedy_reports_a_game_past_its_step_limit_as_the_step_limit(make_game):
    """Every look-ahead move passes max_steps: the game's limit (RP504), not the decision budget (RP501)."""
    from ruleplay.engine.errors import StepLimitError

    game = make_game("""
ruleplay: 1
game: stalling
players: 2
state: {n: {init: "0"}}
flow: {phases: [{name: p, actions: [stall]}]}
actions: {stall: {effects: pass}}
end: [{when: n >= 3}]
heuristics: {h: {value: "0"}}
limits: {max_steps: 20}
""")
    with pytest.raises(StepLimitError, match="passed 20 moves"):
        play_game(game, ["greedy"], seed=1)
