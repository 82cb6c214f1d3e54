"""Why a scenario's check is false: the values of its parts, as pytest's assertion rewriting shows them.

`expect: a == 3 and "x" in legal` failing reads `` `a == 3` is true, `"x" in
legal` is false (legal = ["take"]) ``: each part of an `and` up to the first
false one (the rest never ran), every part of a false `or`, the part a `not`
found true, and for a comparison the values of its sides that are not
literals.  The parts are compiled with the check, in its scope, and run only
when it fails; an expression has no effects, so running a part again reads
the very state the check read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable

from ruleplay.dsl import ast as A
from ruleplay.dsl import runtime as R
from ruleplay.dsl.unparse import unparse

_COMPARISONS = frozenset({"==", "!=", "<", "<=", ">", ">=", "in", "not in"})


@dataclass
class Part:
    """A part of a check: its text, its compiled value, and the parts that explain it."""

    text: str
    value: Callable[[R.Ctx], Any]
    kind: str  # "and", "or", "not", "compare", or "value" (shown by its truth alone)
    parts: list["Part"] = field(default_factory=list)


def parts_of(node: A.Expr, compile_: Callable[[A.Expr], Callable[[R.Ctx], Any]]) -> Part:
    """The explanation tree of `node`, each part compiled with `compile_`."""
    kind, children = "value", []
    if isinstance(node, A.BoolOp):
        kind, children = node.op, list(node.operands)
    elif isinstance(node, A.Unary) and node.op == "not":
        kind, children = "not", [node.operand]
    elif isinstance(node, A.Binary) and node.op in _COMPARISONS:
        kind, children = "compare", [side for side in (node.left, node.right) if not _constant(side)]
    return Part(unparse(node), compile_(node), kind, [parts_of(c, compile_) for c in children])


def _constant(node: A.Expr) -> bool:
    """Code that reads no name and calls nothing (`3`, `[]`, `["a", 1]`): its text already says its value."""
    return not any(isinstance(n, (A.Name, A.Call)) for n in A.walk(node))


def show(value: Any) -> str:
    """A value as a scenario message shows it: JSON, so text is in quotes."""
    return json.dumps(value) if isinstance(value, (dict, list, str, bool, int, float, type(None))) else repr(value)


def why(part: Part, ctx: R.Ctx) -> str:
    """What the check `part` (found false) was made of: ": parts…" for `and`, `or` and `not`, " (sides)" for a
    comparison, "" for anything else."""
    inner = _detail(part, ctx)
    if not inner:
        return ""
    return f" ({inner})" if part.kind == "compare" else f": {inner}"


def _detail(part: Part, ctx: R.Ctx) -> str:
    try:
        if part.kind == "compare":
            return ", ".join(f"{side.text} = {show(side.value(ctx))}" for side in part.parts)
        if part.kind == "value":
            return ""
        shown = []
        for p in part.parts:
            true = bool(p.value(ctx))
            inner = "" if true and part.kind != "not" else _detail(p, ctx)
            shown.append(f"`{p.text}` is {'true' if true else 'false'}" + (f" ({inner})" if inner else ""))
            if part.kind == "and" and not true:
                break  # the parts after it never ran
        return ", ".join(shown)
    except R.RuleRuntimeError as err:  # a part that fails alone (it did not in the check): say so, not why
        return f"a part could not be evaluated again: {err.message}"
