"""How a game ends and is judged: end conditions, scores, tiebreaks, returns and invariants."""

from __future__ import annotations

from typing import Any

from ruleplay.dsl.scope import Scope

from ..model import EndCondition, Invariant, first_rule, rule_list
from .context import BuildContext


def build_end(b: BuildContext, scope: Scope) -> list[EndCondition]:
    end = []
    for i, e in enumerate(b.data.get("end") or []):
        b.cite(e.get("rule"), ("end", i), mutable=True)
        fn = b.expr(("end", i, "when"), scope)
        if fn is not None:
            end.append(EndCondition(fn, e.get("at", "now"), rule_list(e.get("rule")), b.off(e.get("rule")),
                                    ("end", i)))
    return end


def build_scoring(b: BuildContext, scope: Scope) -> dict[str, Any]:
    """The scoring fields of the `GameModel`: a seat's score, its tiebreaks and declared returns."""
    scoring = b.data.get("scoring") or {}
    b.cite(scoring.get("rule"), ("scoring",))
    pscope = scope.with_locals("p")
    score = b.expr(("scoring", "score"), pscope)
    tiebreak = [f for i in range(len(scoring.get("tiebreak") or []))
                if (f := b.expr(("scoring", "tiebreak", i), pscope)) is not None]
    return {"score": score, "tiebreak": tiebreak, "returns": b.expr(("scoring", "returns"), pscope),
            "returns_range": _returns_range(b, scoring)}


def _returns_range(b: BuildContext, scoring: dict) -> tuple[float, float, float | None] | None:
    """`returns_range: {min, max, sum}`: the range of the declared returns, which the engine cannot know and
    OpenSpiel asks for (sum omitted or null: they do not sum to one number).  `ruleplay validate --smoke`
    checks it against every smoke game's end."""
    declared = scoring.get("returns_range")
    if declared is None:
        return None
    path = ("scoring", "returns_range")
    if "returns" not in scoring:
        b.diag("RP307", "`returns_range` without `returns`: returns by rank always lie in [-1, 1] and sum to 0",
               path, hint="declare the returns (`returns:`), or remove `returns_range`", key=True)
        return None
    low, high, total = declared["min"], declared["max"], declared.get("sum")
    if low > high:
        b.diag("RP307", f"`returns_range` has min {low} greater than max {high}", path,
               hint="give the lowest return as min and the highest as max")
        return None
    return float(low), float(high), None if total is None else float(total)


def build_heuristics(b: BuildContext, scope: Scope) -> dict[str, Any]:
    """`heuristics:`, each a number for the seat `seat` (higher: better placed), in the order written.

    They are advice for agents (`greedy`, the search agents' rollout
    cut-offs), never rules: a citation says which rule an estimate follows,
    and nothing a heuristic computes changes how the game plays.
    """
    sscope = scope.with_locals("seat")
    out, scales = {}, {}
    for name, entry in (b.data.get("heuristics") or {}).items():
        b.cite(entry.get("rule"), ("heuristics", name))
        fn = b.expr(("heuristics", name, "value"), sscope)
        if fn is not None:
            out[name] = fn
        if "scale" in entry:
            scales[name] = float(entry["scale"])
    return {"heuristics": out, "heuristic_scales": scales}


def build_invariants(b: BuildContext, scope: Scope) -> list[Invariant]:
    invariants = []
    for i, inv in enumerate(b.data.get("invariants") or []):
        b.cite(inv.get("rule"), ("invariants", i))
        fn = b.expr(("invariants", i, "check"), scope)
        if fn is not None:
            invariants.append(Invariant(fn, inv.get("message", inv["check"]), first_rule(inv.get("rule")),
                                        ("invariants", i)))
    return invariants
