"""Turns, phases, rounds and the end of the game — one event loop for all.

After every move the loop runs in a fixed priority (as boardgame.io does):
game end, then turn end, then phase end, then round end.  A round ends when
play passes from a phase to one at or before it in the `phases` list.  Every
hook (`on_begin`, `on_end`, `on_round_end`, …) shares the same statements,
and a guard stops a ruleset whose phases cycle without anyone moving.

Flow values live in the state's `flow` dictionary:
  phase, stage, seat (whose turn it is), player (who decides now: the seat,
  or CHANCE = -1 in a chance phase or stage, TERMINAL = -4), players, round, turn,
  start, queue (seats still to act in an `each` phase), end_round (the round
  after which the game ends, once an end condition asked for it), done,
  steps (moves made).
"""

from __future__ import annotations

from ruleplay.dsl import runtime as R

from .errors import DeadlockError, StepLimitError
from .legal import CHANCE, TERMINAL, moves_now
from .model import GameModel, Phase

MAX_TRANSITIONS = 1000


def initial_flow(model: GameModel) -> dict:
    return {
        "phase": model.phase_order[0], "stage": None, "seat": 0, "player": 0, "players": model.players,
        "round": 1, "turn": 0, "start": 0, "queue": [], "end_round": None, "done": False, "steps": 0,
        "ended_by": None,
    }


STUCK_HINT = ("when no seat can move the game must end: add an end condition that holds then (under `end:`, or "
              "the phase's `end_if`), or set `when_stuck: end_game` on the phase")

ALL_SKIPPED_HINT = ("the game must end before `flow.skip_if` skips every seat: add an end condition (under `end:`) "
                    "that holds once it does, or make skip_if leave a seat to act")


