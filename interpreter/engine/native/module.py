"""A loaded ruleset lowered to one C source: its code as C functions, its structure as C tables.

`lower_model(model, checking)` walks the model the builders made (phases,
actions and their parameters, end conditions, triggers, scoring) and
lowers every text it plays by (`model.code`, the trees the builders
compiled, with their scopes) through `Lowering`, then writes the tables
the runtime's engine reads (`rp_model` in csrc/rp.h).  Whatever the
lowering does not take raises `NotLowered` with the construct and its
position; the ruleset then plays on the Python engine.  The result keeps
what Python needs to read the module's answers back: the rule ids by
number and the positions by number.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ruleplay.dsl import ast as A
from ruleplay.dsl.builtins import BUILTINS
from ruleplay.dsl.geometry import DIRECTION_SETS, DIRECTIONS
from ruleplay.dsl.runtime import value_key

from ..model import Action, GameModel
from .cdata import MISSING, Constants, NotLowered, Texts, encode, int_literal
from .call_depth import calls_fit
from .cfunc import CFunc, Val
from .lower_effects import Lowering
from .lower_observe import seen_table
from .param_tables import all_ints, int_table, pair_table

GENERATOR_VERSION = "1"
MAX_PARAMS = 64  # parameters of one action the runtime binds (rp_engine.c)
# An action of no more moves than this lists them into room made once (4 KB at most), each without a test.
RESERVED_MOVES = 1024
# A listing of this many moves or fewer, none from `from:`, has its loops unrolled (RP_UNROLL): each move's checks
# then read a constant parameter value, which the compiler folds into a cell's index or a bound; and each move is
# written and kept by its checks' outcome, without a branch on it.
UNROLLED_MOVES = 16
# A listing or an end condition of this many lines of C or fewer is inlined where the step calls it
# (RP_STEP_INLINE): a playout's every move lists and checks the ends, and the call, its saved registers and the
# views it reads again cost as much as a small one's work.
INLINED_LINES = 60
ORDERS = {"alternate": "ORDER_ALTERNATE", "each": "ORDER_EACH", "chance": "ORDER_CHANCE"}
STUCK = {"error": "STUCK_ERROR", "pass": "STUCK_PASS", "end_game": "STUCK_END_GAME"}
AT = {"now": "AT_NOW", "end_of_round": "AT_END_OF_ROUND", "end_of_next_round": "AT_END_OF_NEXT_ROUND"}
SIGNATURES = {"rv": "static rv {name}(rp_ctx *C, const rv *A)", "int": "static int {name}(rp_ctx *C, const rv *A)",
              "int64": "static int64_t {name}(rp_ctx *C, const rv *A)",
              "void": "static void {name}(rp_ctx *C, const rv *A)"}
# a user function's version (`_version`), given its views after `T` (`CFunc.view_params`)
VERSION = "static {returns} {name}(rp_ctx *C, const rv *A, const rp_ints *T{views})"
SHAPE_LETTERS = {"rv": "r", "int": "i", "ints": "t"}  # a version's name: how it takes each argument


@dataclass
class Lowered:
    """A ruleset's C source and what reading its answers needs."""

    source: str
    rules: list[str]  # rule ids by the number the module fires them under
    texts: list[str]  # the module's own texts by id
    positions: list[A.Pos] = field(default_factory=list)
    unlowered_heuristics: dict[str, NotLowered] = field(default_factory=dict)  # judged on the Python engine


class _RuleIndex(dict):
    """Rule ids numbered as they are first met."""

    def __missing__(self, key: str) -> int:
        self[key] = len(self)
        return self[key]


def python_sums_compensated() -> bool:
    """Whether this Python's sum() of floats is compensated (3.12 and later): the module sums as it does."""
    return sum([1e100, 1.0, -1e100]) == 1.0


def _prop_rows(model: GameModel) -> list[str]:
    """The components' property names in the order of the module's rows of them (`M->props`)."""
    return list(dict.fromkeys(p for c in model.component_ids for p in model.component_props[c]))


def _holds(values: list) -> str:
    """What a property's values are: "scalar" (none a list or map), "flat" (lists of scalars among them) or
    "nested" (some list or map holds a list or map, or a value is a map)."""
    if all(type(v) not in (list, dict) for v in values):
        return "scalar"
    if all(type(v) is not dict and (type(v) is not list or all(type(x) not in (list, dict) for x in v))
           for v in values):
        return "flat"
    return "nested"


