"""Simulations: results fixed by the seed alone, wins and draws tallied, rule errors reported."""

from __future__ import annotations

import multiprocessing
import os
import signal
import tracemalloc
from pathlib import Path

import pytest

from ruleplay import StepLimitError, load_game
from ruleplay.engine.errors import WorkerLostError
from ruleplay.engine.outcome import is_draw, winning_seats
from ruleplay.engine.loader import builtin_games
from ruleplay.runs.play import game_seed, play_game
from ruleplay.runs.simulate import GameSpec, simulate

TTT = GameSpec("tic-tac-toe")


def looping_ruleset(tmp_path: Path) -> Path:
    """Tic-tac-toe with a step limit below any game's length: every game hits it."""
    text = builtin_games()["tic-tac-toe"].read_text(encoding="utf-8")
    text = "\n".join(line for line in text.splitlines() if not line.startswith("spec:"))
    path = tmp_path / "short.yaml"
    path.write_text(text + "\nlimits:\n  max_steps: 3\n", encoding="utf-8")
    return path


def test_workers_do_not_change_any_game():
    one = simulate(TTT, 12, seed=4, agents=["random"], workers=1)
    two = simulate(TTT, 12, seed=4, agents=["random"], workers=2)
    assert two.workers == 2
    assert one.outcomes == two.outcomes
    assert (one.wins, one.draws, one.mean_length) == (two.wins, two.draws, two.mean_length)


def test_game_i_depends_on_the_seed_and_i_only():
    short = simulate(TTT, 4, seed=9, agents=["random"])
    long = simulate(TTT, 10, seed=9, agents=["random"])
    assert long.outcomes[:4] == short.outcomes
    other = simulate(TTT, 4, seed=10, agents=["random"])
    assert [o.digest for o in other.outcomes] != [o.digest for o in short.outcomes]


def test_each_outcome_is_the_game_play_game_plays_with_its_seed():
    game = load_game("tic-tac-toe")
    report = simulate(TTT, 5, seed=2, agents=["greedy", "random"])
    for outcome in report.outcomes:
        assert outcome.seed == game_seed(2, outcome.index)
        result = play_game(game, ["greedy", "random"], outcome.seed)
        assert (outcome.length, list(outcome.returns)) == (result.length, result.returns)


def test_tally_counts_wins_draws_and_rates():
    report = simulate(TTT, 30, seed=1, agents=["random"])
    assert report.games == report.completed == 30 and not report.errors
    wins = [sum(seat in winning_seats(o.returns) for o in report.outcomes) for seat in range(2)]
    draws = sum(is_draw(o.returns) for o in report.outcomes)
    assert report.wins == wins and report.draws == draws
    assert sum(report.wins) + report.draws == 30  # two players: a game has one winner or is a draw
    assert report.win_rate == [w / 30 for w in wins]
    assert report.mean_length == sum(o.length for o in report.outcomes) / 30
    assert report.playouts_per_s > 0
    summary = report.to_dict()
    assert {"games", "wins", "draws", "win_rate", "mean_length", "run", "errors", "statistics"} <= set(summary)
    assert summary["run"]["playouts_per_s"] == report.playouts_per_s  # timing, backend and workers: under `run`


def test_rule_errors_are_reported_with_index_and_seed(tmp_path):
    path = looping_ruleset(tmp_path)
    report = simulate(GameSpec(str(path)), 3, seed=0, agents=["random"])
    assert report.completed == 0
    assert [(e.index, e.seed, e.code) for e in report.errors] == [(i, game_seed(0, i), "RP504") for i in range(3)]
    assert "passed 3 moves without ending" in report.errors[0].message
    assert report.win_rate == [0.0, 0.0] and report.mean_length == 0.0
    with pytest.raises(StepLimitError):  # the reported seed reproduces the error
        play_game(load_game(path), ["random"], report.errors[1].seed)


def test_end_conditions_are_tallied():
    report = simulate(TTT, 40, seed=3, agents=["random"])
    assert sum(report.ended_by.values()) == 40
    assert set(report.ended_by) <= {"TT-3.1", "TT-3.2"}  # a line, or a full board
    assert report.ended_by.get("TT-3.2", 0) == report.draws  # only a full board without a line is a draw


def sorted_lines(path: Path) -> list[str]:
    return sorted(path.read_text(encoding="utf-8").splitlines())


class Interrupt:
    """A progress callback that presses Ctrl-C once `after` games have finished."""

    def __init__(self, after: int):
        self.after, self.seen = after, 0

    def __call__(self, k: int) -> None:
        self.seen += k
        if self.seen >= self.after:
            raise KeyboardInterrupt


@pytest.mark.parametrize("workers", [1, 2])
def test_an_interrupted_run_resumes_to_the_lines_of_an_uninterrupted_one(tmp_path, workers):
    whole, cut = tmp_path / "whole.jsonl", tmp_path / "cut.jsonl"
    reference = simulate(TTT, 60, seed=5, out=whole)
    with pytest.raises(KeyboardInterrupt):
        simulate(TTT, 60, seed=5, workers=workers, progress=Interrupt(25), out=cut)
    kept = len(cut.read_text().splitlines()) - 1
    assert 25 <= kept < 60
    resumed = simulate(TTT, 60, seed=5, workers=workers, out=cut, resume=True)
    assert resumed.resumed == kept
    assert sorted_lines(cut) == sorted_lines(whole)
    assert resumed.outcomes == reference.outcomes
    assert (resumed.wins, resumed.draws, resumed.ended_by) == (reference.wins, reference.draws, reference.ended_by)


