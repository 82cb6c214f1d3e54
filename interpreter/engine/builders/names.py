"""Declared names that code names: state variables, constants, functions, procedures and parameters.

The schema's names may hold `-` and may be any word, since components,
boards and phases are named in strings.  A state variable, constant,
function, procedure or parameter is named in code, though, where `a-b` is a
subtraction and `true`, `null`, `if` or `not` are literals and keywords: such
a name would load, and a state variable would show in observations, yet no
code could read it (`n >= 2 and true` reads the literal).  So it is refused
where it is declared (RP219), as an action no move text can name is (RP217).

The parser decides, not the keyword list: its lexer is contextual, so a word
like `to` is a keyword only after `move ...` and a fine parameter name
elsewhere (tests/rulesets/knights.yaml has one), and a state variable `log`
is read and changed with `append x to log` though `log = x` would be a `log`
statement (docs/dsl.md's first example has one).
"""

from __future__ import annotations

import re
from typing import Callable, Iterator

from ruleplay.dsl import ast as A
from ruleplay.dsl.keywords import KEYWORDS
from ruleplay.dsl.parser import DslSyntaxError, parse_effects, parse_expr

from .context import BuildContext

_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
HINT = ("rename it, e.g. `{example}`: a name in code is letters, digits and `_`, and not `true`, `false`, `null`, "
        "`not` or `if`")


def _reads(name: str) -> bool:
    node = parse_expr(name)
    return isinstance(node, A.Name) and node.name == name


def _calls(name: str) -> bool:
    node = parse_expr(f"{name}(0)")
    return isinstance(node, A.Call) and node.func == name


def _runs(name: str) -> bool:
    (stmt,) = parse_effects(f"call {name}()").stmts
    return isinstance(stmt, A.CallProc) and stmt.name == name


def name_problem(name: str, use: Callable[[str], bool]) -> str | None:
    """What code reads instead of `name` where it is used (`_reads`, `_calls`, `_runs`), or None if the name."""
    if _PLAIN_NAME.fullmatch(name) and name not in KEYWORDS:
        return None  # any other word reads as a name everywhere: no need to parse it
    try:
        if use(name):
            return None
    except (DslSyntaxError, ValueError):  # ValueError: the text did not parse as one statement
        pass
    return "a keyword or literal" if name.isidentifier() else "an expression"


def _declared(d: dict) -> Iterator[tuple[str, str, tuple, bool, Callable[[str], bool]]]:
    """Each declared name code must name: the name, what it is, its path, whether the path is a key, its use."""
    for kind, what in (("state", "state variable"), ("constants", "constant"), ("derived", "derived constant")):
        for name in d.get(kind) or {}:
            yield name, f"{what} {name!r}", (kind, name), True, _reads
    for kind, use in (("functions", _calls), ("procedures", _runs)):
        for name, spec in (d.get(kind) or {}).items():
            yield name, f"{kind[:-1]} {name!r}", (kind, name), True, use
            for i, param in enumerate(spec.get("params") or ()):
                yield param, f"parameter {param!r} of {kind[:-1]} {name!r}", (kind, name, "params", i), False, _reads
    for name, spec in (d.get("actions") or {}).items():
        for param in spec.get("params") or {}:
            yield param, f"parameter {param!r} of action {name!r}", ("actions", name, "params", param), True, _reads


def check_names(b: BuildContext) -> None:
    """Every state variable, constant, function, procedure and parameter must be a name code can write, and a
    function's or procedure's parameters must differ (of two alike, the call's last argument would win)."""
    for kind in ("functions", "procedures"):
        for name, spec in (b.data.get(kind) or {}).items():
            params = list(spec.get("params") or ())
            for i, param in enumerate(params):
                if param in params[:i] and param != "_":  # `_`, a parameter the body does not read, may repeat
                    b.diag("RP216", f"{kind[:-1]} {name!r} names the parameter {param!r} twice",
                           (kind, name, "params", i), hint="give each parameter a name of its own")
    for name, what, path, key, use in _declared(b.data):
        problem = name_problem(name, use)
        if problem is None:
            continue
        plain = name.replace("-", "_")
        example = plain if name_problem(plain, use) is None else plain + "_"
        b.diag("RP219", f"{what} cannot be named in code: it reads as {problem}", path, key=key,
               hint=HINT.format(example=example))
