"""Reads the lowering writes without making what Python makes, where nothing can see the difference.

A component's property is a constant: Python hands out a copy of it, which
a reader that keeps nothing of the value (`in`'s right side, `len`, a loop
in an expression over scalars) never sees, so the C reads it where it lies
and charges the copy.  `count`, `index_of` and `in` of a state list walk
the list once where its items lie instead of calling the builtin, which
measures the list and then walks it again; `len(flatten(xs))` and
`len(unique(xs))` count without making the list.  All charge the budget as
Python does and leave anything off their common case to the runtime.
"""

from __future__ import annotations

from ruleplay.dsl import ast as A
from ruleplay.dsl.scope import Scope

from .cdata import BUILTIN_IDS
from .cfunc import CFunc, Val, view_count, view_items
from .lower_tables import Locals

LEN_UNMADE = ("flatten", "unique")  # builtins whose list a len() of the call only measures (`_len_unmade`)


class ReadLowering:
    """The reads of `ExprLowering` (which provides `f`, `lower`, `text`, `where` and `props`)."""

    f: CFunc
    props: dict[str, tuple[int, str]]  # a component property -> its row in M->props, what it holds

    def _e_Attr(self, node: A.Attr, scope: Scope, lv: Locals) -> Val:
        found = self.props.get(node.name)
        if found is not None and found[1] == "scalar":  # the copy of a scalar is the scalar
            return self._prop(node, found[0], scope, lv)
        obj = self.lower(node.obj, scope, lv)
        return self.f.assign_owned(f"rp_field(C, {obj.rv}, {self.text(node.name)}, {self.where(node.pos)})")

    def _read(self, node: A.Expr, scope: Scope, lv: Locals, items_kept: bool = False) -> Val:
        """`node` for a reader that keeps nothing of its value (`in`'s right side, `len`; with `items_kept`, a
        loop in an expression, which may keep its items): a component's property read where it lies and charged
        as its copy (`rp_prop_try`), as no one sees the copy Python makes; with `items_kept`, only a property no
        value of which holds a list or map, so a kept item is a scalar, which Python shares too.  Anything else
        (a map's field, a name no property has, ...) lowered as `lower` lowers it."""
        found = self.props.get(node.name) if isinstance(node, A.Attr) else None
        if found is None or (items_kept and found[1] == "nested"):
            return self.lower(node, scope, lv)
        return self._prop(node, found[0], scope, lv)  # type: ignore[arg-type]

    def _prop(self, node: A.Attr, row: int, scope: Scope, lv: Locals) -> Val:
        """`OBJ.name` read where it lies when OBJ is a component with the property (its `row`), charged as its
        copy; anything else through `rp_field`, whose value the function holds until the read is made again."""
        obj = self.lower(node.obj, scope, lv)
        f = self.f
        out, held = f.borrowed(), f.local()
        f.fast(f"rp_prop_try(C, &{out}, {obj.rv}, {row})",
               f"rv_set(&{held}, rp_field(C, {obj.rv}, {self.text(node.name)}, {self.where(node.pos)})); "
               f"{out} = {held};")
        return Val(out)

    def _len_unmade(self, call: A.Call, scope: Scope, lv: Locals) -> Val:
        """`len(flatten(xs))` or `len(unique(xs))` without the list made, charged as the call is charged
        (`rp_len_of_call`)."""
        f = self.f
        xs = self.lower(call.args[0], scope, lv)
        out = f.integer()
        f.emit(f"{out} = rp_len_of_call(C, {BUILTIN_IDS[call.func]}, {xs.rv}, {self.where(call.pos)});")
        f.check()
        return Val(out, "int")

    def _search_view(self, fn: str, xs: Val, value: Val, slow: str) -> str:
        """`count`, `index_of` or `in` (`fn`) of a state list, in one walk where its items lie, charged as the
        builtin's call or `rp_in_fast` charges it (rp.h `rp_count_view_try`); anything off its common case goes
        to `slow`, the runtime's C int.  A pure function's view is read once (`CFunc.view`); one running effects
        reads where the list lies at the call, as nothing changes while the call runs."""
        f = self.f
        items, n = f.view(xs.var) if f.pure else (f"({view_items(xs.var)})", f"({view_count(xs.var)})")
        out = f.integer()
        f.fast(f"rp_{fn}_view_try(&{out}, C, {xs.rv}, {items}, {n}, {value.rv})", f"{out} = {slow};")
        return out
