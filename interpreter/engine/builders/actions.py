"""Actions: parameters with their static domains, requirements, chance weights and effects.

Each parameter's `of:` set is computed once, here, against the static part
of the model (components, boards, graphs, player count): that fixed universe
is what gives every game its action numbering.  Each requirement records the
last parameter it reads, so legal-move search tests it as soon as it can.
"""

from __future__ import annotations

from typing import Any

from ruleplay.dsl import runtime as R
from ruleplay.dsl.scope import Scope

from ..errors import MoveParseError
from ..model import Action, Param, Requirement, first_rule, rule_list
from ..moves import MAX_MOVE_TEXT, _freeze, arg_key, format_value, parse_move
from .components import StaticModel
from .context import BuildContext


# Values of all parameters' `of:` in one ruleset: each is checked, typed and numbered at load, linearly
# (a second or so per 100000); the seed games have at most 2744.
MAX_PARAMETER_VALUES = 100_000


def build_actions(b: BuildContext, scope: Scope, players: int, static: StaticModel,
                  load_work: R.Budget) -> dict[str, Action]:
    """Every action; `load_work` bounds the work of computing all parameters' `of:` sets together."""
    out = {}
    room = MAX_PARAMETER_VALUES  # the parameter values the actions not built yet may still have
    spent = False  # the load's work ran out: the parameters after it are not computed, so not blamed
    for name, spec in (b.data.get("actions") or {}).items():
        path = ("actions", name)
        b.cite(spec.get("rule"), path, mutable=True)
        _check_move_name(b, name, path)
        params: list[Param] = []
        local: list[str] = []
        longest_texts: list[int] = []  # per parameter, its longest value as a move text writes it
        for pname, pspec in (spec.get("params") or {}).items():
            ppath = path + ("params", pname)
            found, longest = ([], 0) if spent else _universe(
                b, pname, ppath if isinstance(pspec, str) else ppath + ("of",), scope,
                R.Ctx({}, {"players": players}, static, budget=load_work), room)
            spent = spent or found is None
            universe = found or []
            room -= len(universe)
            longest_texts.append(longest)
            pscope = scope.with_locals(*local)
            source = where = rule = source_code = where_code = None
            if isinstance(pspec, dict):
                rule = first_rule(pspec.get("rule"))
                b.cite(pspec.get("rule"), ppath, mutable=True)
                source, source_code = b.expr_code(ppath + ("from",), pscope)
                where, where_code = b.expr_code(ppath + ("where",), pscope.with_locals(pname))
                if b.off(pspec.get("rule")):
                    source = where = source_code = where_code = None  # mutation testing: the rule is off
            local.append(pname)
            params.append(Param(pname, universe, source, where, ppath, rule=rule, source_code=source_code,
                                where_code=where_code))
        _check_move_length(b, name, longest_texts, path)
        ascope = scope.with_locals(*local)
        for param in params:  # who sees an argument may depend on all of them
            param.seen_by = b.expr(param.path + ("seen_by",), ascope)
        requires = _requirements(b, spec, path, ascope, local)
        weight = b.expr(path + ("weight",), ascope)
        if "weight" in spec and not spec.get("chance", False):
            b.diag("RP325", f"action {name!r} has a `weight:` but is not a chance action: a seat's choice has no "
                   f"odds, so the weight would be ignored", path + ("weight",),
                   hint="give the action `chance: true` (drawn by chance), or drop its `weight:`")
        if spec.get("fallback", False) and spec.get("chance", False):
            b.diag("RP325", f"action {name!r} is a chance action with `fallback: true`: chance has no move to fall "
                   f"back on, as its outcomes are drawn, not chosen", path + ("fallback",),
                   hint="drop `fallback:`, or make the action a seat's (no `chance: true`)")
        effects = b.effects(path + ("effects",), ascope)
        out[name] = Action(name, rule_list(spec.get("rule")), bool(spec.get("chance", False)), weight,
                           params, requires, effects, b.off(spec.get("rule")), path,
                           fallback=bool(spec.get("fallback", False)))
    return out


