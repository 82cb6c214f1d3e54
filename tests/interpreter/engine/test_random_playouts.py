"""Seeded random playouts of every ruleset: the state API contract, step by step.

For each built-in game and each test-only ruleset under `tests/rulesets/`,
every player count and variant (and no variant), a few playouts by random
agents check that legal moves apply and parse back, saved states reload
exactly, copies share nothing, no observation leaks what its seat may not
see (see `observation_checks`), the game ends within its step limit, and the
game log written as the CLI writes it replays to the same final state.
Invariants are checked after every move (`checking=True`).

Long games cost: their states are checked at evenly spaced steps (the last
one always). The default run plays the base game at every player count and
each variant at its own default count, one playout and then more only while
a small time budget lasts; the slow run plays `SLOW_PLAYOUTS` of every
configuration, whatever they take.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest

from ruleplay import RulesetError, load_game
from ruleplay.engine.loader import builtin_games
from ruleplay.runs.play import PlayResult, play_game
from ruleplay.engine.state import State

import loaded
from observation_checks import (TwinCounts, check_chance_outcomes_private, check_history_masked,
                                check_move_shows_only_what_is_seen, check_no_leak, check_twins_tested)
from playout_checks import check_copy, check_end, check_log_replays, check_moves, check_observe, check_round_trip

PLAYOUTS = 3          # most playouts per configuration in the default run
TIME_BUDGET = 0.5     # seconds per configuration after which the default run starts no new playout
SLOW_PLAYOUTS = 4     # playouts per configuration in the slow run
CHECKED_STATES = 30   # most states of one playout given the per-state checks
TEST_RULESETS = Path(__file__).resolve().parents[2] / "rulesets"


def rulesets() -> list[tuple[str, str]]:
    """(id, name or path to load) of every ruleset played: the built-in ones, then the test-only ones."""
    return [(name, name) for name in builtin_games()] + [
        (path.stem, str(path)) for path in sorted(TEST_RULESETS.glob("*.yaml"))]


def _configurations(every: bool) -> list:
    """The configurations played: with `every`, every player count of every variant; otherwise the base game at
    every player count and each variant at its own default count (`loaded.configurations`)."""
    params = []
    for label, ruleset in rulesets():
        try:
            core, rest = loaded.configurations(ruleset)
        except RulesetError:
            # Let the test load it again and fail with the diagnostics.
            params.append(pytest.param(ruleset, None, None, id=f"{label}-broken"))
            continue
        for players, variant in core + (rest if every else []):
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


@pytest.mark.parametrize("ruleset,players,variant", _configurations(every=False))
def test_random_playouts(ruleset, players, variant, tmp_path):
    check_playouts(ruleset, players, variant, tmp_path, PLAYOUTS, TIME_BUDGET)


@pytest.mark.slow
@pytest.mark.parametrize("ruleset,players,variant", _configurations(every=True))
def test_random_playouts_at_length(ruleset, players, variant, tmp_path):
    check_playouts(ruleset, players, variant, tmp_path, SLOW_PLAYOUTS, math.inf)


def check_playouts(ruleset: str, players: int, variant: str | None, tmp_path: Path, playouts: int,
                   budget: float) -> None:
    """`playouts` seeded games of the configuration, every sampled state checked; after the first, a new
    game starts only while `budget` seconds have not passed."""
    game = loaded.game(ruleset, players, variant, checking=True)
    n = game.info.players
    started = time.monotonic()
    for seed in range(playouts):
        if seed and time.monotonic() - started > budget:
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
