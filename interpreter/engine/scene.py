"""What a picture of a state shows, worked out from the ruleset's `render:` list as plain data.

The picture itself is drawn in `view.picture`; this module evaluates the
rules' expressions (which only the engine may run) and hands over plain
JSON-like data: one entry per render item, with every cell's or item's
text, fill colour, pieces and exits.  A player's picture is computed from
that player's observation (`observe`), never from the full state, so what
the player may not see cannot reach the picture: masked values arrive as
`{"hidden": ...}` and are drawn as card backs.  The flow (round, phase,
seat to move) is public and comes from the state.

An expression that fails on some cell (often a helper that reads a value the
viewer is not shown) leaves that cell plain and is counted in the item's
`problems`, with the first message, so a picture never hides a failure.
"""

from __future__ import annotations

from typing import Any

from ruleplay.dsl import runtime as R

from .legal import CHANCE
from .model import Fn, GameModel, RenderItem
from .observe import observe
from .people import is_hidden, plain_text


class _Item:
    """Evaluates one render item's per-entry expressions, collecting failures instead of raising."""

    def __init__(self, item: RenderItem, ctx: R.Ctx) -> None:
        self.item, self.ctx = item, ctx
        self.problems = 0
        self.first_problem: str | None = None

    def eval(self, fn: Fn | None, value: Any, index: int, default: Any = None) -> Any:
        if fn is None:
            return default
        self.ctx.env = {"item": value, "index": index}
        try:
            return fn(self.ctx)
        except R.RuleRuntimeError as err:
            self.problems += 1
            self.first_problem = self.first_problem or f"at index {index}: {err.message}"
            return default

    def text(self, value: Any, index: int) -> str:
        pic = self.item.picture
        fn = pic.text if pic.text is not None else self.item.cell
        if fn is None:
            return "" if value is None and self.item.kind == "grid" else plain_text(self.ctx.model, value)
        out = self.eval(fn, value, index, default="")
        return "" if out is None or out == "." and self.item.kind == "grid" else plain_text(self.ctx.model, out)

    def entry(self, value: Any, index: int) -> dict:
        if is_hidden(value):
            count = value["hidden"]
            return {"hidden": count if type(count) is int else 1}
        pic = self.item.picture
        if isinstance(value, list) and pic.style == "cards" and self.item.kind != "grid":
            return {"cards": [self.entry(v, i) for i, v in enumerate(value)]}  # a hand: each card drawn alone
        out: dict[str, Any] = {"text": self.text(value, index)}
        if pic.place is not None:
            place = self.eval(pic.place, value, index)
            out |= {"pick": place, "place": plain_text(self.ctx.model, place)}
        elif self.item.kind == "grid":
            out["pick"] = index
        elif type(value) in (str, int):
            out["pick"] = value
        fill = self.eval(pic.fill, value, index)
        if isinstance(fill, str):
            out["fill"] = fill
        if self.item.kind == "grid":
            out["pieces"] = _pieces(self.ctx.model, self.eval(pic.pieces, value, index, default=[]))
            exits = self.eval(pic.exits, value, index, default=[])
            out["exits"] = [e for e in exits if isinstance(e, str)] if isinstance(exits, list) else []
        return out


def _pieces(model: GameModel, value: Any) -> list[dict]:
    """Pieces as the picture takes them: a seat number, or [seat or null, text]; anything else is skipped."""
    if not isinstance(value, list):
        return []
    out = []
    for p in value:
        if type(p) is int:
            out.append({"seat": p, "text": ""})
        elif isinstance(p, list) and len(p) == 2 and (p[0] is None or type(p[0]) is int):
            out.append({"seat": p[0], "text": plain_text(model, p[1]) if p[1] is not None else ""})
    return out


def _scene_item(model: GameModel, item: RenderItem, ctx: R.Ctx) -> dict:
    pic = item.picture
    out: dict[str, Any] = {"label": pic.label if pic.label is not None else item.label, "kind": item.kind, "shape": pic.shape, "style": pic.style,
                           "size": pic.size}
    try:
        value = item.show(ctx)
    except R.RuleRuntimeError as err:
        return out | {"error": f"cannot show: {err.message}"}
    ev = _Item(item, ctx)
    if item.kind == "grid":
        grid = model.boards[item.board]
        if not isinstance(value, list) or len(value) != grid.size:
            return out | {"error": f"expected a list of {grid.size} cells, got {R.type_name(value)}"}
        out |= {"width": grid.width, "height": grid.height, "cells": [ev.entry(v, i) for i, v in enumerate(value)]}
    elif is_hidden(value):
        out["items"] = [ev.entry(value, 0)]
    elif item.kind == "value" and not (isinstance(value, list) and pic.style == "cards"):
        out["items"] = [ev.entry(value, 0)]
    elif isinstance(value, list):
        out["items"] = [ev.entry(v, i) for i, v in enumerate(value)]
    else:
        out["items"] = [ev.entry(value, 0)]
    key = ev.eval(pic.key, None, 0)
    if isinstance(key, dict):
        out["key"] = [[plain_text(model, k), v] for k, v in key.items() if isinstance(v, str)]
    if ev.problems:
        out["problems"] = {"count": ev.problems, "first": ev.first_problem}
    return out


def scene(model: GameModel, data: dict, viewer: int | None = None, full_errors: bool = False,
          status: str | None = None) -> dict:
    """The picture's content: a header and one entry per render item that is not hidden from pictures.

    `viewer` None is the all-seeing picture; a seat's picture is made from
    its observation alone, whose rule errors keep their text only with
    `full_errors` (`observe`), for a page that shows everything anyway.
    """
    flow = data["flow"]
    values = data["vars"] if viewer is None else observe(model, data, viewer, full_errors)["state"]
    ctx = R.Ctx(values, flow, model, budget=model.budget())  # one bound for the whole picture
    who = ("game over" if flow["done"] else "chance" if flow["player"] == CHANCE
           else f"player {flow['player']} to move")
    stage = f", stage {flow['stage']}" if flow["stage"] else ""
    if status is None:
        status = f"round {flow['round']}, phase {flow['phase']}{stage}, {who}"
    return {"title": model.title, "status": status,
            "viewer": viewer, "players": flow["players"], "mover": flow["player"],
            "items": [_scene_item(model, item, ctx) for item in model.render if not item.picture.hide]}
