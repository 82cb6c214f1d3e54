"""perft counts: the move generator against known figures."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ruleplay import load_game
from ruleplay.cli import main
from ruleplay.runs import perft as perft_module
from ruleplay.runs.perft import perft, perft_table

# Move sequences of exactly d decisions (games that ended earlier excluded), d = 1..9.
TIC_TAC_TOE = [9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]


@pytest.mark.slow
def test_tic_tac_toe_perft_to_the_end():
    table = perft_table(load_game("tic-tac-toe").new_state(), 9)
    assert [r.nodes for r in table] == TIC_TAC_TOE
    assert table[-1].terminals == 255168  # every complete game of tic-tac-toe


def test_perft_and_perft_table_agree():
    state = load_game("tic-tac-toe").new_state()
    table = perft_table(state, 5)
    assert [r.nodes for r in table] == TIC_TAC_TOE[:5]  # the slow run counts to the end
    for depth in (1, 4, 5):
        single = perft(state, depth)
        assert (single.nodes, single.terminals) == (table[depth - 1].nodes, table[depth - 1].terminals)


def test_perft_counts_from_a_midgame_position():
    state = load_game("tic-tac-toe").new_state().apply("place(4)").apply("place(0)")
    assert perft(state, 1).nodes == 7
    assert perft(state, 2).nodes == 42


FORCED = """\
ruleplay: 1
game: forced
players: 1
state:
  total: {init: "0"}
flow:
  phases:
    - name: play
      actions: [step]
actions:
  step:
    effects: total += 1
end:
  - when: total >= 3000
limits:
  max_steps: 5000
"""


def test_a_line_longer_than_the_recursion_limit_is_counted(tmp_path):
    path = tmp_path / "forced.yaml"
    path.write_text(FORCED, encoding="utf-8")
    state = load_game(path).new_state()
    assert (perft(state, 3000).nodes, perft(state, 3000).terminals) == (1, 1)
    assert perft(state, 4000).nodes == 0  # the game ends first
    table = perft_table(state, 3000)
    assert (table[-1].nodes, table[-1].terminals, table[0].terminals) == (1, 1, 0)


def test_chance_nodes_are_expanded_without_using_depth():
    state = load_game("kuhn-poker").new_state()
    table = perft_table(state, 3)
    assert [r.nodes for r in table] == [perft(state, d).nodes for d in (1, 2, 3)]
    assert table[0].nodes > 0


def test_terminals_count_games_ended_within_the_depth_at_it_and_before():
    state = load_game("tic-tac-toe").new_state()
    table = perft_table(state, 6)
    # the first wins come at move 5; at depth 6 the games won at move 5 are still counted, and those at 6 too
    assert table[4].terminals == 1440 and table[5].terminals == 1440 + 5328


def test_progress_is_reported_while_counting_and_never_changes_the_counts(monkeypatch):
    monkeypatch.setattr(perft_module, "PROGRESS_EVERY", 100)
    seen: list[tuple[int, float]] = []
    result = perft(load_game("tic-tac-toe").new_state(), 4, progress=lambda states, share: seen.append((states, share)))
    assert (result.nodes, result.terminals) == (3024, 0)
    assert [states for states, _ in seen] == list(range(100, 3611, 100))  # 3610 states: 1 + 9 + 72 + 504 + 3024
    shares = [share for _, share in seen]
    assert shares == sorted(shares) and 0 <= shares[0] < shares[-1] < 1


def test_the_share_walked_is_exact_where_every_move_has_as_many_answers():
    """Every tic-tac-toe position at the same depth has as many moves: the estimate is the share of states."""
    walk = perft_module._Walk(load_game("tic-tac-toe").new_state(), 2)
    shares = [walk.share() for _ in walk]
    assert len(shares) == 1 + 9 + 72
    # after the first root move's subtree (1 + 8 states), each later root move starts one ninth further on
    assert [round(shares[1 + 9 * k], 9) for k in range(9)] == [round(k / 9, 9) for k in range(9)]


def test_a_quick_perft_command_prints_no_progress():
    result = CliRunner().invoke(main, ["perft", "tic-tac-toe", "--depth", "2"])
    assert result.stderr == "" and result.stdout.startswith("perft 2: 72 nodes, 0 terminal states (")


WIDE_ROLL = """\
ruleplay: 1
game: wide-roll
players: 1
state:
  x: {init: "0"}
flow:
  phases:
    - name: roll
      order: chance
      actions: [roll]
    - name: play
      actions: [stop]
actions:
  roll:
    chance: true
    params:
      a: "range(1500)"
    weight: "if a == 7 then 0 else 1"
    effects: x = a
  stop:
    effects: end_game
"""


def test_a_chance_node_too_wide_to_list_with_probabilities_is_still_counted_outcome_by_outcome(tmp_path):
    path = tmp_path / "wide-roll.yaml"
    path.write_text(WIDE_ROLL, encoding="utf-8")
    state = load_game(path).new_state()
    assert state.chance_outcomes() is None  # past game.max_chance_outcomes, 1000
    result = perft(state, 1)
    assert (result.nodes, result.terminals) == (1499, 1499)  # every outcome but the one of weight 0
