"""Game states: plain JSON data, applied move by move.

A state is `{"vars": …, "flow": …, "rng": int}` and nothing else — no Python
objects — so copy, hash, save, load and replay are exact by construction.
`apply` works on a copy (states are values; the old one stays valid), and
caches the next legal moves, which the flow loop computes anyway to detect a
player who cannot move.

The copy holds only what the move can change: the flow and the variables
some effect of play writes (`GameModel.written_vars`, read from the effects'
assignment and list-operation targets when the ruleset loads); the other
variables are shared between the states, since nothing changes them in
place.  So a state's `data` is read, never changed, except on a `copy()`,
which is whole and its own.

Searches and playouts that need no new state per move use the opt-in fast
path `apply_in_place(move)`: the same move made on the state itself, kept
on an undo stack (the old data, O(1) to restore with `undo()`), as
python-chess's push and pop; `undo=False` keeps nothing and copies nothing.
"""

from __future__ import annotations

import json
import math
import reprlib
from typing import Any, Protocol

from ruleplay.dsl import runtime as R

from .errors import DeadlockError, IllegalMoveError, MoveParseError, RuleplayError, SeatError, StateFormatError
from .flow import FlowRunner
from .history import History
from .legal import CHANCE, TERMINAL, available_actions, bind, explain, generate, outcome_weight
from .model import GameModel
from .moves import Move, parse_move
from .observe import observe, seat_facing
from .render import render_text
from .rng import Rng
from .scoring import rank_returns, scores
from .views import seen_by, seen_to_json, view_text


class GameOfState(Protocol):
    """What a state needs of its game; `engine.game.Game` is one.

    Naming it here keeps the import one way (game imports state, never the
    reverse), while the state still answers through its game for the action
    numbering, the saved-state header and invariant checks.
    """

    model: GameModel
    checking: bool
    max_chance_outcomes: int

    def move_to_index(self, move: Move | str) -> int: ...

    def state_header(self) -> dict: ...

    def check_invariants(self, state: "State") -> None: ...


DATA_KEYS = frozenset({"vars", "flow", "rng"})  # what every state's data holds (`successor_data` makes them)


