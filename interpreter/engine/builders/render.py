"""The `render:` list: what the text renderer draws, item by item."""

from __future__ import annotations

from ruleplay.dsl.scope import Scope

from ..model import RenderItem
from .context import BuildContext


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
        if show is not None:
            out.append(RenderItem(show, kind, spec.get("board"), spec.get("label", spec["show"]), cell,
                                  spec.get("width", 3)))
    return out
