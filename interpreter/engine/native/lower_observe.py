"""What each seat may see of the state, lowered: every variable's visibility, `visible_if` and `back`.

`engine/observe.py` shows a seat each variable whole, masked, or item by
item through its `visible_if` (with `item`, `index`, `viewer` and `owner`
bound) and `back`.  This writes the module's table `RP_SEEN_VARS` (one
`rp_seen_var` per variable, csrc/rp.h), which `csrc/rp_observe.c` walks
to write a seat's observation vector natively.  A `visible_if` or `back`
the lowering does not take leaves that variable's row marked not lowered,
so observations of that ruleset are made in Python while its moves are
still played natively (as a heuristic the module lacks leaves only the
positions it judges to Python).  Each row also says what its `visible_if`
and `back` read (`viewer`, state variables), so that a batch's row keeps an
entry none of them changed (rp_observe.c); a site the table cannot list
that of (a call, a flow value, a `let`, a comprehension) is marked -1.
"""

from __future__ import annotations

from typing import Any

from ruleplay.dsl import ast as A

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
        read = _reads(writer, name, decl)
        by_viewer, reads = (0, None) if read is None else read
        table = "NULL" if not reads else writer._ints(reads)
        rows.append(f"{{{VISIBILITY[decl.visibility]}, {lowered}, {test}, {back}, {by_viewer}, "
                    f"{-1 if reads is None else len(reads)}, {table}}}")
    return writer._array("const rp_seen_var RP_SEEN_VARS", rows)


# The nodes a `visible_if` or `back` may hold for its reads to be listed: none calls a function (which may read any
# variable) or binds a name.
LISTED = (A.Literal, A.Name, A.ListLit, A.Attr, A.Index, A.Slice, A.Unary, A.Binary, A.BoolOp, A.Cond)


def _reads(writer: Any, name: str, decl: Any) -> tuple[int, list[int]] | None:
    """Whether the `visible_if` and `back` of variable `name` read `viewer`, and the state variables they read (by
    index, sorted); None where that cannot be told from their trees."""
    by_viewer, reads = 0, set()
    for field in ("visible_if", "back"):
        if getattr(decl, field) is None:
            continue
        found = writer.model.code.get(("state", name, field))
        if found is None:
            return None
        tree, scope = found
        for node in A.walk(tree):
            if not isinstance(node, LISTED):
                return None
            if not isinstance(node, A.Name):
                continue
            kind = scope.resolve(node.name)
            if kind is None or kind[0] not in ("var", "local", "const"):
                return None
            if kind[0] == "var":
                reads.add(writer.low.var_index[node.name])
            elif kind[0] == "local":
                if node.name not in ITEM_LOCALS:
                    return None
                by_viewer |= node.name == "viewer"
    return by_viewer, sorted(reads)


def _site(writer: Any, name: str, field: str, returns: str, compiled: Any) -> str:
    """The C function of the variable's `field`; NULL when it has none.  Code the model compiled but no
    longer holds the tree of (switched off by mutation testing) cannot be lowered: NotLowered."""
    if compiled is None:
        return "NULL"
    path = ("state", name, field)
    if path not in writer.model.code:
        raise NotLowered(f"`{field}` of `{name}` without its tree")
    return writer.site(path, returns, ITEM_LOCALS)
