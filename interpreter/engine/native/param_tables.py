"""Where a move's parameter value stands among its `of:` values, by table: the lookups a listing and a
decoded move make of every value, without hashing it.

A set of ints within a span of a few times its size is a table by value;
a set of places `[x, y]` within a box of a few times its size, a table by
place.  Texts the module writer tables by their ids; anything else is
found by `rp_hash_value` (rp_engine.c `universe_index`).
"""

from __future__ import annotations


def int_table(universe: list) -> tuple[int, int, list[int]]:
    """(lo, n, k by value - lo) for a set of ints (not booleans) within a span of a few times its size."""
    if not universe or any(type(v) is not int for v in universe):
        return 0, 0, []
    lo, hi = min(universe), max(universe)
    if hi - lo + 1 > 4 * len(universe) + 64 or lo < -(1 << 62) or hi > 1 << 62:
        return 0, 0, []
    table = [-1] * (hi - lo + 1)
    for k, v in enumerate(universe):
        table[v - lo] = k
    return lo, hi - lo + 1, table


def pair_table(universe: list) -> tuple[int, int, int, int, list[int]]:
    """(x0, y0, w, h, k by (x - x0) * h + (y - y0)) for a set of lists of two ints (not booleans), a board's
    places written [x, y], within a box of a few times its size: the first of equal values keeps its place."""
    if not universe or any(type(v) is not list or len(v) != 2 or type(v[0]) is not int or type(v[1]) is not int
                           for v in universe):
        return 0, 0, 0, 0, []
    xs, ys = [v[0] for v in universe], [v[1] for v in universe]
    x0, y0 = min(xs), min(ys)
    w, h = max(xs) - x0 + 1, max(ys) - y0 + 1
    if w * h > 4 * len(universe) + 64:
        return 0, 0, 0, 0, []
    table = [-1] * (w * h)
    for k, (x, y) in reversed(list(enumerate(universe))):
        table[(x - x0) * h + (y - y0)] = k
    return x0, y0, w, h, table


def all_ints(universe: list) -> bool:
    """Whether a parameter's `of:` values are all ints (not booleans) of 64 bits, and there are some."""
    return bool(universe) and all(type(v) is int and -(1 << 63) <= v < 1 << 63 for v in universe)
