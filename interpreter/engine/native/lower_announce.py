"""An announce's text lowered to C as a measure: checked and charged as it is made, never made.

The native engine keeps no events (tables play on the Python engine), so an
announce only has to fail, and charge the budget, exactly where the Python
engine's would.  Making its text would cost a buffer, a hash and an interned
text a process keeps for good (texts are interned; one per distinct
announcement, say each hand a card game shows).  So the text's spine — the
`+` of texts, `str(…)` and `join(…)` that build it, its literal pieces and
the `if … then … else …` choosing among them — is lowered to the characters
each piece has, with each piece's checks and charges (`rp_text_add_chars`,
`rp_text_operand_chars`, `rp_str_chars`, `rp_join_chars` in the runtime) in
the order making it has them; what the spine is built from (a name, an
index, a call of a user function…) is evaluated as any expression.
"""

from __future__ import annotations

from typing import Callable

from ruleplay.dsl import ast as A
from ruleplay.dsl.builtins import Builtin
from ruleplay.dsl.scope import Scope

from .lower_expr import ExprLowering, Locals


def announce_text(lowering: ExprLowering, node: A.Expr, scope: Scope, lv: Locals) -> bool:
    """Lower `node`, an announce's text, as a measure when it is a text the spine builds (True); False, with
    nothing emitted, when it is not (then it is evaluated as any expression)."""
    if not _is_text(lowering, node, scope):
        return False
    _measure(lowering, node, scope, lv)
    return True


def _builtin(lowering: ExprLowering, node: A.Expr, scope: Scope) -> str | None:
    """The name of the builtin `str` (one argument) or `join` (one or two) that `node` calls, else None."""
    if not isinstance(node, A.Call) or lowering.is_quantifier(node, scope):
        return None
    spec = lowering.callee(node, scope)
    if not isinstance(spec, Builtin):
        return None
    if (spec.name, len(node.args)) in (("str", 1), ("join", 1), ("join", 2)):
        return spec.name
    return None


def _is_text(lowering: ExprLowering, node: A.Expr, scope: Scope) -> bool:
    """Whether `node` surely makes a text: a text literal, str(…), join(…), a `+` with such a side, or a choice
    of two such."""
    if isinstance(node, A.Literal):
        return type(node.value) is str
    if isinstance(node, A.Binary) and node.op == "+":
        return _is_text(lowering, node.left, scope) or _is_text(lowering, node.right, scope)  # type: ignore[arg-type]
    if isinstance(node, A.Cond):
        return _is_text(lowering, node.then, scope) and _is_text(lowering, node.other, scope)  # type: ignore[arg-type]
    return _builtin(lowering, node, scope) is not None


def _operand(lowering: ExprLowering, node: A.Expr, left: int, scope: Scope, lv: Locals) -> str:
    """The characters of one side of a `+` that surely makes a text: measured where the side surely is a text,
    else evaluated and checked to be one (a side that is no text fails that `+`); a choice with one branch of
    each kind, branch by branch."""
    if _is_text(lowering, node, scope):
        return _measure(lowering, node, scope, lv)
    f = lowering.f
    if isinstance(node, A.Cond) and (_is_text(lowering, node.then, scope) or _is_text(lowering, node.other, scope)):
        return _choice(lowering, node, scope, lv, lambda part: _operand(lowering, part, left, scope, lv))
    value = lowering.lower(node, scope, lv)
    out = f.integer()
    f.emit(f"{out} = rp_text_operand_chars(C, {value.rv}, {left}, {lowering.where(node.pos)});")
    f.check()
    return out


def _choice(lowering: ExprLowering, node: A.Cond, scope: Scope, lv: Locals, branch: Callable[[A.Expr], str]) -> str:
    """`if … then … else …` measured: the test's truth as `_e_Cond` takes it, then one branch's characters."""
    f = lowering.f
    test = lowering.lower(node.test, scope, lv).truth  # type: ignore[arg-type]
    out = f.integer()
    for head, part in ((f"if ({test})", node.then), ("else", node.other)):
        with f.block(head):
            f.emit(f"{out} = {branch(part)};")
    return out


def _measure(lowering: ExprLowering, node: A.Expr, scope: Scope, lv: Locals) -> str:
    """The C int holding the characters of the text `node` (one `_is_text` takes) makes, each check emitted."""
    f = lowering.f
    if isinstance(node, A.Literal):
        return str(len(node.value))
    if isinstance(node, A.Cond):
        return _choice(lowering, node, scope, lv, lambda part: _measure(lowering, part, scope, lv))
    out = f.integer()
    if isinstance(node, A.Binary):  # both sides first, then the `+`'s own checks, as rp_arith has them
        left = _operand(lowering, node.left, 1, scope, lv)  # type: ignore[arg-type]
        right = _operand(lowering, node.right, 0, scope, lv)  # type: ignore[arg-type]
        f.emit(f"{out} = rp_text_add_chars(C, {left}, {right}, {lowering.where(node.pos)});")
    else:
        args = [lowering.lower(a, scope, lv) for a in node.args]  # type: ignore[attr-defined]
        w = lowering.where(node.pos)
        if _builtin(lowering, node, scope) == "str":
            f.emit(f"{out} = rp_str_chars(C, {args[0].rv}, {w});")
        else:
            f.emit(f"{out} = rp_join_chars(C, {f.array([a.rv for a in args])}, {len(args)}, {w});")
    f.check()
    return out
