"""Legal moves: generated from the rules, and explained when refused.

For each action available in the current phase (or stage), the parameters
are enumerated in declaration order — from the static `of:` set, or the
state-dependent `from:` list reordered to match `of:` — each filtered by its
`where:`, and every `require:` checked.  The order is fixed by the ruleset,
never by set or hash order, so it is the same in every process.
"""

from __future__ import annotations

from typing import Any

from ruleplay.dsl import ast as A
from ruleplay.dsl import runtime as R

from .errors import GameOverError, IllegalMoveError
from .model import Action, GameModel, Param, first_rule
from .moves import Move, _thaw, arg_key, format_value, interned, numbered
from .numbers import as_float, is_finite_number

CHANCE = -1
TERMINAL = -4
_PLAIN_ITEMS = frozenset({int, str})  # items of a list value whose key is the list as a tuple


def available_actions(model: GameModel, flow: dict) -> tuple[list[str], bool]:
    """Names of the actions open now, and whether the chance player takes them."""
    phase = model.phases[flow["phase"]]
    stage = flow.get("stage")
    if stage is not None:
        st = phase.stages[stage]
        return st.actions, st.chance
    return phase.actions, phase.order == "chance"


def _universe_tables(model: GameModel) -> dict[tuple[str, str], tuple[dict, list[bool], bool]]:
    """(action, parameter) -> each `of:` value's position by its key, whether each value is `_plain`, and
    whether all are whole numbers and texts."""
    cache = getattr(model, "_universe_tables", None)
    if cache is None:
        cache = {(a.name, p.name): ({arg_key(v): i for i, v in enumerate(p.universe)}, [_plain(v) for v in p.universe],
                                    _PLAIN_ITEMS.issuperset(map(type, p.universe)))
                 for a in model.actions.values() for p in a.params}
        model._universe_tables = cache  # type: ignore[attr-defined]
    return cache


def _plain(value: Any) -> bool:
    """A whole number, a text, or a flat list of them: equal keys mean the same text and behaviour."""
    t = type(value)
    return t is int or t is str or (t is list and _PLAIN_ITEMS.issuperset(map(type, value)))


def _candidates(model: GameModel, action: Action, i: int, ctx: R.Ctx) -> list[tuple[int, Any]] | enumerate:
    """The values parameter `i` takes now, as (position in its `of:` set, value), in `of:` order."""
    param = action.params[i]
    if param.source is None:
        return enumerate(param.universe)
    return from_values(model, action, i, param.source(ctx))


def from_values(model: GameModel, action: Action, i: int, values: Any) -> list[tuple[int, Any]]:
    """What the `from:` of parameter `i` gave, as (position in its `of:` set, value), in `of:` order."""
    param = action.params[i]
    if type(values) is not list:
        raise R.RuleRuntimeError(f"`from:` of parameter {param.name!r} of action {action.name!r} "
                                 f"gave {R.type_name(values)}, not a list", model.code_at(param.path + ("from",)))
    index, plain, scalars = _universe_tables(model)[(action.name, param.name)]
    universe = param.universe
    if scalars and _PLAIN_ITEMS.issuperset(map(type, values)):
        # Whole numbers and texts on both sides: a value's key is itself, and the `of:` value of that key is
        # written and behaves as it does, so it stands in for it (as below), without a Python step per value.
        found = set(map(index.get, values))
        if None not in found:
            return [(k, universe[k]) for k in sorted(found)]
    seen: dict[int, Any] = {}
    for v in values:
        t = type(v)
        flat = t is int or t is str or (t is list and _PLAIN_ITEMS.issuperset(map(type, v)))  # `_plain`, inline
        k = index.get((tuple(v) if t is list else v) if flat else arg_key(v))
        if k is None:
            raise R.RuleRuntimeError(f"`from:` of parameter {param.name!r} of action {action.name!r} gave "
                                     f"{R.quoted(v)}, which is not among its "
                                     f"`of:` values", model.code_at(param.path + ("from",)),
                                     hint="every value a parameter can take must be listed in `of:`")
        if k not in seen:
            # Both plain and of one key, `v` and its `of:` value are written and behave alike (`same_value`):
            # the `of:` value stands in for `v`, so its move is the interned one.
            seen[k] = universe[k] if flat and plain[k] else v
    return sorted(seen.items())


def same_value(value: Any, known: Any) -> bool:
    """Whether `value` is written and behaves exactly as `known`, an `of:` value it equals as a key.

    `from:` may give `1.0` for the `of:` value `1`, or `-0.0` for `0.0`: equal
    keys, but other move texts, so such a move is built as before, not shared.
    """
    if value is known:
        return True
    t = type(value)
    if t is not type(known):
        return False
    if t is list:
        return len(value) == len(known) and all(same_value(v, k) for v, k in zip(value, known))
    if t is float:
        return repr(value) == repr(known)
    return t is not dict


