"""Requirements that can never fail: a warning, given only where it is proved.

A requirement that always holds refuses nothing, yet reads as a rule: a
test that a mutation switching it off survives, and a reader who thinks
it guards something.  This check proves it in the few ways that need no
guessing about values, comparing code as parsed (positions aside):

- the check is the literal `true`;
- it is an earlier requirement of the action, or one of the `and`-joined
  parts of one (the earlier one has already held when it is checked);
- it is one of the `and`-joined parts of a parameter's `where:` (which
  every value has passed);
- it is `p in E`, where `E` is the `of:` or the `from:` of parameter `p`
  (every value of `p` comes from there).

Code is the same code only where its names mean the same things: a filter
of parameter `p` is compared only when it reads no parameter declared after
`p` (in the filter such a name is a state variable or a constant, in the
requirement the parameter).  Code is deterministic, so equal code on equal
bindings has equal values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from ruleplay.dsl import ast as A
from ruleplay.dsl.diagnostics import Diagnostic
from ruleplay.dsl.parser import DslSyntaxError, parse_expr
from ruleplay.dsl.yamlload import format_path, lookup

HINT = "remove it, or make it say what it was meant to check"


def _parse(model, path: tuple) -> A.Expr | None:
    text = lookup(model.data, path)
    if not isinstance(text, str):
        return None
    try:
        return parse_expr(text, model.source.origin(path))
    except DslSyntaxError:
        return None  # reported by the model builder


def _parts(node: A.Expr) -> list[A.Expr]:
    """The `and`-joined parts of a condition (itself when it is not an `and`)."""
    if isinstance(node, A.BoolOp) and node.op == "and":
        return [p for o in node.operands for p in _parts(o)]
    return [node]


def _key(node: object) -> object:
    """Code as a comparable value without positions, a literal keeping its type: in Python `1 == True`, and
    AST equality would take `x == 1` for `x == true`."""
    if isinstance(node, A.Literal):
        return ("Literal", type(node.value).__name__, repr(node.value))
    if isinstance(node, A.Node):
        return (type(node).__name__, *(_key(getattr(node, f)) for f in node.__dataclass_fields__ if f != "pos"))
    if isinstance(node, tuple):
        return tuple(_key(n) for n in node)
    return node


def _reads(node: A.Expr) -> set[str]:
    return {n.name for n in A.walk(node) if isinstance(n, A.Name)}


def _facts(model, action: dict, path: tuple) -> list[tuple[object, str]]:
    """What holds once every parameter is bound (as `_key`s), each with the words saying why."""
    facts: list[tuple[object, str]] = []
    params = list((action.get("params") or {}).items())
    for i, (pname, spec) in enumerate(params):
        later = {n for n, _ in params[i + 1:]}
        ppath = path + ("params", pname)
        places = [("of", ppath)] if isinstance(spec, str) else [(k, ppath + (k,)) for k in ("of", "from", "where")
                                                                if k in spec]
        for key, at in places:
            node = _parse(model, at)
            if node is None or _reads(node) & later:
                continue
            if key == "where":
                facts += [(_key(part), f"the `where:` of parameter {pname!r}") for part in _parts(node)]
            else:
                member = A.Binary(node.pos, op="in", left=A.Name(node.pos, name=pname), right=node)
                facts.append((_key(member), f"the `{key}:` of parameter {pname!r}"))
    return facts


def check_implied(model, ruleset_path: Path) -> Iterator[Diagnostic]:
    for name, action in (model.data.get("actions") or {}).items():
        path = ("actions", name)
        facts = _facts(model, action, path)
        for i, r in enumerate(action.get("require") or []):
            at = path + ("require", i) if isinstance(r, str) else path + ("require", i, "check")
            node = _parse(model, at)
            if node is None:
                continue
            if isinstance(node, A.Literal) and node.value is True:
                why = "it is `true`"
            else:
                key = _key(node)
                why = next((f"{reason} already ensures it" for fact, reason in facts if fact == key), "")
            if why:
                file, line, col, src = model.source.where(at)
                yield Diagnostic("RP323", f"requirement {i + 1} of action {name!r} can never fail: {why}",
                                 file, line, col, severity="warning", hint=HINT, path=format_path(at),
                                 source_line=src)
            facts += [(_key(part), f"requirement {i + 1}") for part in _parts(node)]
