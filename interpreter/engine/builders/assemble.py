"""The model builder's one entry point: ruleset data in, a `GameModel` and its diagnostics out.

It settles what the other builders depend on (player count, limits,
constants and derived constants, the name scope, user functions and procedures), calls each of
them for its part of the ruleset, and assembles the model with what is
derived from the whole: the ruleset hash, whether the game uses chance or
hides information, and the global action numbering.
"""

from __future__ import annotations

import hashlib
import json

from ruleplay.dsl import ast as A
from ruleplay.dsl import runtime as R
from ruleplay.dsl.codegen import Codegen
from ruleplay.dsl.diagnostics import Diagnostic
from ruleplay.dsl.scope import FLOW_NAMES, Callable_, Scope
from ruleplay.dsl.tables import static_functions
from ruleplay.dsl.variants import SourceMap

from ..listing import Listings
from ..model import DEFAULT_LIMITS, Action, GameModel
from .actions import build_actions
from .components import StaticModel, build_boards, build_components, build_graphs
from .context import BuildContext, noop
from .derived import build_derived
from .flow import build_flow, build_variables
from .names import check_names
from .render import build_render
from .scoring import build_end, build_heuristics, build_invariants, build_scoring


def build_model(data: dict, smap: SourceMap, players: int | None, variant: str | None,
                disabled_rules: frozenset[str] = frozenset()) -> tuple[GameModel | None, list[Diagnostic]]:
    """Compile ruleset data; the model is None when an error makes it unusable."""
    b = BuildContext(data, smap, disabled_rules)
    return _build(b, players, variant), b.diags


def _player_count(b: BuildContext, requested: int | None) -> tuple[int, int, int] | None:
    """(players, min, max), or None (with a diagnostic) when the requested count is out of range."""
    d = b.data
    prange = d.get("players", 2)
    if isinstance(prange, dict):
        lo, hi = prange.get("min", 2), prange.get("max", 2)
        default = prange.get("default", lo)
    else:
        lo = hi = default = prange
    if lo > hi:
        b.diag("RP301", f"players: min {lo} is greater than max {hi}", ("players",), hint="swap the two numbers")
    players = requested if requested is not None else default
    if not lo <= players <= hi:
        b.diag("RP302", f"{d.get('game', 'game')} is for {lo if lo == hi else f'{lo}-{hi}'} players, not {players}",
               ("players",), hint=f"use --players {lo}" if lo == hi else f"use --players between {lo} and {hi}")
        return None
    return players, lo, hi


def _scope(b: BuildContext, constants: dict) -> Scope:
    """The names every expression may use, with user functions and procedures compiled into it."""
    d = b.data
    state_names = frozenset((d.get("state") or {}).keys())
    for n in sorted(state_names & frozenset(constants)):
        b.diag("RP214", f"`{n}` is both a constant and a state variable", ("state", n), key=True,
               hint="rename one of the two", related=(b.related("the constant", ("constants", n)),))
    for n in sorted(frozenset(constants) & frozenset(FLOW_NAMES)):
        section = "derived" if n in (d.get("derived") or {}) else "constants"
        b.diag("RP214", f"`{n}` is a flow name: code that reads `{n}` gets the flow's value, never this constant",
               (section, n), key=True,
               hint=f"rename the constant; the flow's names are {', '.join(FLOW_NAMES)}, and every other name is free")
    functions = {n: Callable_(n, tuple(f.get("params") or ())) for n, f in (d.get("functions") or {}).items()}
    procedures = {n: Callable_(n, tuple(f.get("params") or ())) for n, f in (d.get("procedures") or {}).items()}
    unavailable = frozenset(d.get("derived") or {}) - frozenset(constants)
    scope = Scope(state_names, constants, frozenset(), functions, procedures, b.disabled, unavailable=unavailable)
    nodes = {}
    for n, f in (d.get("functions") or {}).items():
        b.cite(f.get("rule"), ("functions", n))
        node = b.parse(("functions", n, "value"), effects=False)
        body = None if node is None else b.compile(node, scope.only_locals(*functions[n].params),
                                                   ("functions", n, "value"))
        b.compiler.function_bodies[n] = body or (lambda ctx: None)
        if body is not None:
            nodes[n] = node
    b.compiler.table_functions(static_functions(nodes, scope), {n: c.params for n, c in functions.items()})
    for n, f in (d.get("procedures") or {}).items():
        b.cite(f.get("rule"), ("procedures", n), mutable=True)
        body = b.effects(("procedures", n, "effects"), scope.only_locals(*procedures[n].params))
        b.compiler.procedure_bodies[n] = noop if b.off(f.get("rule")) else body
        if b.off(f.get("rule")):
            b.code.pop(("procedures", n, "effects"), None)  # switched off: a call runs nothing
    return scope


