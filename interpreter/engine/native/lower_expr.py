"""Expressions of the rules language lowered to C: the C counterpart of `dsl.codegen`'s expressions.

Each expression is written into the `CFunc` being made, in the evaluation
order of the closure compiler (the oracle), with the same runtime
operations (`rp_arith`, `rp_equals`, `rp_contains`, ...) as the Python
helpers in `dsl.runtime`, so the same values come out and the same budget is
charged.  Names resolve as the compilers resolve them (`dsl.compiler.Checks`):
a local is a C variable (or an argument `A[k]` of the site), a state
variable `C->S->vars[k]`, a flow value a field of the state's flow, a
constant a literal or an immortal `K[k]`.  Where the lowering knows a value
is an int (an int literal, `current`, `len(...)`, the item of a constant list
of ints, a user function whose value always is one) it keeps it a C int, and a
truth a C truth.  In an expression nothing changes the state, so a state
list is read where its items lie (`CFunc.view`).
"""

from __future__ import annotations

import re
from typing import Any, Callable

from ruleplay.dsl import ast as A
from ruleplay.dsl.builtins import Builtin
from ruleplay.dsl.checks import Checks
from ruleplay.dsl.scope import Callable_, Scope

from .cdata import BUILTIN_IDS, Constants, NotLowered, Texts, float_literal, int_literal
from . import lower_bounds
from .cfunc import ERR_CHECK, CFunc, Val
from .lower_reads import LEN_UNMADE, ReadLowering
from .lower_tables import SITE_TABLE_MAX, Locals, Source, TableLowering

# Builtins over static data whose call sites keep the results they meet (rp.h `rp_site_call`; the runtime's
# `memoizable` is the same list).
KEPT_BUILTINS = frozenset({"cells", "cell", "xy", "step", "ray", "neighbors", "dirs", "dir_vec", "perimeter", "line_of",
                           "offset", "area", "components", "kind", "is_component", "adjacent", "nodes", "reachable",
                           "distance"})
FLOW_INTS = {"seat", "players", "round", "turn", "start"}
VIEW_SEARCHES = ("count", "index_of")  # builtins of a state list and a value written as one walk (`_search_view`)
FOLDS = ("len", "sum", "max", "min")  # builtins of a comprehension written as one loop (`_fold`)
ORDER_OPS = {"<": "OP_LT", "<=": "OP_LE", ">": "OP_GT", ">=": "OP_GE"}
ARITH_OPS = {"+": "OP_ADD", "-": "OP_SUB", "*": "OP_MUL", "/": "OP_DIV", "//": "OP_FLOORDIV", "%": "OP_MOD"}
INT_OPS = {"+": "rp_iadd", "-": "rp_isub", "*": "rp_imul"}