def _position_text(data: dict) -> str:
    """A state's data as canonical JSON text: what equality confirms and the hash is taken of."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


class State:
    __slots__ = ("game", "data", "_legal", "last_fired", "last_log", "last_events", "_history",
                 "_undo")

    def __init__(self, game: GameOfState, data: dict, legal: list[Move] | None = None,
                 history: tuple[Move, ...] | History = ()):
        self.game = game
        self.data = data
        self._legal = legal
        self.last_fired: list[str] = []
        self.last_log: list[Any] = []
        self.last_events: list[dict] = []  # what the last move's `announce`s told: text, rule, seats told
        self._history = history if isinstance(history, History) else History.of(tuple(history))
        self._undo: list[tuple] = []  # what `undo()` restores, one entry per move made in place

    @property
    def history(self) -> tuple[Move, ...]:
        """Every move applied since the initial state, chance outcomes included."""
        return self._history.moves()

    @property
    def last_move(self) -> Move | None:
        """The move that led to this state (None at the start): O(1), unlike `history[-1]`."""
        return self._history.last()

    # ------------------------------------------------------------- queries
    @property
    def current_player(self) -> int:
        """0..N-1, CHANCE (-1) at a chance node, TERMINAL (-4) when the game is over."""
        return self.data["flow"]["player"]

    @property
    def phase(self) -> str:
        return self.data["flow"]["phase"]

    @property
    def round(self) -> int:
        return self.data["flow"]["round"]

    def is_chance_node(self) -> bool:
        return self.data["flow"]["player"] == CHANCE

    def is_terminal(self) -> bool:
        return self.data["flow"]["done"]

    def legal_moves(self) -> list[Move]:
        """Legal moves (or chance outcomes) in the ruleset's fixed order."""
        if self._legal is None:
            with R.recursion_guard():
                legal = generate(self.game.model, self.data["vars"], self.data["flow"])
            if not legal and not self.data["flow"]["done"]:
                raise self._stuck()
            self._legal = legal
        return list(self._legal)

    def _stuck(self) -> DeadlockError:
        """A position that is not over and where the seat to move has no move: one the rules never hand
        out (after each move they settle a stuck turn by the phase's `when_stuck`), so a saved or
        hand-made one. Its listing would be empty, which an agent or adapter takes for a broken game."""
        flow = self.data["flow"]
        who = "the chance player" if flow["player"] == CHANCE else f"player {flow['player']}"
        return DeadlockError(f"{who} has no legal move in phase {flow['phase']!r} and the game is not over: "
                             "a position the rules do not reach (a saved or hand-made state)",
                             hint="save a position where the seat to move can move, or one whose game has "
                                  "ended (flow.done)")

    def is_legal(self, move: Move) -> bool:
        return move in (self._legal if self._legal is not None else self.legal_moves())

    def legal_actions(self) -> list[int]:
        """Legal moves as indices of the game's fixed action numbering."""
        self.legal_moves()
        return [m.index for m in self._legal]  # type: ignore[union-attr, misc]  # listed moves carry their number

    def chance_outcomes(self) -> list[tuple[Move, float]] | None:
        """[(outcome, probability)] at a chance node, or None if there are too many to list."""
        if not self.is_chance_node():
            return []
        moves = self.legal_moves()
        if len(moves) > self.game.max_chance_outcomes:
            return None
        weights = self._weights(moves)
        total = sum(weights)
        return [(m, w / total) for m, w in zip(moves, weights)]

    def _weights(self, moves: list[Move]) -> list[float]:
        model = self.game.model
        ctx = R.Ctx(self.data["vars"], self.data["flow"], model, budget=model.budget())
        with R.recursion_guard():
            out = [outcome_weight(model, ctx, m) for m in moves]
        if not math.isfinite(sum(out)):  # the listing left only outcomes of weight above 0: the sum is > 0
            first = model.actions[moves[0].action]
            raise R.RuleRuntimeError("the chance outcomes' weights sum to more than a float holds: nothing can "
                                     "be drawn", model.code_at(first.path + ("weight",)),
                                     hint="give the outcomes weights whose sum is a finite number")
        return out

    def explain(self, move: Move | str, player: int | None = None) -> str | None:
        """Why `move` is illegal now, or None if it is legal.

        With `player`, the reason that seat may be told.  In a game that keeps
        secrets the first check that refuses a move can be one that reads
        what the seat cannot see (`"queen" not in hand[1 - current]` before
        `n >= 10`): which one refuses would tell it.  So the reason is then
        worked out from the seat's observation and the flow alone, and a
        refusal its view does not explain (a check that fails on a masked
        value, or passes there) is only "not a legal move now".
        """
        move = self._coerce(move)
        if player is None or not self.game.model.keeps_secrets:
            return self._refusal(self.data["vars"], move)
        if self.is_legal(move):
            return None
        try:
            reason = self._refusal(self.observe(player)["state"], move)
        except R.RuleRuntimeError:  # a check that cannot read a value the seat sees masked
            reason = None
        return reason or str(IllegalMoveError(move, "not a legal move now"))

    def _refusal(self, vars_: dict, move: Move) -> str | None:
        """Why `explain` finds `move` illegal over the variables `vars_` (the state's, or a seat's view of them)."""
        try:
            with R.recursion_guard():
                explain(self.game.model, vars_, self.data["flow"], move)
        except IllegalMoveError as err:
            return str(err)
        return None

    # ------------------------------------------------------------ changes
    def _coerce(self, move: Move | str) -> Move:
        if isinstance(move, Move):
            return move
        if isinstance(move, str):
            return parse_move(move)
        raise MoveParseError(f"not a move: {move!r}")

    def apply(self, move: Move | str, player: int | None = None, *, budget: R.Budget | None = None) -> "State":
        """The state after `move` (this state is unchanged). Raises IllegalMoveError.

        `budget` charges the move's work, and the listing of the next moves, to
        a budget the caller holds, e.g. `game.model.decision_budget()` for
        every move an agent tries before it decides, so that a whole
        decision has one bound; by default a move has its own budget.
        """
        move = self._coerce(move)
        data, legal, history, fired, log, events = self._advance(move, player, budget,
                                                         successor_data(self.game.model, self.data, move.action))
        state = State(self.game, data, legal, history)
        state.last_fired = fired
        state.last_log = log
        state.last_events = events
        if self.game.checking:
            self.game.check_invariants(state)
        return state

    def apply_in_place(self, move: Move | str, player: int | None = None, *, budget: R.Budget | None = None,
                       undo: bool = True) -> None:
        """Make `move` on this state itself: the fast path of playouts and searches (perft, MCTS).

        The same move as `apply` makes, with the same checks, errors, fired rules
        and budgets; only no new `State` is made.  With `undo` (the default) the
        move can be taken back with `undo()`, as with python-chess's push and
        pop: the variables the rules can change are copied first and the old
        ones kept, so taking a move back is exact and O(1), and a move that
        raises leaves the state as it was.  `undo=False` copies nothing and
        forgets the moves kept for `undo()`: the cheapest way to play a game to
        its end, but a move that raises then leaves the state unusable.  A state
        changed in place must not be given to code that keeps it (a watcher, an
        agent with a tree of states); `copy()` it for them.
        """
        self._in_place(move, player, budget, undo, None)

    def apply_chance_in_place(self, undo: bool = True) -> None:
        """`apply_chance()` made on this state itself; one `undo()` takes back the draw and the outcome."""
        move, drawn = self._sampled_outcome()
        self._in_place(move, None, None, undo, drawn)

    def undo(self) -> Move:
        """Take back the last move made with `apply_in_place` (or `apply_chance_in_place`); returns it."""
        if not self._undo:
            raise RuleplayError("undo() with no move made in place to take back", "RP607")
        move = self._history.last()
        self.data, self._legal, self._history, self.last_fired, self.last_log, self.last_events = self._undo.pop()
        return move  # type: ignore[return-value]  # a state with a move to take back has a last move

    def _in_place(self, move: Move | str, player: int | None, budget: R.Budget | None, undo: bool,
                  drawn: int | None) -> None:
        saved = (self.data, self._legal, self._history, self.last_fired, self.last_log, self.last_events)
        move = self._coerce(move)
        new = successor_data(self.game.model, self.data, move.action) if undo else self.data
        if drawn is not None:
            new["rng"] = drawn
        try:
            self.data, self._legal, self._history, self.last_fired, self.last_log, self.last_events = \
                self._advance(move, player, budget, new)
            if self.game.checking:
                self.game.check_invariants(self)
        except BaseException:
            if undo:
                self.data, self._legal, self._history, self.last_fired, self.last_log, self.last_events = saved
            raise
        if undo:
            self._undo.append(saved)
        else:
            self._undo.clear()

    def midway(self, move: Move | str) -> tuple[dict, int]:
        """The variables right after `move`'s own effects, before the flow's hooks ran (a phase's or a
        round's end, the next round's deal), and how many of the move's events its own effects told.

        What a replay shows as the move's result before it shows a round's
        end: the last card placed on a full table, not the table cleared for
        the next round.  A chance node's outcome is drawn as `apply_chance`
        draws it.  Nothing here changes this state.
        """
        move = self._coerce(move)
        data = self.data
        if self.is_chance_node():
            data = dict(data, rng=self._sampled_outcome()[1])
        cut: list = []
        State(self.game, data, self._legal, self._history)._advance(
            move, None, None, successor_data(self.game.model, data, move.action), cut)
        return cut[0], cut[1]

    def _advance(self, move: Move | str, player: int | None, budget: R.Budget | None, new: dict,
                 midway: list | None = None) -> tuple[dict, list[Move], History, list[str], list[Any], list[dict]]:
        """Make `move` on `new` (this state's data, or a copy of it): the data after the move and its
        settled flow, the next legal moves, the history, the rules fired, the log and the events told.
        `midway` (see `midway()`) receives a copy of the variables after the move's own effects and the
        number of events they told."""
        move = self._coerce(move)
        model, data = self.game.model, self.data
        flow = data["flow"]
        if player is not None or budget is not None:  # the playout's hot path names neither
            _check_caller(player, budget)
        if player is not None and player != flow["player"] and not flow["done"]:
            raise IllegalMoveError(move, f"it is not player {player}'s turn "
                                   f"(player {flow['player']} is to move)", "RP607")
        legal = self._legal if self._legal is not None else self.legal_moves()
        try:
            move = legal[legal.index(move)]  # the rules' own values: `pick(1.0)` is played as `pick(1)`
        except ValueError:
            legal = None  # the reason is raised outside the handler: no "during handling" chain to read past
        if legal is None:
            with R.recursion_guard():
                explain(model, data["vars"], flow, move)
            raise IllegalMoveError(move, "not a legal move now", "RP601")
        seen = seen_by(model, data["vars"], flow, move)  # fixed now, from the state the move is made in
        action = model.actions[move.action]
        rng = Rng(new["rng"])
        ctx = R.Ctx(new["vars"], new["flow"], model, rng=rng, env=bind(action, move),
                    budget=budget or model.budget())
        ctx.fired.extend(action.rules)
        try:  # `R.recursion_guard()` without a context manager's two calls per move
            action.effects(ctx)
            if midway is not None:
                midway += [R.clone(new["vars"]), len(ctx.events)]
            ctx.env = {}
            runner = FlowRunner(model, ctx)
            runner.after_move()
            legal = runner.settle(budget)
        except RecursionError:
            raise R.interpreter_too_deep() from None
        new["rng"] = rng.state
        fired = ctx.fired
        if len(fired) > 1:
            fired = list(dict.fromkeys(fired))  # each rule once, in firing order
        return new, legal, self._history.then(move, seen), fired, ctx.log, ctx.events

    def apply_chance(self) -> "State":
        """Sample an outcome at a chance node with the state's own seeded generator."""
        chosen, drawn = self._sampled_outcome()
        advanced = State(self.game, dict(self.data, rng=drawn), self._legal, self._history)
        return advanced.apply(chosen)

    def _sampled_outcome(self) -> tuple[Move, int]:
        """The outcome the state's generator draws here (by weight), and the generator's state after it."""
        if not self.is_chance_node():
            raise RuleplayError("apply_chance() at a node that is not a chance node", "RP607")
        rng = Rng(self.data["rng"])
        return self.draw_outcome(self.legal_moves(), rng), rng.state

    def draw_outcome(self, moves: list[Move], rng: Rng) -> Move:
        """One of the chance outcomes `moves` of this node, drawn with `rng` by their weights here (a
        determinization draws among the outcomes that fit what its seat saw)."""
        weights = self._weights(moves)
        pick = rng.random() * sum(weights)
        for move, weight in zip(moves, weights):
            if pick < weight:
                return move
            pick -= weight
        return moves[-1]

    # ------------------------------------------------------------- results
    def scores(self) -> list[float]:
        return scores(self.game.model, self.data)

    def returns(self) -> list[float]:
        """Utilities at the end: the ruleset's `scoring.returns` as declared (in its own unit, chips say), else
        by rank in [-1, 1]; zeros before."""
        if not self.is_terminal():
            return [0.0] * self.data["flow"]["players"]
        return rank_returns(self.game.model, self.data)

    def winners(self) -> list[int]:
        if not self.is_terminal():
            return []
        r = self.returns()
        best = max(r)
        return [p for p, v in enumerate(r) if v == best] if len(set(r)) > 1 else list(range(len(r)))

    def observe(self, player: int, *, full_errors: bool = False) -> dict:
        """`player`'s information state: what they see now, and every move so far as they saw it.

        `["history"]` has one entry per entry of `history`, chance moves
        included, each with the arguments `player` may not see masked (`?`).
        A rule error raised while the view is worked out (a `visible_if` that
        fails) is a RuleRuntimeError without its text in a game that keeps
        secrets, since the text may quote what `player` cannot see; the
        operator, who sees everything, gets the text with `full_errors=True`.
        """
        with R.recursion_guard():
            seen = observe(self.game.model, self.data, player, full_errors)
        seen["history"] = self.history_view(player)
        return seen

    def move_view(self, move: Move | str, player: int, *, full_errors: bool = False) -> str:
        """`move`, made from this state, as seat `player` would be shown it: private arguments as `?`.

        Who may see an argument is decided in the state a move is made from (a
        bid is hidden from the other seat while it bids), so a move already
        made is labelled by `history_view` or `last_move_view`, which keep
        what was decided then, and not by this from a later state.  A rule
        error in `seen_by` reaches `player` as `observe`'s do.
        """
        move = self._coerce(move)
        self._check_seat(player)
        if move.action not in self.game.model.actions:
            raise IllegalMoveError(move, f"there is no action {move.action!r}", "RP602")
        model = self.game.model
        seen = seat_facing(model, player, lambda: seen_by(model, self.data["vars"], self.data["flow"], move),
                           full_errors)
        return view_text(move, seen, player)

    @property
    def last_seen_by(self) -> tuple | None:
        """Who saw each argument of `last_move` (None when all were public, or at the start)."""
        return self._history.last_seen()

    def last_move_view(self, player: int) -> str | None:
        """`last_move` as seat `player` was shown it: O(1), unlike `history_view(player)[-1]`."""
        self._check_seat(player)
        move = self._history.last()
        return None if move is None else view_text(move, self._history.last_seen(), player)

    def history_seen_by(self) -> tuple:
        """Per move of `history`: who saw each of its private arguments (None for a move without any)."""
        return self._history.seens()

    def history_view(self, player: int) -> list[str]:
        """Every move so far as seat `player` was shown it."""
        self._check_seat(player)
        return [view_text(m, s, player) for m, s in zip(self._history.moves(), self._history.seens())]

    def _check_seat(self, player: int) -> None:
        n = self.data["flow"]["players"]
        if type(player) is not int or not 0 <= player < n:
            raise SeatError(f"{player!r} is not a seat of this game (0..{n - 1})")

    def graph_edges(self) -> dict[str, list]:
        """The [a, b] edges of each graph declared with `state:`, as its expression gives them now."""
        model = self.game.model
        ctx = R.Ctx(self.data["vars"], self.data["flow"], model, budget=model.budget())
        out = {}
        with R.recursion_guard():
            for name, edges_of in model.state_graphs.items():
                edges = edges_of(ctx)
                if type(edges) is not list or not all(type(e) is list and len(e) == 2 for e in edges):
                    raise R.RuleRuntimeError(f"graph {name!r}: `state:` must give a list of [a, b] edges, "
                                             f"not {R.quoted(edges)}", model.code_at(("graphs", name, "state")))
                out[name] = edges
        return out

    def available_actions(self) -> list[str]:
        return [] if self.is_terminal() else list(available_actions(self.game.model, self.data["flow"])[0])

    # ------------------------------------------------------ value semantics
    def with_data(self, data: dict) -> "State":
        """A state with other data and this state's history (who saw what included): positions set up
        by hand, and information-set twins, keep the moves that led here.  `data` is taken as it is (this
        is the fast way to make positions); only its shape is checked, for a clear error now rather than a
        KeyError at the first move: `state_from_json` checks a position written by someone else."""
        if type(data) is not dict or not DATA_KEYS <= data.keys():
            raise StateFormatError(f"a state's data is a map with {', '.join(sorted(DATA_KEYS))}, "
                                   f"not {reprlib.repr(data)}")  # bounded, however large `data` is
        return State(self.game, data, None, self._history)

    def copy(self) -> "State":
        return State(self.game, R.clone(self.data), list(self._legal) if self._legal is not None else None,
                     self._history)

    def __copy__(self) -> "State":
        """`copy.copy(state)` is `copy()`: a shallow copy would share the data `apply_in_place` changes."""
        return self.copy()

    def __deepcopy__(self, memo: dict) -> "State":
        """`copy.deepcopy(state)` is `copy()`: the game (compiled rules, a lock) is shared, not copied."""
        return self.copy()

    def to_json(self) -> dict:
        entries = [str(m) if s is None else {"move": str(m), "seen_by": seen_to_json(s)}
                   for m, s in zip(self._history.moves(), self._history.seens())]
        return self.game.state_header() | {"data": R.clone(self.data), "history": entries}

    def dumps(self) -> str:
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))

    def __eq__(self, other: object) -> bool:
        """The same game and the same position, value for value and type for type.

        Python's `==` alone holds 1, 1.0 and true equal, where the saved text
        (and so the hash) tells them apart: a state holding 0.5 + 0.5 would
        equal one holding 1 yet hash and save differently.  So data found
        equal is confirmed by its text, which the hash is made of.
        """
        return (isinstance(other, State) and other.game is self.game and other.data == self.data
                and _position_text(other.data) == _position_text(self.data))

    def __hash__(self) -> int:
        return hash(_position_text(self.data))

    def __repr__(self) -> str:
        f = self.data["flow"]
        who = "over" if f["done"] else ("chance" if f["player"] == CHANCE else f"player {f['player']}")
        return f"<State {self.game.model.name} round {f['round']} phase {f['phase']} {who}>"

    def render(self) -> str:
        with R.recursion_guard():
            return render_text(self.game.model, self.data)