def _build(b: BuildContext, requested_players: int | None, variant: str | None) -> GameModel | None:
    d = b.data
    counts = _player_count(b, requested_players)
    if counts is None:
        return None
    players, lo, hi = counts
    if not (d.get("flow") or {}).get("phases"):
        b.diag("RP102", "`flow:` is missing: a game needs at least one phase to be played", (),
               hint="add flow: {phases: [{name: play, actions: [...]}]}")
    limits = dict(DEFAULT_LIMITS)
    limits.update(d.get("limits") or {})
    comp_ids, by_kind, props = build_components(b, limits)
    b.compiler.know_components(props, limits["copies_per_move"])
    boards = build_boards(b)
    graphs, nx_graphs = build_graphs(b, boards)
    static = StaticModel(comp_ids, by_kind, props, boards, graphs)
    constants = build_derived(b, dict(d.get("constants") or {}), static, players, _one_move(limits))
    check_names(b)
    scope = _scope(b, constants)

    vars_ = build_variables(b, scope)
    setup = b.effects(("setup",), scope)
    # Every parameter's `of:` shares one move's limits, as the derived constants do (their own, so that
    # their failure is not blamed on a parameter): with a budget each, a small file of many costly
    # parameters kept a load busy for minutes.
    actions = build_actions(b, scope, players, static, _one_move(limits))
    flow = build_flow(b, scope, actions)
    end = build_end(b, scope)
    scoring = build_scoring(b, scope) | build_heuristics(b, scope)
    invariants = build_invariants(b, scope)
    render = build_render(b, scope)
    state_graphs = {n: fn for n, spec in (d.get("graphs") or {}).items() if "state" in spec
                    and (fn := b.expr(("graphs", n, "state"), scope)) is not None}
    for i, a in enumerate(d.get("assumptions") or []):
        res = a.get("resolves")
        for r in ([res] if isinstance(res, str) else res or []):
            b.cite(r, ("assumptions", i))
    if b.has_errors():
        return None

    shuffles = _shuffles(b)
    texts = "\n".join(doc.text for doc in b.smap.documents())
    model = GameModel(
        name=d.get("game", "game"), title=d.get("title", d.get("game", "game")),
        description=d.get("description", ""), players=players, min_players=lo, max_players=hi, variant=variant,
        variants=sorted((d.get("variants") or {}).keys()), data=d, source=b.smap,
        constants=constants, component_ids=comp_ids, components_by_kind=by_kind,
        component_props=props, boards=boards, graphs=graphs, nx_graphs=nx_graphs, vars=vars_,
        setup=setup, **flow, actions=actions, end=end, **scoring, invariants=invariants, render=render,
        assumptions=list(d.get("assumptions") or []), spec=d.get("spec"), cited_rules=b.cited,
        mutable_rules=b.mutable, limits=limits,
        ruleset_hash=hashlib.sha256((texts + json.dumps([variant, players], sort_keys=True)).encode()).hexdigest()[:16],
        uses_chance=any(a.chance for a in actions.values()) or shuffles, shuffles=shuffles,
        weighted_chance=any(a.chance and a.weight is not None for a in actions.values()),
        hidden_info=any(v.visibility != "public" or v.visible_if is not None for v in vars_.values()),
        scope=scope, function_bodies=b.compiler.function_bodies, procedure_bodies=b.compiler.procedure_bodies,
        state_graphs=state_graphs, written_vars=frozenset(b.written & set(vars_)),
        listings=Listings(b.compiler) if isinstance(b.compiler, Codegen) else None,
        written_by_action=b.written_by_action(list(actions), set(vars_)), code=b.code,
    )
    model.num_actions = _number_actions(actions)
    return model


def _one_move(limits: dict) -> R.Budget:
    return R.Budget(limits["iterations_per_move"], limits["max_depth"], limits["copies_per_move"])


def _shuffles(b: BuildContext) -> bool:
    """A shuffle in any effects text: randomness drawn from the state's generator, not a chance node."""
    return any(
        isinstance(n, A.ListOp) and n.op == "shuffle"
        for path in _effect_paths(b.data) for n in A.walk(b.parse(path, True)))


def _effect_paths(d: dict) -> list[tuple]:
    paths: list[tuple] = [("setup",)]
    paths += [("actions", n, "effects") for n in d.get("actions") or {}]
    paths += [("procedures", n, "effects") for n in d.get("procedures") or {}]
    for i, _ in enumerate((d.get("flow") or {}).get("phases") or []):
        paths += [("flow", "phases", i, "on_begin"), ("flow", "phases", i, "on_end")]
    paths += [("flow", "on_round_begin"), ("flow", "on_round_end")]
    paths += [("triggers", i, "effects") for i in range(len(d.get("triggers") or []))]
    return paths


def _number_actions(actions: dict[str, Action]) -> int:
    """Give each action its first index in the global numbering; the total number of moves."""
    index = 0
    for a in actions.values():
        a.first_index = index
        index += a.size
    return index
