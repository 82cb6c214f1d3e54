"""Seeded random playouts over every built-in ruleset: the state API contract at every step.

For each game, player count and variant (and no variant), a few playouts
check that legal moves apply and parse back, saved states reload exactly,
copies share nothing, every seat can observe, the game ends within its step
limit and a seed replays to the same final state.  Invariants are checked
after every move (`checking=True`).  Long games get one playout and then
more only while a small time budget lasts.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections import deque
from typing import Any, Iterator

import pytest

from ruleplay import RulesetError, load_game
from ruleplay.loader import builtin_games

PLAYOUTS = 3          # most playouts per configuration
TIME_BUDGET = 1.5     # seconds per configuration after which no new playout starts
APPLY_SAMPLE = 2      # legal moves (evenly spaced) applied at each decision, besides the chosen one


def _configurations() -> list:
    params = []
    for name in builtin_games():
        try:
            info = load_game(name).info
        except RulesetError:
            # Let the test load it again and fail with the diagnostics.
            params.append(pytest.param(name, None, None, id=f"{name}-broken"))
            continue
        for players in range(info.min_players, info.max_players + 1):
            for variant in (None, *info.variants):
                params.append(pytest.param(name, players, variant, id=f"{name}-{players}p-{variant or 'base'}"))
    return params


def playout(game, seed: int) -> Iterator:
    """The states of one random game: seat moves from `random.Random(seed)`, chance from the state."""
    choose = random.Random(seed)
    state = game.new_state(seed=seed)
    yield state
    limit = game.info.max_length
    for _ in range(limit):
        if state.is_terminal():
            return
        if state.is_chance_node():
            state = state.apply_chance()
        else:
            moves = state.legal_moves()
            assert moves, f"player {state.current_player} has no legal move but the game is not over"
            state = state.apply(choose.choice(moves))
        yield state
    raise AssertionError(f"{game.name}: no end within {limit} moves (seed {seed})")


def scribble(value: Any) -> None:
    """Change every list and map inside `value`, so any container shared with another state shows."""
    if isinstance(value, list):
        for item in value:
            scribble(item)
        value.append("#scribble")
    elif isinstance(value, dict):
        for item in value.values():
            scribble(item)
        value["#scribble"] = True


def check_round_trip(game, state) -> None:
    restored = game.state_from_json(json.loads(state.dumps()))
    assert restored.dumps() == state.dumps()
    assert restored.data == state.data
    assert restored.history == state.history
    assert restored.legal_moves() == state.legal_moves()


def check_copy(state) -> None:
    before = state.dumps()
    twin = state.copy()
    assert twin.dumps() == before
    scribble(twin.data)
    assert state.dumps() == before


def check_observe(state, players: int) -> None:
    for p in range(players):
        seen = state.observe(p)
        assert seen["viewer"] == p
        json.dumps(seen)


def check_moves(game, state) -> None:
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        if outcomes is not None:
            assert [m for m, _ in outcomes] == state.legal_moves()
            assert math.isclose(sum(p for _, p in outcomes), 1.0)
        return
    moves = state.legal_moves()
    step = max(1, len(moves) // APPLY_SAMPLE)
    for move in moves[::step][:APPLY_SAMPLE]:
        assert game.parse_move(str(move)) == move
        assert state.explain(move) is None
        after = state.apply(move)
        assert after.history == state.history + (move,)


def check_end(game, state, players: int) -> None:
    assert state.legal_moves() == []
    returns, scores = state.returns(), state.scores()
    assert len(returns) == len(scores) == players
    assert all(isinstance(r, float) and math.isfinite(r) for r in returns)
    if game.info.utility == "rank":
        assert all(-1.0 <= r <= 1.0 for r in returns)
    assert isinstance(state.render(), str)


@pytest.mark.parametrize("name,players,variant", _configurations())
def test_random_playouts(name, players, variant):
    game = load_game(name, players=players, variant=variant, checking=True)
    n = game.info.players
    started = time.monotonic()
    for seed in range(PLAYOUTS):
        if seed and time.monotonic() - started > TIME_BUDGET:
            break
        final = None
        for state in playout(game, seed):
            check_round_trip(game, state)
            check_copy(state)
            check_observe(state, n)
            check_moves(game, state)
            final = state
        check_end(game, final, n)
        replay = deque(playout(game, seed), maxlen=1)[0]
        assert replay.dumps() == final.dumps(), f"seed {seed} did not replay to the same final state"
