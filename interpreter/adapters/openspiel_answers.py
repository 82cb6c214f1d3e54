"""What a registered OpenSpiel game answers beyond its hot questions, shared by its two kinds.

The pyspiel game written in Python (`openspiel_game`) and the C++ game
(`openspiel_native`, through its callback) both step, name actions, print
states and write observations with these, on the handle of a state (None
at the seed-drawing root) and the game's `openspiel_game._Spec`, so they
answer alike.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyspiel

from ..engine.errors import IllegalMoveError, SeatError
from ..engine.legal import CHANCE
from ..engine.state import State
from .games import action_number, numbered_move
from .held import Handle


def make_step(spec: Any, handle: Handle | None, action: int) -> Handle:
    """The handle after `action`, which must be one the node lists (a legal move, a chance outcome): the
    root's seed (handle None) starts a game, anything else the root or the step refuses with IllegalMoveError,
    the state unchanged.  A handle is stepped in place."""
    if handle is None:
        return spec.stepper.new(_seed(spec, action))
    if 0 <= action < spec.actions_count:
        handle.apply_action(action)
    else:  # refused with the reason, naming who tried
        action_number(spec.game, action, _who(handle))
    return handle


def _seed(spec: Any, action: int) -> int:
    """The seed the root's outcome `action` draws: one of the `seeds` it lists, nothing else."""
    seeds = spec.seeds
    if type(action) is not int or not 0 <= action < seeds:
        raise IllegalMoveError(f"seed {action}", f"the root chance node draws the game's seed from "
                                                 f"0..{seeds - 1}, one of its {seeds} outcomes", "RP604")
    return action


def _who(handle: Handle | None) -> str:
    player = CHANCE if handle is None else handle.current_player()
    return "chance" if player == pyspiel.PlayerId.CHANCE else f"player {player}"


def action_string(spec: Any, handle: Handle | None, player: int, action: int) -> str:
    """`action` as `player` sees it: a seat's own view of the move, the whole outcome for chance."""
    game = spec.game
    players = game.model.players
    if player != pyspiel.PlayerId.CHANCE and not 0 <= player < players:
        raise SeatError(f"player {player} is neither a seat of this game (0..{players - 1}) nor chance "
                        f"({pyspiel.PlayerId.CHANCE})")
    if handle is None:
        return f"seed {_seed(spec, action)}"
    move = numbered_move(game, action, _who(handle))
    if player == pyspiel.PlayerId.CHANCE:  # the whole outcome, as the game's record has it
        return str(move)
    return handle.to_state().move_view(move, player)


def state_string(handle: Handle | None) -> str:
    """The state's data as JSON: two states print alike exactly when they are equal."""
    if handle is None:
        return "seed: not drawn yet"
    return json.dumps(handle.to_state().data, sort_keys=True, separators=(",", ":"))


def chance_list(spec: Any, handle: Handle | None) -> list[tuple[int, float]]:
    """The chance outcomes, sorted: the root's seeds, or the engine's outcomes (ValueError when too many)."""
    if handle is None:
        return [(seed, 1.0 / spec.seeds) for seed in range(spec.seeds)]
    outcomes = handle.chance_outcomes()
    if not outcomes:
        raise ValueError(f"{handle.to_state()!r}: the chance node has more than "
                         f"{spec.game.max_chance_outcomes} outcomes, too many to list explicitly")
    return sorted(outcomes)


def view_string(spec: Any, handle: Handle | None, player: int, perfect_recall: bool) -> str:
    """Seat `player`'s view as JSON, with every move so far as it saw it when `perfect_recall`."""
    if handle is None:
        return "seed: not drawn yet"
    seen = handle.to_state().observe(player)
    if not perfect_recall:
        del seen["history"]
    return json.dumps(seen, sort_keys=True, separators=(",", ":"))


def view_tensor(spec: Any, handle: Handle | None, player: int, perfect_recall: bool, out: np.ndarray) -> None:
    """Seat `player`'s observation vector into `out` (float32, zeroed), followed with `perfect_recall` by its
    last `history` moves as seen, one row of `3 + actions` each."""
    out.fill(0.0)
    if handle is None:
        return
    size = spec.encoding.size
    spec.stepper.observe_into(handle, player, out[:size])
    if perfect_recall and spec.history:
        _history_rows(spec, handle.to_state(), player, out[size:].reshape(spec.history, 3 + len(spec.actions)))


def _history_rows(spec: Any, engine: State, player: int, rows: np.ndarray) -> None:
    game = spec.game
    moves, seens = engine.history, engine.history_seen_by()
    recent = list(zip(moves, seens))[-spec.history:]
    for row, (move, seen) in zip(rows, recent):
        row[0] = 1.0
        action = game.model.actions[move.action]
        row[3 + spec.actions[move.action]] = 1.0
        if seen is None or all(who is None or player in who for who in seen):
            row[1] = 1.0
            row[2] = float(game.move_to_index(move) - action.first_index)
