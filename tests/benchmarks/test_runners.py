"""The runners measure what they say: both contenders, alternately, and an older commit from its own files."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys

import pytest
from native_support import native_of

from benchmarks import against, measure, native, run, states
from benchmarks.__main__ import SEED_GAME_NAMES, against_games, main
from benchmarks.measure import WARM_UP_SEED, alternate, warm_up
from benchmarks.worker import serve
from ruleplay import load_game


def test_alternate_takes_turns_and_reverses_the_order_every_other_pair():
    calls = []
    out = alternate({"a": lambda: calls.append("a") or 1, "b": lambda: calls.append("b") or 2}, 4)
    assert calls == ["a", "b", "b", "a", "a", "b", "b", "a"]
    assert out == {"a": [1] * 4, "b": [2] * 4}


def test_the_warm_up_game_has_a_generator_of_its_own():
    drawn = []
    warm_up(lambda rng: drawn.append(rng.random()) or 1)
    assert drawn == [random.Random(WARM_UP_SEED).random()]


def test_a_worker_plays_a_game_before_any_is_timed(monkeypatch):
    """The generated listings are made on first use: the first timed game must not pay for them."""
    import io

    import ruleplay
    loaded = []
    monkeypatch.setattr(ruleplay, "load_game", lambda *key: loaded.append(load_game(*key)) or loaded[-1])
    replies = io.StringIO()
    serve(ruleplay, [json.dumps({"op": "load", "game": "tic-tac-toe", "players": None, "variant": None})], replies)
    assert "error" not in json.loads(replies.getvalue())
    assert "place" in loaded[0].model.listings._made  # made by the warm-up game, before the answer


def test_run_reports_each_contender_against_its_reference(capsys):
    pytest.importorskip("pyspiel")  # the OpenSpiel rows (the rl extra)
    native_of(load_game("tic-tac-toe"))  # the native rows need a module (skipped where none can be built)
    assert main(["run", "--games", "tic-tac-toe", "--pairs", "1", "--seconds", "0.05", "--perft", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (row,) = data["playouts"]
    assert list(row["rates"]) == ["baseline", "engine", "native", "handle"] and row["not_measured"] == {}
    for name, figures in row["rates"].items():
        assert row["ratios"][name] == pytest.approx(figures["playouts_per_s"] / row["rates"]["baseline"]["playouts_per_s"])
        assert figures["us_per_move"] > 0 and len(row["samples"][name]) == 1
    (spiel,) = data["openspiel"]
    # the C++ game needs a C++ compiler (CI installs one): where there is none, it is listed with the reason
    assert set(spiel["not_measured"]) <= {"adapter"} and (not spiel["not_measured"] or not os.environ.get("CI"))
    assert list(spiel["rates"]) == [name for name in ("openspiel", "handle", "adapter", "adapter_pygame",
                                                      "adapter_python") if name not in spiel["not_measured"]]
    assert spiel["ratios"]["openspiel"] == 1
    (perft,) = data["perft"]
    assert perft["nodes"] == 15120 and list(perft["rates"]) == ["baseline", "engine", "native"]
    assert all(s["nodes"] == 15120 and s["runs"] >= 1 for v in perft["samples"].values() for s in v)


def test_run_prints_a_table_per_comparison(monkeypatch, capsys):
    monkeypatch.setattr(native, "module_of", _no_native)
    assert main(["run", "--games", "tic-tac-toe", "--pairs", "1", "--seconds", "0.02"]) == 0
    text = capsys.readouterr().out
    assert "random playouts per CPU-second (ratio: over the hand-written game)" in text
    assert "in OpenSpiel's loop (ratio: over OpenSpiel's own game)" in text
    assert re.search(r"\n {36}native module +not measured: no compiler here\n", text)
    assert "perft" not in text  # only with --perft


def _no_native(game):
    raise native.NoNative("no compiler here")


def test_a_contender_that_cannot_be_measured_says_why(monkeypatch):
    monkeypatch.setattr(native, "module_of", _no_native)
    row = run.playouts("tic-tac-toe", 1, 0.02)
    assert list(row["rates"]) == ["baseline", "engine"]
    assert row["not_measured"] == {"native": "no compiler here", "handle": "no compiler here"}
    perft = run.perft_rates("tic-tac-toe", 1, 0.02)
    assert list(perft["rates"]) == ["baseline", "engine"] and perft["not_measured"] == {"native": "no compiler here"}


def test_without_pyspiel_the_openspiel_rows_say_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # `import pyspiel` fails as where it is not installed
    row = run.spiel("kuhn-poker", 1, 0.02)
    assert row["rates"] == {} and set(row["not_measured"].values()) == {run.NO_PYSPIEL}
    assert "pyspiel is not installed" in run.report([], [row], [])


def test_perft_disagreement_is_an_error(monkeypatch):
    monkeypatch.setattr(run, "perft", lambda state, depth: 1)
    with pytest.raises(run.Disagreement, match="baseline counted \\[1\\], engine counted \\[15120\\]"):
        run.perft_rates("tic-tac-toe", 1, 0.01)


def test_a_perft_count_is_made_again_until_the_time_is_up_and_must_not_change():
    made = iter([7, 7, 7])
    measured = measure.perft_sample(lambda: next(made), 0.0)
    assert (measured.nodes, measured.runs) == (7, 1)
    counts = iter([7, 8])
    with pytest.raises(measure.CountChanged, match="7 nodes, then 8"):
        measure.perft_sample(lambda: next(counts), 60.0)


def test_batch_chunks_go_on_where_the_last_one_stopped_and_last_about_their_aim(monkeypatch):
    asked, clock = [], [0.0]
    monkeypatch.setattr(measure.time, "process_time", lambda: clock[0])

    def play_batch(first: int, count: int) -> tuple[int, int]:  # each game takes 2 ms
        asked.append((first, count))
        clock[0] += 0.002 * count
        return count, 3 * count

    chunk = measure.batch_chunks(play_batch, most=4)
    assert [chunk(), chunk(), chunk()] == [(1, 3), (4, 12), (4, 12)]
    assert asked == [(0, 1), (1, 4), (5, 4)]  # 10 ms is 5 games: capped at `most`
    chunk = measure.batch_chunks(play_batch)
    assert [chunk()[0] for _ in range(3)] == [1, 5, 5]


def test_a_bad_option_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["run", "--seconds", "inf"])
    assert stop.value.code == 2 and "inf is not a number of seconds > 0" in capsys.readouterr().err


def test_against_takes_the_seed_games_at_their_counts_and_any_other_built_in_game_at_its_default():
    assert against_games(["tic-tac-toe", "lovci-pokladu"]) == [("lovci-pokladu", 2), ("lovci-pokladu", 4),
                                                             ("tic-tac-toe", None)]
    assert against_games(SEED_GAME_NAMES) == against.SEED_GAMES
    with pytest.raises(SystemExit):
        main(["against", "--games", "no-such-game"])


NOT_A_CHECKOUT = pytest.mark.skipif(not (against.ROOT / ".git").exists(), reason="needs a git checkout")


@pytest.mark.slow  # two checkouts of the repository measured: some ten seconds
@NOT_A_CHECKOUT
def test_against_measures_each_tree_from_its_own_files_and_removes_the_checkout():
    before = subprocess.run(["git", "-C", str(against.ROOT), "worktree", "list"], capture_output=True, text=True).stdout
    result = against.compare("HEAD", pairs=1, seconds=0.05, games=[("nautilus-cards", None)])
    assert [(r["game"], r["variant"]) for r in result["rows"]] == [
        ("nautilus-cards", None), ("nautilus-cards", "no-crab-exception"), ("nautilus-cards", "seed-only")]
    for row in result["rows"]:  # each worker checked that its ruleplay came from its own tree (Worker.ask)
        assert all(row["samples"][tree][0]["playouts"] >= 1 for tree in ("reference", "current"))
        assert row["ratio"] > 0
    after = subprocess.run(["git", "-C", str(against.ROOT), "worktree", "list"], capture_output=True, text=True).stdout
    assert after == before


@NOT_A_CHECKOUT
def test_against_names_a_commit_it_cannot_check_out(capsys):
    assert main(["against", "no-such-commit", "--games", "nautilus-cards", "--pairs", "1"]) == 1
    assert "cannot check out no-such-commit" in capsys.readouterr().err


def test_states_measures_every_state_of_the_games_it_plays(monkeypatch, capsys):
    monkeypatch.setattr(states, "GAMES", [("nautilus-cards", 2)])
    assert main(["states", "--games", "1", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    state, rng, count = load_game("nautilus-cards", players=2).new_state(seed=0), random.Random(0), 0
    while not state.is_terminal():
        count += 1
        state = state.apply_chance() if state.is_chance_node() else state.apply(rng.choice(state.legal_moves()))
    assert row["states"] == count
    assert row["json_bytes"]["median"] <= row["json_bytes"]["max"]
    assert row["under_limit"] == (row["json_bytes"]["max"] < 20 * 1024)
    assert row["copy_us"] > 0 and row["move_us"] > 0 and row["copy_per_move"]["median"] > 0


def test_the_soak_checks_every_state_and_reports_a_failed_check_as_a_finding(monkeypatch, capsys):
    from benchmarks import soak

    assert main(["soak", "--games", "4", "--rulesets", "tic-tac-toe", "kuhn-poker", "--backend", "python",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["games"] == 4 and report["findings"] == [] and report["backends"] == ["python"]
    assert set(report["configurations"]) == {"python: tic-tac-toe 2p", "python: kuhn-poker 2p"}
    assert sum(c["games"] for c in report["configurations"].values()) == 4
    assert report["states"] == sum(c["states"] for c in report["configurations"].values()) > 4
    assert report["twins"]["tested"] > 0  # kuhn-poker hides the other hand: the leak check compared twins

    def fails_at_the_third_state(state):
        assert len(state.history) != 2, "a copy shares a list"

    monkeypatch.setattr(soak, "check_copy", fails_at_the_third_state)
    assert main(["soak", "--games", "1", "--rulesets", "tic-tac-toe", "--seed", "5", "--backend", "python"]) == 1
    text = capsys.readouterr().out
    assert "findings: 1" in text
    seed = soak.game_seed(5, 0)
    assert f"python: tic-tac-toe 2p, seed {seed}, at state 2: AssertionError: a copy shares a list" in text
    assert f"replay: ruleplay play tic-tac-toe --players 2 --agents random --seed {seed}" in text


def test_the_native_soak_holds_every_state_to_the_python_engines(monkeypatch, capsys):
    """Both backends by default; a native game that differs from the Python engine's anywhere is a finding
    naming the state: the module's chance outcomes out of order, or a whole game's scores of another type."""
    from benchmarks import soak

    for name in ("tic-tac-toe", "kuhn-poker"):
        native_of(load_game(name))  # skipped where no module can be built
    assert main(["soak", "--games", "6", "--rulesets", "tic-tac-toe", "kuhn-poker", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["findings"] == [] and report["backends"] == ["python", "native"]
    assert {k: c["games"] > 0 for k, c in report["configurations"].items()} == {
        f"{b}: {g} 2p": True for b in ("python", "native") for g in ("tic-tac-toe", "kuhn-poker")}

    real_outcomes = soak.NativeState.chance_outcomes
    monkeypatch.setattr(soak.NativeState, "chance_outcomes", lambda self: real_outcomes(self)[::-1])
    assert main(["soak", "--games", "1", "--rulesets", "kuhn-poker", "--backend", "native", "--seed", "3"]) == 1
    text = capsys.readouterr().out
    assert f"native: kuhn-poker 2p, seed {soak.game_seed(3, 0)}, at state 0: AssertionError" in text
    monkeypatch.undo()

    real_playout = soak.playout

    def scores_as_floats(*args):
        played = real_playout(*args)
        played.scores = [float(s) for s in played.scores]
        return played

    monkeypatch.setattr(soak, "playout", scores_as_floats)
    assert main(["soak", "--games", "1", "--rulesets", "tic-tac-toe", "--backend", "native"]) == 1
    text = capsys.readouterr().out
    assert f"native: tic-tac-toe 2p, seed {soak.game_seed(0, 0)}, at the end: AssertionError: a score of another " \
           f"type" in text
