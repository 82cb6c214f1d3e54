"""One C function being written by the lowering: its statements, temporaries and the scopes that free them.

The lowering writes every operation that can fail, charge the budget or
make a value as a statement of its own, followed by `if (C->err) goto out;`,
so a bail leaves the function at once and its one exit frees what it held;
an operation with an inline common case that cannot fail (`fast`) tests the
error only where it leaves that case to the runtime.
Values are `Val`s: a C expression of an `rv` (borrowed for as long as the
statement that made it lasts), or, where the lowering knows the type, a
plain C int (`int`) or truth value (`bool`).  A value the function owns is
held in a temporary registered with the innermost scope, which clears it
when the scope ends (the end of a statement, or of a loop's turn); `out:`
drops every temporary again, which is harmless for those already cleared.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

from .cdata import NotLowered

ERR_CHECK = "if (RP_UNLIKELY(C->err)) goto out;"


@dataclass(frozen=True)
class Val:
    code: str
    # "rv", "int" (an int64_t known to be a whole number), "bool" (a C truth value) or "ints" (a list of ints
    # held as an `rp_ints`, where it lies in a module table: `lower_tables`)
    kind: str = "rv"
    # Known while lowering: the constant list this is (`items` None), or (`items` set) the item of that list at
    # C index `items` of a loop over it.  Constants never change, so what is known of them may be tabled.
    known: tuple | None = None
    items: str | None = None
    var: int | None = None  # the state variable this reads, as it is (`C->S->vars[var]`)
    # What the lowering knows of an int's value (`lower_bounds`), so the code need not test it: the least and
    # the greatest it can be; (`bound`) a line held as `rp_ints` (its C name) and c, the int being at most the
    # line's length less c; (`base`) a C int expression and m, the int being that expression plus m.
    span: tuple[int, int] | None = None
    bound: tuple[str, int] | None = None
    base: tuple[str, int] | None = None

    @property
    def rv(self) -> str:
        if self.kind == "ints":  # the tagged list is not made: the code taking it keeps to tagged values
            raise NotLowered("a board's line held as a table, used as a list")
        if self.kind == "int":
            return f"rv_int({self.code})"
        if self.kind == "bool":
            return f"rv_bool({self.code})"
        return self.code

    @property
    def truth(self) -> str:
        if self.kind == "ints":
            raise NotLowered("a board's line held as a table, used as a truth")
        if self.kind == "bool":
            return self.code
        if self.kind == "int":
            return f"({self.code} != 0)"
        return f"rp_truth({self.code})"


def view_items(var: int) -> str:
    """Where the items of state variable `var` lie (NULL when it holds no list)."""
    return f"C->S->vars[{var}].t == T_LIST ? C->S->vars[{var}].u.l->items : NULL"


def view_count(var: int) -> str:
    """How many items state variable `var` holds (0 when it holds no list)."""
    return f"C->S->vars[{var}].t == T_LIST ? C->S->vars[{var}].u.l->len : 0"


class CFunc:
    """The text of one generated C function."""

    def __init__(self, name: str, returns: str, views_given: bool = False):
        self.name = name
        self.returns = returns  # "rv", "int" (a truth), "int64" (a user function's C int or truth) or "void"
        self.lines: list[str] = []
        self.decls: list[str] = []
        self.dropped: list[str] = []  # rv variables the exit drops
        self.freed: list[str] = []  # blocks the exit frees
        self.scopes: list[list[str]] = [[]]
        self.depth = 1
        self.n = 0
        # An expression changes no state: a function that only computes a value or a truth may read what the
        # state holds once, where it starts (`view`, `param`); one that runs effects may not.
        self.pure = returns != "void"
        self.views: dict[int, tuple[str, str]] = {}
        # A user function's version takes its views from its callers (`view_params`), who hold them already
        # or read them once for several calls, rather than reading them again on every call.
        self.views_given = views_given
        self.later: dict[str, tuple[str, int]] = {}  # charge -> what `later_charge` left to it at the end, and where

    # ------------------------------------------------------------ the budget
    def made_walked(self, n: int, where: int) -> None:
        """A list of `n` items (a constant) made and walked, charged as `rp_made_walked` charges it (`later`)."""
        self.later_charge("rp_made_walked", str(n), where)

    def spend(self, n: str, where: int) -> None:
        """`n` iterations (a constant, or read from a table of constants) charged as `rp_spend` charges them
        (`later`)."""
        self.later_charge("rp_spend", n, where)

    def later_charge(self, charge: str, n: str, where: int) -> None:
        """`n` charged by the runtime's `charge`.  A pure function sums such charges in a C int and charges the
        sum once, where it returns: the counts only ever fall, so the sum runs the budget out exactly when the
        charges one by one would have, and a function that bails on the way leaves its step to the Python engine
        whatever its counts hold.  Only constants (or reads of tables of them) are summed, each after the charge
        of the loop around it, so the work done before the sum is charged stays bounded."""
        if not self.pure:
            self.emit(f"if (!{charge}(C, {n}, {where})) goto out;")
            return
        if charge not in self.later:
            self.later[charge] = (self.integer(), where)
        self.emit(f"{self.later[charge][0]} += {n};")

    # ------------------------------------------------------------ variables
    def _fresh(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}{self.n}"

    def owned(self) -> str:
        """A temporary that owns its value: cleared when the current scope ends, dropped on the way out."""
        name = self._fresh("t")
        self.decls.append(f"rv {name} = {{0}};")
        self.dropped.append(name)
        self.scopes[-1].append(name)
        return name

    def local(self) -> str:
        """A variable of the rules (`let`, loop names) that owns its value until it is set again or the
        function ends."""
        name = self._fresh("l")
        self.decls.append(f"rv {name} = {{0}};")
        self.dropped.append(name)
        return name

    def view(self, var: int) -> tuple[str, str]:
        """Where the items of state variable `var` lie and how many there are (0 when it holds no list), read
        once where the (pure) function starts, or by its callers (`views_given`): its lists cannot change while
        the function runs."""
        found = self.views.get(var)
        if found is None:
            items, n = self._fresh("p"), self._fresh("c")
            if not self.views_given:
                self.decls.append(f"const int64_t {n} = {view_count(var)};")
                self.decls.append(f"const rv *const {items} = {view_items(var)};")
            found = self.views[var] = (items, n)
        return found

    def view_params(self) -> str:
        """The parameters after `T` of a version whose views are given (`views_given`): where each state
        variable it views lies and how many items, by the variable's number."""
        return "".join(f", const rv *const {items}, const int64_t {n}" for _, (items, n) in sorted(self.views.items()))

    def views_for(self, variables: tuple[int, ...]) -> str:
        """The arguments after `T` of a call of a version taking the views of `variables`: a pure function's
        own (its lists cannot change while it runs), else read at the call (effects may have changed them)."""
        if self.pure:
            return "".join(f", {items}, {n}" for items, n in map(self.view, variables))
        return "".join(f", {view_items(var)}, {view_count(var)}" for var in variables)

    def param(self, k: int) -> str:
        """Argument `k` of a pure function, read once where it starts (`A` cannot change while it runs, but C
        cannot know that across the runtime's stores)."""
        name = self._fresh("a")
        self.decls.append(f"const rv {name} = A[{k}];")
        return name

    def int_param(self, k: int) -> str:
        """Argument `k` of a pure function, always an int (`rv_int`), read once as a C int where it starts."""
        name = self._fresh("a")
        self.decls.append(f"const int64_t {name} = A[{k}].u.i;")
        return name

    def table_param(self, k: int) -> str:
        """Argument `k` of a function's version that takes it as a table of C ints (`T[k]`), read once."""
        name = self._fresh("s")
        self.decls.append(f"const rp_ints {name} = T[{k}];")
        return name

    def ints(self, n: int = 0) -> str:
        """An `rp_ints` (a list of ints where it lies in a table), or an array of `n` of them."""
        name = self._fresh("s")
        self.decls.append(f"rp_ints {name}[{n}];" if n else f"rp_ints {name} = {{0}};")
        return name

    def borrowed(self) -> str:
        name = self._fresh("b")
        self.decls.append(f"rv {name} = {{0}};")
        return name

    def integer(self) -> str:
        name = self._fresh("c")
        self.decls.append(f"int64_t {name} = 0;")
        return name

    def record(self, kind: str) -> str:
        """A runtime record (`rp_sum`, `rp_fold`), zeroed."""
        name = self._fresh("r")
        self.decls.append(f"{kind} {name} = {{0}};")
        return name

    def pointer(self) -> str:
        """Where a loop's items lie (in a list the function holds, or borrowed)."""
        name = self._fresh("p")
        self.decls.append(f"const rv *{name} = NULL;")
        return name

    def cursor(self) -> str:
        """Where a listing writes its next move, in room made for every move it may list."""
        name = self._fresh("p")
        self.decls.append(f"int32_t *{name} = NULL;")
        return name

    def index(self) -> str:
        name = self._fresh("i")
        self.decls.append(f"int64_t {name} = 0;")
        return name

    def array(self, items: list[str]) -> str:
        """An array of rv values (the arguments of a call), filled where it is written."""
        name = self._fresh("a")
        self.decls.append(f"rv {name}[{max(len(items), 1)}];")
        for k, item in enumerate(items):
            self.emit(f"{name}[{k}] = {item};")
        return name

    # ------------------------------------------------------------ statements
    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def check(self) -> None:
        self.emit(ERR_CHECK)

    def fast(self, tried: str, slow: str) -> None:
        """An operation's common case `tried` (an inline `rp_..._try` of rp.h, which cannot fail) and, where it
        leaves the operation to the runtime, the statement `slow` and the error check: the common case tests
        no error."""
        self.emit(f"if (RP_UNLIKELY(!{tried})) {{ {slow} {ERR_CHECK} }}")

    def assign_owned(self, expr: str) -> Val:
        """`expr` (a new reference) into an owned temporary, checked."""
        t = self.owned()
        self.emit(f"{t} = {expr};")
        self.check()
        return Val(t)

    @contextmanager
    def block(self, head: str) -> Iterator[None]:
        """`head {` ... `}`, whose temporaries are cleared at its end."""
        self.emit(head + " {")
        self.depth += 1
        with self.scope():
            yield
        self.depth -= 1
        self.emit("}")

    @contextmanager
    def scope(self) -> Iterator[None]:
        self.scopes.append([])
        yield
        for name in self.scopes.pop():
            self.emit(f"rv_clear(&{name});")

    @contextmanager
    def capture(self) -> Iterator[list[str]]:
        """Statements written meanwhile are kept apart (to be placed by the caller), not emitted."""
        saved = self.lines
        self.lines = []
        out: list[str] = []
        try:
            yield out
        finally:
            out.extend(self.lines)
            self.lines = saved

    def place(self, lines: list[str]) -> None:
        self.lines.extend(lines)

    # ------------------------------------------------------------ the whole function
    def heap(self) -> str:
        """A block the function allocates (from the runtime) and frees on the way out."""
        name = self._fresh("h")
        self.decls.append(f"int64_t *{name} = NULL;")
        self.freed.append(name)
        return name

    def text(self, signature: str, result: str | None = None, preamble: tuple[str, ...] = ()) -> str:
        """The function; `result` is the C expression (an rv to take a new reference to, or an int) that it
        returns, None for void; `preamble` declares what the body uses before the rest (its `A`)."""
        body = ["    " + line for line in preamble] + ["    (void)A;"] + ["    " + d for d in self.decls]
        body += self.lines
        body += [f"    if (!{charge}(C, {total}, {where})) goto out;" for charge, (total, where) in self.later.items()]
        if self.returns == "rv":
            body.insert(0, "    rv r = {0};")
            body.append(f"    r = rv_ref({result});")
        elif self.returns in ("int", "int64"):
            body.insert(0, f"    {'int' if self.returns == 'int' else 'int64_t'} r = 0;")
            body.append(f"    r = {result};")
        body.append("    goto out;")
        body.append("out:")
        body += [f"    rv_drop({name});" for name in self.dropped]
        body += [f"    free({name});" for name in self.freed]
        if self.returns == "rv":
            body.append("    if (C->err) { rv_drop(r); return rv_null(); }")
            body.append("    return r;")
        elif self.returns in ("int", "int64"):
            body.append("    return C->err ? 0 : r;")
        else:
            body.append("    return;")
        return f"{signature}\n{{\n" + "\n".join(body) + "\n}\n"
