"""Moves as each player sees them: private arguments masked for the seats that may not see them.

A parameter declared with `seen_by: EXPR` is seen only by the seats that
expression names (one seat or a list of seats), evaluated in the state the
move is made from, with the move's arguments bound: `seen_by: current`
keeps a chosen card to the mover, and a chance action's outcome can be kept
from the seats it concerns.  The answer is fixed when the move is made and
stored with it in the history, so every later view of that move is the
same.  A masked argument is written `?`: `keep_special(?)`.
"""

from __future__ import annotations

from typing import Any

from ruleplay.dsl import runtime as R

from .legal import bind
from .model import GameModel
from .moves import Move, format_value

# Per argument of a move: the sorted seats that see it, or None when every seat does.
Seen = tuple[tuple[int, ...] | None, ...]
MASK = "?"


def seen_by(model: GameModel, vars_: dict, flow: dict, move: Move) -> Seen | None:
    """Who sees each argument of `move` made now; None when every argument is public."""
    action = model.actions[move.action]
    if not action.private:
        return None
    ctx = R.Ctx(vars_, flow, model, env=bind(action, move), budget=model.budget())
    out: list[tuple[int, ...] | None] = []
    with R.recursion_guard():
        for p in action.params:
            out.append(None if p.seen_by is None else _seats(model, p.path, p.seen_by(ctx), flow["players"]))
    return tuple(out)


def _seats(model: GameModel, path: tuple, value: Any, players: int) -> tuple[int, ...]:
    seats = value if type(value) is list else [value]
    if not all(type(s) is int and 0 <= s < players for s in seats):
        raise R.RuleRuntimeError(f"`seen_by` gave {R.quoted(value)}, not a seat or a list of seats 0..{players - 1}",
                                 model.code_at(path + ("seen_by",)),
                                 hint="name the seats that see the argument, e.g. `current` or `[current, 1 - current]`")
    return tuple(sorted(set(seats)))


def view_text(move: Move, seen: Seen | None, viewer: int | None) -> str:
    """The move as `viewer` sees it (None: every argument, as the game's own record has it)."""
    if seen is None or viewer is None or not move.args:
        return str(move)
    args = [format_value(a) if who is None or viewer in who else MASK for a, who in zip(move.args, seen)]
    return f"{move.action}({', '.join(args)})"


def seen_to_json(seen: Seen) -> list:
    return [None if who is None else list(who) for who in seen]


def seen_from_json(data: Any, move: Move, players: int) -> Seen:
    """A stored `seen_by` list, checked: one entry per argument, each null or a list of seats."""
    if type(data) is not list or len(data) != len(move.args):
        raise ValueError(f"`seen_by` of {move} must list one entry per argument")
    out: list[tuple[int, ...] | None] = []
    for who in data:
        if who is not None and (type(who) is not list or not all(type(s) is int and 0 <= s < players for s in who)):
            raise ValueError(f"`seen_by` of {move} holds {who!r}, not null or a list of seats")
        out.append(None if who is None else tuple(sorted(set(who))))
    return tuple(out)


def told(events: list[dict], viewer: int | None) -> list[dict]:
    """The events of a move (`State.last_events`) that seat `viewer` is told; all of them for None (the
    all-seeing view).  An event `to` some seats is kept from the others, as a masked argument is."""
    return [e for e in events if viewer is None or e["to"] is None or viewer in e["to"]]


def rounds_shown(model: GameModel) -> bool:
    """Whether a person is shown where a round ends: the ruleset does something when a round begins or
    ends (`on_round_begin`, `on_round_end`), so its rounds are part of the game, not only a count of turns."""
    flow = model.data.get("flow") or {}
    return bool(flow.get("on_round_begin") or flow.get("on_round_end"))
