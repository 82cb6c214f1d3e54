"""Games: a compiled model plus the factory for its states.

In OpenSpiel's spirit a `Game` is a frozen description (`info`) and a
factory (`new_state`, `state_from_json`); it also owns the fixed action
numbering that RL code needs: every action's parameters range over static
`of:` sets, so moves map one-to-one onto 0..num_distinct_actions-1.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from typing import Any

from ruleplay.dsl import runtime as R

from .errors import IllegalMoveError, MoveParseError, RuleplayError, StateFormatError
from .flow import FlowRunner, initial_flow
from .loader import load_model
from .model import GameModel
from .moves import Move, _thaw, arg_key, parse_move
from .rng import Rng, seed_state
from .state import State

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
        """The initial state; `seed` fixes every random event of the game."""
        if type(seed) is not int:
            raise TypeError("seed must be an int")
        model = self.model
        flow = initial_flow(model)
        vars_: dict[str, Any] = {}
        rng = Rng(seed_state(seed))
        ctx = R.Ctx(vars_, flow, model, rng=rng,
                    budget=model.budget())
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
        with R.recursion_guard():
            model.setup(ctx)
            runner = FlowRunner(model, ctx)
            runner.start_game()
            legal = runner.settle()
        state = State(self, {"vars": vars_, "flow": flow, "rng": rng.state}, legal)
        state.last_fired = ctx.fired
        if self.checking:
            self.check_invariants(state)
        return state

    def state_header(self) -> dict:
        m = self.model
        return {"format": STATE_FORMAT, "game": m.name, "variant": m.variant, "players": m.players,
                "ruleset_hash": m.ruleset_hash}

    def state_from_json(self, data: Any) -> State:
        """Rebuild a state saved with `to_json()`; refuses anything tampered or foreign."""
        if isinstance(data, (str, bytes)):
            try:
                data = json.loads(data)
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
        history = data.get("history", [])
        if not isinstance(history, list) or not all(isinstance(h, str) for h in history):
            raise StateFormatError("`history` must be a list of move texts")
        try:
            moves = tuple(parse_move(h) for h in history)
        except MoveParseError as err:
            raise StateFormatError(f"`history` holds a bad move: {err}") from None
        return State(self, R.clone(body), None, moves)

    def _check_body(self, body: Any) -> None:
        if not isinstance(body, dict) or set(body) != {"vars", "flow", "rng"}:
            raise StateFormatError("state data must have exactly the keys vars, flow, rng")
        if type(body["rng"]) is not int or not 0 <= body["rng"] < 2 ** 64:
            raise StateFormatError("state rng must be a 64-bit unsigned int")
        want = set(initial_flow(self.model))
        flow = body["flow"]
        if not isinstance(flow, dict) or set(flow) != want:
            raise StateFormatError(f"state flow must have the keys {', '.join(sorted(want))}")
        if flow["phase"] not in self.model.phases:
            raise StateFormatError(f"state names unknown phase {flow['phase']!r}")
        stage = flow["stage"]
        if stage is not None and stage not in self.model.phases[flow["phase"]].stages:
            raise StateFormatError(f"state names unknown stage {stage!r}")
        if flow["players"] != self.model.players:
            raise StateFormatError("state player count does not match the game")
        if type(flow["player"]) is not int or not -4 <= flow["player"] < self.model.players:
            raise StateFormatError(f"state player {flow['player']!r} is not a seat")
        for key in ("round", "turn", "start", "steps"):
            if type(flow[key]) is not int or flow[key] < 0:
                raise StateFormatError(f"state flow.{key} must be a non-negative int")
        vars_ = body["vars"]
        if not isinstance(vars_, dict) or set(vars_) != set(self.model.vars):
            raise StateFormatError("state variables do not match the ruleset's `state:` section")
        for name, decl in self.model.vars.items():
            if decl.per_player and (not isinstance(vars_[name], list) or len(vars_[name]) != self.model.players):
                raise StateFormatError(f"per-player variable {name!r} must have one entry per player")

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

    def move_to_index(self, move: Move) -> int:
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
        for a in self.model.actions.values():
            if a.first_index <= index < a.first_index + a.size:
                rest = index - a.first_index
                args = []
                for p in reversed(a.params):
                    rest, k = divmod(rest, len(p.universe))
                    args.append(p.universe[k])
                from .moves import _freeze
                return Move(a.name, tuple(_freeze(v) for v in reversed(args)))
        raise RuleplayError(f"action index {index} is out of range 0..{self.model.num_actions - 1}", "RP604")

    # ------------------------------------------------------------- invariants
    def check_invariants(self, state: State) -> None:
        model = self.model
        ctx = R.Ctx(state.data["vars"], state.data["flow"], model)
        for inv in model.invariants:
            if not inv.check(ctx):
                rule = f" [{inv.rule}]" if inv.rule else ""
                raise R.RuleFailure(f"invariant broken: {inv.message}{rule} "
                                    f"(round {state.round}, phase {state.phase})")


def load_game(name_or_path: str | os.PathLike, players: int | None = None, variant: str | None = None,
              *, checking: bool = False, disabled_rules: frozenset[str] = frozenset()) -> Game:
    """Load a built-in game by name, or a ruleset file by path. Raises RulesetError."""
    return Game(load_model(name_or_path, players, variant, disabled_rules), checking=checking)
