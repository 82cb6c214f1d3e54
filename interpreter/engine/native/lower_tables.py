"""Lists the lowering knows while it writes, kept in module tables of C ints instead of tagged values.

Constant lists of ints, a board's lines (`line_of` over a named board, in a
constant direction or one of a constant list of directions), where `step`
lands from each cell of a named board, and the members of constant lists
tested with `in` are all known before the game starts: the
module holds them as tables of 64-bit numbers (`IM1`, `IM2`, ...) and the
lowered code reads them as C ints, with no list made and no tag checked.

A board's line may also be handed to a user function (`four_on(p,
line_of("grid", c, d))`): the call then goes to a version of the function
lowered for that argument, which takes the line as an `rp_ints` (where its
items start in the table, and how many) and walks, slices, indexes and
measures it as C ints.  A version is made only when every use the function
makes of the argument is one of those; anything else (the list compared,
returned, handed on to a function that takes tagged values, ...) needs the
tagged list, which the version does not have: `Val.rv` refuses it, and the
call keeps to the generic function and the kept list of `line_of`.
Everything is charged as the tagged path charges it (the builtin's call, the
slice made and walked, the walk), and every bound or index the table path
does not decide (a bool, a float, an index off the line) hands the step to
the Python path, which decides it.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate
from typing import Any, Callable

from ruleplay.dsl import ast as A
from ruleplay.dsl.builtins import Builtin
from ruleplay.dsl.geometry import DIRECTIONS, step_vector
from ruleplay.dsl.scope import Scope

from .cfunc import CFunc, Val
from .lower_bounds import LINE_MAX, within_line

SITE_TABLE_MAX = 4096  # slots of a call site's table (`_site_at`), and lines of a `line_of` table

Locals = dict  # a rules name -> its Val in the function being written


@dataclass(frozen=True)
class Source:
    """What a loop walks: how many items (a C expression) and the C expression of item `i`."""

    count: str
    item: Callable[[str], str]
    kind: str = "rv"  # what each item is: an rv, or ("int") a C int
    known: tuple | None = None  # the items, when the loop walks a constant list
    span: tuple[int, int] | None = None  # what is known of each C int item (`Val.span`, `Val.bound`)
    bound: tuple[str, int] | None = None


@dataclass(frozen=True)
class _Lines:
    """Every line a `line_of` call may give: per direction (numbered by `d_at`), per cell."""

    lines: list[list[int]]
    cells: int
    d_at: str
    directions: int


class TableLowering:
    """The table half of `ExprLowering` (which provides `f`, `lower`, `where`, `name_of`, `callee`, `_board`)."""

    f: CFunc
    member_tables: list[tuple[list[int], bool]]
    # Made by the module writer: the C name of user function `name`'s version taking its arguments as the
    # shape says ("ints" an `rp_ints`, "int" a C int, "rv" tagged), or None where it makes none.
    specialise: Callable[[str, tuple[str, ...]], "str | None"] | None
    version_views: dict[str, tuple[int, ...]]  # the state variables whose views a version takes (`CFunc.view`)

    def member_table(self, values: list, signed: bool = False) -> str:
        """A new table of 64-bit numbers (sets, sizes, or (`signed`) the ints of constant lists; declared with
        the module's tables)."""
        self.member_tables.append((values, signed))
        return f"IM{len(self.member_tables)}"

    def _members(self, container: Val) -> tuple[str, str] | None:
        """The C expressions of a 64-bit set of the whole numbers a constant list holds and of the list's size,
        when it holds only whole numbers 0..63 (an int is then found in it by one bit: `rp_in_mask_try`);
        for the item of a loop over a constant list of such lists, tables of their sets and sizes indexed by
        the loop.  Else None."""
        def bits(value: Any) -> int | None:
            if type(value) is not list or not all(type(x) is int and 0 <= x < 64 for x in value):
                return None
            return sum(1 << x for x in set(value))

        if container.known is None:
            return None
        if container.items is None:
            found = bits(list(container.known))
            return None if found is None else (f"UINT64_C({found})", str(len(container.known)))
        sets = [bits(item) for item in container.known]
        if not sets or any(s is None for s in sets):
            return None
        lengths = [len(item) for item in container.known]  # ints only: a list's size is its length
        size = str(lengths[0]) if len(set(lengths)) == 1 else f"{self.member_table(lengths)}[{container.items}]"
        return f"{self.member_table(sets)}[{container.items}]", size

    def _holding(self, names: tuple[str, ...], items: "Source", cond: A.Expr | None, scope: Scope,
                 lv: Locals) -> tuple[str, str] | None:
        """For a loop (in a pure function) over a constant list of fewer than 64 lists of whole numbers 0..63
        whose filter is `x in NAME`, NAME the loop's name and x a name read as a C int: the C expression of the
        mask of the lists holding x (a table indexed by x, 0 off its range), and the table of what the tests of
        the first j lists charge (their sizes summed).  None (nothing written) otherwise.  The test of a C int
        in a list of ints can neither fail nor change anything, so lists not holding x need not be walked."""
        f = self.f
        if not (f.pure and len(names) == 1 and isinstance(cond, A.Binary) and cond.op == "in"
                and isinstance(cond.right, A.Name) and cond.right.name == names[0]
                and isinstance(cond.left, A.Name) and cond.left.name != names[0]):
            return None
        known = items.known
        if (items.kind != "rv" or known is None or not 0 < len(known) < 64
                or not all(type(v) is list and all(type(x) is int and 0 <= x < 64 for x in v) for v in known)):
            return None
        x = self.lower(cond.left, scope, lv)  # type: ignore[attr-defined]
        if x.kind != "int":
            return None
        holders = self.member_table([sum(1 << j for j, v in enumerate(known) if c in v) for c in range(64)])
        charged = self.member_table(list(accumulate((len(v) for v in known), initial=0)))
        return f"((uint64_t){x.code} < 64 ? (int64_t){holders}[{x.code}] : 0)", charged

    def _int_items(self, src: Val, w: int) -> "Source | None":
        """A constant list of ints, or the item of a loop over a constant list of such lists, or a list held as
        `rp_ints`, walked (in an expression) as C ints read from a table: no tags, nothing held; charged as
        `rp_iterate` charges."""
        def ints(value: Any) -> bool:
            return type(value) in (list, tuple) and all(type(x) is int for x in value)

        f = self.f
        if src.kind == "ints":
            f.emit(f"if (!rp_spend(C, {src.code}.n, {w})) goto out;")
            return Source(f"{src.code}.n", lambda i: f"{src.code}.at[{i}]", "int")
        if src.known is None:
            return None
        if src.items is None:
            if not src.known or not ints(src.known):
                return None
            table, count, known = self.member_table(list(src.known), signed=True), str(len(src.known)), src.known
            item: Callable[[str], str] = lambda i: f"{table}[{i}]"
        else:
            if not src.known or not all(ints(v) for v in src.known):
                return None
            flat = [x for v in src.known for x in v]
            starts = [sum(len(v) for v in src.known[:k]) for k in range(len(src.known))]
            table, lengths, known = self.member_table(flat or [0], signed=True), {len(v) for v in src.known}, None
            if len(lengths) == 1:  # lists of one length: where each starts is a product, the count a constant
                count, start = str(lengths.pop()), f"{src.items} * {len(src.known[0])}"
            else:
                count, start = f.integer(), f.integer()
                f.emit(f"{count} = {self.member_table([len(v) for v in src.known])}[{src.items}];")
                f.emit(f"{start} = {self.member_table(starts)}[{src.items}];")
            item = lambda i: f"{table}[{start} + {i}]"
        f.emit(f"if (!rp_spend(C, {count}, {w})) goto out;")
        return Source(count, item, "int", known)

    # ------------------------------------------------------------ a board's lines
    def _lines(self, call: A.Expr, scope: Scope, lv: Locals) -> _Lines | None:
        """Every line `line_of(BOARD, c, d)` may give, with BOARD a named board and the direction constant (or
        the item of a loop over a constant list of directions), made at lowering time as
        `dsl.builtins.line_of` makes them; None (nothing written) for any other expression."""
        if not (isinstance(call, A.Call) and call.func == "line_of" and len(call.args) == 3):
            return None
        board = self._board(call.args[0])  # type: ignore[attr-defined]
        if board is None or not isinstance(self.callee(call, scope), Builtin):  # type: ignore[attr-defined]
            return None
        headings, d_at = self._constant_choice(call.args[2], scope, lv)
        vectors = [step_vector(h) for h in headings]
        cells = board.width * board.height
        if (not vectors or any(v is None or v == (0, 0) for v in vectors) or len(vectors) * cells > SITE_TABLE_MAX
                or cells > LINE_MAX):  # `lower_bounds` knows no line is longer
            return None
        lines = [list(reversed(board.ray(c, (-v[0], -v[1])))) + [c] + board.ray(c, v)
                 for v in vectors for c in range(cells)]
        return _Lines(lines, cells, d_at, len(vectors))

    def _line(self, call: A.Call, lines: _Lines, scope: Scope, lv: Locals, w: int) -> tuple[str, str, str]:
        """The C ints of the line the call gives: (its table, where it starts, how many items), the call charged
        as the builtin charges it (the line built).  A cell off the board (or not an int) hands the step to the
        Python path, which raises the error as it does."""
        f = self.f
        cell = self.lower(call.args[1], scope, lv)  # type: ignore[attr-defined]
        at, count, start = f.integer(), f.integer(), f.integer()
        if cell.kind == "int":
            f.emit(f"{at} = (uint64_t){cell.code} < {lines.cells} ? {cell.code} : -1;")
        else:  # a C truth is no cell: Python's line_of() refuses a bool
            f.emit(f"{at} = rp_site_int({cell.rv}, {lines.cells});" if cell.kind == "rv" else f"{at} = -1;")
        f.emit(f"if (RP_UNLIKELY({at} < 0)) {{ rp_bail(C, RP_BAIL_NATIVE, RP_WHY_CELL, {w}); goto out; }}")
        if lines.directions > 1:
            f.emit(f"{at} += {lines.d_at} * {lines.cells};")
        f.emit(f"{count} = {self.member_table([len(line) for line in lines.lines])}[{at}];")
        f.emit(f"{start} = {self.member_table([0, *accumulate(len(line) for line in lines.lines)][:-1])}[{at}];")
        f.emit(f"if (!rp_built(C, {count}, {w})) goto out;")
        return self.member_table([c for line in lines.lines for c in line], signed=True), start, count

    def _line_items(self, call: A.Call, scope: Scope, lv: Locals, w: int) -> "Source | None":
        """`line_of(BOARD, c, d)` walked in an expression (`_lines`) as C ints read from a table: no list made,
        nothing held; charged as the call and `rp_iterate` charge (the line built, then walked).  None (nothing
        written) for any other call."""
        lines = self._lines(call, scope, lv)
        if lines is None:
            return None
        table, start, count = self._line(call, lines, scope, lv, w)
        self.f.emit(f"if (!rp_spend(C, {count}, {w})) goto out;")
        return Source(count, lambda i: f"{table}[{start} + {i}]", "int")

    def _constant_choice(self, node: A.Expr, scope: Scope, lv: Locals) -> tuple[list, str]:
        """The values an argument may take when the lowering knows them all, writing no code: a literal (one
        value, numbered 0), or a local that is the item of a loop over a constant list (its items, numbered by
        the loop's index); ([], "") for anything else."""
        if isinstance(node, A.Literal):
            return [node.value], "0"
        if isinstance(node, A.Name):
            found = self.name_of(node, scope)  # type: ignore[attr-defined]
            if not callable(found) and found[0] == "local" and found[1] in lv:
                value = lv[found[1]]
                if value.items is not None and value.known:
                    return list(value.known), value.items
        return [], ""

    # ------------------------------------------------------------ a board's steps
    def _board_step(self, name: str, nodes: list[A.Expr], args: list[Val], board: Any) -> tuple[str, str] | None:
        """`step(BOARD, c, d)` (or `step(BOARD, c, d, n)`, n an int literal) of a named board, read from a table
        of every cell and named direction made at lowering time as `Grid.step` steps: the C truth of the table's
        case (c a cell of the board, d a direction's name) and the C expression of its value then; None (nothing
        written) for any other call.  Such a call charges nothing (no argument is a list, the value a scalar),
        so neither does the table; any other argument goes to the builtin, which decides it."""
        if not (name == "step" and board is not None and len(nodes) in (3, 4)):
            return None
        n = nodes[3].value if len(nodes) == 4 and isinstance(nodes[3], A.Literal) else 1
        ids = [self.text(d) for d in DIRECTIONS]  # type: ignore[attr-defined]
        cells = board.width * board.height
        if (type(n) is not int or (len(nodes) == 4 and not isinstance(nodes[3], A.Literal))
                or len(DIRECTIONS) * cells > SITE_TABLE_MAX or max(ids) >= SITE_TABLE_MAX
                or args[1].kind not in ("rv", "int") or args[2].kind != "rv"):
            return None
        f = self.f
        cell, heading, found = f.integer(), f.integer(), f.integer()
        if args[1].kind == "int":
            f.emit(f"{cell} = (uint64_t){args[1].code} < {cells} ? {args[1].code} : -1;")
        else:
            f.emit(f"{cell} = rp_site_int({args[1].rv}, {cells});")
        numbers = [-1] * (max(ids) + 1)
        for k, d in enumerate(ids):
            numbers[d] = k
        f.emit(f"{heading} = rp_text_number({args[2].rv}, {self.member_table(numbers, signed=True)}, {len(numbers)});")
        steps = [board.step(c, vec, n) for vec in DIRECTIONS.values() for c in range(cells)]
        f.emit(f"{found} = ({cell} | {heading}) >= 0 ? "
               f"{self.member_table([-1 if s is None else s for s in steps], signed=True)}[{heading} * {cells} + {cell}] : 0;")
        return f"({cell} | {heading}) >= 0", f"({found} >= 0 ? rv_int({found}) : rv_null())"

    # ------------------------------------------------------------ lists held as rp_ints
    def _table_slice(self, obj: Val, lo: Val | None, hi: Val | None, w: int) -> Source:
        """`for x in T[lo:hi]` over a list held as `rp_ints`, in an expression: bounds as Python takes them,
        charged as `rp_slice_view` charges (the slice made, then walked).  Where the lowering knows the slice
        lies within the line (`within_line`), its items are read where they lie, so many as a constant."""
        f = self.f
        m = within_line(obj, lo, hi)
        if m is not None:
            f.made_walked(m, w)
            return Source(str(m), lambda i: f"{obj.code}.at[{lo.code} + {i}]", "int")  # type: ignore[union-attr]
        part = f.ints()
        bounds = ", ".join(b.rv if b is not None else "rv_null()" for b in (lo, hi))
        f.emit(f"if (!rp_ints_slice(C, {obj.code}, {bounds}, &{part}, {w})) goto out;")
        return Source(f"{part}.n", lambda i: f"{part}.at[{i}]", "int")

    def _table_index(self, obj: Val, key: Val, w: int) -> Val:
        """`T[k]` of a list held as `rp_ints`: a C int; a key the table does not decide (off the list, not an
        int) hands the step to the Python path."""
        out = self.f.integer()
        self.f.fast(f"rp_ints_index_try(&{out}, {obj.code}, {key.rv})",
                    f"rp_bail(C, RP_BAIL_NATIVE, RP_WHY_TABLE, {w});")
        return Val(out, "int")

    def _is_table(self, node: A.Expr, scope: Scope, lv: Locals) -> bool:
        """Whether an argument can be handed over as `rp_ints` (writing no code): a board's line (`_lines`), or
        a local that already is one."""
        if isinstance(node, A.Name):
            found = self.name_of(node, scope)  # type: ignore[attr-defined]
            return not callable(found) and found[0] == "local" and found[1] in lv and lv[found[1]].kind == "ints"
        return self._lines(node, scope, lv) is not None

    def _user_call(self, node: A.Call, scope: Scope, lv: Locals, w: int) -> str:
        """The C call of a user function, its arguments written in the order Python evaluates them.  A board's
        line goes as `rp_ints` where the function has a version taking it so, and the call goes to the version
        for what the arguments are (`specialise`: tables, C ints, tagged values), or else to the generic
        function, which takes every argument tagged."""
        f = self.f
        n = len(node.args)
        positions = tuple(k for k, arg in enumerate(node.args) if self._is_table(arg, scope, lv))
        tabled = tuple("ints" if k in positions else "rv" for k in range(n))
        if positions and (self.specialise is None or self.specialise(node.func, tabled) is None):
            positions, tabled = (), ("rv",) * n  # the function uses a line as a list: the tagged list it is
        args: list[Val] = []
        for k, arg in enumerate(node.args):
            lines = self._lines(arg, scope, lv) if k in positions else None
            if lines is None:
                args.append(self.lower(arg, scope, lv))  # type: ignore[attr-defined]
                continue
            table, start, count = self._line(arg, lines, scope, lv, w)  # type: ignore[arg-type]
            held = f.ints()
            f.emit(f"{held} = (rp_ints){{{table} + {start}, {count}}};")
            args.append(Val(held, "ints"))
        shape = tuple(a.kind if a.kind in ("int", "ints") else "rv" for a in args)
        name = None
        if self.specialise is not None and shape != ("rv",) * n:
            # the version for C ints may not be made (its value not its callers' kind): the tabled one then is
            for tried in (shape, tabled) if positions else (shape,):
                name = self.specialise(node.func, tried)
                if name is not None:
                    shape = tried
                    break
        if name is None:  # a line held as a table has no tagged list to hand over: `Val.rv` refuses it
            argv = f.array([a.rv for a in args]) if args else "NULL"
            return f"{self.functions[node.func]}(C, {argv})"  # type: ignore[attr-defined]
        # an int the version takes tagged is handed over tagged (`Val.rv`), as is one it takes as a C int
        argv = f.array(["rv_null()" if s == "ints" else a.rv for a, s in zip(args, shape)])
        tables = f.ints(n) if "ints" in shape else "NULL"
        for k, (a, s) in enumerate(zip(args, shape)):
            if s == "ints":
                f.emit(f"{tables}[{k}] = {a.code};")
        return f"{name}(C, {argv}, {tables}{f.views_for(self.version_views[name])})"