def charge_tries(model: GameModel, action: Action, param: Param, count: int, budget: R.Budget) -> None:
    """Charge the values about to be tried for one parameter to the listing's budget.

    Parameters multiply: three of a thousand values each are a billion
    candidate moves, and listing them would run for hours and fill the memory.
    Each value tried costs one iteration, so such an action stops the listing
    with an error that names it.
    """
    budget.iterations -= count
    if budget.iterations < 0:
        raise R.LimitError(f"listing the moves of action {action.name!r} tries too many parameter values "
                           f"({action.size} combinations of {', '.join(p.name for p in action.params)})",
                           model.code_at(param.path),
                           hint="narrow the parameters with `from:`, reject values early with `where:` or a "
                                "`require:` that reads fewer of them, or raise limits.iterations_per_move")


def generate(model: GameModel, vars_: dict, flow: dict, budget: R.Budget | None = None, *,
             reference: bool = False) -> list[Move]:
    """The legal moves now, charged to `budget` (a fresh one if None).

    A caller that lists moves several times for one user-visible step (the
    flow passing players who cannot move) hands in one budget for all of
    them, so the step has one bound, not one per listing.  Each action is
    listed by its generated listing (`engine.listing`) when it has one, by
    the reference below when not, or when `reference` asks for it (tests
    compare the two).
    """
    if flow["done"]:
        return []
    return moves_now(model, R.Ctx(vars_, flow, model, budget=budget or model.budget()), reference)


def moves_now(model: GameModel, ctx: R.Ctx, reference: bool = False) -> list[Move]:
    """`generate` in a context the caller made: the flow's own, with the listing's budget and no locals.

    Listing reads the state and charges the budget, nothing else of a context:
    no check or `from:` can fire a rule, log, signal the flow or draw a number.
    """
    names, _ = available_actions(model, ctx.flow)
    out = _listed(model, ctx, names, False, reference)
    if not out:  # the `fallback: true` actions, listed only now that no other action has a move
        out = _listed(model, ctx, names, True, reference)
    if ctx.flow["player"] == CHANCE and model.weighted_chance and out:
        possible = [m for m in out if outcome_weight(model, ctx, m) > 0]  # an outcome of weight 0 cannot happen
        if not possible:
            raise R.RuleRuntimeError("the chance outcomes' weights sum to 0.0: nothing can be drawn",
                                     model.code_at(model.actions[out[0].action].path + ("weight",)),
                                     hint="at least one outcome needs a weight above 0")
        out = possible
    return out


def _listed(model: GameModel, ctx: R.Ctx, names: list[str], fallback: bool, reference: bool) -> list[Move]:
    """The legal moves of the actions `names` whose `fallback:` is `fallback`, in the order listed."""
    out: list[Move] = []
    table = model.move_table
    listings = None if reference else model.listings
    for name in names:
        action = model.actions[name]
        if action.disabled or action.fallback is not fallback:
            continue
        listing = None if listings is None else listings.of(model, action)
        if listing is not None:
            out += listing(ctx)
            continue
        for check in action.checks_by_level[0]:
            if not check(ctx):
                break
        else:
            if action.params:
                _level(model, action, ctx, 0, 0, True, [None] * len(action.params), out)
            else:
                out.append(interned(table, action.first_index, name, ()))
    return out


def outcome_weight(model: GameModel, ctx: R.Ctx, move: Move) -> float:
    """The weight of chance outcome `move` (1 without a `weight:`); a rule error for one that is not a
    finite number >= 0.  `ctx` is the state's, its locals replaced by the move's arguments."""
    action = model.actions[move.action]
    if action.weight is None:
        return 1.0
    ctx.env = bind(action, move)
    try:
        w = action.weight(ctx)
    finally:
        ctx.env = {}
    weight = as_float(w) if is_finite_number(w) else None
    if weight is None or weight < 0:
        shown = "an integer too large" if type(w) is int and weight is None else (
            w if type(w) in (int, float) else R.type_name(w))
        raise R.RuleRuntimeError(f"the weight of {move} is {shown}, not a finite number >= 0",
                                 model.code_at(action.path + ("weight",)))
    return weight


