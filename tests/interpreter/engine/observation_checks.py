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

from ruleplay import RuleplayError
from ruleplay.dsl import runtime as R
from ruleplay.engine.history import History
from ruleplay.engine.legal import bind
from ruleplay.engine.model import GameModel, VarDecl
from ruleplay.engine.moves import Move, _freeze, arg_key
from ruleplay.engine.observe import observe
from ruleplay.engine.rng import Rng
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


def _place(name: str, seat: int | None) -> str:
    """`hand[1]`, or `deck` for a variable that is not per player: how a changed value is named."""
    return name if seat is None else f"{name}[{seat}]"


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
        where = _place(name, seat)
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
        where = _place(decl.name, owner)
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
            yield Twin(f"{_place(name, owner)} (hidden as one item, altered)", twin)


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
    twin_seen = _seen(state.with_data(twin.data), viewer)
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


# ------------------------------------------------------ moves through a player's eyes
def _history_with(state: State, index: int, move: Move) -> History:
    moves, seens = list(state.history), list(state.history_seen_by())
    moves[index] = move
    return History.of(tuple(moves), tuple(seens))


def history_twins(state: State, recent: int = 3) -> Iterator[tuple[int, State, str]]:
    """(viewer, twin, label): one masked argument of a recent past move changed to another possible value.

    The viewer was shown `?` there, so nothing they observe may change.
    """
    moves, seens = state.history, state.history_seen_by()
    private = [i for i, seen in enumerate(seens) if seen is not None][-recent:]
    for i in private:
        move, seen = moves[i], seens[i]
        action = state.game.model.actions[move.action]
        for j, (param, who) in enumerate(zip(action.params, seen)):
            if who is None:
                continue
            other = next((v for v in param.universe if arg_key(v) != arg_key(move.args[j])), None)
            if other is None:
                continue
            args = list(move.args)
            args[j] = _freeze(other)
            twin = State(state.game, state.data, None, _history_with(state, i, Move(move.action, tuple(args))))
            for viewer in range(state.data["flow"]["players"]):
                if viewer not in who:
                    yield viewer, twin, f"argument {param.name!r} of move {i + 1} ({move})"


def check_history_masked(state: State) -> None:
    """A masked argument of a past move is not observed, whatever it was."""
    for viewer, twin, label in history_twins(state):
        assert _seen(twin, viewer) == _seen(state, viewer), (
            f"{state.game.name}: observe({viewer}) changes with {label}, which seat {viewer} was shown as ?")


def _components_in(model: GameModel, value: Any) -> set[str]:
    if isinstance(value, (list, tuple)):
        return set().union(*(_components_in(model, v) for v in value)) if value else set()
    return {value} if isinstance(value, str) and value in model.component_props else set()


def _effects_only(before: State, move: Move) -> dict:
    """The data right after `move`'s own effects, before the flow's hooks run (which may hide again
    what the move showed: the last diver placed is seen, then the round is scored and cleared)."""
    model = before.game.model
    data = R.clone(before.data)
    action = model.actions[move.action]
    ctx = R.Ctx(data["vars"], data["flow"], model, rng=Rng(data["rng"]), env=bind(action, move),
                budget=model.budget())
    action.effects(ctx)
    return data


def _visible_components(state: State, viewer: int, data: dict | None = None) -> set[str]:
    seen = (state.observe(viewer) if data is None else observe(state.game.model, data, viewer))["state"]
    found: set[str] = set()
    stack: list[Any] = [seen]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str) and item in state.game.model.component_props:
            found.add(item)
    return found


def check_move_shows_only_what_is_seen(before: State, after: State) -> None:
    """A move shows a seat a component only if that seat sees it before the move, after the move's own
    effects, or after the move.

    `keep_special(kraken)` shown to the opponent, while the kraken goes from
    one hidden hand to another, would tell them what they never see.
    """
    move, mover = after.last_move, before.current_player
    model = before.game.model
    seen = after.last_seen_by or (None,) * len(move.args)
    for viewer in range(before.data["flow"]["players"]):
        if viewer == mover:
            continue
        visible_args = [a for a, who in zip(move.args, seen) if who is None or viewer in who]
        hidden = _components_in(model, visible_args) - _visible_components(before, viewer)
        if hidden:
            hidden -= _visible_components(after, viewer) | _visible_components(
                before, viewer, _effects_only(before, move))
        assert not hidden, (f"{model.name}: seat {viewer} is shown {after.last_move_view(viewer)}, and so "
                            f"{sorted(hidden)}, which it sees neither before nor after the move "
                            f"(round {before.round}, phase {before.phase})")


def swap_twins(model: GameModel, data: dict, viewer: int) -> Iterator[Twin]:
    """Twins that exchange items between two lists `viewer` sees nothing of (a hand and the pile, say)."""
    unseen = [(name, seat) for name, seat in unseen_values(model, data, viewer)
              if isinstance(data["vars"][name] if seat is None else data["vars"][name][seat], list)]
    lists = {place: (data["vars"][place[0]] if place[1] is None else data["vars"][place[0]][place[1]])
             for place in unseen}
    for a, b in ((a, b) for a in unseen for b in unseen if a < b):  # type: ignore[operator]
        left, right = lists[a], lists[b]
        pick = next(((i, k) for i, x in enumerate(left) for k, y in enumerate(right) if x != y), None)
        if pick is None:
            continue
        i, k = pick
        new_left, new_right = list(left), list(right)
        new_left[i], new_right[k] = right[k], left[i]
        # The second replacement starts from the first's copy, so two seats of one variable swap too.
        twin = _with_var(_with_var(data, a[0], a[1], new_left), b[0], b[1], new_right)
        yield Twin(f"an item of {_place(*a)} swapped with one of {_place(*b)}", twin)



def _outcomes_seen(state: State, viewer: int) -> list[tuple[str, float]] | None:
    outcomes = state.chance_outcomes()
    if outcomes is None:
        return None
    return sorted((state.move_view(m, viewer), round(p, 9)) for m, p in outcomes)


def check_chance_outcomes_private(state: State, counts: TwinCounts) -> None:
    """At a chance node, what each seat could learn from the listed outcomes is the same in every state
    it cannot tell apart: the outcomes are not a window on hidden data (`harpoon_take(d4)` naming the
    cards of a hand)."""
    if not state.is_chance_node():
        return
    model, data = state.game.model, state.data
    for viewer in range(data["flow"]["players"]):
        seen = _outcomes_seen(state, viewer)
        if seen is None:
            continue
        for twin in swap_twins(model, data, viewer):
            try:
                twin_state = state.with_data(twin.data)
                if not twin_state.is_chance_node():
                    continue
                twin_seen = _outcomes_seen(twin_state, viewer)
            except (R.RuleRuntimeError, RuleplayError):
                counts.rejected += 1
                continue
            counts.tested += 1
            assert twin_seen == seen, (
                f"{model.name}: the chance outcomes seat {viewer} can list change with {twin.label}, which it "
                f"may not see (round {state.round}, phase {state.phase}): {seen[:4]} vs {(twin_seen or [])[:4]}")