class KillAWorker:
    """A progress callback that SIGKILLs one worker process once `after` games have finished."""

    def __init__(self, after: int):
        self.after, self.seen, self.killed = after, 0, None

    def __call__(self, k: int) -> None:
        self.seen += k
        if self.killed is None and self.seen >= self.after:
            self.killed = multiprocessing.active_children()[0].pid
            os.kill(self.killed, signal.SIGKILL)


def test_a_dead_worker_stops_the_run_instead_of_hanging_it(tmp_path):
    whole, cut = tmp_path / "whole.jsonl", tmp_path / "cut.jsonl"
    simulate(TTT, 1200, seed=2, out=whole)
    killer = KillAWorker(after=50)
    with pytest.raises(WorkerLostError, match=r"worker process \d+ died"):
        simulate(TTT, 1200, seed=2, workers=2, progress=killer, out=cut)
    assert killer.killed is not None
    simulate(TTT, 1200, seed=2, workers=2, out=cut, resume=True)
    assert sorted_lines(cut) == sorted_lines(whole)


def test_resuming_a_finished_run_plays_nothing(tmp_path):
    path = tmp_path / "r.jsonl"
    simulate(TTT, 10, seed=1, out=path)
    before = path.read_bytes()
    report = simulate(TTT, 10, seed=1, out=path, resume=True)
    assert report.resumed == 10 and report.games == 10
    assert path.read_bytes() == before


def test_rule_errors_are_kept_in_the_results_file(tmp_path):
    ruleset, path = looping_ruleset(tmp_path), tmp_path / "r.jsonl"
    simulate(GameSpec(str(ruleset)), 2, out=path)
    again = simulate(GameSpec(str(ruleset)), 2, out=path, resume=True)
    assert [e.code for e in again.errors] == ["RP504", "RP504"] and again.resumed == 2


def test_outcome_rules():
    assert winning_seats([1.0, -1.0]) == [0]
    assert winning_seats([0.5, 0.5, -1.0]) == [0, 1]
    assert winning_seats([0.0, 0.0]) == [] and is_draw([0.0, 0.0])
    assert is_draw([0.0])  # a one-player game is never "won"
    assert not is_draw([1.0, 0.0, 1.0])


def test_bad_arguments():
    with pytest.raises(ValueError):
        simulate(TTT, 2, agents=["random", "random", "random"])
    with pytest.raises(ValueError):
        simulate(TTT, 2, workers=0)


def peak_memory(run) -> int:
    """Peak bytes Python allocated while `run()` ran."""
    tracemalloc.start()
    try:
        run()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


def interrupted(after: int, **kwargs) -> None:
    with pytest.raises(KeyboardInterrupt):
        simulate(TTT, 10 ** 7, seed=1, progress=Interrupt(after), **kwargs)


def test_a_huge_batch_streams_instead_of_listing_its_games(tmp_path):
    """Ten million games are not listed up front: the first ones start at once, in little memory.

    (A list of their indices alone would take some 360 MB; loading the game takes a few.)
    """
    assert peak_memory(lambda: interrupted(3, keep_outcomes=False)) < 10_000_000
    out = tmp_path / "r.jsonl"
    interrupted(3, out=out)
    # A resume keeps one bit per game (1.25 MB here) and reads the file line by line.
    assert peak_memory(lambda: interrupted(6, out=out, resume=True, keep_outcomes=False)) < 10_000_000
    assert len(out.read_text().splitlines()) == 1 + 6


def test_outcomes_are_kept_only_when_asked_for():
    kept = simulate(TTT, 8, seed=6)
    tallied = simulate(TTT, 8, seed=6, keep_outcomes=False)
    assert [o.index for o in kept.outcomes] == list(range(8)) and tallied.outcomes == []
    assert kept.to_dict() | {"run": None} == tallied.to_dict() | {"run": None}  # all but the timing


def test_only_the_first_failures_are_listed_but_all_are_counted(tmp_path, monkeypatch):
    monkeypatch.setattr("ruleplay.runs.simulate.MAX_ERRORS_KEPT", 2)
    report = simulate(GameSpec(str(looping_ruleset(tmp_path))), 5, seed=0, workers=2)
    assert report.failed == 5 and report.completed == 0
    assert [e.index for e in report.errors] == [0, 1]  # the lowest indices, whatever order games finished in
    assert report.to_dict()["failed"] == 5


def test_end_conditions_are_listed_in_a_fixed_order():
    one = simulate(TTT, 40, seed=3, workers=1)
    two = simulate(TTT, 40, seed=3, workers=2)
    assert list(one.ended_by.items()) == list(two.ended_by.items())
    assert list(one.ended_by.values()) == sorted(one.ended_by.values(), reverse=True)


def test_search_agents_count_as_agents_the_native_backend_takes():
    """mcts and ismcts search in the module, so `native` takes them; greedy plays on the Python engine, so `native`
    refuses it (RP670) and `auto` says why it plays on Python."""
    from ruleplay.engine.native import NativeUnavailable
    from ruleplay.runs.play import plays_on

    game = load_game("connect-four")
    assert plays_on(game, "native", ["mcts:iterations=5", "ismcts", "random"], judged=True).name == "native"
    with pytest.raises(NativeUnavailable, match="greedy"):
        plays_on(game, "native", ["mcts", "greedy"])
    assert "greedy" in plays_on(game, "auto", ["mcts", "greedy"]).why_not
    assert plays_on(game, "python", ["mcts"]).name == "python"