class FlowRunner:
    """Advances the flow of one state after a move or at the start of the game."""

    def __init__(self, model: GameModel, ctx: R.Ctx):
        self.model = model
        self.ctx = ctx
        self.flow = ctx.flow
        self.transitions = 0
        self.trail: list[str] = []

    # -------------------------------------------------------------- helpers
    def active(self, seat: int) -> bool:
        skip = self.model.skip_if
        if skip is None:
            return True
        env = self.ctx.env
        saved = env.get("p", None)
        env["p"] = seat
        try:
            return not skip(self.ctx)
        finally:
            if saved is None:
                env.pop("p", None)
            else:
                env["p"] = saved

    def next_active(self, seat: int, include_self: bool = False) -> int | None:
        n = self.flow["players"]
        if self.model.skip_if is None:  # every seat is active: the next one, or this one
            return seat % n if include_self else (seat + 1) % n
        for k in range(0 if include_self else 1, n + (1 if not include_self else 0)):
            cand = (seat + k) % n
            if self.active(cand):
                return cand
        return None

    def set_seat(self, seat: int) -> None:
        self.flow["seat"] = seat
        self.flow["player"] = seat

    def _hook(self, hook) -> None:
        hook(self.ctx)

    def _guard(self, what: str) -> None:
        self.transitions += 1
        self.trail.append(what)
        if self.transitions > MAX_TRANSITIONS:
            if not any(self.active(seat) for seat in range(self.flow["players"])):
                # `order: each` phases skip on when no seat may act: the loop is skip_if's, not end_if's
                raise self.all_skipped(self.flow["phase"])
            loop = " -> ".join(self.trail[-8:])
            if all(step.startswith("pass in ") for step in self.trail[-8:]):
                raise R.LimitError(f"every seat passed {MAX_TRANSITIONS} times without a move: {loop}",
                                   hint="no seat can move and `when_stuck: pass` passes for ever: end the game "
                                        "there with `when_stuck: end_game`, or an end condition")
            raise R.LimitError(f"the flow changed phase {MAX_TRANSITIONS} times without a move: {loop}",
                               hint="a phase ends as soon as it begins; check its end_if and next")

    def finish(self, reason: str) -> None:
        self.flow["done"] = True
        self.flow["player"] = TERMINAL
        self.flow["stage"] = None
        self.flow["ended_by"] = reason

    # ----------------------------------------------------------- end checks
    def run_triggers(self) -> None:
        """Fire every trigger whose condition holds, until none does (bounded)."""
        triggers = self.model.triggers
        if not triggers:
            return
        for _ in range(MAX_TRANSITIONS):
            fired = []
            for t in triggers:
                if t.when(self.ctx):
                    self.ctx.fired.extend(t.rules)
                    t.effects(self.ctx)
                    fired.append(t)
            if not fired:
                return
        raise self._unsettled(fired)

    def _unsettled(self, fired: list) -> R.LimitError:
        """The error for triggers that keep firing: those of the last pass, named, at the first one's `when`."""
        names = [f"triggers[{t.path[1]}]" + (f" ({', '.join(t.rules)})" if t.rules else "") for t in fired]
        named = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        hint = ("a trigger's effects must make its own condition false" if len(fired) == 1 else
                "each of these triggers makes another's condition true again: a trigger's effects must leave every "
                "trigger's condition false once the game has settled")
        return R.LimitError(f"triggers fired {MAX_TRANSITIONS} times in a row without settling: {named} fired in "
                            f"every pass", self.model.code_at(fired[0].path + ("when",)), hint=hint)

    def check_end(self, at_round_end: bool = False) -> bool:
        """Run triggers, then evaluate end conditions; returns True if the game is over now."""
        if self.model.triggers:
            self.run_triggers()
        if self.ctx.signals.end_game:
            self.finish("end_game")
            return True
        f = self.flow
        for index, cond in enumerate(self.model.end):
            if cond.disabled or not cond.when(self.ctx):
                continue
            if cond.at == "now":
                self.ctx.fired.extend(cond.rules)
                self.finish(cond.label(index))
                return True
            target = f["round"] if cond.at == "end_of_round" else f["round"] + 1
            if f["end_round"] is None or target < f["end_round"]:
                f["end_round"] = target
                f["ended_by"] = cond.label(index)
                self.ctx.fired.extend(cond.rules)
        if at_round_end and f["end_round"] is not None and f["round"] >= f["end_round"]:
            self.finish(f["ended_by"])
            return True
        return False

    # ------------------------------------------------------------ lifecycle
    def start_game(self) -> None:
        f = self.flow
        if self.model.start_player is not None:
            start = self.model.start_player(self.ctx)
            if type(start) is not int or not 0 <= start < f["players"]:
                raise R.RuleRuntimeError(f"flow.start_player gave {R.quoted(start)}, not a seat 0..{f['players'] - 1}",
                                         self.model.code_at(("flow", "start_player")))
            f["start"] = start
        self._hook(self.model.on_round_begin)
        if self.check_end():
            return
        self.begin_phase(self.model.phase_order[0])

    def begin_phase(self, name: str) -> None:
        model, f = self.model, self.flow
        while True:
            self._guard(name)
            phase = model.phases[name]
            f["phase"] = name
            f["stage"] = None
            self.ctx.signals = R.Signals()
            phase.on_begin(self.ctx)
            if self.check_end():
                return
            if self.ctx.signals.end_phase:
                name = self.leave_phase(phase)
                if name is None:
                    return
                continue
            first = f["start"]
            if phase.first is not None:
                first = phase.first(self.ctx)
                if type(first) is not int or not 0 <= first < f["players"]:
                    raise R.RuleRuntimeError(f"phase {name!r}: `first` gave {R.quoted(first)}, not a seat "
                                             f"0..{f['players'] - 1}", self.model.code_at(phase.path + ("first",)))
            if phase.order == "chance":
                f["player"] = CHANCE
                f["queue"] = []
                return
            if phase.order == "each":
                n = f["players"]
                f["queue"] = [s for s in ((first + k) % n for k in range(n)) if self.active(s)]
                if not f["queue"]:
                    name = self.leave_phase(phase)
                    if name is None:
                        return
                    continue
                self.set_seat(f["queue"][0])
                return
            seat = first if self.active(first) else self.next_active(first)
            if seat is None:
                raise self.all_skipped(name)
            self.set_seat(seat)
            f["queue"] = []
            return

    def all_skipped(self, phase_name: str) -> DeadlockError:
        """RP505 for a phase where `flow.skip_if` skips every seat, located at the skip_if: no move can
        change that, so the rules must end the game before it happens (or leave a seat to act)."""
        return DeadlockError(f"phase {phase_name!r}: no player can act (all are skipped)",
                             self.model.code_at(("flow", "skip_if")), hint=ALL_SKIPPED_HINT)

    def leave_phase(self, phase: Phase) -> str | None:
        """Run the phase's end hook and pick the next phase; None when the game ended."""
        self.ctx.signals.end_phase = False
        goto = self.ctx.signals.goto
        self.ctx.signals.goto = None
        phase.on_end(self.ctx)
        if self.check_end():
            return None
        goto = self.ctx.signals.goto or goto or phase.next
        order = self.model.phase_order
        here = order.index(phase.name)
        nxt = goto if goto is not None else order[(here + 1) % len(order)]
        if nxt not in self.model.phases:
            raise R.RuleRuntimeError(f"goto {nxt!r}: there is no such phase")
        if order.index(nxt) <= here:
            if not self.end_round():
                return None
        return nxt

    def end_round(self) -> bool:
        """Close the round; returns False when the game ended with it."""
        f = self.flow
        self.model.on_round_end(self.ctx)
        if self.check_end(at_round_end=True):
            return False
        f["round"] += 1
        if self.model.rotate_start:
            nxt = self.next_active(f["start"])
            if nxt is not None:
                f["start"] = nxt
        self.model.on_round_begin(self.ctx)
        return not self.check_end()

    def end_turn(self, force_phase_end: bool) -> None:
        model, f = self.model, self.flow
        phase = model.phases[f["phase"]]
        f["stage"] = None
        f["player"] = f["seat"]
        f["turn"] += 1
        over = force_phase_end
        if phase.order == "each" and f["queue"]:
            f["queue"] = f["queue"][1:]
            over = over or not f["queue"]
        if phase.order == "chance" and phase.end_if is None:
            over = True
        if not over and phase.end_if is not None and phase.end_if(self.ctx):
            over = True
        if not over:
            if phase.order == "each":
                # Seats eliminated meanwhile lose their place in the queue.
                f["queue"] = [s for s in f["queue"] if self.active(s)]
                if f["queue"]:
                    self.set_seat(f["queue"][0])
                    return
            elif phase.order == "chance":
                f["player"] = CHANCE
                return
            else:
                nxt = self.next_active(f["seat"])
                if nxt is not None:
                    self.set_seat(nxt)
                    return
                raise self.all_skipped(phase.name)
        nxt_name = self.leave_phase(phase)
        if nxt_name is not None:
            self.begin_phase(nxt_name)

    def after_move(self) -> None:
        """Run the event loop after a move's effects."""
        f, sig = self.flow, self.ctx.signals
        f["steps"] += 1
        if self.check_end():
            return
        phase = self.model.phases[f["phase"]]
        if sig.stage_set:
            if sig.stage is not None and sig.stage not in phase.stages:
                raise R.RuleRuntimeError(f"stage {sig.stage!r} is not declared in phase {phase.name!r}")
            f["stage"] = sig.stage
            chance_stage = sig.stage is not None and phase.stages[sig.stage].chance
            f["player"] = CHANCE if chance_stage else f["seat"]
        continuing = f["stage"] is not None and sig.stage_set
        if phase.turn == "multi":
            turn_over = sig.end_turn or sig.end_phase
        else:
            turn_over = sig.end_turn or sig.end_phase or not continuing
        if turn_over:
            force = sig.end_phase
            self.end_turn(force)
        if not f["done"] and f["steps"] >= self.model.limits["max_steps"]:
            raise StepLimitError(
                f"the game passed {self.model.limits['max_steps']} moves without ending "
                f"(now in phase {f['phase']!r}, round {f['round']}): the rules can loop",
                hint="add an end condition (a round cap is a rule with an assumption id), "
                     "or raise limits.max_steps")

    def settle(self, listing: R.Budget | None = None) -> list:
        """Make sure the player to move can move; apply `when_stuck`. Returns the legal moves.

        Every listing of this step, however many seats pass, is charged to
        one budget (`listing`, or a fresh one): one step, one bound.
        """
        model, f, ctx = self.model, self.flow, self.ctx
        listing = listing or model.budget()
        for passes in range(MAX_TRANSITIONS):
            if f["done"]:
                return []
            budget, ctx.budget, ctx.env = ctx.budget, listing, {}  # the move's own context lists, as `generate`
            try:
                moves = moves_now(model, ctx)
            except R.LimitError as err:
                if passes < f["players"]:
                    raise  # a seat not yet listed may have moves: the limit's own message is the truth
                # One step, one bound: every seat was found without a move, and the listing ran out of work
                # before the pass guard below could say why; this says it, as the limit's own hint would mislead.
                stuck = R.LimitError(f"{err.message}, listing the moves of seat after seat who had none "
                                     f"({passes} passed in a row, every seat at least once: `when_stuck: pass`)",
                                     err.pos, STUCK_HINT)
                stuck.code = err.code
                raise stuck from None
            finally:
                ctx.budget = budget
            if moves:
                return moves
            phase = model.phases[f["phase"]]
            who = "the chance player" if f["player"] == CHANCE else f"player {f['player']}"
            where = f"phase {phase.name!r}" + (f", stage {f['stage']!r}" if f["stage"] else "")
            if phase.when_stuck == "end_game":
                self.finish(f"stuck in {phase.name}")
                return []
            if phase.when_stuck == "pass" and f["player"] != CHANCE:
                self._guard(f"pass in {phase.name}")
                self.ctx.signals = R.Signals()
                self.end_turn(False)
                continue
            raise DeadlockError(f"{who} has no legal move in {where}",
                                hint="set `when_stuck: pass` or `end_game` on the phase, or add a pass action")
        raise R.LimitError(f"the seats passed {MAX_TRANSITIONS} turns in a row (`when_stuck: pass`) and the game "
                           "did not end: no one can move", hint=STUCK_HINT)
