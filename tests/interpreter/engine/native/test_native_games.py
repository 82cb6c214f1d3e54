"""Games played natively are the games the Python engine plays: move for move, state for state.

Three views of the same claim, over the built-in games and the test-only
rulesets (all of them, with every player count and variant, in the slow
run; a spread of them in the default run):

- whole random playouts: the same moves, fired rules, end, scores and
  returns as `play_game`, and the recorded digests of `simulate`;
- lockstep games through the native handle: after every move the same
  legal actions, the same state data (through the exact conversion, types
  included), the same rules fired;
- perft: the same counts;
- the arcs of judged games (`compare`, `analyze`): each position judged by
  the same values.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import loaded
import pytest

from ruleplay import load_game
from ruleplay.engine.loader import builtin_games
from ruleplay.engine.native import playout
from ruleplay.runs.perft import perft_table
from ruleplay.runs.play import agent_seed, game_seed, play_game
from ruleplay.runs.simulate import simulate
from ruleplay.runs.arc import Judge
from ruleplay.runs.workers import GameSpec, _run_native, run_one

from native_support import lockstep, native_of

TEST_RULESETS = Path(__file__).resolve().parents[3] / "rulesets"
DIGESTS = json.loads((Path(__file__).resolve().parents[3] / "data" / "playout-digests.json").read_text())
QUICK = ["tic-tac-toe/2/base", "connect-four/2/base", "kuhn-poker/2/base", "nautilus-cards/2/base",
         "nautilus/3/base", "lovci-pokladu/2/base"]


def configurations() -> list[str]:
    """name/players/variant of every built-in configuration and every test ruleset's."""
    out = []
    for ruleset in [*builtin_games(), *(str(p) for p in sorted(TEST_RULESETS.glob("*.yaml")))]:
        info = loaded.game(ruleset).info  # the models other modules load too, loaded once
        for variant in (None, *info.variants):
            vinfo = loaded.game(ruleset, variant=variant).info
            for players in range(vinfo.min_players, vinfo.max_players + 1):
                out.append(f"{ruleset}/{players}/{variant or 'base'}")
    return out


def _params(configs: list[str]) -> list:
    quick = {c for c in configs if c in QUICK or c.endswith(("take-race.yaml/2/base", "track-race.yaml/2/base",
                                                               "go-fish-lite.yaml/3/base", "othello.yaml/2/base",
                                                               "fallbacks.yaml/2/base"))}
    return [pytest.param(c, id=Path(c.split("/")[0]).stem + "/" + "/".join(c.rsplit("/", 2)[1:]),
                         marks=() if c in quick else pytest.mark.slow) for c in configs]


CONFIGS = _params(configurations())


def _load(config: str):
    ruleset, players, variant = config.rsplit("/", 2)
    return load_game(ruleset, int(players), None if variant == "base" else variant)


@pytest.mark.parametrize("config", CONFIGS)
def test_random_playouts_are_the_python_engines(config):
    game = _load(config)
    ng = native_of(game)
    for index in range(12):
        seed = game_seed(5, index)
        native = playout(ng, [0] * game.info.players, [agent_seed(seed, k) for k in range(game.info.players)], seed)
        python = play_game(game, ["random"], seed)
        assert native.moves == python.moves
        assert native.fired == dict(Counter(rule for record in python.records for rule in record.rules))
        assert native.ended_by == python.ended_by
        assert native.returns == python.returns
        assert native.scores == python.scores
        assert [type(s) for s in native.scores] == [type(s) for s in python.scores]  # 3 is not 3.0
        assert not native.handed_over, "a built-in game should never need the Python engine"


@pytest.mark.parametrize("config", [pytest.param(c, marks=() if c in QUICK else pytest.mark.slow)
                                    for c in sorted(DIGESTS["digests"])])
def test_simulate_natively_plays_the_recorded_games(config):
    name, players, variant = config.split("/")
    spec = GameSpec(name, int(players), None if variant == "base" else variant, backend="native")
    native_of(spec.load())
    games = DIGESTS["games"] if config not in QUICK else 40
    report = simulate(spec, games, seed=DIGESTS["seed"], workers=1)
    assert report.backend == "native"
    assert [o.digest for o in sorted(report.outcomes, key=lambda o: o.index)] == DIGESTS["digests"][config][:games]


@pytest.mark.parametrize("config", CONFIGS)
def test_arcs_judged_natively_are_the_python_engines(config):
    """Each position judged in the module, by the scores and by every heuristic, makes the arc `compare` and
    `analyze` measure on the Python engine: the same outcome, arc included."""
    game = _load(config)
    ng = native_of(game)
    for heuristic in (None, *game.model.heuristics):
        judge = Judge.of(game, heuristic)
        if ng.judge_code(judge.heuristic) is None:
            continue  # a heuristic the module does not lower is judged on the Python engine
        judged_natively = 0
        for index in range(4):
            seed = game_seed(9, index)
            native = _run_native(ng, [0] * game.info.players, seed, index, ng.judge_code(judge.heuristic), judge)
            python = run_one(game, ["random"], 9, index, judge=judge, backend="python")
            assert run_one(game, ["random"], 9, index, judge=judge, backend="native") == python
            if native is not None:  # else the module gave up on the game, and the Python engine played it
                judged_natively += 1
                assert native == python and native.arc is not None
        assert judged_natively or config not in QUICK


@pytest.mark.parametrize("config", CONFIGS)
def test_lockstep_games_agree_move_by_move(config):
    game = _load(config)
    for seed in range(2):
        lockstep(game, seed, 300)


@pytest.mark.parametrize("name, depth", [("tic-tac-toe", 5), ("connect-four", 4), ("kuhn-poker", 10)])
def test_perft_counts_are_the_python_engines(name, depth):
    game = load_game(name)
    state = game.new_state(0)
    native = perft_table(state, depth, native=native_of(game))
    assert native == perft_table(state, depth)