def _universe(b: BuildContext, pname: str, of_path: tuple, scope: Scope, ctx: R.Ctx,
              room: int) -> tuple[list | None, int]:
    """A parameter's `of:` values, computed now, and the length of the longest as a move text writes it;
    [] (with a diagnostic) if they cannot be, or would pass the `room` left of `MAX_PARAMETER_VALUES`;
    None (with a diagnostic) if the load's work ran out on them."""
    of_fn = b.expr(of_path, scope.only_locals())
    if of_fn is None:
        return [], 0
    universe: object = []
    try:
        with R.recursion_guard():  # deep calls inside deep expressions pass Python's limit
            universe = of_fn(ctx)
    except KeyError:
        b.diag("RP220", f"the values of parameter {pname!r} must not depend on the state",
               of_path, hint="put the full set of values in `of:` and narrow it with `from:` or `where:`")
    except R.LimitError as err:
        b.diag("RP220", f"cannot compute the values of parameter {pname!r}: {err.message} (a load computes "
               f"every parameter's `of:` within one move's limits, together)",
               of_path, hint=err.hint or "`of:` is computed once, when the game loads")
        return None, 0
    except R.RuleRuntimeError as err:
        b.diag("RP220", f"cannot compute the values of parameter {pname!r}: {err.message}",
               of_path, hint=err.hint or "`of:` is computed once, when the game loads")
    if not isinstance(universe, list):
        b.diag("RP221", f"`of:` of parameter {pname!r} must be a list", of_path,
               hint="write the values as a list, e.g. range(7) or cells(\"grid\")")
        return [], 0
    if not universe and not b.diags:
        b.diag("RP221", f"parameter {pname!r} has no possible values", of_path, severity="warning")
        return universe, 0
    if len(universe) > room:
        b.diag("RP221", f"parameter {pname!r} brings the values of all parameters' `of:` past "
               f"{MAX_PARAMETER_VALUES} ({len(universe)} values here)", of_path,
               hint="every value is checked and numbered as the game loads: narrow `of:`, and filter by the "
                    "state with `from:` or `where:`")
        return [], 0
    longest = 0
    for value in universe:
        text = "" if _holds_map(value) else format_value(value)  # a value is never written as ""
        problem = "a map, which cannot be a move's argument" if not text else _move_value_problem(value, text)
        if problem is not None:
            b.diag("RP221", f"`of:` of parameter {pname!r} holds {problem}", of_path,
                   hint="a parameter's values are written in move texts: texts, numbers, true/false, null, "
                        "and lists of them")
            return [], 0
        longest = max(longest, len(text))
    if len(universe) != len({arg_key(v) for v in universe}):
        b.diag("RP221", f"`of:` of parameter {pname!r} lists a value twice (values equal in the rules, such as "
               f"1 and 1.0, count as one)", of_path,
               hint="each value is one move; remove the repeats, e.g. with unique()")
    return universe, longest


def _holds_map(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is dict:
            return True
        if type(item) is list:
            stack.extend(item)
    return False


def _move_value_problem(value: Any, text: str) -> str | None:
    """Why `value`, written `text` in a move, cannot stand in a move text and read back as itself, or None."""
    if value is None or type(value) in (bool, int) or (type(value) is str and text == value):
        return None  # written as themselves: nothing to read back (and `of:` sets can be large)
    try:
        back = parse_move(f"m({text})").args[0]
    except MoveParseError:
        return f"{text[:40]!r}, which a move text cannot read back"
    if arg_key(back) != arg_key(_freeze(value)):
        return f"{text[:40]!r}, which a move text reads back as another value"
    return None


def _check_move_length(b: BuildContext, name: str, longest_texts: list[int], path: tuple) -> None:
    """The longest move text of the action must be short enough to read back."""
    longest = len(name) + 2 + sum(2 + n for n in longest_texts)
    if longest > MAX_MOVE_TEXT:
        b.diag("RP217", f"the longest move text of action {name!r} has {longest} characters, over the "
               f"{MAX_MOVE_TEXT} a move text may have", path, key=True,
               hint="use fewer parameters, or shorter values (an index instead of a long text)")


def _check_move_name(b: BuildContext, name: str, path: tuple) -> None:
    """An action's name is the head of its move texts: it must read back as that name, not as code."""
    try:
        readable = parse_move(f"{name}(0)").action == name and parse_move(name).action == name
    except MoveParseError:
        readable = False
    if not readable:
        b.diag("RP217", f"action {name!r} cannot be named in a move text: it reads as "
               f"{'a keyword or literal' if name.isidentifier() else 'an expression'}", path, key=True,
               hint="name actions with letters, digits and `_` only, and not like a keyword "
                    "(true, false, null, not, and, or, in, if, ...)")


def _requirements(b: BuildContext, spec: dict, path: tuple, scope: Scope, params: list[str]) -> list[Requirement]:
    requires = []
    for i, r in enumerate(spec.get("require") or []):
        rpath = path + ("require", i)
        check_path = rpath if isinstance(r, str) else rpath + ("check",)
        fn, code = b.expr_code(check_path, scope)
        if isinstance(r, str):
            rule, message = None, r
        else:
            rule, message = r.get("rule"), r.get("message") or r.get("check")
            b.cite(rule, rpath, mutable=True)
        if fn is None:
            continue
        if b.off(rule):
            fn, code = (lambda ctx: True), None  # mutation testing: the rule is switched off
        requires.append(Requirement(fn, first_rule(rule), message, rpath, _param_level(b, check_path, params),
                                    code))
    return requires


def _param_level(b: BuildContext, path: tuple, params: list[str]) -> int:
    """The last parameter an expression reads, so legal-move search can test it early."""
    used = b.names_read(path)
    if used is None:
        return len(params) - 1
    return max((i for i, name in enumerate(params) if name in used), default=-1)
