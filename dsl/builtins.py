"""The functions rulesets may call.  Nothing else is callable from user text.

Each builtin is pure (no randomness, no mutation of its arguments) so both
evaluators, and any cached legal-move computation, may call it freely.  The
table records arity and a result type for the type checker.
"""

from __future__ import annotations

import math
import re
from collections import deque
from dataclasses import dataclass
from functools import cmp_to_key
from typing import Any, Callable

from .ast import Pos
from .geometry import DIRECTION_SETS, DIRECTIONS, Grid
from .graphsearch import bfs, edge_adjacency
from .runtime import (MAX_INT_BITS, MAX_ITEMS, MAX_TEXT, Ctx, LimitError, RuleRuntimeError, clone, equal, number,
                      order, size, type_name, value_key)


@dataclass(frozen=True)
class Builtin:
    name: str
    fn: Callable[..., Any]
    min_args: int
    max_args: int
    needs_ctx: bool
    returns: str  # int, bool, string, list, map, any, number
    doc: str
    linear: bool  # walks its arguments and builds its result; False only for constant-time lookups
    prepaid: bool  # charges what it builds itself, before building it (its result may outgrow its arguments)
    sorts: bool  # sorts its first argument: n log n comparisons, not n


BUILTINS: dict[str, Builtin] = {}


def builtin(min_args: int, max_args: int | None = None, *, ctx: bool = False, returns: str = "any",
            linear: bool = True, prepaid: bool = False, sorts: bool = False):
    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        name = fn.__name__.rstrip("_")
        BUILTINS[name] = Builtin(name, fn, min_args, min_args if max_args is None else max_args,
                                 ctx or prepaid, returns, (fn.__doc__ or "").strip(), linear, prepaid, sorts)
        return fn
    return wrap


def invoke(spec: Builtin, ctx: Ctx, args: list, pos: Pos) -> Any:
    """Call a builtin as both evaluators do, charging its work to the move's budget.

    A builtin walks its list and map arguments (to search, sort, copy or join
    them), so a call costs their size in iterations; the list, map or text it
    returns is a new value, charged to the copies like a comprehension's.
    Uncharged, a cheap-looking call in a loop (`unique(L)` for each item of L)
    does work quadratic in a value's size.  A builtin that sorts pays its
    first argument's size once more per halving (n log n comparisons, each
    walking the items compared).  A builtin whose result can be far larger
    than its arguments (`range`, `repeat`, `cells`, graph searches, …) is
    `prepaid`: it charges what it builds before building it, so no result
    exists that the budget has not allowed.  Text arguments cost nothing: they
    are names (of boards, kinds, …), searched in C, or bounded before being
    walked.  An error raised without a position gets the call's, and the
    builtin's name.
    """
    budget = ctx.budget
    try:
        if spec.linear:
            for a in args:
                t = type(a)
                if t is list or t is dict:
                    budget.scan(a, None)
            if spec.sorts and args and type(args[0]) in (list, dict) and len(args[0]) > 2:
                halvings = (len(args[0]) - 1).bit_length()  # ceil(log2 n): one walk, scanned above, per halving
                budget.spend(size(args[0], budget.iterations) * (halvings - 1), None)
        result = spec.fn(ctx, *args) if spec.needs_ctx else spec.fn(*args)
        if spec.linear and not spec.prepaid:
            t = type(result)
            if t is str:
                budget.built(len(result), None)
            elif t is list or t is dict:
                budget.charge(result, None)
        return result
    except RuleRuntimeError as err:
        if err.pos is None:
            raise type(err)(f"{spec.name}(): {err.message}", pos, err.hint) from None
        raise


def _need(cond: bool, message: str) -> None:
    if not cond:
        raise RuleRuntimeError(message)


def _list(value: Any, fname: str) -> list:
    if type(value) is not list:
        raise RuleRuntimeError(f"{fname}() needs a list, not {type_name(value)}")
    return value


def _int(value: Any, fname: str) -> int:
    if type(value) is not int:
        raise RuleRuntimeError(f"{fname}() needs an int, not {type_name(value)}")
    return value


