"""The `render:` list: what the text renderer and the pictures draw, item by item."""

from __future__ import annotations

from ruleplay.dsl.scope import Scope

from ..model import Picture, RenderItem
from .context import BuildContext

PICTURE_EXPRESSIONS = ("fill", "text", "pieces", "exits", "place", "key")


def _picture(b: BuildContext, spec: dict, kind: str, path: tuple, scope: Scope) -> Picture:
    """The item's `picture:` facts, each expression compiled with `item` and `index` bound.

    A fact that the item's kind cannot use is an error rather than silently
    ignored: an author who writes `shape: hex` on a row expects a hex board.
    """
    pic = spec.get("picture") or {}
    path = path + ("picture",)
    item_scope = scope.with_locals("item", "index")
    fns = {key: b.expr(path + (key,), item_scope) for key in PICTURE_EXPRESSIONS}
    if "shape" in pic and kind != "grid":
        b.diag("RP218", f"`picture.shape` is for grids, and this item is drawn `as: {kind}`", path + ("shape",),
               key=True, hint="give the item a `board:` (and `as: grid`), or remove `shape`")
    for key in ("pieces", "exits"):
        if key in pic and kind != "grid":
            b.diag("RP218", f"`picture.{key}` is for grid cells, and this item is drawn `as: {kind}`",
                   path + (key,), key=True, hint=f"draw the item on a board, or remove `{key}`")
    if "style" in pic and kind == "grid":
        b.diag("RP218", "`picture.style` is for rows, tracks, lists and values, and this item is a grid",
               path + ("style",), key=True, hint="style the grid's cells with `fill`, `text`, `pieces` and `exits`")
    return Picture(pic.get("shape", "square"), pic.get("style", "boxes"), fns["fill"], fns["text"],
                   fns["pieces"], fns["exits"], pic.get("size", 0), pic.get("hide", False), fns["place"],
                   fns["key"], pic.get("label"))


def build_render(b: BuildContext, scope: Scope) -> list[RenderItem]:
    out = []
    for i, spec in enumerate(b.data.get("render") or []):
        path = ("render", i)
        show = b.expr(path + ("show",), scope)
        cell = b.expr(path + ("cell",), scope.with_locals("item", "index"))
        kind = spec.get("as", "grid" if spec.get("board") else "value")
        if kind == "grid" and spec.get("board") not in (b.data.get("boards") or {}):
            b.diag("RP210", f"render item {i}: `as: grid` needs an existing `board:`", path,
                   hint="name a board declared under `boards:`")
        picture = _picture(b, spec, kind, path, scope)
        if show is not None:
            out.append(RenderItem(show, kind, spec.get("board"), spec.get("label", spec["show"]), cell,
                                  spec.get("width", 3), picture))
    return out
