"""Observations: the only way hidden information leaves the engine.

A variable's `visibility` decides who sees it (public, owner — each seat
sees its own entry of a per-player variable — or hidden), and `visible_if`
decides item by item (face-down cards); a value that is not a list is one
item, with `index` null.  Masked values keep only what a
player may know: a hidden list shows its length, a hidden item shows its
`back` (e.g. a card's colour) or null.  The random generator's state is
never observed.

Nor does anything leave through an error: a rule error raised while a
seat's view is worked out (a `visible_if` that fails on another seat's
card) reaches that seat without its text (`errors.withheld`) in a game that
keeps secrets; whoever runs the game sees everything and asks for the text
with `full_errors=True`.
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar

from ruleplay.dsl import runtime as R

from .errors import SeatError, withheld
from .model import GameModel, VarDecl

T = TypeVar("T")


def _masked(value: Any) -> Any:
    if isinstance(value, list):
        return {"hidden": len(value)}
    return {"hidden": True}


def _items(decl: VarDecl, value: Any, ctx: R.Ctx, viewer: int, owner: int | None) -> Any:
    """A list item by item; any other value as one item (`index` null), so `visible_if` never goes unheard."""
    if decl.visible_if is None:
        return R.clone(value)
    if not isinstance(value, list):
        return _item(decl, value, None, ctx, viewer, owner)
    return [_item(decl, item, i, ctx, viewer, owner) for i, item in enumerate(value)]


def _item(decl: VarDecl, item: Any, index: int | None, ctx: R.Ctx, viewer: int, owner: int | None) -> Any:
    ctx.env.update(item=item, index=index, viewer=viewer, owner=owner)
    if decl.visible_if(ctx):
        return R.clone(item)
    return R.clone(decl.back(ctx)) if decl.back is not None else None


def seat_facing(model: GameModel, seat: int, work: Callable[[], T], full_errors: bool = False) -> T:
    """`work()`, done for seat `seat` alone: a rule error in it leaves without its text, unless `full_errors`.

    Only a game that keeps secrets withholds: elsewhere the text quotes what
    every seat sees.  The error shown is raised once the one caught is no
    longer being handled, so it holds no trace of it (no `__context__`).
    """
    try:
        return work()
    except R.RuleRuntimeError as err:
        if full_errors or not model.keeps_secrets:
            raise
        shown = withheld(err, seat)
    raise shown


def observe(model: GameModel, data: dict, player: int, full_errors: bool = False) -> dict:
    """What seat `player` sees of the state `data` (`full_errors`: a rule error keeps its text, for the operator)."""
    flow = data["flow"]
    if type(player) is not int or not 0 <= player < flow["players"]:
        raise SeatError(f"observe(): {player!r} is not a seat of this game (0..{flow['players'] - 1})")
    seen = seat_facing(model, player, lambda: _seen_vars(model, data, player), full_errors)
    return {
        "game": model.name,
        "viewer": player,
        "round": flow["round"],
        "phase": flow["phase"],
        "stage": flow["stage"],
        "current": flow["player"],
        "terminal": flow["done"],
        "state": seen,
    }


def _seen_vars(model: GameModel, data: dict, player: int) -> dict[str, Any]:
    """Every state variable as seat `player` sees it."""
    ctx = R.Ctx(data["vars"], data["flow"], model, budget=model.budget())
    seen: dict[str, Any] = {}
    for name, decl in model.vars.items():
        value = data["vars"][name]
        if decl.per_player:
            row = []
            for seat, entry in enumerate(value):
                if decl.visibility == "hidden" or (decl.visibility == "owner" and seat != player):
                    row.append(_masked(entry))
                else:
                    row.append(_items(decl, entry, ctx, player, seat))
            seen[name] = row
        elif decl.visibility == "hidden":
            seen[name] = _masked(value)
        else:
            seen[name] = _items(decl, value, ctx, player, None)
    return seen