def _check_caller(player: object, budget: object) -> None:
    """The seat and budget a caller of `apply` names must be what they say: `False` passed for seat 0,
    `"0"` was told 'it is not player 0's turn (player 0 is to move)', and a number as the budget raised
    an AttributeError inside the move."""
    if player is not None and type(player) is not int:
        raise SeatError(f"the player who moves is a seat number (or CHANCE), not {player!r}")
    if budget is not None and not isinstance(budget, R.Budget):
        raise TypeError(f"budget must be a Budget (such as game.model.decision_budget()), not {budget!r}")


def successor_data(model: GameModel, data: dict, action: str | None = None) -> dict:
    """A copy of `data` for a move to change: the flow and every variable some effect can write are copied,
    the variables no effect writes are shared, since nothing ever changes them in place.

    States are values, so this is what keeps the state a move is made from as
    it was; copying only what can change (`GameModel.written_vars`, or what a
    move of `action` and the flow after it can change) is what makes that cheap.  Scalars are immutable and shared as they are.
    """
    written = model.written_by_action.get(action, model.written_vars) if action is not None else model.written_vars
    old = data["vars"]
    if written is None:
        vars_ = R.clone(old)
    else:
        vars_ = dict(old)
        for name in written:
            value = old[name]
            if type(value) is list or type(value) is dict:
                vars_[name] = R.clone(value)
    return {"vars": vars_, "flow": dict(data["flow"]), "rng": data["rng"]}


__all__ = ["State", "CHANCE", "TERMINAL"]
