"""MCTS: finds forced wins and blocks, reads chance and returns, cuts rollouts off by the heuristic,
is reproducible, and beats random play (a handful of games here; the long runs are `slow`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ruleplay import load_game
from ruleplay.agents import make_agent
from ruleplay.runs.play import play_game

TAKE_RACE = Path(__file__).resolve().parents[2] / "rulesets" / "take-race.yaml"


def _after(game, *moves):
    state = game.new_state(0)
    for move in moves:
        state = state.apply(move)
    return state


@pytest.fixture(scope="module")
def ttt():
    return load_game("tic-tac-toe")


@pytest.mark.parametrize("seed", range(4))
def test_takes_a_win_in_one(ttt, seed):
    # X on 0 and 1, O on 3 and 4: X wins with 2 (O would win with 5 next).
    state = _after(ttt, "place(0)", "place(3)", "place(1)", "place(4)")
    assert str(make_agent("mcts:iterations=60", seed).choose(state)) == "place(2)"


@pytest.mark.parametrize("seed", range(4))
def test_the_second_player_blocks(ttt, seed):
    # X on 0 and 3 threatens 6; O must take it.
    state = _after(ttt, "place(0)", "place(2)", "place(3)")
    assert str(make_agent("mcts:iterations=150", seed).choose(state)) == "place(6)"


def test_returns_decide_at_chance_games():
    """Seeing both cards (MCTS reads the whole state), it folds a losing card to a bet and calls a winning one."""
    kuhn = load_game("kuhn-poker")
    for deal, answer in (("deal(K, J)", "fold"), ("deal(J, K)", "call")):
        state = _after(kuhn, deal, "bet")
        assert str(make_agent("mcts:iterations=40", 1).choose(state)) == answer, deal


def test_the_heuristic_judges_cut_off_rollouts():
    race = load_game(TAKE_RACE)
    state = race.new_state(0)
    assert str(make_agent("mcts:iterations=100:depth=0", 2).choose(state)) == "take(3)"
    # The perverse heuristic turns the choice round: the cut-off reads it, not the end of the game.
    assert str(make_agent("mcts:iterations=100:depth=0:heuristic=modest", 2).choose(state)) == "take(1)"
    with pytest.raises(ValueError, match=r"take-race has no heuristic 'nope' \(its heuristics: lead, modest\)"):
        make_agent("mcts:depth=2:heuristic=nope").choose(state)


def test_same_seed_same_game_and_a_time_budget_works(ttt):
    one = play_game(ttt, ["mcts:iterations=40", "mcts:iterations=40"], seed=5).moves
    assert play_game(ttt, ["mcts:iterations=40", "mcts:iterations=40"], seed=5).moves == one
    state = ttt.new_state(0)
    assert make_agent("mcts:seconds=0.05", 1).choose(state) in state.legal_moves()


def test_beats_random_at_tic_tac_toe_in_a_handful_of_games(ttt):
    for seed in range(6):
        seats = ["mcts:iterations=200", "random"] if seed % 2 == 0 else ["random", "mcts:iterations=200"]
        returns = play_game(ttt, seats, seed=seed).returns
        assert returns[seed % 2] >= 0, f"MCTS lost game {seed} to random"


@pytest.mark.slow
def test_never_loses_tic_tac_toe_to_random_in_200_games(ttt):
    results = [play_game(ttt, ["mcts:iterations=300", "random"] if s % 2 == 0 else ["random", "mcts:iterations=300"],
                         seed=s).returns[s % 2] for s in range(200)]
    assert min(results) >= 0, f"{sum(r < 0 for r in results)} losses"


@pytest.mark.slow
def test_wins_nine_in_ten_connect_four_games_against_random():
    c4 = load_game("connect-four")
    wins = sum(play_game(c4, ["mcts:iterations=200", "random"] if s % 2 == 0 else ["random", "mcts:iterations=200"],
                         seed=s).returns[s % 2] > 0 for s in range(20))
    assert wins >= 18, f"{wins} wins in 20"


GAMBLE = """
ruleplay: 1
game: gamble
players: 2
state:
  pts: {per_player: true, init: "if p == 0 then 0 else 4"}
  faces: {init: "range(1, 7)"}
  done: {init: "false"}
flow: {phases: [{name: play, order: alternate, actions: [safe, gamble]}]}
actions:
  safe: {effects: "pts[0] = 4\\ndone = true"}
  gamble: {effects: "shuffle faces\\npts[0] = faces[0]\\ndone = true"}
end: [{when: done}]
scoring: {score: "pts[p]"}
"""


def test_a_shuffle_in_a_move_is_sampled_not_foreseen(make_game):
    """Seat 0 draws level with `safe`, or rolls a die by shuffling with `gamble` and wins on 5 or 6 only
    (a return of -1/3).  The search must not read the roll from the game's own generator: it gambled
    when that generator was about to roll 5 or 6 (in 4 of these 20 positions); now it never does."""
    game = make_game(GAMBLE)
    start = game.new_state(0)
    for rng in range(1, 400, 20):
        state = start.with_data(dict(start.data, rng=rng))
        assert str(make_agent("mcts:iterations=100", 1).choose(state)) == "safe", rng