class _ModuleWriter:
    def __init__(self, model: GameModel, checking: bool, probes: tuple = (), probe_effects: tuple = ()):
        self.model = model
        self.checking = checking
        self.probes = probes
        self.probe_effects = probe_effects
        self.texts = Texts()
        self.constants = Constants(self.texts)
        self.rules = _RuleIndex()
        self.low = Lowering(self.texts, self.constants, {n: k for k, n in enumerate(model.vars)},
                            {n: k for k, n in enumerate(model.phase_order)}, self.rules)
        self.low.boards = model.boards
        self.low.props = {p: (k, _holds([model.component_props[c].get(p) for c in model.component_ids]))
                          for k, p in enumerate(_prop_rows(model))}
        self.functions: list[str] = []  # C text of every function, in order
        self.tables: list[str] = []  # C text of the tables
        self.init: list[str] = []  # statements of rp_model_init after the constants are decoded
        self.n = 0
        self.unlowered_heuristics: dict[str, NotLowered] = {}
        self.versions: dict[tuple[str, tuple[str, ...]], str | None] = {}  # `_version`'s, None for none

    # ------------------------------------------------------------ sites
    def _name(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}{self.n}"

    def site(self, path: tuple, returns: str, params: tuple[str, ...] = (), code: Any = None,
             ints: frozenset[str] = frozenset(), step_inline: bool = False) -> str:
        """The C function of the text at `path` (or of `code`, a tree and its scope): `returns` "rv" for a
        value, "int" for a condition's truth, "void" for effects; its locals `params` come in A[0], A[1], ...,
        those named in `ints` always ints (read as C ints); with `step_inline`, inlined into the step when small."""
        found = code if code is not None else self.model.code.get(path)
        if found is None:
            return "NULL"
        node, scope = found
        name = self._name({"rv": "e", "int": "c", "void": "x"}[returns])
        self._function(name, returns, node, scope, params, ints, step_inline)
        return name

    def _function(self, name: str, returns: str, node: A.Node, scope: Any, params: tuple[str, ...],
                  ints: frozenset[str] = frozenset(), step_inline: bool = False) -> None:
        low = self.low
        f = low.f = CFunc(name, returns)
        lv = _params(f, params, ints)
        result = None
        if returns == "void":
            low.block(node, scope, lv)  # type: ignore[arg-type]
        else:
            value = low.lower(node, scope, lv)  # type: ignore[arg-type]
            result = value.rv if returns == "rv" else value.truth
        self.functions.append(_inlined(f.text(SIGNATURES[returns].format(name=name), result), step_inline))

    # ------------------------------------------------------------ the whole module
    def write(self) -> Lowered:
        m = self.model
        self._check_shape()
        self._user_code()
        var_rows = []
        for name, decl in m.vars.items():
            init = self.site(("state", name, "init"), "rv", ("p",) if decl.per_player else ())
            var_rows.append(f"{{{int(decl.per_player)}, {init}}}")
        self.tables.append(self._array("static const rp_var VARS", var_rows))
        setup = self.site(("setup",), "void")
        phases = self._phases()
        actions = self._actions()
        ends = self._ends()
        triggers = self._triggers()
        invariants = [self.site(inv.path + ("check",), "int") for inv in m.invariants] if self.checking else []
        self.tables.append(self._array("static const rp_test_fn INVARIANTS", invariants))
        score = self.site(("scoring", "score"), "rv", ("p",)) if m.score is not None else "NULL"
        tiebreaks = [self.site(("scoring", "tiebreak", i), "rv", ("p",)) for i in range(len(m.tiebreak))]
        self.tables.append(self._array("static const rp_expr_fn TIEBREAKS", tiebreaks))
        returns = self.site(("scoring", "returns"), "rv", ("p",)) if m.returns is not None else "NULL"
        heuristics = [self._heuristic(name) for name in m.heuristics]
        self.tables.append(self._array("static const rp_expr_fn HEURISTICS", heuristics))
        self.tables.append(seen_table(self))  # what each seat may see (lower_observe.py)
        statics = self._statics()
        model = {
            "players": m.players, "nvars": len(m.vars), "nphases": len(m.phase_order), "nactions": len(m.actions),
            "nends": len(m.end), "ntriggers": len(m.triggers), "ninvariants": len(invariants),
            "num_actions": int_literal(m.num_actions), "vars": "VARS", "setup": setup,
            "start_player": self.site(("flow", "start_player"), "rv"), "rotate_start": int(m.rotate_start),
            "skip_if": self.site(("flow", "skip_if"), "int", ("p",)) if m.skip_if is not None else "NULL",
            "on_round_begin": self.site(("flow", "on_round_begin"), "void"),
            "on_round_end": self.site(("flow", "on_round_end"), "void"),
            "phases": phases, "actions": actions, "ends": ends, "triggers": triggers, "invariants": "INVARIANTS",
            "score": score, "ntiebreaks": len(tiebreaks), "tiebreaks": "TIEBREAKS", "returns": returns,
            "nheuristics": len(heuristics), "heuristics": "HEURISTICS",
            "weighted_chance": int(m.weighted_chance), "checking": int(self.checking),
            "limit_iterations": int_literal(m.limits["iterations_per_move"]),
            "limit_copies": int_literal(m.limits["copies_per_move"]),
            "limit_max_steps": int_literal(m.limits["max_steps"]),
            "limit_max_depth": int_literal(min(m.limits["max_depth"], 1 << 30)),
            "text_end_game": self.texts.id("end_game"), "sum_compensated": int(python_sums_compensated()),
            **statics,
        }
        self.tables.append(self._phase_names())
        probes = [self.site((), "rv", tuple(sorted(code[1].locals)), code) for code in self.probes]
        probe_effects = [self.site((), "void", (), code) for code in self.probe_effects]
        self.tables.append(self._array("const rp_expr_fn RP_PROBES", probes))
        self.tables.append(self._array("const rp_exec_fn RP_PROBE_EFFECTS", probe_effects))
        constants = self.constants.c_arrays()  # encoding the constants numbers the texts they hold
        model.update(self._component_of_text())  # after every text is known
        body = ",\n".join(f"    .{k} = {v}" for k, v in model.items())
        source = "\n".join([
            '#include "rp.h"',
            "int rp_texts_init(const unsigned char *blob, const int64_t *ends, int64_t n);",
            "int rp_decode_constants(const unsigned char *blob, rv *out, int64_t n);",
            self.texts.c_arrays(), constants,
            *self._prototypes(), *self.tables, self._site_slots(), *self.functions,
            f"rp_model RP_MODEL = {{\n{body}\n}};\n",
            f"static const rp_model RP_SHAPE = {{\n{body}\n}};\n",  # the same, a constant for the step (rp_step.c)
            self._init_function(),
        ])
        rules = [r for r, _ in sorted(self.rules.items(), key=lambda item: item[1])]
        return Lowered(source, rules, list(self.texts.ids), self.low.positions, self.unlowered_heuristics)

    def _heuristic(self, name: str) -> str:
        """Heuristic `name`'s function, or NULL where the module does not lower it: heuristics only judge
        positions (an arc's standings), so one the module lacks leaves those to the Python engine, not the
        whole ruleset.  What lowering it left behind (slots, texts, positions) is unused, never wrong."""
        try:
            return self.site(("heuristics", name, "value"), "rv", ("seat",))
        except NotLowered as err:
            self.unlowered_heuristics[name] = err
            return "NULL"

    def _check_shape(self) -> None:
        m = self.model
        for name, value in m.constants.items():  # every constant is data the module holds: ints of 64 bits
            try:
                encode(value, self.texts, bytearray())
            except NotLowered as err:
                raise NotLowered(f"{err.what} (constant `{name}`)", m.code_at(("constants", name))) from None
        if m.players > 16:
            raise NotLowered("more than 16 players")
        for a in m.actions.values():
            if len(a.params) > MAX_PARAMS:
                raise NotLowered(f"action {a.name!r} with more than {MAX_PARAMS} parameters")
        if m.num_actions >= 1 << 31:
            raise NotLowered("2^31 moves or more")

    def _prototypes(self) -> list[str]:
        """Every function declared before the tables and bodies that name it (user code calls itself)."""
        return ["static rv flow_stage(rp_ctx *C);"] + [f.split("\n", 1)[0] + ";" for f in self.functions]

    def _site_slots(self) -> str:
        """The call sites' kept results and the tables of numbers the lowering made (`ExprLowering.member_table`)."""
        slots = "".join(f"static rp_kept *M{k}[{size or 'RP_SITE_SLOTS'}];\n"
                        for k, size in enumerate(self.low.site_sizes, 1))
        return slots + "".join(
            self._array(f"static const int64_t IM{k}", [int_literal(v) for v in values]) if signed
            else self._array(f"static const uint64_t IM{k}", [f"UINT64_C({v})" for v in values])
            for k, (values, signed) in enumerate(self.low.member_tables, 1))

    def _user_code(self) -> None:
        """User functions and procedures: named first (they call each other), then lowered."""
        m = self.model
        for name in (m.data.get("functions") or {}):
            self.low.functions[name] = self._name("uf")
        for name in (m.data.get("procedures") or {}):
            self.low.procedures[name] = self._name("up")
        self.low.calls_fit = calls_fit(
            {name: m.code[("functions", name, "value")][0] for name in self.low.functions},
            {name: (m.code.get(("procedures", name, "effects")) or (None,))[0] for name in self.low.procedures},
            m.limits["max_depth"])
        self.low.function_kinds = self._function_kinds()
        self.low.specialise = self._version
        for name, c_name in self.low.functions.items():
            node, scope = m.code[("functions", name, "value")]
            kind = self.low.function_kinds[name]
            if kind == "rv":
                self._function(c_name, "rv", node, scope, m.scope.functions[name].params)
            else:
                self._typed_function(c_name, kind, node, scope, m.scope.functions[name].params)
        for name, c_name in self.low.procedures.items():
            code = m.code.get(("procedures", name, "effects"))
            if code is None:  # switched off by mutation testing
                self.functions.append(SIGNATURES["void"].format(name=c_name) + "\n{\n    (void)C; (void)A;\n}\n")
            else:
                self._function(c_name, "void", code[0], code[1], m.scope.procedures[name].params)

    def _function_kinds(self) -> dict[str, str]:
        """What each user function's value is in C: "int" or "bool" where its lowered value always is a C int
        or truth (such a function returns an int64_t, and its callers keep a C int: no tagged value, nothing
        to charge), else "rv".  Each function is lowered for a look, its callees taken as they were found the
        round before (all "rv" at first), until no function's kind changes; what the looks left in the
        module's lists (positions, call sites, tables) is taken back."""
        m, low = self.model, self.low
        kinds = {name: "rv" for name in low.functions}
        marks = len(low.positions), len(low.site_sizes), len(low.member_tables)
        for _ in range(len(kinds) + 1):
            low.function_kinds = kinds
            found = {}
            for name in low.functions:
                node, scope = m.code[("functions", name, "value")]
                f = low.f = CFunc(name, "rv")
                lv = _params(f, m.scope.functions[name].params)
                found[name] = low.lower(node, scope, lv).kind  # type: ignore[arg-type]
            if found == kinds:
                break
            kinds = found
        else:  # no fixed point (kinds that keep turning): every function keeps tagged values
            kinds = {name: "rv" for name in low.functions}
        del low.positions[marks[0]:], low.site_sizes[marks[1]:], low.member_tables[marks[2]:]
        return kinds

    def _version(self, name: str, shape: tuple[str, ...]) -> str | None:
        """The C name of user function `name`'s version taking its arguments as `shape` says: "ints" a table of
        C ints (`lower_tables`), "int" a C int (an argument the caller knows is one: no tag checked in the
        version, which its callers may then hand C ints of their own), "rv" a tagged value; lowered the first
        time it is asked for.  None where the function uses a table otherwise than as one (the call keeps to
        the generic function), or where its value would not be its callers' kind.  A call of a version from
        within itself (while it is being lowered) keeps to the generic function too, so no version names one
        that fails."""
        key = (name, shape)
        if key in self.versions:
            return self.versions[key]
        self.versions[key] = None
        m, low = self.model, self.low
        node, scope = m.code[("functions", name, "value")]
        params = m.scope.functions[name].params
        kind = low.function_kinds[name]
        c_name = f"{low.functions[name]}_{''.join(SHAPE_LETTERS[s] for s in shape)}"
        caller = low.f
        f = low.f = CFunc(c_name, "rv" if kind == "rv" else "int64", views_given=True)
        taking = {"ints": lambda k: Val(f.table_param(k), "ints"), "int": lambda k: Val(f.int_param(k), "int"),
                  "rv": lambda k: Val(f.param(k))}
        lv = {p: taking[shape[k]](k) for k, p in enumerate(params)}
        try:
            value = low.lower(node, scope, lv)  # type: ignore[arg-type]
            if kind != "rv" and value.kind != kind:  # what its callers take: the generic function's kind
                return None
            result = value.rv if kind == "rv" else value.code
        except NotLowered:
            return None
        finally:
            low.f = caller
        returns = "rv" if kind == "rv" else "int64_t"
        self.functions.append(f.text(VERSION.format(returns=returns, name=c_name, views=f.view_params()), result))
        low.version_views[c_name] = tuple(sorted(f.views))
        self.versions[key] = c_name
        return c_name

    def _typed_function(self, name: str, kind: str, node: A.Node, scope: Any, params: tuple[str, ...]) -> None:
        """A user function whose value is a C int or truth (`_function_kinds`), returned as an int64_t."""
        low = self.low
        f = low.f = CFunc(name, "int64")
        value = low.lower(node, scope, _params(f, params))  # type: ignore[arg-type]
        if value.kind != kind:  # the kinds are a fixed point: the same lowering finds the same kind
            raise AssertionError(f"user function {name}: {value.kind}, not {kind}")
        self.functions.append(f.text(SIGNATURES["int64"].format(name=name), value.code))

    # ------------------------------------------------------------ tables
    def _array(self, head: str, rows: list[str]) -> str:
        return f"{head}[{max(len(rows), 1)}] = {{{', '.join(rows) or '0'}}};\n"

    def _ints(self, values: list[int]) -> str:
        name = self._name("T")
        self.tables.append(self._array(f"static const int32_t {name}", [str(v) for v in values]))
        return name

    def _phases(self) -> str:
        m = self.model
        actions = list(m.actions)
        rows = []
        for name in m.phase_order:
            ph = m.phases[name]
            path = ph.path
            stage_names = [self.texts.id(s) for s in ph.stages]
            stage_actions = [self._ints([actions.index(a) for a in st.actions]) for st in ph.stages.values()]
            sa = self._name("SA")
            self.tables.append(self._array(f"static const int32_t *const {sa}", stage_actions))
            rows.append("{" + ", ".join([
                str(self.texts.id(name)), ORDERS[ph.order], str(int(ph.turn == "multi")), STUCK[ph.when_stuck],
                self.site(path + ("first",), "rv") if ph.first is not None else "NULL",
                self._ints([actions.index(a) for a in ph.actions]), str(len(ph.actions)),
                str(len(ph.stages)), self._ints(stage_names), sa,
                self._ints([len(st.actions) for st in ph.stages.values()]),
                self._ints([int(st.chance) for st in ph.stages.values()]),
                self.site(path + ("end_if",), "int") if ph.end_if is not None else "NULL",
                self.site(path + ("on_begin",), "void"), self.site(path + ("on_end",), "void"),
                str(m.phase_order.index(ph.next)) if ph.next is not None else "-1",
                str(self.texts.id(f"stuck in {name}")),
            ]) + "}")
        self.tables.append(self._array("static const rp_phase PHASES", rows))
        return "PHASES"

    def _actions(self) -> str:
        rows = []
        for a in self.model.actions.values():
            rows.append(self._action(a))
        self.tables.append(self._array("static const rp_action ACTIONS", rows))
        return "ACTIONS"

    def _action(self, a: Action) -> str:
        names = tuple(p.name for p in a.params)
        # A move's parameters are always values of their `of:` (rp_decode, the listings): where those are all
        # ints, every site of the action reads them as C ints.
        of_ints = frozenset(p.name for p in a.params if all_ints(p.universe))
        params = []
        for i, p in enumerate(a.params):
            k = self.constants.index(p.universe)
            src = self.site((), "rv", names[:i], p.source_code, of_ints) if p.source_code is not None else "NULL"
            where = self.site((), "int", names[:i + 1], p.where_code, of_ints) if p.where_code is not None else "NULL"
            seen = self.site(p.path + ("seen_by",), "rv", names, ints=of_ints) if p.seen_by is not None else "NULL"
            lo, n, ints = int_table(p.universe)
            tn, texts = self._text_table(p.universe)
            hashed = not ints and texts == "NULL"  # found by rp_hash_value: a table made at set-up
            x0, y0, w, h, pairs = pair_table(p.universe)
            params.append((k, hashed, f"{{{len(p.universe)}, NULL, {src}, {where}, {seen}, {int_literal(lo)}, "
                                      f"{int_literal(n)}, {self._ints(ints) if ints else 'NULL'}, {int_literal(tn)}, "
                                      f"{texts}, {int_literal(x0)}, {int_literal(y0)}, {int_literal(w)}, "
                                      f"{int_literal(h)}, {self._ints(pairs) if pairs else 'NULL'}}}"))
        pname = self._name("P")
        self.tables.append(self._array(f"static rp_param {pname}", [row for _, _, row in params]))
        for i, (k, hashed, _) in enumerate(params):
            self.init.append(f"{pname}[{i}].universe = K[{k}].u.l->items;")
            if hashed:
                self.init.append(f"if (!rp_param_index(&{pname}[{i}])) return 0;")
        checks, levels = [], []
        for r in a.requires:
            if r.code is None:
                continue  # switched off by mutation testing: always passes
            checks.append(self.site((), "int", names, r.code, of_ints))
            levels.append(r.level)
        cname = self._name("Q")
        self.tables.append(self._array(f"static const rp_test_fn {cname}", checks))
        rules = self._ints([self.rules[r] for r in a.rules])
        return "{" + ", ".join([
            str(len(a.params)), pname, str(int(a.disabled)), str(int(a.chance)), int_literal(a.first_index),
            int_literal(a.size), rules, str(len(a.rules)), str(len(checks)), cname, self._ints(levels),
            self.site(a.path + ("effects",), "void", names, ints=of_ints),
            self.site(a.path + ("weight",), "rv", names, ints=of_ints) if a.weight is not None else "NULL",
            str(int(a.private)), self._listing(a, pname), str(int(a.fallback)),
        ]) + "}"

    def _listing(self, a: Action, params: str) -> str:
        """One function listing the action's moves (as engine/listing.py writes one in Python): its parameters'
        loops nested in order, each `where:` and `require:` written out at the level the reference tests it,
        the same charges (the tries of each level, then each check's own), the moves in the same order."""
        low = self.low
        name = self._name("L")
        f = low.f = CFunc(name, "int")
        lv: dict[str, Val] = {}
        checks: list[list] = [[] for _ in range(len(a.params) + 1)]
        for r in a.requires:
            if r.code is not None:  # None: switched off by mutation testing, so it always passes
                checks[r.level + 1].append(r.code)

        def holding(tests: list) -> str:
            """Whether every test holds, tried in order up to the first that fails."""
            ok = f.integer()
            f.emit(f"{ok} = 1;")
            for node, scope in tests:
                with f.block(f"if ({ok})"):
                    f.emit(f"{ok} = {low.lower(node, scope, lv).truth};")
            return ok

        def guarded(tests: list, inner) -> None:
            """`inner` when every test holds."""
            if not tests:
                inner()
                return
            with f.block(f"if ({holding(tests)})"):
                inner()

        def kept(tests: list, move: str) -> None:
            """The move written at the cursor, and kept (the cursor moved on) when every test holds: no branch
            on whether a move is legal, which a random game's listing predicts badly (the room made covers a
            write for every move tried)."""
            ok = holding(tests)
            f.emit(f"*{cursor} = (int32_t)({move});")
            f.emit(f"{cursor} += {ok} != 0;")

        # Room made once for every move the action has (one at least, so the cursor is never null): the moves are
        # written from `cursor` on, and their number kept when the listing ends (a listing that bails is thrown
        # away).
        cursor = f.cursor() if 0 < a.size <= RESERVED_MOVES else None
        unrolled = a.size <= UNROLLED_MOVES and all(p.source_code is None for p in a.params)

        def level(i: int, prefix: str) -> None:
            if i == len(a.params):
                move = f"{int_literal(a.first_index)} + {prefix}"
                f.emit(f"*{cursor}++ = (int32_t)({move});" if cursor else f"if (!rp_push_move(C, out, {move})) goto out;")
                return
            p = a.params[i]
            count, ks = str(len(p.universe)), None
            if p.source_code is not None:
                values = low.lower(p.source_code[0], p.source_code[1], lv)
                ks, count = f.heap(), f.integer()
                f.emit(f"free({ks}); {ks} = NULL;")
                f.emit(f"{count} = rp_from_candidates(C, &{params}[{i}], {values.rv}, &{ks});")
                f.check()
            f.emit(f"C->b->iterations -= {count};")
            f.emit('if (C->b->iterations < 0) { rp_bail(C, RP_BAIL_LIMIT, RP_WHY_TRIES, -1); goto out; }')
            j, k, base = f.index(), f.integer(), f.integer()
            ints = self._int_values(p.universe, k)
            if unrolled:
                f.emit("RP_UNROLL")
            with f.block(f"for ({j} = 0; {j} < {count}; {j}++)"):
                f.emit(f"{k} = {ks}[{j}];" if ks else f"{k} = {j};")
                if ints is not None:  # every value an int: the parameter is a C int, its tags never checked
                    value = f.integer()
                    f.emit(f"{value} = {ints};")
                    lv[p.name] = Val(value, "int")
                else:
                    f.emit(f"A[{i}] = {params}[{i}].universe[{k}];")
                    lv[p.name] = Val(f"A[{i}]")
                f.emit(f"{base} = {prefix} * {len(p.universe)} + {k};")
                tests = ([p.where_code] if p.where_code is not None else []) + checks[i + 1]
                if unrolled and cursor and tests and i + 1 == len(a.params):
                    kept(tests, f"{int_literal(a.first_index)} + {base}")
                else:
                    guarded(tests, lambda: level(i + 1, base))
            if ks:
                f.emit(f"free({ks}); {ks} = NULL;")

        if cursor:
            f.emit(f"if (!rp_reserve_moves(C, out, {int_literal(a.size)})) goto out;")
            f.emit(f"{cursor} = out->v + out->n;")
        guarded(checks[0], lambda: level(0, "0"))
        if cursor:
            f.emit(f"out->n = {cursor} - out->v;")
        n = max(len(a.params), 1)
        self.functions.append(_inlined(f.text(f"static int {name}(rp_ctx *C, rp_moves *out)", "1",
                                              (f"rv A[{n}] = {{{{0}}}};",)), True))
        return name

    def _int_values(self, universe: list, k: str) -> str | None:
        """The C int value `k` stands for among a parameter's `of:` values when every one is an int (not a
        boolean) of 64 bits, else None: a run of ints as a sum (the compiler then knows its bounds), others by
        a table."""
        if not all_ints(universe):
            return None
        if universe == list(range(universe[0], universe[0] + len(universe))):
            return f"{int_literal(universe[0])} + {k}" if universe[0] else k
        name = self._name("T")
        self.tables.append(self._array(f"static const int64_t {name}", [int_literal(v) for v in universe]))
        return f"{name}[{k}]"

    def _text_table(self, universe: list) -> tuple[int, str]:
        """Where each text of the module stands in a parameter's `of:` values (only for all-text sets)."""
        if not universe or any(type(v) is not str for v in universe):
            return 0, "NULL"
        ids = [self.texts.id(v) for v in universe]
        table = [-1] * (max(ids) + 1)
        for k, i in enumerate(ids):
            table[i] = k
        return len(table), self._ints(table)

    def _ends(self) -> str:
        rows = []
        for index, e in enumerate(self.model.end):
            rows.append("{" + ", ".join([
                self.site(e.path + ("when",), "int", step_inline=True), AT[e.at], str(int(e.disabled)),
                str(self.texts.id(e.label(index))), self._ints([self.rules[r] for r in e.rules]), str(len(e.rules)),
            ]) + "}")
        self.tables.append(self._array("static const rp_end ENDS", rows))
        return "ENDS"

    def _triggers(self) -> str:
        rows = []
        for t in self.model.triggers:
            rows.append("{" + ", ".join([
                self.site(t.path + ("when",), "int"), self.site(t.path + ("effects",), "void"),
                self._ints([self.rules[r] for r in t.rules]), str(len(t.rules)),
            ]) + "}")
        self.tables.append(self._array("static const rp_trigger TRIGGERS", rows))
        return "TRIGGERS"

    def _phase_names(self) -> str:
        m = self.model
        rows = [str(self.texts.id(n)) for n in m.phase_order]
        stages = []
        for name in m.phase_order:
            stages.append(self._ints([self.texts.id(s) for s in m.phases[name].stages]))
        out = self._array("static const int32_t PHASE_NAMES", rows)
        out += self._array("static const int32_t *const STAGE_NAMES", stages)
        out += ("static rv flow_stage(rp_ctx *C)\n{\n"
                "    if (C->S->flow.stage < 0) return rv_null();\n"
                "    return rv_str(STAGE_NAMES[C->S->flow.phase][C->S->flow.stage]);\n}\n")
        return out

    def _statics(self) -> dict[str, Any]:
        """Components, boards, graphs and the names builtins look up."""
        m = self.model
        ids = m.component_ids
        out: dict[str, Any] = {"ncomponents": len(ids), "component_ids": self._ints([self.texts.id(c) for c in ids])}
        out["component_kind"] = self._ints([self.texts.id(m.component_props[c]["kind"]) for c in ids])
        kinds = list(m.components_by_kind)
        index = {c: k for k, c in enumerate(ids)}
        members = [self._ints([index[c] for c in m.components_by_kind[k]]) for k in kinds]
        km = self._name("KM")
        self.tables.append(self._array(f"static const int32_t *const {km}", members))
        out.update(nkinds=len(kinds), kind_names=self._ints([self.texts.id(k) for k in kinds]), kind_members=km,
                   kind_nmembers=self._ints([len(m.components_by_kind[k]) for k in kinds]))
        props = _prop_rows(m)
        matrix = [m.component_props[c].get(p, MISSING) for p in props for c in ids]
        k = self.constants.index(matrix)
        self.init.append(f"RP_MODEL.props = K[{k}].u.l->items;")
        out.update(nprops=len(props), prop_names=self._ints([self.texts.id(p) for p in props]), props="NULL")
        boards = list(m.boards.values())
        set_names, set_len, set_steps = [], [], []
        for g in boards:
            own = list(g.own_sets.items())
            set_names.append(self._ints([self.texts.id(n) for n, _ in own]))
            set_len.append(self._ints([len(v) for _, v in own]))
            steps = self._name("BS")
            self.tables.append(self._array(f"static const int32_t *const {steps}",
                                           [self._ints([c for vec in v for c in vec]) for _, v in own]))
            set_steps.append(steps)
        for label, rows, kind in (("BN", set_names, "int32_t *const"), ("BL", set_len, "int32_t *const"),
                                  ("BV", set_steps, "int32_t *const *const")):
            self.tables.append(self._array(f"static const {kind} {label}", rows))
        out.update(nboards=len(boards), board_names=self._ints([self.texts.id(g.name) for g in boards]),
                   board_width=self._ints([g.width for g in boards]),
                   board_height=self._ints([g.height for g in boards]),
                   board_nsets=self._ints([len(g.own_sets) for g in boards]),
                   board_set_names="BN", board_set_len="BL", board_set_steps="BV")
        out.update(self._graphs())
        out["dir_names"] = self._ints([self.texts.id(d) for d in DIRECTIONS])
        out["set_names"] = self._ints([self.texts.id(s) for s in DIRECTION_SETS])
        out["text_kind"] = self.texts.id("kind")
        out["text_id"] = self.texts.id("id")
        return out

    def _graphs(self) -> dict[str, Any]:
        graphs = list(self.model.graphs.items())
        starts, adjs = [], []
        self.tables.append(f"static const rv *GRAPH_NODES[{max(len(graphs), 1)}];\n"
                           f"static rv GRAPH_NODE_LIST[{max(len(graphs), 1)}];\n")
        for g, (_, data) in enumerate(graphs):
            nodes = data["nodes"]
            position = {value_key(n): k for k, n in enumerate(nodes)}
            start, adj = [0], []
            for n in nodes:
                adj += [position[value_key(x)] for x in data["adj"].get(value_key(n), [])]
                start.append(len(adj))
            starts.append(self._ints(start))
            adjs.append(self._ints(adj))
            k = self.constants.index(nodes)
            self.init.append(f"GRAPH_NODES[{g}] = K[{k}].u.l->items; GRAPH_NODE_LIST[{g}] = K[{k}];")
        self.tables.append(self._array("static const int32_t *const GRAPH_START", starts))
        self.tables.append(self._array("static const int32_t *const GRAPH_ADJ", adjs))
        return {"ngraphs": len(graphs), "graph_names": self._ints([self.texts.id(n) for n, _ in graphs]),
                "graph_nnodes": self._ints([len(d["nodes"]) for _, d in graphs]), "graph_nodes": "GRAPH_NODES",
                "graph_node_list": "GRAPH_NODE_LIST", "graph_adj_start": "GRAPH_START", "graph_adj": "GRAPH_ADJ"}

    def _component_of_text(self) -> dict[str, Any]:
        m = self.model
        table = [-1] * len(self.texts.ids)
        for k, c in enumerate(m.component_ids):
            table[self.texts.id(c)] = k
        return {"ncomponent_texts": len(table), "component_of_text": self._ints(table)}

    def _init_function(self) -> str:
        lines = ["int rp_model_init(void)", "{",
                 "    if (!rp_texts_init(TEXT_BYTES, TEXT_ENDS, TEXT_COUNT)) return 0;",
                 "    if (!rp_decode_constants(CONST_BYTES, K, CONST_COUNT)) return 0;"]
        lines += ["    " + line for line in self.init]
        lines += ["    return 1;", "}"]
        return "\n".join(lines) + "\n"


