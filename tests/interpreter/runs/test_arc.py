"""The arc of a game: standings, leaders, lead changes, drama and when the lead settled."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from ruleplay import load_game
from ruleplay.engine.outcome import GameArc
from ruleplay.runs.arc import ArcRecorder, Judge, arc_of, leaders
from ruleplay.runs.play import play_game
from ruleplay.runs.workers import GameSpec, run_one

RULESETS = Path(__file__).resolve().parents[2] / "rulesets"


def test_leaders_are_the_seats_of_the_highest_standing_and_nobody_when_all_are_level():
    assert leaders([0.0, 0.0, 0.0]) == frozenset()
    assert leaders([1.0, -1.0]) == {0}
    assert leaders([0.5, 0.5, -1.0]) == {0, 1}


def test_lead_changes_pass_over_level_positions_and_the_first_lead_is_no_change():
    level, zero, one = [0.0, 0.0], [1.0, -1.0], [-1.0, 1.0]
    # level, 0 leads, level, 0 leads again (no change), 1 leads (change), 1 wins
    arc = arc_of([level, zero, level, zero, one, one], first_mover=0)
    assert arc.lead_changes == 1
    assert arc.settled_at == 4 / 5  # seat 1 leads from position 4 of 5 moves on
    assert arc.drama == pytest.approx((0 + 1 + 0 + 1 + 0) / 5)  # behind by the whole scale in two of five


def test_a_drawn_game_has_lead_changes_but_no_drama_and_no_settling():
    arc = arc_of([[1.0, -1.0], [-1.0, 1.0], [0.0, 0.0]], first_mover=1)
    assert arc == GameArc(1, 1, None, None)


def test_several_winners_settle_when_the_leaders_are_among_them():
    a, ab, c = [1.0, -0.5, -0.5], [0.5, 0.5, -1.0], [-0.5, -0.5, 1.0]
    arc = arc_of([c, a, ab, ab], first_mover=2)  # seats 0 and 1 win together
    assert arc.settled_at == 1 / 3 and arc.lead_changes == 2
    assert arc.drama == pytest.approx(((1 - (-0.5)) / 2 + (1 - (1 - 0.5) / 2) / 2 + 0) / 3)


def test_a_game_over_before_any_move_has_no_drama():
    assert arc_of([[1.0, -1.0]], None) == GameArc(None, 0, None, None)


def test_the_judge_is_the_first_heuristic_with_its_scale_or_else_the_scores():
    take = load_game(RULESETS / "take-race.yaml")
    judge = Judge.of(take)
    assert (judge.heuristic, judge.name) == ("lead", "lead")
    state = take.new_state(0).apply(take.parse_move("take(3)"))
    assert judge.standings(state) == [1.0, -1.0]  # no scale: only the order
    with pytest.raises(ValueError, match="take-race has no heuristic 'gold' \\(its heuristics: lead, modest\\)"):
        Judge.of(take, "gold")
    assert Judge.of(take, "modest").standings(state) == [-1.0, 1.0]
    scaled = Judge("lead", 2.0)
    # seat 0 stands at 3 by the heuristic and seat 1 at -3: a lead of 6, on a scale of 2
    assert scaled.standings(state) == pytest.approx([math.tanh(6 / 2), -math.tanh(6 / 2)])
    ttt = load_game("tic-tac-toe")
    assert Judge.of(ttt) == Judge(None, None) and Judge.of(ttt).name == "scores"


def test_scores_the_rules_give_only_at_the_end_leave_a_position_level():
    game = load_game(RULESETS / "pick-high.yaml")
    judge = Judge.of(game)
    state = game.new_state(0).apply(game.parse_move("pick(2)"))
    assert judge.standings(state) == [0.0, 0.0]  # seat 1's score is null before it picks
    over = state.apply(game.parse_move("pick(1)"))
    assert judge.standings(over) == [1.0, -1.0]  # judged by its returns


def test_the_first_mover_is_the_seat_of_the_first_decision_not_chance():
    game = load_game("kuhn-poker")
    recorder = ArcRecorder(Judge.of(game))
    play_game(game, ["random"], 3, watch=lambda state, record: recorder(state))
    assert recorder.first_mover == 0 and len(recorder.standings) >= 3  # the deal is chance's, then seat 0 acts


def test_a_batch_game_holds_its_arc_only_when_arcs_are_measured():
    game = load_game(RULESETS / "scripted-lead.yaml")
    plain = run_one(game, ["random"], 0, 0)
    measured = run_one(game, ["random"], 0, 0, judge=GameSpec("x", arcs=True).judge(game))
    assert plain.arc is None
    assert measured.arc == GameArc(0, 3, pytest.approx(1 / 3), pytest.approx(2 / 3))
    assert (plain.digest, plain.returns) == (measured.digest, measured.returns)  # judging changes no move