def _numbers(values: list, fname: str) -> list:
    for v in values:
        if not (type(v) in (int, float)):
            raise RuleRuntimeError(f"{fname}() needs numbers, found {type_name(v)}")
    return values


# ------------------------------------------------------------------ general
@builtin(1, returns="int", linear=False)
def len_(x):
    """Number of items in a list or map, or characters in a string."""
    if not (type(x) in (list, dict, str)):
        raise RuleRuntimeError(f"len() needs a list, map or string, not {type_name(x)}")
    return len(x)


@builtin(1, 2, returns="list", prepaid=True)
def range_(ctx, a, b=None):
    """range(n) is [0..n-1]; range(a, b) is [a..b-1]."""
    lo, hi = (0, _int(a, "range")) if b is None else (_int(a, "range"), _int(b, "range"))
    _need(hi - lo <= MAX_ITEMS, f"range() too long (over {MAX_ITEMS} items)")
    ctx.budget.built(max(hi - lo, 0), None)
    return list(range(lo, hi))


@builtin(1, returns="number")
def sum_(xs):
    """Sum of a list of numbers."""
    values = _numbers(_list(xs, "sum"), "sum")
    try:
        return number(sum(values), "sum()")
    except OverflowError:  # an int too large to become a float, added to one
        raise RuleRuntimeError("the sum is too large for a number") from None


@builtin(1, 2)
def min_(a, b=None):
    """Smallest item of a list (min(list)), or of two values."""
    values = _list(a, "min") if b is None else [a, b]
    _need(len(values) > 0, "min() of an empty list")
    return min(_numbers(values, "min"))


@builtin(1, 2)
def max_(a, b=None):
    """Largest item of a list (max(list)), or of two values."""
    values = _list(a, "max") if b is None else [a, b]
    _need(len(values) > 0, "max() of an empty list")
    return max(_numbers(values, "max"))


@builtin(1, returns="number")
def abs_(x):
    """Absolute value."""
    if not (type(x) in (int, float)):
        raise RuleRuntimeError(f"abs() needs a number, not {type_name(x)}")
    return abs(x)


@builtin(1, returns="bool")
def any_(xs):
    """True if any item is true."""
    return any(_list(xs, "any"))


@builtin(1, returns="bool")
def all_(xs):
    """True if every item is true."""
    return all(_list(xs, "all"))


@builtin(1, returns="list", sorts=True)
def sorted_(xs):
    """The list sorted ascending (numbers or strings)."""
    values = _list(xs, "sorted")
    kinds = {type(v) for v in values}
    if kinds <= {int, float} or kinds == {str}:  # a bool is never among numbers, as for `<`
        return sorted(values)
    if kinds == {list}:
        return sorted(values, key=cmp_to_key(order))
    raise RuleRuntimeError("sorted() needs items of one comparable type (numbers, strings or lists), "
                           f"not {' and '.join(sorted({type_name(v) for v in values}))}")


@builtin(1, returns="list")
def reversed_(xs):
    """The list in reverse order."""
    return list(reversed(_list(xs, "reversed")))


@builtin(2, returns="int")
def count(xs, value):
    """How many items of the list equal value."""
    items = _list(xs, "count")
    if type(value) in _SELF_EQUAL and not (type(value) is int and bool in set(map(type, items))):
        return items.count(value)  # Python's == is the language's here: a bool is never equal to 1 in the rules
    return sum(1 for x in items if equal(x, value))


@builtin(2, returns="int")
def index_of(xs, value):
    """Position of the first item equal to value, or -1."""
    for i, x in enumerate(_list(xs, "index_of")):
        if equal(x, value):
            return i
    return -1


@builtin(1, returns="int")
def index_where(xs):
    """Position of the first true item of a list, or -1; `index_where(x > 2 for x in xs)` stops at the first x that passes."""
    for i, x in enumerate(_list(xs, "index_where")):
        if x:  # as `any` tests an item: false, null, 0, "" and an empty list or map are false
            return i
    return -1


@builtin(1, returns="list")
def unique(xs):
    """Items without repeats, first occurrence kept."""
    out: list = []
    seen: set = set()
    for x in _list(xs, "unique"):
        k = value_key(x)
        if k not in seen:
            seen.add(k)
            out.append(x)
    return out


