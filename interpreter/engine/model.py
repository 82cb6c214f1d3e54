"""The compiled game model: a ruleset with names resolved and code compiled.

These are plain records that play reads and never changes: `engine.builders`
fills them in once when a ruleset loads, and flow, legal moves, scoring,
observation and rendering only call the closures they hold.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable

from ruleplay.dsl import ast as A
from ruleplay.dsl import runtime as R
from ruleplay.dsl.compiler import Compiler
from ruleplay.dsl.diagnostics import Diagnostic
from ruleplay.dsl.geometry import Grid
from ruleplay.dsl.scope import Scope
from ruleplay.dsl.variants import SourceMap

Fn = Callable[[R.Ctx], Any]
Exec = Callable[[R.Ctx], None]
Code = tuple[A.Expr, Scope]  # an expression's tree and the scope it was compiled in

DEFAULT_LIMITS = {"max_steps": 10_000, "iterations_per_move": 200_000, "iterations_per_decision": 2_000_000,
                  "max_depth": 64, "max_components": 100_000, "copies_per_move": R.DEFAULT_COPIES}


def rule_list(value: str | list | None) -> list[str]:
    """A `rule:` value (one id or a list of ids) as a list."""
    if value is None:
        return []
    return [value] if isinstance(value, str) else [r for r in value if isinstance(r, str)]


def first_rule(value: str | list | None) -> str | None:
    rules = rule_list(value)
    return rules[0] if rules else None


@dataclass
class VarDecl:
    name: str
    per_player: bool
    visibility: str
    init: Fn
    visible_if: Fn | None
    back: Fn | None
    type: str


@dataclass
class Param:
    name: str
    universe: list
    source: Fn | None  # `from:` candidates computed from the state
    where: Fn | None
    path: tuple
    seen_by: Fn | None = None  # the seats that see this argument of a move (None: every seat)
    rule: str | None = None  # the rule the `from:`/`where:` filters encode, named when they refuse a move
    # The trees `source` and `where` were compiled from, for the generated listing (None where they are).
    source_code: Code | None = None
    where_code: Code | None = None


@dataclass
class Requirement:
    check: Fn
    rule: str | None
    message: str
    path: tuple
    level: int = -1  # index of the last parameter it reads: checked as soon as that one is bound
    code: Code | None = None  # the tree `check` was compiled from; None when mutation testing switched it off


@dataclass
class Action:
    name: str
    rules: list[str]
    chance: bool
    weight: Fn | None
    params: list[Param]
    requires: list[Requirement]
    effects: Exec
    disabled: bool
    path: tuple
    first_index: int = 0  # position of this action's first move in the global numbering
    fallback: bool = False  # listed only when no other action on offer has a legal move (`fallback: true`)

    @cached_property
    def checks_by_level(self) -> tuple[tuple[Fn, ...], ...]:
        """The `require:` checks by the parameter after which each runs (index 0: before the first)."""
        levels: list[list[Fn]] = [[] for _ in range(len(self.params) + 1)]
        for r in self.requires:
            levels[r.level + 1].append(r.check)
        return tuple(tuple(level) for level in levels)

    @cached_property
    def param_names(self) -> tuple[str, ...] | None:
        """The parameters' names when no `of:` value is a list, so a move's arguments bind as they are
        (a list argument is kept in a move as a tuple, and bound as a list again); None otherwise."""
        if any(type(v) is list for p in self.params for v in p.universe):
            return None
        return tuple(p.name for p in self.params)

    @cached_property
    def private(self) -> bool:
        """Whether some argument of the action is seen only by some seats (`seen_by:`)."""
        return any(p.seen_by is not None for p in self.params)

    @property
    def size(self) -> int:
        n = 1
        for p in self.params:
            n *= len(p.universe)
        return n


@dataclass
class Stage:
    name: str
    actions: list[str]
    chance: bool


@dataclass
class Phase:
    name: str
    order: str
    first: Fn | None
    actions: list[str]
    turn: str
    stages: dict[str, Stage]
    end_if: Fn | None
    on_begin: Exec
    on_end: Exec
    next: str | None
    when_stuck: str
    rule: str | None
    path: tuple


@dataclass
class EndCondition:
    when: Fn
    at: str
    rules: list[str]  # every rule the condition cites: one `when` encodes them all, so none can be singled out
    disabled: bool
    path: tuple

    def label(self, index: int) -> str:
        """What `flow.ended_by` records: the cited rule ids joined by `+` (no rule id holds one), or `end[N]`."""
        return "+".join(self.rules) or f"end[{index}]"


@dataclass
class Trigger:
    when: Fn
    effects: Exec
    rules: list[str]
    path: tuple


@dataclass
class Invariant:
    check: Fn
    message: str
    rule: str | None
    path: tuple


@dataclass(frozen=True)
class Picture:
    """How `view.picture` draws one render item; the text renderer ignores it.

    Each expression is evaluated per item (per cell of a grid) with `item`
    and `index` bound, over the data of the view being drawn.
    """
    shape: str = "square"  # a grid's cells: "square" or "hex" (each row shifted half a cell to the right of the one above)
    style: str = "boxes"  # a row's or track's items: "boxes", "cards" (masked ones as backs) or "ring"
    fill: Fn | None = None  # a colour name or #rrggbb
    text: Fn | None = None  # the picture's own text of an item (default: `cell`)
    pieces: Fn | None = None  # a list of pieces: a seat, or [seat or null, text]
    exits: Fn | None = None  # a list of directions (N, NE, E, SE, S, SW, W, NW) drawn as open edges
    size: int = 0  # pixels per cell or card; 0 picks one from the item's kind
    hide: bool = False  # text only: the picture leaves this item out
    place: Fn | None = None  # the value a move names for an entry: its label, and what a click picks
    key: Fn | None = None  # a map from meaning to colour, drawn as the item's key
    label: str | None = None  # the picture's caption, instead of the item's label


@dataclass
class RenderItem:
    show: Fn
    kind: str
    board: str | None
    label: str
    cell: Fn | None
    width: int
    picture: Picture = field(default_factory=Picture)


@dataclass
class GameModel:
    name: str
    title: str
    description: str
    players: int
    min_players: int
    max_players: int
    variant: str | None
    variants: list[str]
    data: dict
    source: SourceMap
    constants: dict[str, Any]
    component_ids: list[str]
    components_by_kind: dict[str, list[str]]
    component_props: dict[str, dict]
    boards: dict[str, Grid]
    graphs: dict[str, dict]
    nx_graphs: dict[str, Any]
    vars: dict[str, VarDecl]
    setup: Exec
    start_player: Fn | None
    rotate_start: bool
    skip_if: Fn | None
    on_round_begin: Exec
    on_round_end: Exec
    phases: dict[str, Phase]
    phase_order: list[str]
    actions: dict[str, Action]
    end: list[EndCondition]
    score: Fn | None
    tiebreak: list[Fn]
    returns: Fn | None
    invariants: list[Invariant]
    triggers: list[Trigger]
    render: list[RenderItem]
    assumptions: list[dict]
    spec: str | None
    cited_rules: dict[str, list[tuple]]
    mutable_rules: set[str]
    limits: dict[str, int]
    ruleset_hash: str
    uses_chance: bool
    hidden_info: bool
    shuffles: bool  # some effects shuffle: the state's seeded generator draws outside chance nodes
    weighted_chance: bool = False  # some chance action has a `weight:`: an outcome may weigh 0 and cannot happen
    diagnostics: list[Diagnostic] = field(default_factory=list)
    num_actions: int = 0
    scope: Scope = field(default_factory=Scope)
    function_bodies: dict[str, Fn] = field(default_factory=dict)
    procedure_bodies: dict[str, Exec] = field(default_factory=dict)
    state_graphs: dict[str, Fn] = field(default_factory=dict)  # graphs whose edges are computed from a state
    heuristics: dict[str, Fn] = field(default_factory=dict)  # named estimates of how well `seat` stands
    heuristic_scales: dict[str, float] = field(default_factory=dict)  # the lead counted as most of a win
    # `scoring.returns_range`: (min, max, sum or None) the declared returns keep to at every end, or None
    returns_range: tuple[float, float, float | None] | None = None
    # The state variables some effect of play (an action, hook, trigger or procedure) can change; a move
    # copies only these and shares the others with the state it was made from. None: unknown, copy all.
    written_vars: frozenset[str] | None = None
    # The same per action: what a move of it, and the flow after it, can change (each within written_vars).
    written_by_action: dict[str, frozenset[str]] = field(default_factory=dict)
    # Every move listed so far, by its number: the action universe is fixed, so listings share these values.
    move_table: dict[int, Any] = field(default_factory=dict, repr=False, compare=False)
    # Each action's generated listing, made when first listed (`engine.listing`); None: the reference listing.
    listings: Any = field(default=None, repr=False, compare=False)
    # The tree and scope of every text compiled for play, by its ruleset path (`engine.native` lowers them).
    code: dict[tuple, Code] = field(default_factory=dict, repr=False, compare=False)
    # The copy numbers people are not shown (`engine.people`), made when first needed.
    people_names: Any = field(default=None, repr=False, compare=False)

    @property
    def keeps_secrets(self) -> bool:
        """Whether some seat may not see something: a variable that is not public or masked by `visible_if`
        (`hidden_info`), or an argument of a move kept to some seats (`seen_by:`)."""
        return self.hidden_info or any(action.private for action in self.actions.values())

    def code_at(self, path: tuple) -> A.Pos:
        """Where the ruleset writes the code at `path` (its start): a rule error about what it gave points there."""
        return self.source.origin(path).pos(1, 1)

    def budget(self) -> R.Budget:
        """A fresh work budget for one move (or one setup, or one legal-move listing)."""
        limits = self.limits
        return R.Budget(limits["iterations_per_move"], limits["max_depth"], limits["copies_per_move"])

    def decision_budget(self) -> R.Budget:
        """One budget for all the moves an agent tries before one decision (`limits.iterations_per_decision`).

        Copies scale with it: an agent that tries k moves copies what k moves copy.
        """
        limits = self.limits
        scale = max(1, limits["iterations_per_decision"] // limits["iterations_per_move"])
        return R.Budget(limits["iterations_per_decision"], limits["max_depth"], limits["copies_per_move"] * scale)

    def compiler(self) -> Compiler:
        """A compiler for code written outside the ruleset (scenario checks) that calls its functions.

        Compile with `self.scope`; user function and procedure calls then find the
        bodies compiled at load time, so extra code sees exactly the game's names.
        """
        compiler = Compiler()
        compiler.function_bodies = self.function_bodies
        compiler.procedure_bodies = self.procedure_bodies
        return compiler
