"""Games: a compiled model plus the factory for its states.

In OpenSpiel's spirit a `Game` is a frozen description (`info`) and a
factory (`new_state`, `state_from_json`); it also owns the fixed action
numbering that RL code needs: every action's parameters range over static
`of:` sets, so moves map one-to-one onto 0..num_distinct_actions-1.
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass
from typing import Any

from ruleplay.dsl import runtime as R

from .. import files
from .errors import IllegalMoveError, MoveParseError, RuleplayError, StateFormatError
from .flow import FlowRunner, initial_flow
from .history import History
from .legal import CHANCE, TERMINAL
from .loader import load_model
from .model import GameModel
from .moves import Move, _thaw, arg_key, interned, parse_move
from .rng import Rng, check_seed, seed_state
from .state import State
from .views import seen_from_json

STATE_FORMAT = 1
ENGINE_VERSION = "0.1.0"


@dataclass(frozen=True)
class GameInfo:
    name: str
    title: str
    players: int
    min_players: int
    max_players: int
    variant: str | None
    variants: tuple[str, ...]
    chance: bool
    hidden_information: bool
    max_length: int
    num_distinct_actions: int
    utility: str  # "declared" (ruleset returns) or "rank" (in [-1, 1] by placing)
    ruleset_hash: str

    def to_dict(self) -> dict:
        data = asdict(self)
        data["variants"] = list(self.variants)
        return data


class Game:
    def __init__(self, model: GameModel, checking: bool = False):
        self.model = model
        self.checking = checking
        self.max_chance_outcomes = 1000
        self._initial: State | None = None  # the initial state of a setup that draws no random number
        self._setup_drew: bool | None = None  # whether the setup drew a random number (known once a state is made)
        self._index = {}
        for a in model.actions.values():
            self._index[a.name] = [{arg_key(v): i for i, v in enumerate(p.universe)} for p in a.params]

    @property
    def info(self) -> GameInfo:
        m = self.model
        return GameInfo(m.name, m.title, m.players, m.min_players, m.max_players, m.variant,
                        tuple(m.variants), m.uses_chance, m.hidden_info, m.limits["max_steps"],
                        m.num_actions, "declared" if m.returns is not None else "rank", m.ruleset_hash)

    @property
    def name(self) -> str:
        return self.model.name

    # ----------------------------------------------------------------- states
    def new_state(self, seed: int = 0) -> State:
        """The initial state; `seed` fixes every random event of the game.

        A setup that draws no random number makes the same state for every
        seed but for the generator's own state, so the first one made is kept
        and later ones are copies of it: whether setup drew is recorded while
        it runs (`_WatchedRng`), never guessed from the rules.
        """
        check_seed(seed)
        kept = self._initial
        if kept is None:
            state, drew = self._set_up(seed)
            self._setup_drew = drew
            if not drew:
                self._initial = state.copy()
                self._initial.last_fired = list(state.last_fired)  # what set-up fired, for every later copy too
        else:
            state = kept.copy()
            state.data["rng"] = seed_state(seed)
            state.last_fired = list(kept.last_fired)
        if self.checking:
            self.check_invariants(state)
        return state

    def setup_draws(self) -> bool:
        """Whether setting a game up draws random numbers (a shuffle, a die in `setup:`), as recorded when
        a first state was made: then two seeds start different games, else only their generators differ."""
        if self._setup_drew is None:
            self.new_state(0)
        assert self._setup_drew is not None
        return self._setup_drew

    def _set_up(self, seed: int) -> tuple[State, bool]:
        """A new initial state made by running the variables' `init`, `setup` and the flow's start;
        and whether that drew a random number."""
        model = self.model
        flow = initial_flow(model)
        vars_: dict[str, Any] = {}
        rng = _WatchedRng(seed_state(seed))
        ctx = R.Ctx(vars_, flow, model, rng=rng, budget=model.budget())
        with R.recursion_guard():
            for name, decl in model.vars.items():
                if decl.per_player:
                    row = []
                    for p in range(model.players):
                        ctx.env = {"p": p}
                        row.append(R.clone(decl.init(ctx)))
                    vars_[name] = row
                else:
                    ctx.env = {}
                    vars_[name] = R.clone(decl.init(ctx))
            ctx.env = {}
            model.setup(ctx)
            runner = FlowRunner(model, ctx)
            runner.start_game()
            legal = runner.settle()
        state = State(self, {"vars": vars_, "flow": flow, "rng": rng.state}, legal)
        state.last_fired = ctx.fired
        return state, rng.drew

    def state_header(self) -> dict:
        m = self.model
        return {"format": STATE_FORMAT, "game": m.name, "variant": m.variant, "players": m.players,
                "ruleset_hash": m.ruleset_hash}

    def state_from_json(self, data: Any) -> State:
        """Rebuild a state saved with `to_json()`; refuses what is malformed or foreign.

        Refused: another game, variant, player count or ruleset (its hash), and
        data of the wrong shape (variables, flow fields, seats, generator,
        history texts).  The variables' values are taken as the position they
        describe, as a position set up by hand is, and the history is not
        replayed against them: a saved state is a position, a game log
        (`ruleplay replay`) the record that is checked move by move.
        """
        if isinstance(data, (str, bytes)):
            try:
                data = files.json_value(data)
            except ValueError as err:
                raise StateFormatError(f"the state is not valid JSON: {err}") from None
        if not isinstance(data, dict):
            raise StateFormatError("a saved state must be a JSON object")
        header = self.state_header()
        for key, want in header.items():
            if data.get(key) != want:
                raise StateFormatError(f"saved state has {key}={data.get(key)!r}, this game has {want!r}"
                                       + (" (the ruleset changed since it was saved)" if key == "ruleset_hash" else ""))
        body = data.get("data")
        self._check_body(body)
        return State(self, R.clone(body), None, self._history_from_json(data.get("history", [])))

    def _history_from_json(self, entries: Any) -> History:
        """Move texts, and `{"move": text, "seen_by": [...]}` for a move with private arguments."""
        if not isinstance(entries, list):
            raise StateFormatError("`history` must be a list of moves")
        history = History()
        for entry in entries:
            text, seen = entry, None
            if isinstance(entry, dict) and set(entry) == {"move", "seen_by"}:
                text = entry["move"]
            if not isinstance(text, str):
                raise StateFormatError("each `history` entry is a move text or {\"move\": text, \"seen_by\": [...]}")
            try:
                move = self.index_to_move(self.move_to_index(self.parse_move(text)))
                if isinstance(entry, dict):
                    seen = seen_from_json(entry["seen_by"], move, self.model.players)
            except MoveParseError as err:
                raise StateFormatError(f"`history` holds a bad move: {err}") from None
            except (IllegalMoveError, ValueError) as err:
                raise StateFormatError(f"`history`: {err}") from None
            if str(move) != text:  # `place( 2 )` or `place(2.0)`: the same move, but saved again as `place(2)`
                raise StateFormatError(f"`history` writes the move {text!r}, which ruleplay writes {str(move)!r}: "
                                       f"a saved state holds each move as ruleplay wrote it")
            history = history.then(move, seen)
        return history

    def _check_body(self, body: Any) -> None:
        if not isinstance(body, dict) or set(body) != {"vars", "flow", "rng"}:
            raise StateFormatError("state data must have exactly the keys vars, flow, rng")
        if type(body["rng"]) is not int or not 0 <= body["rng"] < 2 ** 64:
            raise StateFormatError("state rng must be a 64-bit unsigned int")
        self._check_flow(body["flow"])
        vars_ = body["vars"]
        if not isinstance(vars_, dict) or set(vars_) != set(self.model.vars):
            raise StateFormatError("state variables do not match the ruleset's `state:` section")
        for name, decl in self.model.vars.items():
            _check_json_value(vars_[name], f"variable {name!r}")
            if decl.per_player and (not isinstance(vars_[name], list) or len(vars_[name]) != self.model.players):
                raise StateFormatError(f"per-player variable {name!r} must have one entry per player")

    def _check_flow(self, flow: Any) -> None:
        """Every flow field of the right type and the fields consistent, so nothing fails later on it."""
        want = set(initial_flow(self.model))
        if not isinstance(flow, dict) or set(flow) != want:
            raise StateFormatError(f"state flow must have the keys {', '.join(sorted(want))}")
        n = self.model.players
        if type(flow["phase"]) is not str or flow["phase"] not in self.model.phases:
            raise StateFormatError(f"state names unknown phase {flow['phase']!r}")
        stage = flow["stage"]
        if stage is not None and (type(stage) is not str or stage not in self.model.phases[flow["phase"]].stages):
            raise StateFormatError(f"state names unknown stage {stage!r}")
        if type(flow["players"]) is not int or flow["players"] != n:
            raise StateFormatError("state player count does not match the game")
        for key in ("round", "turn", "start", "steps"):
            if type(flow[key]) is not int or not 0 <= flow[key] < 2 ** 63:
                raise StateFormatError(f"state flow.{key} must be a non-negative int")
        if type(flow["done"]) is not bool:
            raise StateFormatError("state flow.done must be true or false")
        player, seat = flow["player"], flow["seat"]
        if type(seat) is not int or not 0 <= seat < n:
            raise StateFormatError(f"state seat {seat!r} is not a seat")
        if flow["done"] != (player == TERMINAL) or type(player) is not int \
                or not (player in (CHANCE, TERMINAL) or 0 <= player < n):
            raise StateFormatError(f"state player {player!r} is not a seat, chance ({CHANCE}) or, exactly when "
                                   f"the game is over, terminal ({TERMINAL})")
        if player not in (CHANCE, TERMINAL) and player != seat:
            raise StateFormatError(f"state player {player} is to move, but the flow's current seat is {seat}")
        if not 0 <= flow["start"] < n:
            raise StateFormatError(f"state flow.start {flow['start']} is not a seat 0..{n - 1}")
        queue = flow["queue"]
        if not isinstance(queue, list) or not all(type(s) is int and 0 <= s < n for s in queue):
            raise StateFormatError("state flow.queue must be a list of seats")
        phase = self.model.phases[flow["phase"]]
        chance_now = phase.stages[stage].chance if stage is not None else phase.order == "chance"
        if not flow["done"] and (player == CHANCE) != chance_now:
            where = f"stage {stage!r} of phase {phase.name!r}" if stage is not None else f"phase {phase.name!r}"
            raise StateFormatError(f"state flow.player is {player}, but in {where} "
                                   + ("chance moves (-1)" if chance_now else "a seat moves, not chance (-1)"))
        if not flow["done"] and phase.order == "each" and (not queue or queue[0] != seat):
            raise StateFormatError(f"state flow.queue {queue} does not start with the current seat {seat} "
                                   f"(phase {phase.name!r} gives each seat one turn in queue order)")
        if flow["end_round"] is not None and (type(flow["end_round"]) is not int or flow["end_round"] < 0):
            raise StateFormatError("state flow.end_round must be null or a round number")
        if flow["ended_by"] is not None and type(flow["ended_by"]) is not str:
            raise StateFormatError("state flow.ended_by must be null or a rule id")

    # ------------------------------------------------------------------ moves
    def parse_move(self, text: str) -> Move:
        move = parse_move(text)
        if move.action not in self.model.actions:
            raise MoveParseError(f"{text!r}: there is no action {move.action!r} in {self.model.name} "
                                 f"(actions: {', '.join(self.model.actions)})")
        return move

    @property
    def num_distinct_actions(self) -> int:
        return self.model.num_actions

    def move_to_index(self, move: Move | str) -> int:
        if isinstance(move, str):
            move = self.parse_move(move)
        elif not isinstance(move, Move):
            raise MoveParseError(f"not a move: {move!r}")
        if move.index is not None and self.model.move_table.get(move.index) is move:
            return move.index  # one of this game's listed moves: its number came with it
        action = self.model.actions.get(move.action)
        if action is None or len(move.args) != len(action.params):
            raise IllegalMoveError(move, "not a move of this game", "RP602")
        index = 0
        for p, table, v in zip(action.params, self._index[move.action], move.args):
            k = table.get(arg_key(_thaw(v)))
            if k is None:
                raise IllegalMoveError(move, f"{v!r} is not a possible value of {p.name!r}", "RP604")
            index = index * len(p.universe) + k
        return action.first_index + index

    def index_to_move(self, index: int) -> Move:
        if type(index) is not int:
            raise RuleplayError(f"an action index is an int, not {index!r}", "RP604")
        for a in self.model.actions.values():
            if a.first_index <= index < a.first_index + a.size:
                rest = index - a.first_index
                args = []
                for p in reversed(a.params):
                    rest, k = divmod(rest, len(p.universe))
                    args.append(p.universe[k])
                return interned(self.model.move_table, index, a.name, tuple(reversed(args)))
        raise RuleplayError(f"action index {index} is out of range 0..{self.model.num_actions - 1}", "RP604")

    # ------------------------------------------------------------- invariants
    def check_invariants(self, state: State) -> None:
        model = self.model
        ctx = R.Ctx(state.data["vars"], state.data["flow"], model, budget=model.budget())
        for inv in model.invariants:
            with R.recursion_guard():
                holds = inv.check(ctx)
            if not holds:
                rule = f" [{inv.rule}]" if inv.rule else ""
                raise R.RuleFailure(f"invariant broken: {inv.message}{rule} "
                                    f"(round {state.round}, phase {state.phase})")


class _WatchedRng(Rng):
    """The generator setup runs with: it records whether anything drew from it."""

    __slots__ = ("drew",)

    def __init__(self, state: int):
        super().__init__(state)
        self.drew = False

    def next64(self) -> int:
        self.drew = True
        return super().next64()


def load_game(name_or_path: str | os.PathLike, players: int | None = None, variant: str | None = None,
              *, checking: bool = False, disabled_rules: frozenset[str] = frozenset()) -> Game:
    """Load a built-in game by name, or a ruleset file by path. Raises RulesetError (TypeError for a player
    count that is no int, or a variant name that is no text: Python would take `2.0` or `"2"` part of the way)."""
    if players is not None and type(players) is not int:
        raise TypeError(f"players must be an int, not {type(players).__name__} {players!r}")
    if variant is not None and type(variant) is not str:
        raise TypeError(f"variant must be the variant's name as text, not {type(variant).__name__} {variant!r}")
    return Game(load_model(name_or_path, players, variant, disabled_rules), checking=checking)


MAX_VALUE_DEPTH = 200  # lists and maps nested in one state value; far beyond any game's


def _check_json_value(value: Any, where: str) -> None:
    """Plain JSON data only: finite numbers, ints the rules can hold, text keys, bounded nesting.

    Iterative, so a tampered state nested a million deep is refused, not a
    Python recursion error.
    """
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        t = type(item)
        if t is list or t is dict:
            if depth >= MAX_VALUE_DEPTH:
                raise StateFormatError(f"{where} is nested more than {MAX_VALUE_DEPTH} levels deep")
            if t is dict and not all(type(k) is str and not _has_surrogate(k) for k in item):
                raise StateFormatError(f"{where} holds a map with keys that are not text (Unicode text, no lone surrogates)")
            stack.extend((v, depth + 1) for v in (item if t is list else item.values()))
        elif t is float:
            if not math.isfinite(item):
                raise StateFormatError(f"{where} holds {item}, not a finite number")
        elif t is int:
            if item.bit_length() > R.MAX_INT_BITS:
                raise StateFormatError(f"{where} holds an integer over {R.MAX_INT_BITS} bits")
        elif t is str:
            if _has_surrogate(item):
                raise StateFormatError(f"{where} holds text with a lone surrogate (\\ud800-\\udfff), which is no "
                                       f"Unicode text")
        elif item is not None and t is not bool:
            raise StateFormatError(f"{where} holds a {t.__name__}, which is not JSON data")


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
