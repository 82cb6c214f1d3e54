"""What each seat may see of the state, lowered: every variable's visibility, `visible_if` and `back`.

`engine/observe.py` shows a seat each variable whole, masked, or item by
item through its `visible_if` (with `item`, `index`, `viewer` and `owner`
bound) and `back`.  This writes the module's table `RP_SEEN_VARS` (one
`rp_seen_var` per variable, csrc/rp.h), which `csrc/rp_observe.c` walks
to write a seat's observation vector natively.  A `visible_if` or `back`
the lowering does not take leaves that variable's row marked not lowered,
so observations of that ruleset are made in Python while its moves are
still played natively (as a heuristic the module lacks leaves only the
positions it judges to Python).
"""

from __future__ import annotations

from typing import Any

from .cdata import NotLowered

VISIBILITY = {"public": "SEEN_PUBLIC", "owner": "SEEN_OWNER", "hidden": "SEEN_HIDDEN"}
ITEM_LOCALS = ("item", "index", "viewer", "owner")  # A[0..3] of the lowered functions (rp_observe.c)


def seen_table(writer: Any) -> str:
    """The C table `RP_SEEN_VARS` of the module `writer` (module._ModuleWriter) is writing."""
    rows = []
    for name, decl in writer.model.vars.items():
        try:
            test = _site(writer, name, "visible_if", "int", decl.visible_if)
            back = _site(writer, name, "back", "rv", decl.back)
            lowered = 1
        except NotLowered:
            test = back = "NULL"
            lowered = 0
        rows.append(f"{{{VISIBILITY[decl.visibility]}, {lowered}, {test}, {back}}}")
    return writer._array("const rp_seen_var RP_SEEN_VARS", rows)


def _site(writer: Any, name: str, field: str, returns: str, compiled: Any) -> str:
    """The C function of the variable's `field`; NULL when it has none.  Code the model compiled but no
    longer holds the tree of (switched off by mutation testing) cannot be lowered: NotLowered."""
    if compiled is None:
        return "NULL"
    path = ("state", name, field)
    if path not in writer.model.code:
        raise NotLowered(f"`{field}` of `{name}` without its tree")
    return writer.site(path, returns, ITEM_LOCALS)
