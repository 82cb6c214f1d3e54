"""The checks of one state of a playout, and of the game it ended: what `test_random_playouts` asserts at
the states it samples and the soak run (`python -m benchmarks soak`) at every state of every game.

Each check raises AssertionError with what is wrong.  The leak checks are
`observation_checks`'; these are the rest of the state API contract: the
JSON round trip, copies that share nothing, observations, legal moves that
apply and parse back, the end, and the game log that replays.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from ruleplay.engine.game import Game
from ruleplay.engine.state import State
from ruleplay.runs.gamelog import LogWriter, replay
from ruleplay.runs.play import PlayResult

APPLY_SAMPLE = 2      # legal moves (evenly spaced) applied at each checked decision, besides the chosen one


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


def rebuild_from_log(game, path: Path) -> State:
    """The final state of a log, by applying its moves; chance outcomes are drawn again and must match.

    Invariants were checked during the playout; the rebuild skips them (a game of the same model without
    `checking`), which leaves every state, and so the final `dumps()`, the same.
    """
    header, *moves, _end = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    state = Game(game.model).new_state(header["seed"])
    for line in moves:
        move = game.parse_move(line["move"])
        if state.is_chance_node():
            state = state.apply_chance()
            assert state.history[-1] == move, f"move {line['n']}: chance drew {state.history[-1]}, the log has {move}"
        else:
            state = state.apply(move)
    return state


def check_log_replays(game, ruleset: str, result: PlayResult, final: State, path: Path) -> None:
    """The log `ruleplay play --log` writes (`LogWriter`, move by move) replays with `ruleplay replay` and
    rebuilds the very same final state."""
    with LogWriter.start(path, game, result.seed, result.agents, ruleset, replace=True) as log:
        for k in range(1, len(result.records) + 1):
            log.keep(result.records[:k])
        log.finish(result)
    report = replay(path, ruleset=ruleset)  # the log is in tmp_path, away from the ruleset's folder
    assert result.moves == [str(m) for m in final.history]
    assert (report.moves, report.scores, report.returns) == (len(final.history), final.scores(), final.returns())
    assert rebuild_from_log(game, path).dumps() == final.dumps(), f"{path.name} does not rebuild the final state"
