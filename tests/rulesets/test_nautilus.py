"""The Nautilus board game (`rulesets/nautilus.yaml`): random games end by a seed rule, nothing leaks.

Seeded random games in checking mode (the ruleset's invariants after every
move: money conserved with the bank, each module, find and researcher in one
place) must end by one of the seed's end conditions, never by the step limit
or a stuck player.  The no-leak test changes only a face-down find a player
has not seen and requires that player's observation to stay byte-identical.
The station graph exported at a state is the ruleset's passage list.
"""

from __future__ import annotations

import json
import random
from functools import lru_cache

import pytest

from ruleplay import load_game
from ruleplay.view.graphs import graphs_at

END_RULES = {"NA-14.1", "NA-14.2", "NA-14.3"}


@lru_cache(maxsize=None)
def checked(players: int):
    return load_game("nautilus", players=players, checking=True)


def random_game(game, seed: int):
    choose = random.Random(seed)
    state = game.new_state(seed=seed)
    while not state.is_terminal():
        state = state.apply(choose.choice(state.legal_moves()))
    return state


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_end_by_a_seed_end_condition(players):
    final = random_game(checked(players), seed=players)
    assert final.data["flow"]["ended_by"] in END_RULES
    assert final.data["vars"]["settled"]
    assert len(final.scores()) == players


def test_an_unseen_find_does_not_show():
    game = checked(2)
    state = game.new_state(seed=5)
    vars_ = state.data["vars"]
    before = [json.dumps(state.observe(p), sort_keys=True) for p in range(2)]
    swapped = state.copy()
    ids = swapped.data["vars"]["find_ids"]
    i, j = 0, 1  # two Lagoon finds: their backs look alike
    assert game.model.component_props[ids[i]]["depth"] == game.model.component_props[ids[j]]["depth"] == 1
    ids[i], ids[j] = ids[j], ids[i]
    assert [json.dumps(swapped.observe(p), sort_keys=True) for p in range(2)] == before
    swapped.data["vars"]["known"][0].append(vars_["find_cells"][i])
    assert json.dumps(swapped.observe(0), sort_keys=True) != before[0]
    assert json.dumps(swapped.observe(1), sort_keys=True) != before[1]  # it sees that seat 0 knows one more
    assert swapped.observe(1)["state"]["find_ids"] == state.observe(1)["state"]["find_ids"]


def test_the_station_graph_is_the_passage_list():
    game = checked(3)
    state = random_game(game, seed=11)
    vars_ = state.data["vars"]
    station = graphs_at(game, state)["station"]
    pairs = {frozenset((vars_["slot_module"][a], vars_["slot_module"][b])) for a, b in vars_["passages"]}
    assert {frozenset(e) for e in station.edges} == pairs
    assert "base" in station