class ExprLowering(ReadLowering, TableLowering, Checks):
    """Lowers expressions into the current function (`self.f`); the effects half is `lower_effects`."""

    def __init__(self, texts: Texts, constants: Constants, var_index: dict[str, int], phase_index: dict[str, int],
                 rule_index: dict[str, int]):
        super().__init__()
        self.texts = texts
        self.constants = constants
        self.var_index = var_index
        self.phase_index = phase_index
        self.rule_index = rule_index
        self.positions: list[A.Pos] = []
        self.site_sizes: list[int] = []  # each call site's kept results: its table's size, 0 hashed
        self.member_tables: list[tuple[list[int], bool]] = []  # tables of 64-bit numbers IM1, IM2, ... (signed?)
        self.boards: dict[str, Any] = {}
        self.props: dict[str, tuple[int, str]] = {}  # a component property -> its row in M->props, what it holds
        self.functions: dict[str, str] = {}  # user function -> its C name
        self.function_kinds: dict[str, str] = {}  # user function -> "rv", or the C "int" or "bool" it returns
        self.procedures: dict[str, str] = {}
        self.specialise = None  # set by the module writer once the functions' kinds are known
        self.version_views: dict[str, tuple[int, ...]] = {}  # filled by the module writer's versions
        self.calls_fit = False  # set by the module writer: no call can nest past the room (`call_depth`)
        self.f: CFunc = CFunc("", "void")

    # ------------------------------------------------------------ helpers
    def site_slots(self, size: int = 0) -> str:
        """A new array of a call site's kept results (declared with the module's tables): `size` slots, one
        per combination of its arguments (`rp_site_at`), or (0) hashed slots (`rp_site_call`)."""
        self.site_sizes.append(size)
        return f"M{len(self.site_sizes)}"

    def _site_at(self, varying: list[Val], cells: int) -> tuple[str, int] | None:
        """The C int numbering the values of a kept builtin's varying arguments, and how many numbers there
        are, when each argument takes few values: the item of a loop over a constant list (its place in the
        list) or, at a site of a board of `cells` cells, a cell (the int itself; -1 for anything else, whose
        call is then kept in the site's hashed slots); None when they take more values than SITE_TABLE_MAX
        slots hold."""
        codes: list[tuple[str, int]] = []  # each argument's number, and how many numbers it has
        outside: list[str] = []  # the tests of the arguments that may lie outside their numbers
        for value in varying:
            if value.items is not None and value.known is not None:
                codes.append((value.items, len(value.known)))
            elif cells and value.kind in ("rv", "int"):
                code = self.f.integer()
                self.f.emit(f"{code} = rp_site_int({value.rv}, {cells});")
                codes.append((code, cells))
                outside.append(f"{code} < 0")
            else:
                return None
        size = 1
        for _, n in codes:
            size *= n
        if not codes or size > SITE_TABLE_MAX:
            return None
        terms, stride = [], 1
        for code, n in codes:
            terms.append(code if stride == 1 else f"{code} * {stride}")
            stride *= n
        at = " + ".join(terms)
        return (f"({' || '.join(outside)} ? -1 : {at})" if outside else f"({at})"), size

    def _board(self, node: A.Expr) -> Any:
        """The board a literal text names, or None."""
        if isinstance(node, A.Literal) and type(node.value) is str:
            return self.boards.get(node.value)
        return None

    def where(self, pos: A.Pos) -> int:
        self.positions.append(pos)
        return len(self.positions) - 1

    def text(self, value: str) -> int:
        return self.texts.id(value)

    def literal(self, value: Any) -> Val:
        t = type(value)
        if value is None:
            return Val("rv_null()")
        if t is bool:
            return Val("1" if value else "0", "bool")
        if t is int:
            return lower_bounds.literal(value, int_literal(value))
        if t is float:
            return Val(f"rv_flt({float_literal(value)})")
        if t is str:
            return Val(f"rv_str({self.text(value)})")
        code = f"K[{self.constants.index(value)}]"
        return Val(code, known=tuple(value)) if t is list else Val(code)

    def lower(self, node: A.Expr, scope: Scope, lv: Locals) -> Val:
        method = getattr(self, "_e_" + type(node).__name__, None)
        if method is None:
            raise NotLowered(f"the expression {type(node).__name__}", node.pos)
        try:
            return method(node, scope, lv)
        except NotLowered as err:
            if err.pos is None:  # the innermost node that knows its place names it
                err.pos = node.pos
            raise

    # ------------------------------------------------------------ leaves
    def _e_Literal(self, node: A.Literal, scope: Scope, lv: Locals) -> Val:
        return self.literal(node.value)

    def _e_Name(self, node: A.Name, scope: Scope, lv: Locals) -> Val:
        found = self.name_of(node, scope)
        if callable(found):
            raise NotLowered(f"the unknown name `{node.name}`", node.pos)
        kind, key = found
        if kind == "local":
            if key not in lv:
                raise NotLowered(f"the local `{key}` outside its site", node.pos)
            return lv[key]
        if kind == "var":
            return Val(f"C->S->vars[{self.var_index[key]}]", var=self.var_index[key])
        if kind == "flow":
            if key in FLOW_INTS:
                return Val(f"C->S->flow.{key}", "int")
            if key == "phase":
                return Val("rv_str(PHASE_NAMES[C->S->flow.phase])")
            return Val("flow_stage(C)")
        return self.literal(key)

    def _e_ListLit(self, node: A.ListLit, scope: Scope, lv: Locals) -> Val:
        f = self.f
        items = [self.lower(item, scope, lv) for item in node.items]
        out = f.assign_owned(f"rp_new_list(C, {len(items)})")
        for item in items:
            f.emit(f"if (!rp_list_push(C, {out.code}.u.l, rv_ref({item.rv}))) goto out;")
        return out

    # ------------------------------------------------------------ loops over items
    def _items(self, source: A.Expr, pos: A.Pos, scope: Scope, lv: Locals, copy: bool = False) -> "Source":
        """What a loop walks, charged as `runtime.iterate` charges it.  A `range(...)` is walked without
        making its list, and (in an expression, which changes nothing) a slice of a list where it lies;
        `copy`: a `for` statement walks its own copy of anything else, as its body may change the list."""
        f, w = self.f, self.where(pos)
        if isinstance(source, A.Call) and source.func == "range" and isinstance(self.callee(source, scope), Builtin):
            return self._range(source, scope, lv, w)
        if isinstance(source, A.Slice) and not copy:
            obj = self.lower(source.obj, scope, lv)
            if obj.kind == "ints":
                bounds = [self.lower(b, scope, lv) if b is not None else None for b in (source.lo, source.hi)]
                return self._table_slice(obj, bounds[0], bounds[1], w)
            lo = self.lower(source.lo, scope, lv).rv if source.lo is not None else "rv_null()"
            hi = self.lower(source.hi, scope, lv).rv if source.hi is not None else "rv_null()"
            # The runtime's view (made only off the common case) is held until the next one or the function's
            # end, so the common case has nothing to clear.
            items, n, held = f.pointer(), f.integer(), f.local()
            f.fast(f"rp_slice_try(C, {obj.rv}, {lo}, {hi}, &{items}, &{n})",
                   f"rv_set(&{held}, rp_slice_view(C, {obj.rv}, {lo}, {hi}, &{items}, &{n}, {w}));")
            return Source(n, lambda i: f"{items}[{i}]")
        if not copy and isinstance(source, A.Call) and source.func == "line_of":
            line = self._line_items(source, scope, lv, w)
            if line is not None:
                return line
        src = self.lower(source, scope, lv) if copy else self._read(source, scope, lv, items_kept=True)
        ints = None if copy else self._int_items(src, w)
        if ints is not None:
            return ints
        if not copy and src.known is not None and src.items is None:  # a constant list: walked where it lies
            f.emit(f"if (!rp_spend(C, {len(src.known)}, {w})) goto out;")
            # read where it is used: the items of a constant list are often read only off the common case
            return Source(str(len(src.known)), lambda i: f"{src.code}.u.l->items[{i}]", known=src.known)
        items, n = f.pointer(), f.integer()
        if not copy and f.pure and src.var is not None:  # a state list, walked where its items lie (`CFunc.view`)
            view, count = f.view(src.var)
            held, walk, k = f.local(), f.pointer(), f.integer()
            # the runtime writes through pointers of its own, so the loop's position and count are never
            # taken by address and stay in registers
            f.fast(f"rp_iterate_view_try(C, {src.rv}, {view}, {count}, &{items}, &{n})",
                   f"rv_set(&{held}, rp_iterate_view(C, {src.rv}, &{walk}, &{k}, {w})); {items} = {walk}; {n} = {k};")
            return Source(n, lambda i: f"{items}[{i}]")
        fn = "rp_iterate_copy" if copy else "rp_iterate"
        held = f.assign_owned(f"{fn}(C, {src.rv}, {w})").code
        # what the loop walks is its own (or, in an expression, unchanged): where it lies is read once
        f.emit(f"{items} = {held}.u.l->items;")
        f.emit(f"{n} = {held}.u.l->len;")
        return Source(n, lambda i: f"{items}[{i}]", known=src.known)

    def _range(self, call: A.Call, scope: Scope, lv: Locals, w: int) -> "Source":
        """`range(...)` walked without making its list, charged as `runtime.iterate` charges it; of C ints, its
        length tested only where the lowering does not know it is short (`lower_bounds.range_item`), nor the C
        compiler (two constants: rp_range_ints folds)."""
        f = self.f
        args = [self.lower(a, scope, lv) for a in call.args]
        lo, n = f.integer(), f.integer()
        if len(args) > 2 or any(a.kind != "int" for a in args):  # tags to check
            second = args[1].rv if len(args) > 1 else "rv_null()"
            f.emit(f"{n} = rp_range_loop(C, {args[0].rv}, {second}, {len(args)}, &{lo}, {w});")
            f.check()
            return Source(n, lambda i: f"({lo} + {i})", "int")
        first, last = (self.literal(0), args[0]) if len(args) == 1 else (args[0], args[1])
        known = lower_bounds.range_item(first, last)
        if known is None or (lower_bounds.constant(first) is not None and lower_bounds.constant(last) is not None):
            f.emit(f"{n} = rp_range_ints(C, {first.code}, {last.code}, &{lo}, {w});")
            f.check()
        else:
            f.emit(f"{lo} = {first.code};")
            f.emit(f"{n} = rp_range_short(C, {first.code}, {last.code}, {w});")
            f.emit(f"if (RP_UNLIKELY({n} < 0)) goto out;")
        span, bound = known if known is not None else (None, None)
        return Source(n, lambda i: f"({lo} + {i})", "int", span=span, bound=bound)

    def _bind_item(self, names: tuple[str, ...], items: "Source", i: str, pos: A.Pos, lv: Locals,
                   own: bool) -> Locals:
        """The loop's names bound to item `i`: borrowed in an expression (nothing changes while it runs), held
        (a reference of its own) in a `for` statement, whose body may change the list the item came from."""
        f = self.f
        inner = dict(lv)
        item = items.item(i)
        if items.kind == "int" and len(names) == 1:  # an int of a range or a table: a C int, nothing to hold
            held = f.integer()
            f.emit(f"{held} = {item};")
            # the item of a constant list keeps its place in it (`_site_at`)
            inner[names[0]] = Val(held, "int", items.known, i if items.known is not None else None,
                                  span=items.span, bound=items.bound)
            return inner
        if items.kind == "int":
            item = f"rv_int({item})"
        if len(names) == 1:
            parts = [item]
        else:
            f.emit(f"if (!rp_unpack(C, {item}, {len(names)}, {self.where(pos)})) goto out;")
            parts = [f"{item}.u.l->items[{k}]" for k in range(len(names))]
        for name, part in zip(names, parts):
            if own:
                local = f.local()
                f.emit(f"rv_set(&{local}, rv_ref({part}));")
                inner[name] = Val(local)
            elif len(names) == 1:
                # In an expression nothing rebinds the name, nor changes what the loop walks: the name reads the
                # item where it lies, and is item `i` of a constant list, if the loop walks one.
                inner[name] = Val(part, known=items.known, items=i)
            else:
                held = f.borrowed()
                f.emit(f"{held} = {part};")
                inner[name] = Val(held)
        return inner

    def _loops(self, comp: A.Comprehension, scope: Scope, lv: Locals, each: Callable[[Scope, Locals, str], None],
               stop: str | None = None, first: Callable[[str], None] | None = None, k: int = 0,
               outer: str = "") -> None:
        """The comprehension's `for` clauses from the k-th inward, as nested C loops (`dsl.compiler._nested`):
        each clause's source computed and charged once per binding of the clauses before it, its names bound,
        its filter tested, and `each(scope, locals, i)` written for every binding that passes every filter, `i`
        being the outermost loop's index (the item's position in the first list).  `first` is told how many
        items the first list has before its loop starts.  When `stop` (a C int) is set, every loop ends, its
        turn's temporaries cleared first.  A filter `x in NAME` over constant sets walks only the sets holding x
        (`_holding`), and charges the tests Python makes of the others once the loop ends (`CFunc.spend`)."""
        f = self.f
        names, source, cond, pos = comp.clauses[k]
        if stop is None and self._pairs(comp, k, scope, lv, each, first, outer):
            return
        items = self._items(source, pos, scope, lv)
        if first is not None:
            first(items.count)
        inner_scope = scope.with_locals(*names)
        i = f.index()
        holding = self._holding(names, items, cond, scope, lv)
        if holding is not None:  # only the sets holding x walked, by the bits of their mask
            mask, end = f.integer(), f.integer()
            f.emit(f"{mask} = {holding[0]};")
            f.emit(f"{end} = {items.count};")
            head, cond = f"for (; {mask}; {mask} &= {mask} - 1)", None
        else:
            head = f"for ({i} = 0; {i} < {items.count}; {i}++)"
        with f.block(head):
            if holding is not None:
                f.emit(f"{i} = __builtin_ctzll((uint64_t){mask});")
            with f.scope():
                inner = self._bind_item(names, items, i, pos, lv, own=False)
                self._filtered(comp, k, cond, inner_scope, inner, each, stop, outer or i)
            if stop is not None:
                f.emit(f"if ({stop}) {{ {end} = {i} + 1; break; }}" if holding is not None else f"if ({stop}) break;")
        if holding is not None:  # every test Python makes, up to the set where the loop stopped, charged at once
            f.spend(f"{holding[1]}[{end}]", self.where(pos))

    def _filtered(self, comp: A.Comprehension, k: int, cond: A.Expr | None, scope: Scope, lv: Locals,
                  each: Callable[[Scope, Locals, str], None], stop: str | None, position: str) -> None:
        """Clause k's filter `cond` tested on its names' binding `lv`, and within it the clauses after it, or
        `each` after the last."""
        test = self.lower(cond, scope, lv).truth if cond is not None else "1"
        with self.f.block(f"if ({test})"):
            if k == len(comp.clauses) - 1:
                each(scope, lv, position)
            else:
                self._loops(comp, scope, lv, each, stop, None, k + 1, position)

    def _pairs(self, comp: A.Comprehension, k: int, scope: Scope, lv: Locals,
               each: Callable[[Scope, Locals, str], None], first: Callable[[str], None] | None, outer: str) -> bool:
        """The k-th clause `for a, b in [[x, y] for ... ]` (a list literal of as many items as the clause has names,
        made by a comprehension of one `for`): its names bound to each literal's values as they are made, with no
        list made; charged as the list of lists is (its size, as `rp_charge` counts it) and walked.  Only in a
        loop that never stops early, so every item Python makes is made here too: the charges are the same, and
        an item that bails hands the step to Python as the list's making would.  False (nothing written) for
        any other clause."""
        names, source, cond, pos = comp.clauses[k]
        if not (len(names) > 1 and isinstance(source, A.Comprehension) and not source.more
                and isinstance(source.elem, A.ListLit) and len(source.elem.items) == len(names)):
            return False
        f, made, walked = self.f, self.where(source.pos), self.where(pos)
        inner_scope = scope.with_locals(*names)

        def made_pair(pair_scope: Scope, pair_lv: Locals, i: str) -> None:
            values = [self.lower(item, pair_scope, pair_lv) for item in source.elem.items]  # type: ignore[union-attr]
            f.emit(f"if (!rp_made_walked(C, 1, {walked}) || !rp_built(C, {len(values)}, {made})) goto out;")
            for value in values:
                if value.kind == "rv":  # a list or map in the pair is counted too, two lists down
                    size = f.integer()
                    f.emit(f"if (rv_is_container({value.rv})) {{ {size} = rp_size_nested(C, {value.rv}, 2, {made}); "
                           f"if (C->err || !rp_built(C, {size}, {made})) goto out; }}")
            self._filtered(comp, k, cond, inner_scope, {**lv, **dict(zip(names, values))}, each, None, outer or i)

        self._loops(source, scope, lv, made_pair, first=first)
        return True

    def _e_Comprehension(self, node: A.Comprehension, scope: Scope, lv: Locals) -> Val:
        f = self.f
        made: list[Val] = []

        def start(count: str) -> None:  # room for the first list's items: all of them, if the clause is the only one
            made.append(f.assign_owned(f"rp_new_list(C, {count if not node.more else 0})"))

        def add(inner_scope: Scope, inner: Locals, _: str) -> None:
            elem = self.lower(node.elem, inner_scope, inner)
            f.emit(f"if (!rp_list_push(C, {made[0].code}.u.l, rv_ref({elem.rv}))) goto out;")

        self._loops(node, scope, lv, add, first=start)
        f.emit(f"if (!rp_charge(C, {made[0].code}, {self.where(node.pos)})) goto out;")
        return made[0]

    def _quantifier(self, node: A.Call, scope: Scope, lv: Locals) -> Val:
        """`any(x for …)` and `all(x for …)` stop at the first item that decides them, across every clause;
        `index_where(x for y in L …)` stops at the first item of L that passes and whose x is true, and gives
        its position (-1 for none)."""
        comp: A.Comprehension = node.args[0]  # type: ignore[assignment]
        f = self.f
        finding = node.func == "index_where"
        if finding and comp.more:  # refused when the ruleset loads (RP200): never reached
            raise NotLowered("`index_where` over several `for` clauses", comp.more[0].pos)
        want = 0 if node.func == "all" else 1
        result, decided = f.integer(), f.integer()
        f.emit(f"{result} = {-1 if finding else 1 - want};")
        f.emit(f"{decided} = 0;")

        def decide(inner_scope: Scope, inner: Locals, position: str) -> None:
            elem = self.lower(comp.elem, inner_scope, inner)
            f.emit(f"{decided} = ({elem.truth}) == {want};")
            f.emit(f"if ({decided}) {result} = {position if finding else want};")

        self._loops(comp, scope, lv, decide, stop=decided)
        return Val(result, "int" if finding else "bool")

    def _fold(self, fn: str, comp: A.Comprehension, scope: Scope, lv: Locals, w: int) -> Val:
        """`len`, `sum`, `max` or `min` of a comprehension, without making the list: the same values, and the
        same charges (the list's size, charged as built by the comprehension and, but for `len`, walked by
        the builtin)."""
        f = self.f
        fold, total = f.record("rp_fold"), f.record("rp_sum") if fn == "sum" else None
        f.emit(f"{fold} = (rp_fold){{0}};")  # anew each time: the fold may sit in a loop
        if total is not None:
            f.emit(f"{total} = (rp_sum){{0}};")
        best: list[str] = []  # a max() or min() of C ints: the best so far, a C int

        def add(inner_scope: Scope, inner: Locals, _: str) -> None:
            elem = self.lower(comp.elem, inner_scope, inner)
            if fn in ("max", "min") and elem.kind == "int":  # ints among ints: a list of them is as long as big
                best.append(f.integer())
                better = f"{best[0]} < {elem.code}" if fn == "max" else f"{elem.code} < {best[0]}"
                f.emit(f"if ({better}) {best[0]} = {elem.code};")
                f.emit(f"{fold}.count++;")
                f.emit(f"{fold}.size++;")
                return
            f.emit(f"if (!rp_fold_add(C, &{fold}, {elem.rv}, {int(fn == 'max')}, {w})) goto out;")
            if total is not None:
                f.emit(f"if (!rp_sum_add(C, &{total}, {elem.rv}, {w})) goto out;")

        with f.capture() as loop:
            self._loops(comp, scope, lv, add)
        if best:  # the best so far starts at the far end, so the first item beats it with no test of the count
            far = "-INT64_C(9223372036854775807) - 1" if fn == "max" else "INT64_C(9223372036854775807)"
            f.emit(f"{best[0]} = {far};")
        f.place(loop)
        f.emit(f"if (!rp_built(C, {fold}.size, {w})) goto out;")
        if fn == "len":
            return Val(f"{fold}.count", "int")
        f.emit(f"if (!rp_spend(C, {fold}.size, {w})) goto out;")
        if fn == "sum":
            return f.assign_owned(f"rp_sum_result(C, &{total}, {w})")
        f.emit(f"if ({fold}.bad || {fold}.count == 0) {{ rp_bail(C, RP_BAIL_RULE, RP_WHY_FOLD, {w}); goto out; }}")
        return Val(best[0], "int") if best else Val(f"{fold}.best")

    def _e_LetExpr(self, node: A.LetExpr, scope: Scope, lv: Locals) -> Val:
        """`let NAME = V; BODY`: V computed once and read by BODY as a local (no copy: nothing in an expression
        can change it, and what holds it lives until the expression's statement ends)."""
        value = self.lower(node.value, scope, lv)
        if not _IDENTIFIER.fullmatch(value.code):  # a C expression: computed once, into a variable of its own
            f = self.f
            held = f.integer() if value.kind != "rv" else f.borrowed()
            f.emit(f"{held} = {value.code};")
            value = Val(held, value.kind, value.known, value.items)
        return self.lower(node.body, scope.with_locals(node.name), {**lv, node.name: value})

    # ------------------------------------------------------------ parts of values
    def _e_Index(self, node: A.Index, scope: Scope, lv: Locals) -> Val:
        obj = self.lower(node.obj, scope, lv)
        key = self.lower(node.index, scope, lv)
        if obj.kind == "ints":
            return self._table_index(obj, key, self.where(node.pos))
        f = self.f
        out = f.borrowed()
        if f.pure and obj.var is not None:  # a state list, where its items lie (`CFunc.view`)
            items, n = f.view(obj.var)
            tried = (f"rp_index_int_try(&{out}, {items}, {n}, {key.code})" if key.kind == "int"
                     else f"rp_index_view_try(&{out}, {items}, {n}, {key.rv})")
            f.fast(tried, f"{out} = rp_index(C, {obj.rv}, {key.rv}, {self.where(node.pos)});")
            return Val(out)
        f.fast(f"rp_index_try(&{out}, {obj.rv}, {key.rv})",
               f"{out} = rp_index(C, {obj.rv}, {key.rv}, {self.where(node.pos)});")
        return Val(out)

    def _e_Slice(self, node: A.Slice, scope: Scope, lv: Locals) -> Val:
        obj = self.lower(node.obj, scope, lv)
        lo = self.lower(node.lo, scope, lv).rv if node.lo is not None else "rv_null()"
        hi = self.lower(node.hi, scope, lv).rv if node.hi is not None else "rv_null()"
        return self.f.assign_owned(f"rp_slice(C, {obj.rv}, {lo}, {hi}, {self.where(node.pos)})")

    # ------------------------------------------------------------ operators
    def _e_Unary(self, node: A.Unary, scope: Scope, lv: Locals) -> Val:
        value = self.lower(node.operand, scope, lv)
        if node.op == "not":
            return Val(f"(!{value.truth})", "bool")
        f = self.f
        if value.kind == "int":
            out = f.integer()
            f.emit(f"{out} = rp_ineg(C, {value.code}, {self.where(node.pos)});")
            f.check()
            return Val(out, "int")
        return f.assign_owned(f"rp_negate(C, {value.rv}, {self.where(node.pos)})")

    def _e_Binary(self, node: A.Binary, scope: Scope, lv: Locals) -> Val:
        op, f = node.op, self.f
        if op in ("==", "!=") and isinstance(node.right, A.Literal) and (
                node.right.value is None or type(node.right.value) is str):
            # Null and text equal only themselves: the right side is never run (the closures' fast path).
            left = self.lower(node.left, scope, lv)
            lit = node.right.value
            if left.kind != "rv":
                test = "0"
            elif lit is None:
                test = f"({left.code}.t == T_NULL)"
            else:
                test = f"({left.code}.t == T_STR && {left.code}.u.i == {self.text(lit)})"
            return Val(test if op == "==" else f"(!{test})", "bool")
        left = self.lower(node.left, scope, lv)
        right = self._read(node.right, scope, lv) if op in ("in", "not in") else self.lower(node.right, scope, lv)
        w = self.where(node.pos)
        if op in ("in", "not in"):
            members = self._members(right)
            slow = f"rp_in_fast(C, {right.rv}, {left.rv}, {w})"
            if members is None and right.var is not None:
                out = self._search_view("in", right, left, slow)
            elif members is not None:
                out = f.integer()
                f.fast(f"rp_in_mask_try(&{out}, C, {left.rv}, {members[0]}, {members[1]})", f"{out} = {slow};")
            else:
                out = f.integer()
                f.emit(f"{out} = {slow};")
                f.check()
            return Val(out if op == "in" else f"(!{out})", "bool")
        if op in ("==", "!="):
            if left.kind != "rv" and right.kind != "rv":
                same = f"({left.code} == {right.code})" if left.kind == right.kind else "0"
            else:
                same = f.integer()
                f.fast(f"rp_eq_try(&{same}, {left.rv}, {right.rv})",
                       f"{same} = rp_equals(C, {left.rv}, {right.rv}, {w});")
            return Val(same if op == "==" else f"(!{same})", "bool")
        if op in ORDER_OPS:
            if left.kind == "int" and right.kind == "int":
                return Val(f"({left.code} {op} {right.code})", "bool")
            out = f.integer()
            f.fast(f"rp_cmp_try(&{out}, {ORDER_OPS[op]}, {left.rv}, {right.rv})",
                   f"{out} = rp_compare(C, {ORDER_OPS[op]}, {left.rv}, {right.rv}, {w});")
            return Val(out, "bool")
        if op in INT_OPS and left.kind == "int" and right.kind == "int":
            out = f.integer()
            known = lower_bounds.int_sum(op, left, right, out) if op in ("+", "-") else None
            if known is not None:  # within 64 bits whatever the sides are
                f.emit(f"{out} = {left.code} {op} {right.code};")
                return known
            f.fast(f"{INT_OPS[op]}_try(&{out}, {left.code}, {right.code})",
                   f"rp_bail(C, RP_BAIL_NATIVE, RP_WHY_INT, {w});")
            return Val(out, "int")
        return f.assign_owned(f"rp_arith_fast(C, {ARITH_OPS[op]}, {left.rv}, {right.rv}, {w})")

    def _e_BoolOp(self, node: A.BoolOp, scope: Scope, lv: Locals) -> Val:
        f = self.f
        first = self.lower(node.operands[0], scope, lv)
        rest: list[tuple[list[str], Val]] = []
        for operand in node.operands[1:]:
            with f.capture() as lines:
                with f.scope():
                    value = self.lower(operand, scope, lv)
                    truth = value.truth
                    if f.lines:  # the operand needed statements: its truth is taken before they are cleared
                        held = f.integer()
                        f.emit(f"{held} = {truth};")
                        value = Val(held, "bool")
            rest.append((lines, value))
        joiner = " && " if node.op == "and" else " || "
        if not any(lines for lines, _ in rest):
            return Val("(" + joiner.join([first.truth] + [v.truth for _, v in rest]) + ")", "bool")
        result = f.integer()
        f.emit(f"{result} = {first.truth};")
        depth = 0
        for lines, value in rest:
            f.emit(f"if ({result if node.op == 'and' else '!' + result}) {{")
            f.depth += 1
            depth += 1
            f.place(_indent(lines, depth))
            f.emit(f"{result} = {value.truth};")
        for _ in range(depth):
            f.depth -= 1
            f.emit("}")
        return Val(result, "bool")

    def _e_Cond(self, node: A.Cond, scope: Scope, lv: Locals) -> Val:
        f = self.f
        test = self.lower(node.test, scope, lv).truth
        held = f.integer()
        f.emit(f"{held} = {test};")
        out = f.owned()
        branches = []
        for part in (node.then, node.other):
            with f.capture() as lines:
                with f.scope():
                    value = self.lower(part, scope, lv)
                    pure = not f.lines
                    if not pure:  # the branch's value is taken before its temporaries are cleared
                        f.emit(f"{out} = rv_ref({value.rv});")
            branches.append((lines, value, pure))
        (_, then, then_pure), (_, other, other_pure) = branches
        if then_pure and other_pure:
            if then.kind == other.kind:
                return Val(f"({held} ? {then.code} : {other.code})", then.kind)
            return Val(f"({held} ? {then.rv} : {other.rv})")
        for head, (lines, value, pure) in zip((f"if ({held})", "else"), branches):
            f.emit(head + " {")
            f.place(_indent(lines, 1) if not pure else ["    " * (f.depth + 1) + f"{out} = rv_ref({value.rv});"])
            f.emit("}")
        return Val(out)

    # ------------------------------------------------------------ calls
    def _e_Call(self, node: A.Call, scope: Scope, lv: Locals) -> Val:
        if self.is_quantifier(node, scope):
            return self._quantifier(node, scope, lv)
        spec = self.callee(node, scope)
        f = self.f
        w = self.where(node.pos)
        if isinstance(spec, Builtin):
            if spec.name in FOLDS and len(node.args) == 1 and isinstance(node.args[0], A.Comprehension):
                return self._fold(spec.name, node.args[0], scope, lv, w)
            inner = node.args[0] if spec.name == "len" and len(node.args) == 1 else None
            if (isinstance(inner, A.Call) and inner.func in LEN_UNMADE and len(inner.args) == 1
                    and isinstance(self.callee(inner, scope), Builtin)):
                return self._len_unmade(inner, scope, lv)
            args = [self._read(a, scope, lv) if spec.name == "len" else self.lower(a, scope, lv) for a in node.args]
            if spec.name == "len" and args[0].kind == "ints":
                return lower_bounds.length(args[0])
            if spec.name == "len":
                out = f.integer()
                f.fast(f"rp_len_try(&{out}, {args[0].rv})", f"{out} = rp_len_i(C, {args[0].rv}, {w});")
                return Val(out, "int")
            if spec.name in VIEW_SEARCHES and len(args) == 2 and args[0].var is not None:
                slow = f"rp_call_builtin(C, {BUILTIN_IDS[spec.name]}, (rv[]){{{args[0].rv}, {args[1].rv}}}, 2, {w}).u.i"
                return Val(self._search_view(spec.name, args[0], args[1], slow), "int")
            board = self._board(node.args[0]) if node.args else None
            if spec.name == "cell" and board is not None:
                out, place = f.borrowed(), f"{board.width}, {board.height}, {args[1].rv}, {args[2].rv}"
                f.fast(f"rp_cell_try(&{out}, {place})", f"{out} = rp_cell_inline(C, {place}, {w});")
                return Val(out)
            if spec.name in KEPT_BUILTINS:
                stepped = self._board_step(spec.name, node.args, args, board)
                if stepped is None:
                    return f.assign_owned(self._kept_call(spec.name, node.args, args, board, w))
                out = f.owned()
                f.emit(f"if (RP_LIKELY({stepped[0]})) {out} = {stepped[1]};")
                f.emit("else {")
                with f.capture() as slow:  # the arguments' array and the site's numbering: off the table's case
                    call = self._kept_call(spec.name, node.args, args, board, w)
                f.place(_indent(slow, 1))
                f.emit(f"    {out} = {call};")
                f.emit(f"    {ERR_CHECK}")
                f.emit("}")
                return Val(out)
            argv = f.array([a.rv for a in args]) if args else "NULL"
            return f.assign_owned(f"rp_call_builtin(C, {BUILTIN_IDS[spec.name]}, {argv}, {len(args)}, {w})")
        if not isinstance(spec, Callable_):
            raise NotLowered(f"the call of `{node.func}`", node.pos)
        call = self._user_call(node, scope, lv, w)
        kind = self.function_kinds.get(node.func, "rv")
        if kind != "rv":  # a C int or truth: nothing held, nothing to charge (a scalar costs nothing)
            value = f.integer()
            self.enter(f"{value} = {call};", w)
            f.check()
            return Val(value, kind)
        out = f.owned()
        self.enter(f"{out} = {call};", w)
        f.check()
        f.emit(f"if (!rp_charge_fast(C, {out}, {w})) goto out;")
        return Val(out)

    def _kept_call(self, name: str, nodes: list[A.Expr], args: list[Val], board: Any, w: int) -> str:
        """The C call of a kept builtin through its site's kept results (`rp_site_at` where its varying arguments
        are numbered, else `rp_site_call`); its arguments' array written first."""
        f = self.f
        argv = f.array([a.rv for a in args]) if args else "NULL"
        vary = sum(1 << k for k, a in enumerate(nodes) if not isinstance(a, A.Literal))
        hashed = f"{self.site_slots()}, {BUILTIN_IDS[name]}, {argv}, {len(args)}, {vary}u, {w}"
        varying = [a for node_arg, a in zip(nodes, args) if not isinstance(node_arg, A.Literal)]
        at = self._site_at(varying, board.width * board.height if board is not None else 0)
        if at is not None:
            return f"rp_site_at(C, {self.site_slots(at[1])}, {at[0]}, {hashed})"
        return f"rp_site_call(C, {hashed})"

    def enter(self, call: str, w: int) -> None:
        """The call statement `call` of a user function or procedure, charged as Python charges a call; its
        depth counted against the room left (`rp_enter`, `rp_leave`) unless no call can nest past it.  The caller
        tests the error after it."""
        f = self.f
        if self.calls_fit:
            f.emit(f"if (rp_spend(C, 1, {w})) {call}")
        else:
            f.emit(f"if (rp_enter(C, {w})) {call}")
            f.emit("rp_leave(C);")


_IDENTIFIER = re.compile(r"[A-Za-z_]\w*(?:\[\d+\])?")  # a C variable, or an argument A[k] or constant K[k]


def _indent(lines: list[str], levels: int) -> list[str]:
    return ["    " * levels + line for line in lines]
