"""What the lowering knows of a C int's value, so the code it writes need not test it at run time.

An int literal is itself; `len(line)` of a board's line held as `rp_ints` lies
between 0 and the longest line a table holds (`LINE_MAX`) and is that line's
length; a sum or difference with a constant follows from its sides; the item
of a `range()` whose bounds are known lies between them.  From these:

- `a + b` and `a - b` whose sides' spans keep the result within 64 bits need
  no overflow test (`int_sum`);
- `range(a, b)` of known bounds no longer than `dsl.runtime.MAX_ITEMS` needs
  no test of its length, in 128 bits (`range_item`);
- `line[s:s + m]` with 0 <= s and s + m at most the line's length (`s` the item
  of `range(len(line) - k)`, m <= k + 1) is the m items from s: no bound is
  clamped and the count is a constant (`within_line`).

Each fact holds for every value the C int can take where it is used (a loop's
item is the same C int throughout its turn), so skipping the tests changes
nothing the code computes or charges.
"""

from __future__ import annotations

from .cfunc import Val

LINE_MAX = 4096  # the longest line a table holds (`TableLowering._lines` makes none longer)
RANGE_MAX = 100000  # items one range() may make (dsl.runtime.MAX_ITEMS, rp.h RP_MAX_ITEMS)
INT64 = (-(1 << 63), (1 << 63) - 1)


def constant(v: Val) -> int | None:
    """The value of `v` when the lowering knows it exactly."""
    return v.span[0] if v.kind == "int" and v.span is not None and v.span[0] == v.span[1] else None


def literal(value: int, code: str) -> Val:
    return Val(code, "int", span=(value, value))


def length(line: Val) -> Val:
    """`len(line)` of a line held as `rp_ints`."""
    return Val(f"{line.code}.n", "int", span=(0, LINE_MAX), bound=(line.code, 0))


def int_sum(op: str, left: Val, right: Val, out: str) -> Val | None:
    """`left op right` (op "+" or "-", both C ints) as `out` when it cannot pass 64 bits, with what is known of
    it; None when it might (the code tests the overflow)."""
    if left.span is None or right.span is None:
        return None
    sign = 1 if op == "+" else -1
    ends = [a + sign * b for a in left.span for b in right.span]
    span = (min(ends), max(ends))
    if span[0] < INT64[0] or span[1] > INT64[1]:
        return None
    k = constant(right)
    bound = base = None
    if k is not None:  # `x + k` or `x - k`: at most the line's length less (c - k), or (c + k); x plus (-)k
        bound = (left.bound[0], left.bound[1] - sign * k) if left.bound is not None else None
        base = (left.code, sign * k)
    elif op == "+" and constant(left) is not None:
        k = constant(left)
        bound = (right.bound[0], right.bound[1] - k) if right.bound is not None else None  # type: ignore[operator]
        base = (right.code, k)  # type: ignore[assignment]
    return Val(out, "int", span=span, bound=bound, base=base)


def range_item(first: Val, last: Val) -> tuple[tuple[int, int], tuple[str, int] | None] | None:
    """The span and bound of the item of `range(first, last)` (two C ints) where the range is known to make at
    most RANGE_MAX items, else None: first <= item < last, so at most the line's length less (c + 1) where
    `last` is at most its length less c."""
    if first.span is None or last.span is None or last.span[1] - first.span[0] > RANGE_MAX:
        return None
    bound = (last.bound[0], last.bound[1] + 1) if last.bound is not None else None
    return (first.span[0], last.span[1] - 1), bound


def within_line(line: Val, lo: Val | None, hi: Val | None) -> int | None:
    """m where `line[lo:hi]` is known to be the m items from `lo` (0 <= lo <= lo + m = hi <= len(line)), else
    None."""
    if lo is None or hi is None or lo.kind != "int" or lo.span is None or lo.span[0] < 0:
        return None
    if hi.base is None or hi.base[0] != lo.code or hi.base[1] < 0:
        return None
    if hi.bound is None or hi.bound[0] != line.code or hi.bound[1] < 0:
        return None
    return hi.base[1]
