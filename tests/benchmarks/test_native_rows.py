"""The native rows measure the games they name: the same games as the Python engine, OpenSpiel's own and `simulate`.

The handle's loop (`measure.action_playout`, the loop the OpenSpiel rows
drive too) is run here over a native handle and a Python engine state
stepped together, so any answer where the two differ fails at that move;
the batch plays the games of a `simulate` batch, move for move as many; the
workers of `against` and the probes of `startup` measure the native backend
of the current tree and say why an older one has none.  Nothing here is
timed: the settings are tiny.
"""

from __future__ import annotations

import io
import json
import random

import pytest
from native_support import native_of

from benchmarks import against, native, run, startup
from benchmarks.measure import action_playout, batch_chunks
from benchmarks.worker import serve
from ruleplay import load_game
from ruleplay.engine.native import NativeState
from ruleplay.engine.rng import Rng, seed_state
from ruleplay.runs.play import play_game


class Lockstep:
    """The handle row's state (`native.new_handle`) and a Python engine state of the same seed, stepped
    together; every answer must agree."""

    def __init__(self, module, rng: random.Random):
        self.game = module.game
        seed_rng = random.Random()
        seed_rng.setstate(rng.getstate())  # the seed new_handle draws
        self.handle = native.new_handle(module)(rng)
        self.state = self.game.new_state(seed_rng.getrandbits(32))
        self.moves = 0

    def is_terminal(self) -> bool:
        assert self.handle.is_terminal() == self.state.is_terminal(), self.state.history
        return self.state.is_terminal()

    def is_chance_node(self) -> bool:
        assert self.handle.current_player() == self.state.current_player, self.state.history
        return self.state.is_chance_node()

    def legal_actions(self) -> list[int]:
        actions = self.handle.legal_actions()
        assert actions == self.state.legal_actions(), self.state.history
        return actions

    def chance_outcomes(self) -> list[tuple[int, float]]:
        outcomes = self.handle.chance_outcomes()
        assert outcomes == [(self.game.move_to_index(m), p) for m, p in self.state.chance_outcomes()]
        return outcomes

    def apply_action(self, action: int) -> None:
        self.handle.apply_action(action)
        self.state = self.state.apply(self.game.index_to_move(action))
        self.moves += 1


@pytest.mark.parametrize(("game_name", "variant", "games"), [
    ("tic-tac-toe", None, 30), ("connect-four", None, 10), ("nautilus-cards", "seed-only", 3), ("kuhn-poker", None, 30)])
def test_the_handle_rows_play_the_python_engines_games(game_name, variant, games):
    module = native_of(load_game(game_name, variant=variant))
    made: list[Lockstep] = []
    play = action_playout(lambda rng: made.append(Lockstep(module, rng)) or made[-1])
    rng = random.Random(0)
    for _ in range(games):
        moves = play(rng)
        both = made[-1]
        assert moves == both.moves > 0
        assert both.handle.returns() == both.state.returns()
        assert both.handle.to_state() == both.state


@pytest.mark.parametrize(("game_name", "spiel_name"), [("tic-tac-toe", "tic_tac_toe"), ("connect-four", "connect_four")])
def test_openspiels_own_game_and_the_handle_number_the_same_moves_alike(game_name, spiel_name):
    """So the OpenSpiel rows compare one game: the same legal actions after every move, and the same returns."""
    pyspiel = pytest.importorskip("pyspiel")
    module = native_of(load_game(game_name))
    for seed in range(20):
        rng = random.Random(seed)
        ours, theirs = NativeState.new(module, seed), pyspiel.load_game(spiel_name).new_initial_state()
        while not theirs.is_terminal():
            assert not ours.is_terminal() and ours.legal_actions() == theirs.legal_actions()
            action = rng.choice(theirs.legal_actions())
            ours.apply_action(action)
            theirs.apply_action(action)
        assert ours.is_terminal() and ours.returns() == theirs.returns()


