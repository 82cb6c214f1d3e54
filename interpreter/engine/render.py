"""One generic text renderer for every game, driven by the ruleset's `render:` list.

Each item evaluates an expression and draws it as a grid (on a declared
board), a row, a track, a list or a plain value; `cell:` turns one item into
its text.  The header shows round, phase and who is to move.
"""

from __future__ import annotations

from typing import Any

from ruleplay.dsl import runtime as R

from .legal import CHANCE
from .model import GameModel, RenderItem
from .observe import observe
from .people import plain_text


def _text(item: RenderItem, ctx: R.Ctx, value: Any, index: int) -> str:
    if item.cell is None:
        return plain_text(ctx.model, value)
    ctx.env = {"item": value, "index": index}
    return plain_text(ctx.model, item.cell(ctx))


def _grid(model: GameModel, item: RenderItem, ctx: R.Ctx, value: Any) -> list[str]:
    grid = model.boards[item.board]
    if not isinstance(value, list) or len(value) != grid.size:
        return [f"(expected a list of {grid.size} cells, got {R.type_name(value)})"]
    w = max(item.width, max(len(_text(item, ctx, v, i)) for i, v in enumerate(value)))
    lines = ["    " + "".join(str(x).rjust(w + 1) for x in range(grid.width))]
    for y in range(grid.height):
        cells = [_text(item, ctx, value[y * grid.width + x], y * grid.width + x) for x in range(grid.width)]
        lines.append(f"{y:>3} " + "".join(c.rjust(w + 1) for c in cells))
    return lines


def render_text(model: GameModel, data: dict) -> str:
    flow = data["flow"]
    ctx = R.Ctx(data["vars"], flow, model, budget=model.budget())  # one bound for the whole picture
    who = "game over" if flow["done"] else ("chance" if flow["player"] == CHANCE else f"player {flow['player']} to move")
    stage = f", stage {flow['stage']}" if flow["stage"] else ""
    out = [f"{model.title} — round {flow['round']}, phase {flow['phase']}{stage}, {who}"]
    for item in model.render:
        try:
            value = item.show(ctx)
        except R.RuleRuntimeError as err:
            out.append(f"{item.label}: (cannot show: {err.message})")
            continue
        if item.kind == "grid":
            out.append(f"{item.label}:")
            out.extend(_grid(model, item, ctx, value))
        elif item.kind in ("row", "track") and isinstance(value, list):
            sep = " " if item.kind == "row" else " > "
            out.append(f"{item.label}: " + (sep.join(_text(item, ctx, v, i) for i, v in enumerate(value)) or "none"))
        elif item.kind == "list" and isinstance(value, list):
            out.append(f"{item.label}:")
            out.extend(f"  {i}: {_text(item, ctx, v, i)}" for i, v in enumerate(value))
        else:
            out.append(f"{item.label}: {_text(item, ctx, value, 0)}")
    return "\n".join(out)


def render_seat_text(model: GameModel, data: dict, viewer: int) -> str:
    """The picture as seat `viewer` may see it: every item drawn from the seat's observation, never from
    the state itself, so hidden values appear as their masks (a face-down card as its back, another
    seat's hand as `{"hidden": 5}`) and an item that needs what the seat cannot see says it cannot show."""
    return render_text(model, {"vars": observe(model, data, viewer)["state"], "flow": data["flow"]})
