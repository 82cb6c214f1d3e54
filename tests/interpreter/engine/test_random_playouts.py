"""Seeded random playouts of every ruleset: the state API contract, step by step.

For each built-in game and each test-only ruleset under `tests/rulesets/`,
every player count and variant (and no variant), a few playouts by random
agents check that legal moves apply and parse back, saved states reload
exactly, copies share nothing, no observation leaks what its seat may not
see (see `observation_checks`), the game ends within its step limit, and the
game log written as the CLI writes it replays to the same final state.
Invariants are checked after every move (`checking=True`).

Long games cost: their states are checked at evenly spaced steps (the last
one always), and they get one playout and then more only while a small time
budget lasts.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import pytest

from ruleplay import RulesetError, load_game
from ruleplay.engine.game import Game
from ruleplay.runs.gamelog import replay, write_log
from ruleplay.engine.loader import builtin_games
from ruleplay.runs.play import PlayResult, play_game
from ruleplay.engine.state import State

from observation_checks import (TwinCounts, check_chance_outcomes_private, check_history_masked,
                                check_move_shows_only_what_is_seen, check_no_leak, check_twins_tested)

PLAYOUTS = 3          # most playouts per configuration
TIME_BUDGET = 1.5     # seconds per configuration after which no new playout starts
CHECKED_STATES = 30   # most states of one playout given the per-state checks
APPLY_SAMPLE = 2      # legal moves (evenly spaced) applied at each checked decision, besides the chosen one
TEST_RULESETS = Path(__file__).resolve().parents[2] / "rulesets"


def rulesets() -> list[tuple[str, str]]:
    """(id, name or path to load) of every ruleset played: the built-in ones, then the test-only ones."""
    return [(name, name) for name in builtin_games()] + [
        (path.stem, str(path)) for path in sorted(TEST_RULESETS.glob("*.yaml"))]


def _configurations() -> list:
    params = []
    for label, ruleset in rulesets():
        try:
            info = load_game(ruleset).info
        except RulesetError:
            # Let the test load it again and fail with the diagnostics.
            params.append(pytest.param(ruleset, None, None, id=f"{label}-broken"))
            continue
        for players in range(info.min_players, info.max_players + 1):
            for variant in (None, *info.variants):
                params.append(pytest.param(ruleset, players, variant, id=f"{label}-{players}p-{variant or 'base'}"))
    return params


def playout(game, seed: int) -> tuple[PlayResult, list[State]]:
    """One game between random agents, played as `ruleplay play` plays it, and every state it went through."""
    states: list[State] = []
    result = play_game(game, ["random"], seed, watch=lambda state, record: states.append(state))
    return result, states


def sampled(states: list[State], seed: int) -> list[State]:
    """Every state of a short game; of a long one evenly spaced states (shifted by the seed) and the last."""
    if len(states) <= CHECKED_STATES:
        return states
    stride = math.ceil(len(states) / CHECKED_STATES)
    picked = states[seed % stride::stride]
    return picked if picked[-1] is states[-1] else [*picked, states[-1]]


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
    """The log the CLI would write replays with `ruleplay replay` and rebuilds the very same final state."""
    write_log(path, result, ruleset, game.info.ruleset_hash)
    report = replay(path, ruleset=ruleset)  # the log is in tmp_path, away from the ruleset's folder
    assert result.moves == [str(m) for m in final.history]
    assert (report.moves, report.scores, report.returns) == (len(final.history), final.scores(), final.returns())
    assert rebuild_from_log(game, path).dumps() == final.dumps(), f"{path.name} does not rebuild the final state"


@pytest.mark.parametrize("ruleset,players,variant", _configurations())
def test_random_playouts(ruleset, players, variant, tmp_path):
    game = load_game(ruleset, players=players, variant=variant, checking=True)
    n = game.info.players
    started = time.monotonic()
    for seed in range(PLAYOUTS):
        if seed and time.monotonic() - started > TIME_BUDGET:
            break
        result, states = playout(game, seed)
        counts = TwinCounts()
        position = {id(state): k for k, state in enumerate(states)}
        for state in sampled(states, seed):
            check_round_trip(game, state)
            check_copy(state)
            check_observe(state, n)
            check_no_leak(state, counts)
            check_history_masked(state)
            check_chance_outcomes_private(state, counts)
            k = position[id(state)]
            if k:
                check_move_shows_only_what_is_seen(states[k - 1], state)
            check_moves(game, state)
        final = states[-1]
        check_twins_tested(final, counts)
        check_end(game, final, n)
        check_log_replays(game, ruleset, result, final, tmp_path / f"seed-{seed}.jsonl")


# ------------------------------------------------------- the leak check itself
def _show_owner_entries(state: State, seen: dict) -> None:
    for name, decl in state.game.model.vars.items():
        if decl.visibility == "owner":
            seen["state"][name] = json.loads(json.dumps(state.data["vars"][name]))


def _show_hidden_contents(state: State, seen: dict) -> None:
    """Only which items a hidden list holds, not their order: a subtle leak."""
    for name, decl in state.game.model.vars.items():
        if decl.visibility == "hidden" and not decl.per_player:
            seen["state"][name]["items"] = sorted(map(str, state.data["vars"][name]))


def _show_face_down_items(state: State, seen: dict) -> None:
    for name, decl in state.game.model.vars.items():
        if decl.visible_if is not None and decl.visibility == "public" and not decl.per_player:
            seen["state"][name] = json.loads(json.dumps(state.data["vars"][name]))


def _show_rng(state: State, seen: dict) -> None:
    seen["rng"] = state.data["rng"]


def observe_leaking(monkeypatch, reveal) -> None:
    """Make State.observe add to the honest observation what `reveal(state, seen)` puts in it."""
    honest = State.observe

    def leaking(self: State, player: int) -> dict:
        seen = honest(self, player)
        reveal(self, seen)
        return seen

    monkeypatch.setattr(State, "observe", leaking)


def _show_raw_bids(state: State, seen: dict) -> None:
    seen["state"]["bid"] = list(state.data["vars"]["bid"])


@pytest.mark.parametrize("ruleset,reveal,leak", [
    (str(TEST_RULESETS / "go-fish-lite.yaml"), _show_owner_entries, r"observe\(0\) changes with hand\[1\]"),
    ("kuhn-poker", _show_hidden_contents, r"changes with deck \(altered\)"),
    (str(TEST_RULESETS / "face-down.yaml"), _show_face_down_items, "the order of the masked items of tiles"),
    ("tic-tac-toe", _show_rng, "changes with the random generator"),
], ids=["owner-entries", "hidden-contents", "face-down-items", "rng"])
def test_leak_check_catches_a_leaking_observer(ruleset, reveal, leak, monkeypatch):
    game = load_game(ruleset)
    _, states = playout(game, 0)
    for state in states:
        check_no_leak(state, TwinCounts())  # the engine's own observer passes on these very states
    observe_leaking(monkeypatch, reveal)
    with pytest.raises(AssertionError, match=leak):
        for state in states:
            check_no_leak(state, TwinCounts())


SEALED_BIDS = """
ruleplay: 1
game: sealed-bids
players: 2
state:
  bid: {init: "0", per_player: true, visible_if: viewer == owner, back: '"sealed"'}
  bids: {init: "0"}