def _inlined(text: str, step_inline: bool) -> str:
    """A function's text, declared RP_STEP_INLINE when the step may inline it and it is INLINED_LINES or fewer."""
    if step_inline and text.count("\n") <= INLINED_LINES:
        assert text.startswith("static ")
        return "RP_STEP_INLINE " + text[len("static "):]
    return text


def _params(f: CFunc, params: tuple[str, ...], ints: frozenset[str] = frozenset()) -> dict[str, Val]:
    """A site's locals, which come in A[0], A[1], ...: read once where the function starts if it is pure;
    those named in `ints` always hold ints, read as C ints."""
    def local(k: int, p: str) -> Val:
        if p in ints:
            return Val(f.int_param(k) if f.pure else f"A[{k}].u.i", "int")
        return Val(f.param(k) if f.pure else f"A[{k}]")

    return {p: local(k, p) for k, p in enumerate(params)}


def lower_model(model: GameModel, checking: bool = False, probes: tuple = (), probe_effects: tuple = ()) -> Lowered:
    """The C source of `model` (NotLowered when some construct keeps it on the Python engine).

    `probes` and `probe_effects` are extra code, each a tree and its scope, that tests run through
    `rp_probe` and `rp_probe_effects` (a probe's locals are ints handed in with the call)."""
    return _ModuleWriter(model, checking, probes, probe_effects).write()


__all__ = ["Lowered", "NotLowered", "lower_model", "GENERATOR_VERSION", "BUILTINS"]
