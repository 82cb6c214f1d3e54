"""Derived constants: values computed once, when the ruleset loads, from constants, boards and graphs.

A `derived:` entry is an expression whose value becomes a constant like
those of `constants:`, so play reads a neighbour table or a board's lines
instead of rebuilding them in every call.  Entries may read constants,
other derived constants, `players`, components, boards and graphs — what
is fixed before play — and never the state: a state variable or a flow
value that changes in play is refused where it is written.  Entries are
computed in the order their references ask for; a cycle among them is
refused.  All of them share the work budget of one move, so a ruleset
cannot make loading itself run away.
"""

from __future__ import annotations

from typing import Any

from ruleplay.dsl import ast as A
from ruleplay.dsl import runtime as R
from ruleplay.dsl.scope import FLOW_NAMES, Scope

from .components import StaticModel
from .context import BuildContext

FIXED_FLOW = frozenset({"players"})  # the only flow value known before play: the player count
STATE_HINT = "a derived constant is computed once, when the game loads: compute this with a function"


def build_derived(b: BuildContext, constants: dict[str, Any], static: StaticModel, players: int,
                  budget: R.Budget) -> dict[str, Any]:
    """`constants` with every derived value added; values that cannot be computed are left out (reported)."""
    specs = b.data.get("derived") or {}
    if not specs:
        return constants
    state_names = frozenset(b.data.get("state") or {})
    trees: dict[str, A.Node] = {}
    for name in specs:
        path = ("derived", name)
        if name in constants:
            b.diag("RP214", f"`{name}` is both a constant and a derived constant", path, key=True,
                   hint="rename one of the two", related=(b.related("the constant", ("constants", name)),))
            continue
        node = b.parse(path, effects=False)
        if node is not None and _reads_only_fixed(b, name, node, state_names) and _calls_no_function(b, name, node):
            trees[name] = node
    out = dict(constants)
    order = _order(b, trees)
    scope = Scope(state_names, out, frozenset(), {}, {}, b.disabled)
    ctx = R.Ctx({}, {"players": players}, static, budget=budget)
    missing = set(specs) - set(constants)  # shrinks as values are computed; what is left has no value
    for name in order:
        if any(n.name in missing for n in _free_names(trees[name])):
            continue  # it reads a value that failed, which is reported where it failed
        before = len(b.diags)
        fn = b.compile(trees[name], scope)
        if fn is None or len(b.diags) > before:
            continue  # its problems are reported; running it would only report them again
        try:
            with R.recursion_guard():
                out[name] = fn(ctx)
            missing.discard(name)
        except R.RuleRuntimeError as err:
            message = f"cannot compute derived constant {name!r}: {err.message}"
            hint = err.hint or "derived constants are computed once, when the game loads, within the work of one move"
            if err.pos is None:
                b.diag("RP226", message, ("derived", name), hint=hint)
            else:
                b.diag_at("RP226", message, err.pos, ("derived", name), hint)
        except KeyError:  # a value of the state read through some path the names above do not show
            b.diag("RP226", f"derived constant {name!r} depends on the state", ("derived", name), hint=STATE_HINT)
    return out


def _free_names(node: A.Node) -> list[A.Name]:
    """The names an expression reads, less those its comprehensions and `let`s bind (their loop variables and
    names)."""
    bound = {n for c in A.walk(node) if isinstance(c, A.Comprehension) for n in c.bound}
    bound |= {c.name for c in A.walk(node) if isinstance(c, A.LetExpr)}
    return [n for n in A.walk(node) if isinstance(n, A.Name) and n.name not in bound]


def _reads_only_fixed(b: BuildContext, name: str, node: A.Node, state_names: frozenset[str]) -> bool:
    """False (reported where it is read) when the expression reads a state variable or a changing flow value."""
    for n in _free_names(node):
        if n.name in state_names:
            what = f"the state variable `{n.name}`"
        elif n.name in FLOW_NAMES and n.name not in FIXED_FLOW:
            what = f"the flow value `{n.name}`"
        else:
            continue
        b.diag_at("RP226", f"derived constant {name!r} reads {what}, which changes in play", n.pos,
                  ("derived", name), STATE_HINT)
        return False
    return True


def _calls_no_function(b: BuildContext, name: str, node: A.Node) -> bool:
    """False (reported where it is called) when the expression calls one of the ruleset's functions, which
    are compiled after the derived constants, as they may read them."""
    functions = b.data.get("functions") or {}
    for call in (n for n in A.walk(node) if isinstance(n, A.Call) and n.func in functions):
        b.diag_at("RP211", f"derived constant {name!r} calls the ruleset's function `{call.func}`, which a derived "
                  "constant cannot: functions may read derived constants, so they are made after them", call.pos,
                  ("derived", name), "write the function's expression here instead, or compute it with a function")
        return False
    return True


def _order(b: BuildContext, trees: dict[str, A.Node]) -> list[str]:
    """The derived names, each after those it reads; a cycle is reported once and its members left out."""
    deps = {name: [n for n in _free_names(node) if n.name in trees] for name, node in trees.items()}
    order: list[str] = []
    state: dict[str, str] = {}  # "open" while its dependencies are being ordered, then "done"

    def visit(name: str, trail: list[str]) -> bool:
        if state.get(name) == "done":
            return name in order
        if state.get(name) == "open":
            cycle = trail[trail.index(name):] + [name]
            first = next(n for n in deps[trail[-1]] if n.name == name)
            b.diag_at("RP227", f"derived constants depend on each other in a circle: {' -> '.join(cycle)}",
                      first.pos, ("derived", trail[-1]),
                      "compute one of them from constants only, or merge them into one value")
            return False
        state[name] = "open"
        fine = all([visit(n.name, trail + [name]) for n in deps[name]])
        state[name] = "done"
        if fine:
            order.append(name)
        return fine

    for name in trees:
        visit(name, [])
    return order

