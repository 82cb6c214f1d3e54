"""Final scores and utilities.

`scores()` are the game's own numbers (points, domains, chips).  Utilities
(`returns()`) are declared by the ruleset when it has a natural one (chips
won in poker), otherwise they come from the ranking: players are ordered by
score, then by each tie-breaker; the best gets +1, the worst -1, linear in
between, and tied players share the average of the places they span.
"""

from __future__ import annotations

from ruleplay.dsl import runtime as R
from ruleplay.dsl.runtime import type_name

from .model import GameModel
from .numbers import as_float, is_finite_number


def _scoring_ctx(model: GameModel, data: dict) -> R.Ctx:
    """One evaluation context, with one budget from the ruleset's limits, for all seats of one question."""
    return R.Ctx(data["vars"], data["flow"], model, budget=model.budget())


def _per_player(ctx: R.Ctx, fn: R.Fn, path: tuple, local: str = "p") -> list:
    """`fn` for each seat (bound as `local`); anything but a finite number is an error at the expression
    that gave it."""
    out = []
    for p in range(ctx.flow["players"]):
        ctx.env = {local: p}
        with R.recursion_guard():
            value = fn(ctx)
        if not is_finite_number(value):
            shown = value if type(value) is float else type_name(value)
            raise R.RuleRuntimeError(f"`{'.'.join(map(str, path))}` gave {shown} for player {p}, not a "
                                     f"finite number", ctx.model.code_at(path),
                                     hint="scores, tie-breakers, returns and heuristics are numbers")
        out.append(value)
    return out


def scores(model: GameModel, data: dict) -> list:
    if model.score is None:
        return [0] * data["flow"]["players"]
    return _per_player(_scoring_ctx(model, data), model.score, ("scoring", "score"))


def rank_keys(model: GameModel, data: dict) -> list[tuple]:
    ctx = _scoring_ctx(model, data)
    columns = [[0] * data["flow"]["players"] if model.score is None
               else _per_player(ctx, model.score, ("scoring", "score"))]
    columns += [_per_player(ctx, t, ("scoring", "tiebreak", i)) for i, t in enumerate(model.tiebreak)]
    return [tuple(col[p] for col in columns) for p in range(data["flow"]["players"])]


def rank_returns(model: GameModel, data: dict) -> list[float]:
    n = data["flow"]["players"]
    if model.returns is not None:
        path = ("scoring", "returns")
        declared = _per_player(_scoring_ctx(model, data), model.returns, path)
        out = [as_float(v) for v in declared]
        for p, v in enumerate(out):
            if v is None:
                raise R.RuleRuntimeError(f"`scoring.returns` gave a number too large for a utility for player {p}",
                                         model.code_at(path),
                                         hint="returns are utilities, usually between -1 and 1")
        return out
    if n == 1:
        return [0.0]
    keys = rank_keys(model, data)
    order = sorted(range(n), key=lambda p: keys[p], reverse=True)
    out = [0.0] * n
    i = 0
    while i < n:
        j = i
        while j + 1 < n and keys[order[j + 1]] == keys[order[i]]:
            j += 1
        value = sum(1 - 2 * k / (n - 1) for k in range(i, j + 1)) / (j - i + 1)
        for k in range(i, j + 1):
            out[order[k]] = round(value, 12)
        i = j + 1
    return out


def heuristic_values(model: GameModel, data: dict, name: str) -> list:
    """The ruleset's heuristic `name` for every seat, in a state that need not be over.

    Raises ValueError naming the heuristics there are; a value that is not a
    finite number is a rule error at the heuristic's `value`.
    """
    fn = model.heuristics.get(name)
    if fn is None:
        known = ", ".join(model.heuristics) or "none: add a `heuristics:` section"
        raise ValueError(f"{model.name} has no heuristic {name!r} (its heuristics: {known})")
    return _per_player(_scoring_ctx(model, data), fn, ("heuristics", name, "value"), local="seat")