@builtin(1, returns="list")
def flatten(xs):
    """Concatenation of a list of lists."""
    parts = [_list(x, "flatten") for x in _list(xs, "flatten")]
    total = sum(map(len, parts))
    if total > MAX_ITEMS:
        raise LimitError(f"flatten() would make a list of {total} items (at most {MAX_ITEMS})")
    return [x for part in parts for x in part]


@builtin(1, returns="string", linear=False)
def str_(x):
    """Text form of a null, boolean, number or text (`str(null)` is "null"); a list or map gives only its type's name, "list" or "map", so str costs nothing however large the value."""
    if x is None:
        return "null"
    if type(x) is bool:
        return "true" if x else "false"
    return str(x) if type(x) in (int, float, str) else type_name(x)


_DECIMAL = re.compile(r"\s*[-+]?[0-9]+\s*", re.ASCII)  # ASCII digits, a sign and spaces only, as Python reads it
_MAX_DECIMAL = 400  # characters: more than the digits of any int of MAX_INT_BITS bits (309), with room for spaces


@builtin(1, 2, returns="string", prepaid=True)
def join(ctx, xs, sep=""):
    """The text forms of a list's items joined by sep ("" unless given): build a label from parts."""
    if type(sep) is not str:
        raise RuleRuntimeError(f"join() needs a text separator, not {type_name(sep)}")
    parts = [str_(x) for x in _list(xs, "join")]
    length = sum(map(len, parts)) + len(sep) * max(len(parts) - 1, 0)
    _need(length <= MAX_TEXT, f"join() would make a text of {length} characters (at most {MAX_TEXT})")
    ctx.budget.built(length, None)
    return sep.join(parts)


@builtin(1, returns="int")
def int_(x):
    """Integer from a number (truncating) or from decimal text."""
    if type(x) is int or (type(x) is float and math.isfinite(x)):
        return int(x)
    if type(x) is str:
        _need(len(x) <= _MAX_DECIMAL, f"int() of a text of {len(x)} characters: numbers are capped at "
                                      f"{MAX_INT_BITS} bits")
        if _DECIMAL.fullmatch(x):
            return number(int(x), "int()")
    raise RuleRuntimeError(f"int() cannot convert {x!r}")


@builtin(1, returns="list", sorts=True)
def keys(m):
    """Keys of a map, sorted."""
    if not (type(m) is dict):
        raise RuleRuntimeError(f"keys() needs a map, not {type_name(m)}")
    return sorted(m)


@builtin(1, returns="list", sorts=True)
def values(m):
    """Values of a map, by sorted key."""
    if not (type(m) is dict):
        raise RuleRuntimeError(f"values() needs a map, not {type_name(m)}")
    return [m[k] for k in sorted(m)]


@builtin(3, linear=False)
def get(m, key, default):
    """m[key] if present (map key or list index), otherwise default."""
    if type(m) is dict:
        return m.get(key, default) if type(key) is str else default
    if type(m) is list and type(key) is int and -len(m) <= key < len(m):
        return m[key]
    return default


@builtin(2, returns="list")
def zip_(a, b):
    """Pairs [a[i], b[i]] up to the shorter list."""
    return [[x, y] for x, y in zip(_list(a, "zip"), _list(b, "zip"))]


@builtin(2, returns="list", prepaid=True)
def repeat(ctx, value, n):
    """A list of n copies of value."""
    n = _int(n, "repeat")
    items = n * (1 + size(value, MAX_ITEMS))
    _need(n >= 0, f"the count is {n}: it must be 0 or more")
    _need(items <= MAX_ITEMS, f"too many items ({n} copies; at most {MAX_ITEMS} items in all)")
    ctx.budget.built(items, None)
    return [clone(value) for _ in range(n)]


@builtin(1, returns="list")
def enumerate_(xs):
    """Pairs [index, item]."""
    return [[i, x] for i, x in enumerate(_list(xs, "enumerate"))]


# ---------------------------------------------------------- ranks, majorities
@builtin(1, returns="list")
def argmax(xs):
    """Indices of the largest items (all of them when tied)."""
    values = _numbers(_list(xs, "argmax"), "argmax")
    if not values:
        return []
    best = max(values)
    return [i for i, v in enumerate(values) if v == best]


