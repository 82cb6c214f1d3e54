"""What each builtin accepts and, more precisely than `Builtin.returns`, what it gives.

`accepts` lists, per argument, the runtime kinds the builtin works with (as
`dsl.builtins` checks them) and, for arguments that name something declared
in the ruleset (a board, a graph, a component kind, a direction or a
direction set), which table a literal name must be found in.  A builtin
missing here is still type-checked by its declared result type.
"""

from __future__ import annotations

from dataclasses import dataclass

from ruleplay.dsl.builtins import BUILTINS
from ruleplay.dsl.geometry import DIRECTION_SETS, Grid

from .typelattice import (
    ANY, INT, NUMBER, NUMERIC, STRING, Type, component, is_only, join, list_of,
)

_LIST = frozenset({"list"})
_MAP = frozenset({"map"})
_INT = frozenset({"int"})
_STR = frozenset({"string"})


@dataclass(frozen=True)
class Arg:
    kinds: frozenset[str] | None = None  # None: any value is accepted
    names: str | None = None  # board, graph, component kind, direction, direction set


ANY_ARG = Arg()
LIST = Arg(_LIST)
CELL = Arg(_INT)
BOARD = Arg(_STR, "board")
GRAPH = Arg(_STR, "graph")
DIRECTION = Arg(frozenset({"string", "list"}), "direction")
DIRECTION_SET = Arg(_STR, "direction set")

_ACCEPTS: dict[str, tuple[Arg, ...]] = {
    "len": (Arg(frozenset({"list", "map", "string"})),),
    "range": (Arg(_INT), Arg(_INT)),
    "sum": (LIST,),
    "abs": (Arg(NUMERIC),),
    "any": (LIST,), "all": (LIST,), "index_where": (LIST,),
    "sorted": (LIST,), "reversed": (LIST,), "unique": (LIST,), "flatten": (LIST,), "enumerate": (LIST,),
    "argmax": (LIST,), "argmin": (LIST,), "leader": (LIST,), "ranks": (LIST,),
    "count": (LIST, ANY_ARG), "index_of": (LIST, ANY_ARG),
    "int": (Arg(NUMERIC | _STR),),
    "join": (LIST, Arg(_STR)),
    "keys": (Arg(_MAP),), "values": (Arg(_MAP),),
    "zip": (LIST, LIST),
    "repeat": (ANY_ARG, Arg(_INT)),
    "components": (Arg(_STR, "component kind"),),
    "kind": (Arg(_STR),),
    "next_seat": (Arg(_INT), Arg(_INT)),
    "others": (Arg(_INT),),
    "cells": (BOARD,), "perimeter": (BOARD,),
    "cell": (BOARD, Arg(_INT), Arg(_INT)),
    "xy": (BOARD, CELL),
    "step": (BOARD, CELL, DIRECTION, Arg(_INT)),
    "ray": (BOARD, CELL, DIRECTION), "line_of": (BOARD, CELL, DIRECTION),
    "neighbors": (BOARD, CELL, DIRECTION_SET),
    "offset": (BOARD, CELL, CELL),
    "area": (BOARD, CELL, Arg(_INT), Arg(_INT)),
    "flood": (BOARD, CELL, Arg(_INT), DIRECTION_SET, LIST, LIST),
    "dirs": (DIRECTION_SET,), "dir_vec": (DIRECTION,),
    "adjacent": (GRAPH, ANY_ARG), "nodes": (GRAPH,),
    "reachable": (GRAPH, ANY_ARG, Arg(_INT | {"null"})), "distance": (GRAPH, ANY_ARG, ANY_ARG),
    "reachable_via": (LIST, ANY_ARG, Arg(_INT | {"null"})), "distance_via": (LIST, ANY_ARG, ANY_ARG),
}


def accepts(name: str, nargs: int) -> tuple[Arg, ...]:
    """The accepted kinds of each argument of a call with `nargs` arguments."""
    if name in ("min", "max"):
        return (LIST,) if nargs == 1 else (Arg(NUMERIC), Arg(NUMERIC))
    if name == "dirs" and nargs == 2:
        return (BOARD, DIRECTION_SET)  # a set the board declares, or a named one
    return _ACCEPTS.get(name, ())


def direction_sets(boards: dict[str, Grid], board: str | None, on_board: bool) -> list[str]:
    """The direction sets a call may name: the named ones, and those of its board (of any board when the
    board is not a literal name, since which one it is is only known in play)."""
    if not on_board:
        return list(DIRECTION_SETS)
    grids = [boards[board]] if board in boards else [] if board is not None else list(boards.values())
    return list(dict.fromkeys(n for g in grids for n in g.set_names())) or list(DIRECTION_SETS)


_INT_LIST = list_of(INT)
_FIXED: dict[str, Type] = {
    "range": _INT_LIST, "cells": _INT_LIST, "perimeter": _INT_LIST, "neighbors": _INT_LIST, "ray": _INT_LIST,
    "line_of": _INT_LIST, "offset": _INT_LIST, "area": _INT_LIST, "flood": _INT_LIST, "seats": _INT_LIST,
    "others": _INT_LIST, "xy": _INT_LIST, "dir_vec": _INT_LIST,
    "argmax": _INT_LIST, "argmin": _INT_LIST, "ranks": _INT_LIST, "dirs": list_of(_INT_LIST),
    "keys": list_of(STRING),
}


def _numeric_or(t: Type, fallback: Type) -> Type:
    return t if is_only(t, NUMERIC) else fallback


def result(name: str, args: list[Type], kind_literal: str | None = None) -> Type:
    """The type of `name(args…)`; `kind_literal` is the literal kind given to `components()`."""
    if name in _FIXED:
        return _FIXED[name]
    first = args[0] if args else ANY
    if name in ("sorted", "reversed", "unique"):
        return first if first.kind == "list" else list_of(ANY)
    if name == "flatten":
        inner = first.items()
        return inner if inner.kind == "list" else list_of(ANY)
    if name == "repeat":
        return list_of(first)
    if name == "zip" and len(args) == 2:
        return list_of(list_of(join(first.items(), args[1].items())))
    if name == "enumerate":
        return list_of(list_of(join(INT, first.items())))
    if name == "components":
        if not args:
            return list_of(component(None))
        return list_of(component(frozenset({kind_literal}) if kind_literal is not None else None))
    if name in ("min", "max"):
        value = first.items() if len(args) == 1 else join(first, args[1])
        return _numeric_or(value, ANY)
    if name == "sum":
        return INT if first.kind == "list" and first.item == INT else NUMBER
    if name == "abs":
        return _numeric_or(first, NUMBER)
    spec = BUILTINS.get(name)
    declared = spec.returns if spec is not None else "any"
    return {"int": INT, "number": NUMBER, "string": STRING, "bool": Type("bool"), "list": list_of(ANY),
            "map": Type("map")}.get(declared, ANY)
