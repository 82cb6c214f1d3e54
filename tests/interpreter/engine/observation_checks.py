"""Information-set twins: proof that `observe(p)` shows nothing that seat p may not see.

A leak cannot be spotted by looking at one observation: whatever it shows
might be public.  So each check builds *twins* of a state: copies whose data
differ from it only in what seat p is not allowed to see (a `hidden`
variable, another seat's entry of an `owner` variable, the order of the
items that a `visible_if` masks behind the same `back`, a value that is not
a list while `visible_if` masks it behind the same `back`, the random
generator).  Each twin must give p a byte-identical observation.

Twins keep every list's length, since masks may show a length.  A twin that
the ruleset's own code cannot observe (its `visible_if` or `back` raises a
rule error on the changed value) is no possible state and is only counted,
so that a caller can insist that something was tested at all.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterator

from ruleplay.dsl import runtime as R
from ruleplay.engine.model import GameModel, VarDecl
from ruleplay.engine.state import State

RNG_FLIP = 0x9E3779B97F4A7C15  # XOR mask that flips about half of the generator's 64 bits


@dataclass
class TwinCounts:
    """How many twins of ruleset data one playout compared, and how many were no possible state."""

    tested: int = 0
    rejected: int = 0


@dataclass(frozen=True)
class Twin:
    label: str   # what was changed, e.g. "hand[1] (reordered)"
    data: dict   # the twin's state data


def altered(value: Any) -> Any:
    """`value` with every scalar inside changed and every list and map kept at its size (null stays null)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + "'"
    if isinstance(value, list):
        return [altered(item) for item in value]
    if isinstance(value, dict):
        return {key: altered(item) for key, item in value.items()}
    return value


def reordered(value: Any) -> Any:
    """A list rotated by one place: the same items, another order (anything else is returned as is)."""
    return value[1:] + value[:1] if isinstance(value, list) else value


def _with_var(data: dict, name: str, seat: int | None, value: Any) -> dict:
    """A shallow copy of state data with one variable (or one seat's entry of it) replaced."""
    vars_ = dict(data["vars"])
    if seat is None:
        vars_[name] = value
    else:
        row = list(vars_[name])
        row[seat] = value
        vars_[name] = row
    return {"vars": vars_, "flow": data["flow"], "rng": data["rng"]}


def unseen_values(model: GameModel, data: dict, viewer: int) -> Iterator[tuple[str, int | None]]:
    """(variable, seat or None) for every value that `viewer` may not see at all."""
    for name, decl in model.vars.items():
        if not decl.per_player:
            if decl.visibility == "hidden":
                yield name, None
            continue
        for seat in range(len(data["vars"][name])):
            if decl.visibility == "hidden" or (decl.visibility == "owner" and seat != viewer):
                yield name, seat


def seen_item_lists(model: GameModel, data: dict, viewer: int) -> Iterator[tuple[VarDecl, int | None]]:
    """(declaration, owner seat or None) for every list that `viewer` sees item by item through `visible_if`."""
    for name, decl in model.vars.items():
        if decl.visible_if is None or decl.visibility == "hidden":
            continue
        if not decl.per_player:
            if isinstance(data["vars"][name], list):
                yield decl, None
            continue
        for seat, entry in enumerate(data["vars"][name]):
            if isinstance(entry, list) and (decl.visibility == "public" or seat == viewer):
                yield decl, seat


def hidden_back(model: GameModel, data: dict, decl: VarDecl, item: Any, index: int | None, viewer: int,
                owner: int | None) -> str | None:
    """The back (as JSON) `viewer` sees instead of `item`, or None if `visible_if` shows it.

    Computed from the declaration, not from `observe`, so that a masking bug
    in `observe` cannot hide itself by also hiding what the check should move.
    """
    assert decl.visible_if is not None
    ctx = R.Ctx(data["vars"], data["flow"], model)
    ctx.env = {"item": item, "index": index, "viewer": viewer, "owner": owner}
    if decl.visible_if(ctx):
        return None
    return json.dumps(decl.back(ctx) if decl.back is not None else None, sort_keys=True)


def masked_items(model: GameModel, data: dict, decl: VarDecl, viewer: int, owner: int | None) -> dict[int, str]:
    """{index: its back as JSON} for the items of a list that `viewer` does not see."""
    items = data["vars"][decl.name] if owner is None else data["vars"][decl.name][owner]
    backs = {index: hidden_back(model, data, decl, item, index, viewer, owner) for index, item in enumerate(items)}
    return {index: back for index, back in backs.items() if back is not None}


def shuffled_masked(items: list, masked: dict[int, str]) -> list:
    """`items` with the masked ones rotated among the places that show the same back."""
    groups: dict[str, list[int]] = {}
    for index, back in masked.items():
        groups.setdefault(back, []).append(index)
    out = list(items)
    for places in groups.values():
        for here, there in zip(places, places[1:] + places[:1]):
            out[here] = items[there]
    return out


