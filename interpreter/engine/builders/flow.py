"""State variables and the flow: phases, stages, rounds and triggers.

Everything the event loop (`engine.flow`) walks through is compiled here:
each phase's hooks and end condition, the round hooks, the start player and
the triggers that fire after every move.
"""

from __future__ import annotations

from typing import Any

from ruleplay.dsl.checks import listing
from ruleplay.dsl.scope import Scope

from ..model import Action, Phase, Stage, Trigger, VarDecl, first_rule, rule_list
from .context import BuildContext


def build_variables(b: BuildContext, scope: Scope) -> dict[str, VarDecl]:
    out = {}
    for name, spec in (b.data.get("state") or {}).items():
        path = ("state", name)
        per = bool(spec.get("per_player", False))
        vis = spec.get("visibility", "public")
        if vis == "owner" and not per:
            b.diag("RP305", f"`{name}`: visibility owner needs per_player: true", path + ("visibility",),
                   hint="owner visibility shows each player their own entry")
        init_scope = scope.with_locals("p") if per else scope
        init = b.expr(path + ("init",), init_scope, default=lambda ctx: None)
        item_scope = scope.with_locals("item", "index", "viewer", "owner")
        out[name] = VarDecl(name, per, vis, init, b.expr(path + ("visible_if",), item_scope),
                            b.expr(path + ("back",), item_scope), spec.get("type", "any"))
    return out


def build_flow(b: BuildContext, scope: Scope, actions: dict[str, Action]) -> dict[str, Any]:
    """The flow's fields of the `GameModel`: phases in order, round hooks, start player, triggers."""
    flow = b.data.get("flow") or {}
    phases = build_phases(b, scope, actions)
    return {
        "phases": phases, "phase_order": [p["name"] for p in flow.get("phases") or []],
        "triggers": build_triggers(b, scope),
        "start_player": b.expr(("flow", "start_player"), scope),
        "rotate_start": bool(flow.get("rotate_start", False)),
        "skip_if": b.expr(("flow", "skip_if"), scope.with_locals("p")),
        "on_round_begin": b.effects(("flow", "on_round_begin"), scope),
        "on_round_end": b.effects(("flow", "on_round_end"), scope),
    }


def build_phases(b: BuildContext, scope: Scope, actions: dict[str, Action]) -> dict[str, Phase]:
    out: dict[str, Phase] = {}
    for i, spec in enumerate((b.data.get("flow") or {}).get("phases") or []):
        path = ("flow", "phases", i)
        name = spec["name"]
        if name in out:
            b.diag("RP216", f"phase {name!r} is declared twice", path + ("name",), hint="phase names must be unique")
        b.cite(spec.get("rule"), path)
        _check_actions(b, f"phase {name!r}", spec.get("actions") or [], path + ("actions",), actions,
                       spec.get("order") == "chance")
        stages = {}
        for sname, sspec in (spec.get("stages") or {}).items():
            _check_actions(b, f"stage {sname!r}", sspec.get("actions") or [], path + ("stages", sname, "actions"),
                           actions, bool(sspec.get("chance", False)))
            stages[sname] = Stage(sname, list(sspec.get("actions") or []), bool(sspec.get("chance", False)))
        out[name] = Phase(
            name=name, order=spec.get("order", "alternate"), first=b.expr(path + ("first",), scope),
            actions=list(spec.get("actions") or []), turn=spec.get("turn", "single"), stages=stages,
            end_if=b.expr(path + ("end_if",), scope), on_begin=b.effects(path + ("on_begin",), scope),
            on_end=b.effects(path + ("on_end",), scope), next=spec.get("next"),
            when_stuck=spec.get("when_stuck", "error"), rule=first_rule(spec.get("rule")), path=path)
    for p in out.values():
        if p.next is not None and p.next not in out:
            b.diag("RP210", f"phase {p.name!r}: next phase {p.next!r} does not exist", p.path + ("next",),
                   hint=b.compiler.suggest(p.next, lambda: sorted(out)) or f"phases: {listing(out)}")
    return out


def _check_actions(b: BuildContext, owner: str, listed: list, path: tuple, actions: dict[str, Action],
                   chance: bool) -> None:
    """Every action a phase or stage offers exists, is offered once, and is played by whom it says.

    An action listed twice would be offered twice (every move counted twice
    in perft, twice as likely under a random agent).  Who moves is the
    phase's `order: chance` or the stage's `chance: true`, and an action's
    own `chance: true` must agree: a chance action offered to a seat would
    let the seat pick the die roll, and a seat's action offered to chance
    would be drawn as if by a die.
    """
    for j, a in enumerate(listed):
        if a not in actions:
            b.diag("RP210", f"{owner} lists unknown action {a!r}", path + (j,),
                   hint=b.compiler.suggest(str(a), lambda: sorted(actions)) or f"actions: {listing(actions)}")
        elif a in listed[:j]:
            b.diag("RP216", f"{owner} lists action {a!r} twice", path + (j,),
                   hint="list each action once: a second listing offers its every move a second time")
        elif actions[a].chance != chance:
            who = "chance" if chance else "a seat"
            fix = ("give the action `chance: true`, or offer it where a seat moves" if chance else
                   "offer it in a phase with `order: chance` or a stage with `chance: true`, or drop its "
                   "`chance: true`")
            b.diag("RP325", f"{owner} is played by {who}, but action {a!r} is "
                   f"{'not ' if chance else ''}a chance action", path + (j,), hint=fix)


def build_triggers(b: BuildContext, scope: Scope) -> list[Trigger]:
    triggers = []
    for i, t in enumerate(b.data.get("triggers") or []):
        b.cite(t.get("rule"), ("triggers", i), mutable=True)
        when = b.expr(("triggers", i, "when"), scope)
        effects = b.effects(("triggers", i, "effects"), scope)
        if when is not None and not b.off(t.get("rule")):
            triggers.append(Trigger(when, effects, rule_list(t.get("rule")), ("triggers", i)))
    return triggers