flow:
  phases:
    - name: main
      actions: [place]
actions:
  place:
    params: {amount: "[1, 2, 3]"}
    effects: |
      bid[current] = amount
      bids += 1
end:
  - when: bids == 4
"""


def test_leak_check_covers_values_that_are_not_lists(make_game, monkeypatch):
    """A per-player number shown only to its owner: the twins must test it, and catch an observer ignoring it."""
    game = make_game(SEALED_BIDS)
    _, states = playout(game, 0)
    counts = TwinCounts()
    for state in states:
        check_no_leak(state, counts)
    assert counts.tested >= len(states) * 2  # each seat's view of the other's bid, in every state
    observe_leaking(monkeypatch, _show_raw_bids)
    with pytest.raises(AssertionError, match=r"changes with bid\[1\] \(hidden as one item, altered\)"):
        for state in states:
            check_no_leak(state, TwinCounts())


UNOBSERVABLE_SECRET = """
ruleplay: 1
game: unobservable-secret
players: 2
state:
  secret: {init: "1", visibility: hidden}
  row: {init: "[0]", visible_if: "[false, true][secret]"}
  passes: {init: "0"}
flow:
  phases:
    - name: main
      actions: [pass]
actions:
  pass:
    effects: passes = passes + 1
end:
  - when: passes == 2
"""


def test_leak_check_fails_when_no_twin_can_be_observed(make_game):
    """Every other value of `secret` breaks `row`'s visible_if: no twin is a possible state, none is tested."""
    game = make_game(UNOBSERVABLE_SECRET)
    _, states = playout(game, 0)
    counts = TwinCounts()
    for state in states:
        check_no_leak(state, counts)
    assert counts == TwinCounts(tested=0, rejected=len(states) * 2)
    with pytest.raises(AssertionError, match="the leak check tested nothing"):
        check_twins_tested(states[-1], counts)
