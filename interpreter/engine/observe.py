"""Observations: the only way hidden information leaves the engine.

A variable's `visibility` decides who sees it (public, owner — each seat
sees its own entry of a per-player variable — or hidden), and `visible_if`
decides item by item (face-down cards); a value that is not a list is one
item, with `index` null.  Masked values keep only what a
player may know: a hidden list shows its length, a hidden item shows its
`back` (e.g. a card's colour) or null.  The random generator's state is
never observed.
"""

from __future__ import annotations

from typing import Any

from ruleplay.dsl import runtime as R

from .errors import SeatError
from .model import GameModel, VarDecl


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


def observe(model: GameModel, data: dict, player: int) -> dict:
    flow = data["flow"]
    if type(player) is not int or not 0 <= player < flow["players"]:
        raise SeatError(f"observe(): {player!r} is not a seat of this game (0..{flow['players'] - 1})")
    ctx = R.Ctx(data["vars"], flow, model, budget=model.budget())
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