def _level(model: GameModel, action: Action, ctx: R.Ctx, i: int, prefix: int, exact: bool, chosen: list,
           out: list[Move]) -> None:
    """The moves of `action` whose first `i` arguments are `chosen[:i]`, numbered from `prefix`, appended to
    `out` in the parameters' order.  `exact`: those arguments are their `of:` values themselves, so the
    moves are the interned ones."""
    p = action.params[i]
    pname, where, checks, universe = p.name, p.where, action.checks_by_level[i + 1], p.universe
    radix = len(universe)
    values = _candidates(model, action, i, ctx)
    charge_tries(model, action, p, radix if p.source is None else len(values), ctx.budget)  # type: ignore[arg-type]
    own = p.source is None  # values of `of:` itself, never another spelling of one
    env, table, name = ctx.env, model.move_table, action.name
    last = i == len(action.params) - 1
    base = prefix * radix
    first = action.first_index + base
    for k, v in values:
        env[pname] = v
        if where is not None and not where(ctx):
            continue
        for check in checks:
            if not check(ctx):
                break
        else:
            same = exact and (own or v is universe[k] or same_value(v, universe[k]))
            if not last:
                chosen[i] = v
                _level(model, action, ctx, i + 1, base + k, same, chosen, out)
            elif same:
                move = table.get(first + k)
                if move is None:
                    chosen[i] = v
                    move = interned(table, first + k, name, chosen)
                out.append(move)
            else:
                chosen[i] = v
                out.append(numbered(first + k, name, chosen))
    env.pop(pname, None)


def bind(action: Action, move: Move) -> dict:
    """The arguments of `move`, a move of `action`, by parameter name: the locals its effects start with."""
    names = action.param_names
    if names is not None:  # no argument can be a list, kept as a tuple
        return dict(zip(names, move.args))
    return {p.name: _thaw(v) for p, v in zip(action.params, move.args)}


def _not_offered(shown: str, param: Param) -> str:
    """Why a value is not among a parameter's `from:` choices, in the player's terms where the choices are
    the mover's own entry of a variable (`from: hand[current]`: "d13 is not in your hand")."""
    node = param.source_code[0] if param.source_code is not None else None
    if (isinstance(node, A.Index) and isinstance(node.obj, A.Name) and isinstance(node.index, A.Name)
            and node.index.name == "current"):
        return f"{shown} is not in your {node.obj.name.replace('_', ' ')} (the `from:` choices for {param.name!r})"
    return f"{shown} is not among the `from:` choices for {param.name!r} now"


def explain(model: GameModel, vars_: dict, flow: dict, move: Move, as_chance: bool | None = None) -> None:
    """Raise IllegalMoveError saying why `move` is illegal now; return if it is legal."""
    if flow["done"]:
        raise GameOverError(move, "the game is over")
    names, chance = available_actions(model, flow)
    action = model.actions.get(move.action)
    if action is None:
        raise IllegalMoveError(move, f"there is no action {move.action!r} "
                               f"(actions: {', '.join(model.actions)})", "RP602")
    if move.action not in names or action.disabled:
        where = f"phase {flow['phase']!r}" + (f", stage {flow['stage']!r}" if flow.get("stage") else "")
        raise IllegalMoveError(move, f"action {move.action!r} is not available in {where} "
                               f"(available: {', '.join(names) or 'none'})", "RP603", first_rule(action.rules))
    if as_chance is not None and as_chance != chance:
        who = "the chance player" if chance else f"player {flow['player']}"
        raise IllegalMoveError(move, f"it is {who}'s turn to move", "RP607")
    if len(move.args) != len(action.params):
        raise IllegalMoveError(move, f"action {move.action!r} takes {len(action.params)} argument(s) "
                               f"({', '.join(p.name for p in action.params)}), got {len(move.args)}", "RP602")
    ctx = R.Ctx(vars_, flow, model, budget=model.budget())
    if action.fallback:
        others = _listed(model, ctx, names, False, False)
        if others:
            raise IllegalMoveError(move, f"action {move.action!r} is a fallback, offered only when no other action "
                                   f"has a legal move, and {len(others)} move(s) are legal now, such as "
                                   f"{others[0]}", "RP603", first_rule(action.rules))
        ctx.budget = model.budget()  # the move's own checks get a budget of their own, as any move's
    tables = _universe_tables(model)
    for i, (p, v) in enumerate(zip(action.params, move.args)):
        shown = format_value(v)
        k = tables[(action.name, p.name)][0].get(arg_key(_thaw(v)))
        if k is None:
            raise IllegalMoveError(move, f"{shown} is not a possible value of {p.name!r}", "RP604")
        value = p.universe[k]  # the rules' own value: 4.0 is checked as the cell 4
        if p.source is not None and k not in dict(_candidates(model, action, i, ctx)):
            raise IllegalMoveError(move, _not_offered(shown, p), "RP604", p.rule or first_rule(action.rules))
        ctx.env[p.name] = value
        if p.where is not None and not p.where(ctx):
            raise IllegalMoveError(move, f"{shown} is refused by the `where:` of {p.name!r} now", "RP604",
                                   p.rule or first_rule(action.rules))
    for r in action.requires:
        if not r.check(ctx):
            raise IllegalMoveError(move, r.message, "RP605", r.rule)
