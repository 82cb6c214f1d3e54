"""Play one scenario against a loaded game and report what did not hold.

Every check is compiled before the first move, with the game's own names
(state variables, constants, functions, flow values) plus a few names that
only scenarios need, so a mistyped name is reported even when an earlier
step fails.  A refusal must come from the named rule or code: a move that
does not parse, or is refused for another reason, fails rather than passing
as a refusal.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from ruleplay.dsl import ast as A
from ruleplay.dsl import runtime as R
from ruleplay.dsl.compiler import Compiler
from ruleplay.dsl.diagnostics import Diagnostic
from ruleplay.dsl.parser import DslSyntaxError, parse_effects, parse_expr
from ruleplay.dsl.scope import Scope
from ruleplay.validators.hook_statements import GAME_HOOK, ignored_flow_statements

from ..engine.errors import IllegalMoveError, MoveParseError, RuleplayError
from ..engine.flow import FlowRunner
from ..engine.game import Game
from ..engine.rng import Rng
from ..engine.state import State
from .scenario_file import Check, Scenario, Step
from .why import Part, parts_of, show, why

# Names a scenario check may use beyond the game's own; the game's names win on a clash.
EXTRAS: dict[str, Callable[[State], Any]] = {
    "terminal": lambda s: s.is_terminal(),
    "scores": lambda s: s.scores(),
    "returns": lambda s: s.returns(),
    "legal": lambda s: [str(m) for m in s.legal_moves()],
    "fired": lambda s: list(s.last_fired),
}


class _Broken(Exception):
    """A step could not be carried out; later steps would run on the wrong state."""


@dataclass
class _CompiledCheck:
    check: Check
    fn: Callable[[R.Ctx], Any]
    parts: Part  # what the check is made of, shown when it is false
    extras: frozenset[str]


class ScenarioPlayer:
    """Compiles a scenario's code for one game, then runs its steps, collecting located failures."""

    def __init__(self, scenario: Scenario, game: Game):
        self.sc = scenario
        self.game = game
        self.model = game.model
        self.failures: list[str] = []
        self.checks: dict[tuple, _CompiledCheck] = {}
        self.setup: Callable[[R.Ctx], None] | None = None
        self.state: State | None = None

    def fail(self, code: str, message: str, path: tuple, hint: str = "") -> None:
        self.failures.append(self.sc.problem(code, message, path, hint))

    # ------------------------------------------------------------ compile
    def _report(self, compiler: Compiler, hint: str = "") -> bool:
        """Move the compiler's problems into the failures; True if there were any."""
        problems = list(compiler.problems)
        for p in problems:
            self.failures.append(Diagnostic(p.code, p.message, p.pos.file, p.pos.line, p.pos.col,
                                            hint=p.hint or hint,
                                            source_line=self.sc.doc.source_line(p.pos.line)).format())
        compiler.problems.clear()
        return bool(problems)

    def _syntax(self, err: DslSyntaxError) -> None:
        pos = err.pos
        self.failures.append(Diagnostic(err.code, err.message, pos.file, pos.line, pos.col, hint=err.hint,
                                        source_line=self.sc.doc.source_line(pos.line)).format())

    def compile(self, observation_keys: list[str]) -> None:
        compiler = self.model.compiler()
        game_scope = self.model.scope
        extras = frozenset(n for n in EXTRAS if game_scope.resolve(n) is None)
        check_scope = game_scope.with_locals(*extras)
        seen_scope = Scope().only_locals(*observation_keys)
        seen_hint = f"an `observe:` check sees only {', '.join(observation_keys)}; the game's variables are " \
                    "under `state.`"
        if self.sc.setup is not None:
            try:
                node = parse_effects(self.sc.setup, self.sc.doc.origin(("setup",)))
                self.setup = compiler.block(node, game_scope)
                self._report(compiler)
                self._refuse_flow_statements(node)
            except DslSyntaxError as err:
                self._syntax(err)
        for step in self.sc.steps:
            if step.check is not None and step.check.viewer is not None:
                self._compile_check(compiler, step.check, seen_scope, frozenset(), seen_hint)
            elif step.check is not None:
                self._compile_check(compiler, step.check, check_scope, extras, "")
            elif step.kind == "illegal" and step.rule is not None and step.rule not in self.model.cited_rules:
                cited = ", ".join(sorted(self.model.cited_rules)) or "none"
                self.fail("RP641", f"rule {step.rule} is not cited anywhere in the ruleset", step.path,
                          hint=f"cited rules: {cited}")

    def _refuse_flow_statements(self, setup: A.Node) -> None:
        """`goto`, `stage`, `end_turn`, `end_phase` in the setup: refused, as in a ruleset's (RP324).

        The setup arranges the variables of the position the game starts in,
        as a ruleset's `setup:` does, and like it is a hook whose flow
        statements the flow never reads: `goto guess` would leave the game in
        its first phase and the scenario would test another position than the
        one its author wrote."""
        for where, control in ignored_flow_statements(self.model, setup, GAME_HOOK):
            statement = f"{control.op} {control.arg}" if control.arg is not None else control.op
            through = f" (procedure {where.name!r} says it)" if isinstance(where, A.CallProc) else ""
            self.failures.append(Diagnostic(
                "RP324", f"`{statement}` in the scenario's setup does nothing{through}: a setup sets variables, "
                "the flow does not read it there", where.pos.file, where.pos.line, where.pos.col,
                hint="reach another phase or stage with `move:` steps; in a setup only `end_game` takes effect",
                source_line=self.sc.doc.source_line(where.pos.line)).format())

    def _compile_check(self, compiler: Compiler, check: Check, scope: Scope, extras: frozenset[str],
                       hint: str) -> None:
        if check.viewer is not None and check.viewer >= self.model.players:
            message = self.sc.problem("RP641", f"`observe: {check.viewer}` is not a seat of this "
                                      f"{self.model.players}-player game", check.viewer_path)
            if message not in self.failures:
                self.failures.append(message)
            return
        try:
            node = parse_expr(check.text, self.sc.doc.origin(check.path))
        except DslSyntaxError as err:
            self._syntax(err)
            return
        fn = compiler.expr(node, scope)
        if self._report(compiler, hint):
            return
        parts = parts_of(node, lambda part: fn if part is node else compiler.expr(part, scope))
        used = frozenset(n.name for n in A.walk(node) if isinstance(n, A.Name) and n.name in extras)
        self.checks[check.path] = _CompiledCheck(check, fn, parts, used)

    # ---------------------------------------------------------------- run
    def run(self) -> list[str]:
        try:
            self.state = self.game.new_state(self.sc.seed)
        except RuleplayError as err:
            self.fail("RP643", f"cannot start the game: {err}", ("game",))
            return self.failures
        self.compile(list(self.state.observe(0)))
        if self.failures:
            return self.failures
        try:
            if self.setup is not None:
                self._run_setup()
            for step in self.sc.steps:
                getattr(self, "_" + step.kind)(step)
        except _Broken:
            pass
        return self.failures

    def _run_setup(self) -> None:
        assert self.state is not None and self.setup is not None
        data = R.clone(self.state.data)
        rng = Rng(data["rng"])
        ctx = R.Ctx(data["vars"], data["flow"], self.model, rng=rng,
                    budget=self.model.budget())
        try:
            self.setup(ctx)
            # The arranged position as the game leaves one after a hook: triggers and end conditions run,
            # and a seat with no move is dealt with as its phase says (`when_stuck`), as in play.
            ctx.env = {}
            runner = FlowRunner(self.model, ctx)
            if not runner.check_end():
                runner.settle()
        except RuleplayError as err:
            self.fail("RP643", f"setup failed: {err}", ("setup",))
            raise _Broken from None
        data["rng"] = rng.state
        self.state = self.state.with_data(data)

    def _move(self, step: Step) -> None:
        state, text = self.state, step.move
        assert state is not None and text is not None
        try:
            if text == "chance" and "chance" not in self.model.actions:
                if not state.is_chance_node():
                    who = "the game is over" if state.is_terminal() else f"player {state.current_player} is to move"
                    self.fail("RP643", f"`move: chance` samples a chance outcome, but {who}", step.path)
                    raise _Broken
                self.state = state.apply_chance()
            else:
                self.state = state.apply(self.game.parse_move(text))
        except MoveParseError as err:
            self.fail("RP643", f"cannot read move {text}: {err}", step.path)
            raise _Broken from None
        except IllegalMoveError as err:
            cite = f" by rule {err.rule}" if err.rule else ""
            self.fail("RP643", f"move {text} was refused{cite} ({err.code}): {err.reason}", step.path,
                      hint=self._legal_hint())
            raise _Broken from None
        except RuleplayError as err:
            self.fail("RP643", f"playing {text} failed: {err}", step.path)
            raise _Broken from None

    def _legal_hint(self) -> str:
        assert self.state is not None
        try:
            legal = [str(m) for m in self.state.legal_moves()]
        except RuleplayError:
            return ""
        shown = ", ".join(legal[:12]) + (", …" if len(legal) > 12 else "")
        return f"legal now: {shown or 'none'}"

    def _illegal(self, step: Step) -> None:
        state, text = self.state, step.move
        assert state is not None and text is not None
        wanted = " and ".join(x for x in (f"by rule {step.rule}" if step.rule else "",
                                          f"with code {step.code}" if step.code else "") if x)
        expected = f"expected {text} to be refused {wanted}"
        try:
            move = self.game.parse_move(text)
        except MoveParseError as err:
            self.fail("RP642", f"{expected}, but the move text does not parse: {err}", step.path,
                      hint="a mistyped move must not pass as a refusal")
            return
        try:
            state.apply(move)
        except IllegalMoveError as err:
            if (step.rule is None or err.rule == step.rule) and (step.code is None or err.code == step.code):
                return
            seen = f"by rule {err.rule}" if err.rule else "citing no rule"
            self.fail("RP642", f"{expected}, but it was refused {seen} with code {err.code}: {err.reason}",
                      step.path)
        except RuleplayError as err:
            self.fail("RP642", f"{expected}, but playing it failed: {err}", step.path)
        else:
            self.fail("RP642", f"{expected}, but it is legal", step.path)

    def _expect(self, step: Step) -> None:
        assert self.state is not None and step.check is not None
        cc = self.checks[step.check.path]
        where = f"the observation of player {cc.check.viewer}" if cc.check.viewer is not None else "the state"
        try:
            ctx = self._ctx(cc)
            value = cc.fn(ctx)
        except RuleplayError as err:
            self.fail("RP642", f"check `{cc.check.text}` could not be evaluated on {where}: {err}", cc.check.path)
            return
        if value is True:
            return
        seen = "false" if value is False else f"{show(value)}, not a boolean"
        detail = why(cc.parts, self._ctx(cc)) if value is False else ""
        label = f"{cc.check.message}: " if cc.check.message else ""
        self.fail("RP642", f"{label}expected `{cc.check.text}` to be true on {where}, but it is {seen}{detail}",
                  cc.check.path)

    def _ctx(self, cc: _CompiledCheck) -> R.Ctx:
        state = self.state
        assert state is not None
        if cc.check.viewer is not None:  # the seat's observation, and the one flow value any seat knows
            flow = {"players": state.data["flow"]["players"]}  # what seats() and next_seat() read
            return R.Ctx({}, flow, self.model, env=state.observe(cc.check.viewer))
        env = {name: EXTRAS[name](state) for name in cc.extras}
        return R.Ctx(state.data["vars"], state.data["flow"], self.model, env=env)

    def _fired(self, step: Step) -> None:
        assert self.state is not None
        fired = self.state.last_fired
        missing = [r for r in step.value if r not in fired]
        if missing:
            self.fail("RP642", f"expected {', '.join(missing)} to fire on the last move, but the rules fired were "
                      f"[{', '.join(fired)}]", step.path)

    def _terminal(self, step: Step) -> None:
        state = self.state
        assert state is not None
        if state.is_terminal() != step.value:
            seen = "over" if state.is_terminal() else f"not over (player {state.current_player} to move, " \
                                                      f"phase {state.phase}, round {state.round})"
            self.fail("RP642", f"expected the game to be {'over' if step.value else 'not over'}, but it is {seen}",
                      step.path)

    def _numbers(self, step: Step, what: str, get: Callable[[], list]) -> None:
        try:
            seen = get()
        except RuleplayError as err:
            self.fail("RP642", f"cannot compute {what}: {err}", step.path)
            return
        want = step.value
        if len(seen) != len(want) or not all(_same_number(a, b) for a, b in zip(seen, want)):
            self.fail("RP642", f"expected {what} {show(want)}, but they are {show(seen)}", step.path)

    def _scores(self, step: Step) -> None:
        assert self.state is not None
        self._numbers(step, "scores", self.state.scores)

    def _returns(self, step: Step) -> None:
        assert self.state is not None
        self._numbers(step, "returns", self.state.returns)


def _same_number(seen: float, want: float) -> bool:
    """Whether a score or return agrees with the scenario's: whole numbers exactly (the rules make them up to
    1024 bits, past the largest float), any other within 1e-9."""
    if type(seen) is int and type(want) is int:
        return seen == want
    try:
        return math.isclose(seen, want, abs_tol=1e-9)
    except OverflowError:  # a whole number no float can hold, against a fraction: not the same
        return False


def play(scenario: Scenario, game: Game) -> list[str]:
    """The located failures of `scenario` played on `game`; empty when every step holds."""
    return ScenarioPlayer(scenario, game).run()