@builtin(1, returns="list")
def argmin(xs):
    """Indices of the smallest items (all of them when tied)."""
    values = _numbers(_list(xs, "argmin"), "argmin")
    if not values:
        return []
    low = min(values)
    return [i for i, v in enumerate(values) if v == low]


@builtin(1)
def leader(xs):
    """Index of the strictly largest item, or null when the top is shared (a majority)."""
    top = argmax(xs)
    return top[0] if len(top) == 1 else None


@builtin(1, returns="list", sorts=True)
def ranks(xs):
    """Competition rank of each item, 0 for the largest; equal items share a rank."""
    values = _numbers(_list(xs, "ranks"), "ranks")
    first: dict = {}  # a value's rank: how many items are larger, i.e. where it first comes largest-first
    for i, v in enumerate(sorted(values, reverse=True)):
        first.setdefault(v, i)  # 1 and 1.0 are one key, as they are one value
    return [first[v] for v in values]


# ---------------------------------------------------------------- components
@builtin(0, 1, returns="list", prepaid=True)
def components(ctx, kind=None):
    """Ids of all components, or of one kind, in declaration order."""
    model = ctx.model
    ids = model.component_ids if kind is None else (
        model.components_by_kind.get(kind) if type(kind) is str else None)
    if ids is None:
        raise RuleRuntimeError(f"no component kind {kind!r}")
    ctx.budget.built(len(ids), None)
    return list(ids)


@builtin(1, ctx=True, returns="string")
def kind(ctx, item):
    """The kind of a component id."""
    props = ctx.model.component_props.get(item) if type(item) is str else None
    if not (props is not None):
        raise RuleRuntimeError(f"{item!r} is not a component")
    return props["kind"]


@builtin(1, ctx=True, returns="bool")
def is_component(ctx, item):
    """True if the value is a component id."""
    return type(item) is str and item in ctx.model.component_props


# ------------------------------------------------------------------- players
@builtin(0, ctx=True, returns="list")
def seats(ctx):
    """All seats 0..players-1."""
    return list(range(ctx.flow["players"]))


def _seat(ctx, p: Any, fname: str) -> int:
    """`p` as a seat: a whole number 0..players-1 (`others(99)` of two seats is a mistake, not seat 1)."""
    n = ctx.flow["players"]
    if type(p) is not int or not 0 <= p < n:
        raise RuleRuntimeError(f"{fname}() needs a seat (0..{n - 1}), not {p!r:.40}")
    return p


@builtin(1, 2, ctx=True, returns="int")
def next_seat(ctx, p, k=1):
    """The seat k places after p, clockwise."""
    return (_seat(ctx, p, "next_seat") + _int(k, "next_seat")) % ctx.flow["players"]


@builtin(1, ctx=True, returns="list")
def others(ctx, p):
    """All seats but p, clockwise from p."""
    n = ctx.flow["players"]
    p = _seat(ctx, p, "others")
    return [(p + i) % n for i in range(1, n)]


# ------------------------------------------------------------------- grids
def _grid(ctx, name) -> Grid:
    grid = ctx.model.boards.get(name) if type(name) is str else None
    if not (grid is not None):
        raise RuleRuntimeError(f"no board {name!r}")
    return grid


def _dir(d) -> tuple[int, int]:
    if type(d) is str and d in DIRECTIONS:
        return DIRECTIONS[d]
    if type(d) is list and len(d) == 2 and all(type(v) is int for v in d):
        return (d[0], d[1])
    raise RuleRuntimeError(f"{d!r} is not a direction (use N, NE, E, SE, S, SW, W, NW or [dx, dy])")


def _heading(d) -> tuple[int, int]:
    """A direction a ray can follow to the board's edge: any but [0, 0], which never gets there."""
    vec = _dir(d)
    _need(vec != (0, 0), "[0, 0] does not lead anywhere: a ray or line needs a direction that moves")
    return vec