def value_twins(model: GameModel, data: dict, viewer: int) -> Iterator[Twin]:
    """Twins that change one value `viewer` may not see: its order, then its contents."""
    for name, seat in unseen_values(model, data, viewer):
        value = data["vars"][name] if seat is None else data["vars"][name][seat]
        where = name if seat is None else f"{name}[{seat}]"
        for how, changed in (("reordered", reordered(value)), ("altered", altered(value))):
            if changed != value:
                yield Twin(f"{where} ({how})", _with_var(data, name, seat, changed))


def item_twins(model: GameModel, data: dict, viewer: int, counts: TwinCounts) -> Iterator[Twin]:
    """Twins that move the items `viewer` does not see among places with the same back.

    A move that changes which places are masked (when `visible_if` reads the
    item itself) makes no twin: the viewer could tell those states apart.
    """
    for decl, owner in seen_item_lists(model, data, viewer):
        items = data["vars"][decl.name] if owner is None else data["vars"][decl.name][owner]
        try:
            masked = masked_items(model, data, decl, viewer, owner)
        except R.RuleRuntimeError:
            counts.rejected += 1
            continue
        moved = shuffled_masked(items, masked)
        if moved == items:
            continue
        twin = _with_var(data, decl.name, owner, moved)
        try:
            same_mask = masked_items(model, twin, decl, viewer, owner).keys() == masked.keys()
        except R.RuleRuntimeError:
            same_mask = False
        if not same_mask:
            counts.rejected += 1
            continue
        where = decl.name if owner is None else f"{decl.name}[{owner}]"
        yield Twin(f"the order of the masked items of {where}", twin)


def whole_value_twins(model: GameModel, data: dict, viewer: int, counts: TwinCounts) -> Iterator[Twin]:
    """Twins that change a value that is not a list while its `visible_if` hides it behind the same back."""
    for name, decl in model.vars.items():
        if decl.visible_if is None or decl.visibility == "hidden":
            continue
        value = data["vars"][name]
        places = [(None, value)] if not decl.per_player else [
            (seat, entry) for seat, entry in enumerate(value) if decl.visibility == "public" or seat == viewer]
        for owner, item in places:
            if isinstance(item, list):
                continue
            changed = altered(item)
            twin = _with_var(data, name, owner, changed)
            try:
                back = hidden_back(model, data, decl, item, None, viewer, owner)
                same_back = back is not None and hidden_back(model, twin, decl, changed, None, viewer, owner) == back
            except R.RuleRuntimeError:
                counts.rejected += 1
                continue
            if back is None:
                continue
            if not same_back:
                counts.rejected += 1
                continue
            yield Twin(f"{name if owner is None else f'{name}[{owner}]'} (hidden as one item, altered)", twin)


def rng_twin(data: dict) -> Twin:
    """The state with another generator state: nothing observed may depend on future chance."""
    return Twin("the random generator", {"vars": data["vars"], "flow": data["flow"], "rng": data["rng"] ^ RNG_FLIP})


def _seen(state: State, viewer: int) -> str:
    return json.dumps(state.observe(viewer), sort_keys=True)


def _differences(a: str, b: str) -> list[str]:
    """The observation keys (and state variables) that differ, to name a leak precisely."""
    left, right = json.loads(a), json.loads(b)
    keys = [k for k in sorted(set(left) | set(right)) if k != "state" and left.get(k) != right.get(k)]
    names = sorted(set(left["state"]) | set(right["state"]))
    return keys + [f"state.{k}" for k in names if left["state"].get(k) != right["state"].get(k)]


def _assert_same_view(state: State, viewer: int, seen: str, twin: Twin) -> None:
    """Raises R.RuleRuntimeError if the twin cannot be observed, AssertionError if it looks different."""
    twin_seen = _seen(State(state.game, twin.data, None, state.history), viewer)
    last = "".join(f" {m}" for m in state.history[-3:])
    assert twin_seen == seen, (
        f"{state.game.name}: observe({viewer}) changes with {twin.label}, which seat {viewer} may not see "
        f"(round {state.round}, phase {state.phase}, after {len(state.history)} moves{' ...' + last if last else ''})"
        f"; differing: {_differences(seen, twin_seen)}")


def check_no_leak(state: State, counts: TwinCounts) -> None:
    """Every seat sees `state` exactly as it sees each of its twins; `counts` adds up the ruleset twins."""
    model, data = state.game.model, state.data
    for viewer in range(data["flow"]["players"]):
        seen = _seen(state, viewer)
        _assert_same_view(state, viewer, seen, rng_twin(data))
        for twin in [*value_twins(model, data, viewer), *item_twins(model, data, viewer, counts),
                     *whole_value_twins(model, data, viewer, counts)]:
            try:
                _assert_same_view(state, viewer, seen, twin)
            except R.RuleRuntimeError:
                counts.rejected += 1
                continue
            counts.tested += 1


def check_twins_tested(state: State, counts: TwinCounts) -> None:
    """In a game with hidden data, some twin must have been compared: else the leak check proved nothing."""
    if state.game.info.hidden_information:
        assert counts.tested, (
            f"{state.game.name}: the game has hidden data but no twin of it could be observed over a whole "
            f"playout ({counts.rejected} were no possible state): the leak check tested nothing")
