"""Actions: parameters with their static domains, requirements, chance weights and effects.

Each parameter's `of:` set is computed once, here, against the static part
of the model (components, boards, graphs, player count): that fixed universe
is what gives every game its action numbering.  Each requirement records the
last parameter it reads, so legal-move search tests it as soon as it can.
"""

from __future__ import annotations

import json

from ruleplay.dsl import runtime as R
from ruleplay.dsl.scope import Scope

from ..model import Action, Param, Requirement, first_rule, rule_list
from .components import StaticModel
from .context import BuildContext


def build_actions(b: BuildContext, scope: Scope, players: int, static: StaticModel) -> dict[str, Action]:
    out = {}
    for name, spec in (b.data.get("actions") or {}).items():
        path = ("actions", name)
        b.cite(spec.get("rule"), path, mutable=True)
        params: list[Param] = []
        local: list[str] = []
        for pname, pspec in (spec.get("params") or {}).items():
            ppath = path + ("params", pname)
            universe = _universe(b, pname, ppath if isinstance(pspec, str) else ppath + ("of",), scope, players,
                                 static)
            pscope = scope.with_locals(*local)
            source = where = None
            if isinstance(pspec, dict):
                source = b.expr(ppath + ("from",), pscope)
                where = b.expr(ppath + ("where",), pscope.with_locals(pname))
            local.append(pname)
            params.append(Param(pname, universe, source, where, ppath))
        ascope = scope.with_locals(*local)
        requires = _requirements(b, spec, path, ascope, local)
        weight = b.expr(path + ("weight",), ascope)
        effects = b.effects(path + ("effects",), ascope)
        out[name] = Action(name, rule_list(spec.get("rule")), bool(spec.get("chance", False)), weight,
                           params, requires, effects, b.off(spec.get("rule")), path)
    return out


def _universe(b: BuildContext, pname: str, of_path: tuple, scope: Scope, players: int,
              static: StaticModel) -> list:
    """A parameter's `of:` values, computed now; [] (with a diagnostic) if they cannot be."""
    of_fn = b.expr(of_path, scope.only_locals())
    if of_fn is None:
        return []
    universe: object = []
    ctx = R.Ctx({}, {"players": players}, static)
    try:
        with R.recursion_guard():  # deep calls inside deep expressions pass Python's limit
            universe = of_fn(ctx)
    except KeyError:
        b.diag("RP220", f"the values of parameter {pname!r} must not depend on the state",
               of_path, hint="put the full set of values in `of:` and narrow it with `from:` or `where:`")
    except R.RuleRuntimeError as err:
        b.diag("RP220", f"cannot compute the values of parameter {pname!r}: {err.message}",
               of_path, hint=err.hint or "`of:` is computed once, when the game loads")
    if not isinstance(universe, list):
        b.diag("RP221", f"`of:` of parameter {pname!r} must be a list", of_path,
               hint="write the values as a list, e.g. range(7) or cells(\"grid\")")
        return []
    if not universe and not b.diags:
        b.diag("RP221", f"parameter {pname!r} has no possible values", of_path, severity="warning")
    elif len(universe) != len({json.dumps(v, sort_keys=True) for v in universe}):
        b.diag("RP221", f"`of:` of parameter {pname!r} lists a value twice", of_path,
               hint="each value is one move; remove the repeats, e.g. with unique()")
    return universe


def _requirements(b: BuildContext, spec: dict, path: tuple, scope: Scope, params: list[str]) -> list[Requirement]:
    requires = []
    for i, r in enumerate(spec.get("require") or []):
        rpath = path + ("require", i)
        check_path = rpath if isinstance(r, str) else rpath + ("check",)
        fn = b.expr(check_path, scope)
        if isinstance(r, str):
            rule, message = None, r
        else:
            rule, message = r.get("rule"), r.get("message") or r.get("check")
            b.cite(rule, rpath, mutable=True)
        if fn is None:
            continue
        if b.off(rule):
            fn = lambda ctx: True  # noqa: E731 - mutation testing: the rule is switched off
        requires.append(Requirement(fn, first_rule(rule), message, rpath, _param_level(b, check_path, params)))
    return requires


def _param_level(b: BuildContext, path: tuple, params: list[str]) -> int:
    """The last parameter an expression reads, so legal-move search can test it early."""
    used = b.names_read(path)
    if used is None:
        return len(params) - 1
    return max((i for i, name in enumerate(params) if name in used), default=-1)