def _steps(grid: Grid | None, name) -> tuple[tuple[int, int], ...]:
    """The vectors of a direction set: a named one, or (given a board) one the board declares."""
    found = None if type(name) is not str else grid.step_set(name) if grid else DIRECTION_SETS.get(name)
    _need(found is not None, f"no direction set {name!r} "
          f"(use {', '.join(grid.set_names() if grid else DIRECTION_SETS)})")
    return found


def _cell(grid: Grid, c) -> int:
    if not (grid.contains(c)):
        raise RuleRuntimeError(f"{c!r} is not a cell of board {grid.name!r}")
    return c


@builtin(1, returns="list", prepaid=True)
def cells(ctx, board):
    """All cells of a board, row by row."""
    n = _grid(ctx, board).size
    ctx.budget.built(n, None)
    return list(range(n))


@builtin(3, ctx=True)
def cell(ctx, board, x, y):
    """The cell at column x, row y (row 0 at the top), or null off the board."""
    return _grid(ctx, board).cell(_int(x, "cell"), _int(y, "cell"))


@builtin(2, ctx=True, returns="list")
def xy(ctx, board, c):
    """[x, y] of a cell."""
    grid = _grid(ctx, board)
    return list(grid.xy(_cell(grid, c)))


@builtin(3, 4, ctx=True)
def step(ctx, board, c, d, n=1):
    """The cell n steps from c in direction d, or null off the board."""
    grid = _grid(ctx, board)
    return grid.step(_cell(grid, c), _dir(d), _int(n, "step"))


@builtin(3, ctx=True, returns="list")
def ray(ctx, board, c, d):
    """Cells from c (excluded) in direction d up to the edge."""
    grid = _grid(ctx, board)
    return grid.ray(_cell(grid, c), _heading(d))


@builtin(3, ctx=True, returns="list")
def neighbors(ctx, board, c, dirset):
    """Cells one step from c in a direction set (orthogonal, diagonal, king, knight, or one the board declares)."""
    grid = _grid(ctx, board)
    return grid.neighbors_by(_cell(grid, c), _steps(grid, dirset))


@builtin(1, 2, ctx=True, returns="list")
def dirs(ctx, set_or_board, dirset=None):
    """Direction vectors [dx, dy] of a set: `dirs(set)` a named one, `dirs(board, set)` also the board's own."""
    steps = _steps(None, set_or_board) if dirset is None else _steps(_grid(ctx, set_or_board), dirset)
    return [list(d) for d in steps]


@builtin(1, returns="list")
def dir_vec(name):
    """[dx, dy] of a named direction (N, NE, …)."""
    return list(_dir(name))


@builtin(1, ctx=True, returns="list")
def perimeter(ctx, board):
    """Border cells clockwise from the top-left corner (a track)."""
    return _grid(ctx, board).perimeter()


@builtin(3, ctx=True, returns="list")
def line_of(ctx, board, c, d):
    """The full line through c along direction d (both ways), in order."""
    grid = _grid(ctx, board)
    vec = _heading(d)
    back = grid.ray(_cell(grid, c), (-vec[0], -vec[1]))
    return list(reversed(back)) + [c] + grid.ray(c, vec)


@builtin(3, ctx=True, returns="list")
def offset(ctx, board, a, b):
    """[dx, dy] from cell a to cell b: the vector a move went, which step() can repeat or reverse."""
    grid = _grid(ctx, board)
    (ax, ay), (bx, by) = grid.xy(_cell(grid, a)), grid.xy(_cell(grid, b))
    return [bx - ax, by - ay]


@builtin(4, returns="list", prepaid=True)
def area(ctx, board, corner, w, h):
    """Cells of the w x h rectangle whose top-left cell is corner, row by row; [] if it does not fit."""
    grid = _grid(ctx, board)
    x, y = grid.xy(_cell(grid, corner))
    w, h = _int(w, "area"), _int(h, "area")
    _need(w > 0 and h > 0, "area() needs a positive width and height")
    if x + w > grid.width or y + h > grid.height:
        return []
    ctx.budget.built(w * h, None)
    return [(y + j) * grid.width + x + i for j in range(h) for i in range(w)]