def test_the_native_row_plays_the_games_of_a_simulate_batch():
    game = load_game("connect-four")
    play_batch = native.batch_player(native_of(game))
    seeds = Rng(seed_state(native.BATCH_SEED))
    lengths = [play_game(game, ["random"], seeds.derive(k), in_place=True).length for k in range(16)]
    assert play_batch(0, 12) == (12, sum(lengths[:12]))
    chunk, first = batch_chunks(play_batch, most=5), 0
    for _ in range(3):  # each chunk goes on from the last
        games, moves = chunk()
        assert 1 <= games <= 5 and moves == sum(lengths[first:first + games])
        first += games


def test_a_perft_the_native_module_gives_up_on_is_not_reported_as_native(monkeypatch):
    """`perft(..., native=)` would count such a tree on the Python engine: the native row must not claim it."""
    import ruleplay.engine.native as backend

    native_of(load_game("tic-tac-toe"))
    monkeypatch.setattr(backend, "perft_counts", lambda *args: None)
    row = run.perft_rates("tic-tac-toe", 1, 0.01)
    assert list(row["rates"]) == ["baseline", "engine"]
    assert row["not_measured"] == {"native": "the native module gives up within depth 5 (the Python engine would "
                                             "count it)"}


def test_a_worker_measures_the_native_backend_on_request():
    import ruleplay

    key = {"game": "tic-tac-toe", "players": None, "variant": None, "backend": "native"}
    native_of(load_game("tic-tac-toe"))
    replies = io.StringIO()
    serve(ruleplay, [json.dumps({"op": "load", **key}), json.dumps({"op": "sample", "seconds": 0.01, **key}),
                     json.dumps({"op": "perft", "depth": 4, "seconds": 0.01, **key})], replies)
    loaded, sampled, counted = (json.loads(line) for line in replies.getvalue().splitlines())
    assert loaded["backend"] == "native" and loaded["native_cpu_seconds"] >= 0 and loaded["native_wall_seconds"] > 0
    assert sampled["playouts"] >= 1 and sampled["moves"] >= sampled["playouts"] * 5  # no game ends in under 5
    assert counted["nodes"] == 3024 and counted["runs"] >= 1


def test_a_worker_without_a_native_backend_says_so_and_carries_on(monkeypatch):
    import ruleplay

    def no_tree_native(game):
        raise native.NoNative("this tree has no native backend")

    monkeypatch.setattr(native, "module_of", no_tree_native)
    key = {"game": "tic-tac-toe", "players": None, "variant": None}
    replies = io.StringIO()
    serve(ruleplay, [json.dumps({"op": "load", **key, "backend": "native"}), json.dumps({"op": "load", **key})],
          replies)
    refused, loaded = (json.loads(line) for line in replies.getvalue().splitlines())
    assert refused == {"error": "NoNative: this tree has no native backend"}
    assert loaded["backend"] == "python"


@pytest.mark.skipif(not (against.ROOT / ".git").exists(), reason="needs a git checkout")
def test_against_plays_the_current_tree_natively_and_counts_its_perfts_there(monkeypatch):
    native_of(load_game("tic-tac-toe"))
    monkeypatch.setattr(against, "PERFT_GAMES", [("tic-tac-toe", 4), ("connect-four", 3)])
    result = against.compare("HEAD", pairs=1, seconds=0.02, games=[("tic-tac-toe", None)], backend="native",
                             perft=True)
    (row,) = result["rows"]
    assert result["backend"] == "native" and row["ratio"] > 0
    assert row["samples"]["reference"][0]["playouts"] < row["samples"]["current"][0]["playouts"]  # ~80 times
    assert [(p["game"], p["nodes"]) for p in result["perft"]] == [("tic-tac-toe", 3024), ("connect-four", 343)]
    assert "current (native)" in against.report(result)