@builtin(6, returns="list", prepaid=True)
def flood(ctx, board, start, max_steps, dirset, blocked, stops):
    """Cells reachable from start in at most max_steps steps of a direction set (start excluded, ascending):
    cells in `blocked` are never entered, cells in `stops` are entered but not left (a piece halts there)."""
    grid = _grid(ctx, board)
    start, limit, vectors = _cell(grid, start), _int(max_steps, "flood"), _steps(grid, dirset)
    # Keyed as the language compares: cell 1 is blocked by 1.0 but not by true; a list is no cell.
    walls = {value_key(v) for v in _list(blocked, "flood")}
    halts = {value_key(v) for v in _list(stops, "flood")}
    budget = ctx.budget
    dist = {start: 0}
    todo = deque([start])
    while todo:
        here = todo.popleft()
        budget.spend(1, None)  # each cell visited, and below each step looked at, before it is taken
        if dist[here] >= limit or (here in halts and here != start):
            continue
        steps = grid.neighbors_by(here, vectors)
        budget.spend(len(steps), None)
        for nxt in steps:
            if nxt not in dist and nxt not in walls:
                dist[nxt] = dist[here] + 1
                todo.append(nxt)
    budget.built(len(dist) - 1, None)
    return sorted(c for c in dist if c != start)


# ------------------------------------------------------------------- graphs
# A node is looked up by `value_key`, as `==` compares: 1 and 1.0 are one node, while 1 and "1", or true
# and 1, are two.  Declared graphs are keyed the same way when they are flattened (engine builders).
def _graph(ctx, name) -> dict:
    graph = ctx.model.graphs.get(name) if type(name) is str else None
    if not (graph is not None):
        raise RuleRuntimeError(f"no graph {name!r}")
    return graph


@builtin(2, returns="list", prepaid=True)
def adjacent(ctx, graph, node):
    """Neighbours of a node in a declared graph (sorted)."""
    near = _graph(ctx, graph)["adj"].get(value_key(node), [])
    ctx.budget.charge(near, None)
    return clone(near)  # the graph's own lists are shared by every state


@builtin(1, returns="list", prepaid=True)
def nodes(ctx, graph):
    """All nodes of a declared graph."""
    found = _graph(ctx, graph)["nodes"]
    ctx.budget.charge(found, None)
    return clone(found)


def _search(ctx, g: dict, start, limit: int | None) -> dict:
    """_bfs over a declared graph, charged: the graph is no argument of the call, so its size is
    not counted with them, yet one search may walk all of it."""
    budget = ctx.budget
    return bfs(lambda n: g["adj"].get(value_key(n), ()), start, limit, lambda n: budget.spend(n, None))


@builtin(2, 3, returns="list", prepaid=True)
def reachable(ctx, graph, start, max_steps=None):
    """Nodes reachable from start (start excluded), within max_steps edges if given."""
    g = _graph(ctx, graph)
    dist = _search(ctx, g, start, max_steps)
    lookup, home = g["value"], value_key(start)
    found = [lookup[k] for k in dist if k != home]
    ctx.budget.charge(found, None)
    return clone(found)


@builtin(3, ctx=True)
def distance(ctx, graph, a, b):
    """Fewest edges from a to b in a declared graph, or null if unconnected."""
    return _search(ctx, _graph(ctx, graph), a, None).get(value_key(b))


_SELF_EQUAL = frozenset({int, str, type(None)})  # values Python compares as the rules do, bools apart
def _free(n: int) -> None:
    """Searches over an edge list cost no more than the edges, an argument the call has already paid for."""


@builtin(2, 3, returns="list")
def reachable_via(edges, start, max_steps=None):
    """Nodes reachable from start over a list of [a, b] edges kept in the state."""
    adj, spelt = edge_adjacency(edges)
    dist = bfs(lambda n: adj.get(value_key(n), ()), start, max_steps, _free)
    home = value_key(start)
    return [spelt[k] for k in dist if k != home]


@builtin(3)
def distance_via(edges, a, b):
    """Fewest edges from a to b over a list of [a, b] edges, or null."""
    adj, _ = edge_adjacency(edges)
    return bfs(lambda n: adj.get(value_key(n), ()), a, None, _free).get(value_key(b))