def test_a_cached_native_load_is_probed_in_a_fresh_process():
    native_of(load_game("tic-tac-toe"))  # built (or found) in this user's cache, where the probe finds it
    figures = startup._probe(startup.ROOT, "tic-tac-toe", "cached")
    assert figures["import"] > 0 and figures["load"] > 0
    assert set(figures) == {"import", "load", "native"} and figures["native"]["cpu"] > 0


def test_the_startup_report_shows_a_tree_without_native_loads_and_a_game_without_a_module():
    spread = {"min": 0.01, "median": 0.02}
    first = {"runtime": {"cpu": 2.0, "wall": 5.0}, "module": {"cpu": 0.5, "wall": 1.0}, "cpu": 2.5, "wall": 6.0}
    results = {"abc1234": {"runs": 1, "import": spread, "load": {"tic-tac-toe": spread}},
               "current": {"runs": 1, "import": spread, "load": {"tic-tac-toe": spread, "kuhn-poker": spread},
                           "native": {"tic-tac-toe": {"first": first, "cached": spread},
                                      "kuhn-poker": {"error": "no compiler\nmore"}}}}
    text = startup.report(results)
    assert "+ native tic-tac-toe (cached)" in text and "kuhn-poker" in text
    assert "      2.00 ( 5.00)      0.50 ( 1.00)      2.50 ( 6.00)" in text
    assert "not measured: no compiler\n" in text + "\n"


@pytest.mark.slow
def test_startup_builds_each_native_module_in_an_empty_cache_then_loads_it_from_there():
    native_of(load_game("tic-tac-toe"))
    result = startup.measure(startup.ROOT, 1, games=["tic-tac-toe"])
    figures = result["native"]["tic-tac-toe"]
    assert figures["first"]["runtime"]["cpu"] > 0.1 and figures["first"]["module"]["cpu"] > 0.1  # the compiler ran
    assert figures["cached"]["min"] < figures["first"]["module"]["cpu"]


@pytest.mark.slow
def test_the_optimisation_levels_are_compiled_and_measured_apart():
    native_of(load_game("tic-tac-toe"))
    result = startup.opt_levels(1, 0.02, levels=["-O0", startup.DEFAULT_OPT], games=[("tic-tac-toe", None)])
    (row,) = result["rows"]
    assert list(row["levels"]) == ["-O0", "default"] and row["levels"]["default"]["ratio"] == 1  # the reference
    assert all(cpu > 0.1 for cpu in result["runtime_cpu"].values())  # each level compiled its own runtime
    assert all(f["module_cpu"] > 0.1 and f["playouts_per_s"] > 0 for f in row["levels"].values())
    assert "tic-tac-toe     -O0" in startup.opt_report(result)


def test_search_rows_decide_alike_on_both_backends_and_count_the_iterations(monkeypatch, capsys):
    from benchmarks import search
    from benchmarks.__main__ import main

    native_of(load_game("connect-four"))
    monkeypatch.setattr(search, "ROWS", (("connect-four", None, "mcts:iterations=7"),))
    monkeypatch.setattr(search, "POSITIONS", (2, 5))
    assert main(["search", "--pairs", "1", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["positions"] == 4 and row["python_per_s"] > 0 and row["native_per_s"] > 0
    states = search.positions(load_game("connect-four"))
    python = search.decide(states, "mcts:iterations=7", "python")
    assert python.iterations == 28 and python.moves == search.decide(states, "mcts:iterations=7", "native").moves


def test_a_search_row_whose_backends_disagree_fails(monkeypatch):
    from benchmarks import search

    native_of(load_game("tic-tac-toe"))
    monkeypatch.setattr(search, "POSITIONS", (1,))
    real = search.decide
    monkeypatch.setattr(search, "decide", lambda states, spec, backend: real(
        states, spec.replace("iterations=5", "iterations=40") if backend == "native" else spec, backend))
    with pytest.raises(search.Disagreement):
        search.measure("tic-tac-toe", None, "mcts:iterations=5", 1)
