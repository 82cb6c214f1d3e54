"""Any ruleset as an OpenSpiel game: `register()` adds it to pyspiel, so OpenSpiel's algorithms run on it.

Actions keep the game's own numbering (`Game.move_to_index`), for the
players' moves and the chance outcomes alike, and their strings are
`State.move_view(move, player)`: a seat's own view of the move.  Chance is
explicit: an engine chance node is an OpenSpiel chance node with the
ruleset's outcomes and weights.  A ruleset that also shuffles (randomness
drawn from the state's seeded generator inside effects, not at a chance
node) gets one more chance node at the root, which draws the game's seed
uniformly from `seeds` of them: the tree then holds `seeds` different
shuffles, and no player sees which one was drawn.

The game has imperfect information when the ruleset hides anything (a
variable that is not public, a move argument with `seen_by:`) or shuffles.
Players learn about a state only through an observer, which reads
`State.observe(seat)` and nothing else:

- observation (OpenSpiel's `perfect_recall=False`): the string is the seat's
  current view as JSON, the tensor its `adapters.encoding` vector;
- information state (`perfect_recall=True`): the string adds every move so
  far as the seat saw it — the engine's own information state, in which a
  value shown once and hidden again is remembered only through the moves —
  and the tensor adds the last `history` moves as seen, each as
  `[present, fully seen, index of the move within its action (0 when
  masked), one-hot action name]`.

Utilities: returns by rank lie in [-1, 1] and sum to 0; a ruleset that
declares its own returns says their range in `scoring.returns_range`, or
the caller with `utility=(min, max, sum)` (sum None for a general-sum
game), since the engine cannot know it.

States step on the game's native module where it has one (`backend`,
`adapters.held`); a clone copies the native state, and the observation
tensor is written natively.  There `register` makes the game a C++ one
(`openspiel_native`) when a C++ compiler is there: the same answers, with
no Python in a move; this module's pyspiel game is the other kind.
A state serializes (pyspiel pickles a Python state's attributes) as the
engine state's saved form and its game's registered name.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import Any

import numpy as np
import pyspiel

from ..engine.game import Game
from ..engine.legal import CHANCE, TERMINAL
from ..engine.state import State
from ..engine.native.build import BuildError
from .encoding import Encoding
from .games import resolve
from .held import Handle, Stepper
from .openspiel_answers import action_string, chance_list, make_step, state_string, view_string, view_tensor
from .openspiel_native import engine_state_of, register_cxx

DEFAULT_SEEDS = 1024
DEFAULT_HISTORY = 32
_REGISTERED: dict[str, _Spec] = {}  # pyspiel's registry keeps a game for the life of the process
_Type = pyspiel.GameType


def register(game: Game | str | os.PathLike, players: int | None = None, variant: str | None = None, *,
             seeds: int = DEFAULT_SEEDS, history: int = DEFAULT_HISTORY,
             utility: tuple[float, float, float | None] | None = None, backend: str = "auto",
             cxx: bool | None = None) -> str:
    """Register the ruleset with pyspiel; returns the short name for `pyspiel.load_game`.

    The name says the game, its variant and player count, and `seeds` and
    `history` when they are not the defaults, so that each differently made
    game has its own; registering the same again returns the same name.  A
    different ruleset of the same game name (an edited copy) gets the name
    with `_r` and the start of its ruleset hash added, as pyspiel cannot
    replace a game it has registered.  `backend="python"` keeps the states
    on the Python engine (the reference), under a name ending `_python`;
    "auto" steps them natively where the game has a native module.

    Where the states step natively and a C++ compiler is there, the game is
    a C++ pyspiel game (`openspiel_native`), which OpenSpiel's loop drives
    with no Python in a move; else a pyspiel game written in Python (one
    line on stderr says why).  `cxx=False` asks for the Python one (named
    with `_pygame` added), `cxx=True` insists on the C++ one (an error says
    why it cannot be, and nothing is registered).
    """
    game = resolve(game, players, variant)
    if type(seeds) is not int or seeds < 1:
        raise ValueError(f"seeds must be a whole number of at least 1, not {seeds!r}")
    if type(history) is not int or history < 0:
        raise ValueError(f"history must be a whole number of at least 0, not {history!r}")
    if cxx and backend == "python":
        raise ValueError("the C++ game steps the native module: cxx=True needs backend 'auto' or 'native'")
    spec = _Spec(game, seeds, history, _utility(game, utility), backend, cxx is False)
    known = _REGISTERED.get(spec.name)
    if known is not None and known.game.info.ruleset_hash != game.info.ruleset_hash:
        # Another ruleset under the same name (an edited copy of the game): pyspiel cannot replace the one
        # registered, and handing its name back would play the other rules, so this one is named by its hash.
        spec = _Spec(game, seeds, history, spec.utility, backend, cxx is False,
                     tag=f"_r{game.info.ruleset_hash[:12]}")
        known = _REGISTERED.get(spec.name)
    if known is not None:
        if known.utility != spec.utility:
            raise ValueError(f"{spec.name} is registered already with utility={known.utility}, "
                             f"not {spec.utility}: pyspiel cannot replace a registered game")
        return spec.name
    if spec.name not in pyspiel.registered_names() and not (
            cxx is not False and backend != "python" and _registered_cxx(spec, cxx)):
        # pyspiel keeps the factory for the life of the process: a class, as OpenSpiel's own Python games
        # register, whose instances all share `spec`.
        factory = type(f"RuleplayGame_{spec.name}", (RuleplayGame,), {"spec": spec})
        pyspiel.register_game(spec.game_type, factory)
    _REGISTERED[spec.name] = spec
    return spec.name


_SAID: set[str] = set()  # the reasons for a Python game said once already


def _registered_cxx(spec: _Spec, cxx: bool | None) -> bool:
    """Register `spec` as the C++ game when its states step natively and the shim builds; say why not once
    (or raise it, when `cxx` insists)."""
    why = spec.stepper.why_not or (None if spec.stepper.backend == "native" else "the game plays on the Python engine")
    if why is None:
        try:
            register_cxx(spec)
            return True
        except BuildError as err:
            if cxx:
                raise
            why = str(err)
    elif cxx:
        raise ValueError(f"{spec.name} cannot be a C++ game: {why}")
    if why not in _SAID:
        _SAID.add(why)
        print(f"note: ruleplay.openspiel: {spec.name} is a Python pyspiel game: {why}", file=sys.stderr)
    return False


def engine_state(state: Any) -> State | None:
    """The engine's state of a registered game's pyspiel state, C++ or Python (a copy; None before the seed is
    drawn)."""
    if isinstance(state, RuleplayState):
        return state.engine_state
    return engine_state_of(_registered(state.get_game().get_type().short_name), state.history())


def _utility(game: Game, utility: tuple | None) -> tuple[float, float, float | None]:
    if utility is None:
        if game.model.returns_range is not None:
            return game.model.returns_range
        if game.info.utility == "declared":
            raise ValueError(f"{game.name} declares its own returns (scoring.returns) but not their range: add "
                             f"`returns_range: {{min: …, max: …, sum: …}}` to its scoring (`ruleplay validate "
                             f"--smoke` checks it), or pass utility=(min, max, sum), e.g. utility=(-2, 2, 0), with "
                             f"sum None for a general-sum game")
        return (-1.0, 1.0, 0.0) if game.model.players > 1 else (0.0, 0.0, 0.0)
    if not (isinstance(utility, tuple) and len(utility) == 3 and all(isinstance(u, (int, float)) for u in utility[:2])
            and utility[0] <= utility[1] and (utility[2] is None or isinstance(utility[2], (int, float)))):
        raise ValueError(f"utility must be (min, max, sum) with min <= max and sum a number or None, not {utility!r}")
    return float(utility[0]), float(utility[1]), None if utility[2] is None else float(utility[2])


class _Spec:
    """Everything fixed about one registered game: its engine game, OpenSpiel headers and encodings."""

    def __init__(self, game: Game, seeds: int, history: int, utility: tuple[float, float, float | None],
                 backend: str, pygame: bool = False, tag: str = ""):
        model, info = game.model, game.info
        self.game = game
        self.seeds = seeds if model.shuffles else 0
        self.history = history
        self.encoding = Encoding(game)
        self.stepper = Stepper(game, self.encoding, backend)
        self.actions = {name: i for i, name in enumerate(model.actions)}
        self.actions_count = info.num_distinct_actions
        self.utility = utility
        suffix = "" if info.variant is None else f"_{info.variant}"
        options = (f"_seeds{self.seeds}" if self.seeds not in (0, DEFAULT_SEEDS) else "") \
            + (f"_history{history}" if history != DEFAULT_HISTORY else "") \
            + ("_python" if backend == "python" else "_pygame" if pygame else "")
        self.name = re.sub(r"[^A-Za-z0-9_]", "_", f"ruleplay_{info.name}{suffix}_{info.players}p{options}{tag}")
        hidden = model.hidden_info or model.shuffles or any(
            p.seen_by is not None for a in model.actions.values() for p in a.params)
        low, high, total = utility
        sums = {None: _Type.Utility.GENERAL_SUM, 0.0: _Type.Utility.ZERO_SUM}
        self.game_type = _Type(
            short_name=self.name, long_name=f"ruleplay {info.title} ({info.players} players"
            + (f", variant {info.variant})" if info.variant else ")"),
            dynamics=_Type.Dynamics.SEQUENTIAL,
            chance_mode=_Type.ChanceMode.EXPLICIT_STOCHASTIC if info.chance else _Type.ChanceMode.DETERMINISTIC,
            information=_Type.Information.IMPERFECT_INFORMATION if hidden else _Type.Information.PERFECT_INFORMATION,
            utility=sums.get(total, _Type.Utility.CONSTANT_SUM), reward_model=_Type.RewardModel.TERMINAL,
            max_num_players=info.players, min_num_players=info.players,
            provides_information_state_string=True, provides_information_state_tensor=True,
            provides_observation_string=True, provides_observation_tensor=True, parameter_specification={})
        self.game_info = pyspiel.GameInfo(
            num_distinct_actions=info.num_distinct_actions,
            max_chance_outcomes=max(info.num_distinct_actions, self.seeds) if info.chance else 0,
            num_players=info.players, min_utility=low, max_utility=high, utility_sum=total or 0.0,
            max_game_length=info.max_length + (1 if self.seeds else 0))

    def __deepcopy__(self, memo: dict) -> _Spec:
        """Fixed once registered, so every cloned state shares it (pyspiel clones a state with deepcopy)."""
        return self

    def __reduce__(self) -> tuple:
        """Pickled by its registered name (pyspiel serializes a Python state by pickling its attributes)."""
        return _registered, (self.name,)


def _registered(name: str) -> _Spec:
    """The spec registered under `name` in this process (a serialized state names its game so)."""
    spec = _REGISTERED.get(name)
    if spec is None:
        raise ValueError(f"{name} is not registered in this process: call ruleplay.openspiel.register() with the "
                         f"same game and options before deserializing its states")
    return spec


class RuleplayGame(pyspiel.Game):
    """The pyspiel game: a factory of states and observers for one ruleset."""

    spec: _Spec  # set on the subclass `register` makes for each game

    def __init__(self, params: dict | None = None):
        super().__init__(self.spec.game_type, self.spec.game_info, params or {})

    def new_initial_state(self) -> RuleplayState:
        return RuleplayState(self, None if self.spec.seeds else self.spec.stepper.new(0))

    def make_py_observer(self, iig_obs_type: Any = None, params: dict | None = None) -> Observer:
        return Observer(self.spec, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class _Held:
    """A state's handle (None before the seed is drawn) and its game's registered name: pyspiel clones a state
    with deepcopy, which copies the handle (a native state is changed in place) and nothing else of the state,
    and serializes one by pickling its attributes."""

    __slots__ = ("handle", "name")

    def __init__(self, handle: Handle | None, name: str):
        self.handle = handle
        self.name = name

    def __deepcopy__(self, memo: dict) -> _Held:
        return _Held(None if self.handle is None else self.handle.clone(), self.name)

    def __reduce__(self) -> tuple:
        """Pickled as the engine state's saved form (`State.to_json`: data and history, who saw what included)."""
        return _held_from, (self.name, None if self.handle is None else self.handle.to_state().dumps())


def _held_from(name: str, saved: str | None) -> _Held:
    spec = _registered(name)
    if saved is None:
        return _Held(None, name)
    return _Held(spec.stepper.of(spec.game.state_from_json(json.loads(saved))), name)


class RuleplayState(pyspiel.State):
    """A pyspiel state around one engine state's handle (None at the seed-drawing root).

    The questions every loop asks (`current_player`, `is_terminal`,
    `is_chance_node`, `legal_actions`) are answered here from the handle,
    as pyspiel's C++ base would answer them through `_legal_actions`, without
    the round trip through it; moves go through pyspiel's `apply_action`,
    which keeps the history."""

    def __init__(self, game: RuleplayGame, handle: Handle | None):
        super().__init__(game)
        self._spec = game.spec
        self._held = _Held(handle, game.spec.name)

    @property
    def engine_state(self) -> State | None:
        """The engine's state (a copy, on the native backend), or None before the seed is drawn."""
        handle = self._held.handle
        return None if handle is None else handle.to_state()

    def current_player(self) -> int:
        """0..N-1, CHANCE (-1) or TERMINAL (-4): the engine numbers them as pyspiel does."""
        handle = self._held.handle
        return CHANCE if handle is None else handle.current_player()

    def is_terminal(self) -> bool:
        handle = self._held.handle
        return handle is not None and handle.is_terminal()

    def is_chance_node(self) -> bool:
        handle = self._held.handle
        return handle is None or handle.current_player() == CHANCE

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(self._held.handle.legal_actions())

    def legal_actions(self, player: int | None = None) -> list[int]:
        """The actions of the player to move, or of `player`: none for a player who is not to move, as
        native pyspiel games answer (pyspiel's base for Python games gives any seat the chance outcomes
        at a chance node); the chance outcomes at a chance node, none at the end."""
        handle = self._held.handle
        current = CHANCE if handle is None else handle.current_player()
        if current >= 0 and (player is None or player == current):  # the common case, first
            return sorted(handle.legal_actions())
        if player is not None and player != current or current == TERMINAL:
            return []
        return [action for action, _ in self.chance_outcomes()]  # a chance node

    def legal_actions_mask(self, player: int | None = None) -> list[int]:
        """`legal_actions(player)` as 0/1 per action (per chance outcome for chance), as native games give it."""
        if player is None or player == self.current_player():
            return super().legal_actions_mask() if player is None else super().legal_actions_mask(player)
        game = self.get_game()
        return [0] * (game.max_chance_outcomes() if player == pyspiel.PlayerId.CHANCE
                      else game.num_distinct_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return chance_list(self._spec, self._held.handle)

    def _apply_action(self, action: int) -> None:
        """The state after `action` (see `make_step`); pyspiel calls this for every move, with an int."""
        self._held.handle = make_step(self._spec, self._held.handle, action)

    def _action_to_string(self, player: int, action: int) -> str:
        return action_string(self._spec, self._held.handle, player, action)

    def returns(self) -> list[float]:
        handle = self._held.handle
        return [0.0] * self._spec.game.model.players if handle is None else handle.returns()

    def __str__(self) -> str:
        return state_string(self._held.handle)


class Observer:
    """OpenSpiel's PyObserver for one seat's view: observations, or information states with `perfect_recall`."""

    def __init__(self, spec: _Spec, iig_obs_type: Any, params: dict | None):
        if params:
            raise ValueError(f"ruleplay observers take no parameters; got {params}")
        private = iig_obs_type.private_info
        if not iig_obs_type.public_info or private == pyspiel.PrivateInfoType.NONE or (
                private == pyspiel.PrivateInfoType.ALL_PLAYERS
                and spec.game_type.information != _Type.Information.PERFECT_INFORMATION):
            raise ValueError("ruleplay observers show one seat's own view (public_info=True, private_info="
                             "SINGLE_PLAYER); public-only and all-seeing observers of a game with hidden "
                             "information are not provided")
        self.spec = spec
        self.perfect_recall = iig_obs_type.perfect_recall
        width = 3 + len(spec.actions)
        pieces = [("observation", spec.encoding.size)]
        if self.perfect_recall:
            pieces.append(("history", spec.history * width))
        self.tensor = np.zeros(sum(size for _, size in pieces), np.float32)
        self.dict = {}
        at = 0
        for name, size in pieces:
            view = self.tensor[at:at + size]
            self.dict[name] = view.reshape(spec.history, width) if name == "history" else view
            at += size

    def set_from(self, state: RuleplayState, player: int) -> None:
        view_tensor(self.spec, state._held.handle, player, self.perfect_recall, self.tensor)

    def string_from(self, state: RuleplayState, player: int) -> str:
        return view_string(self.spec, state._held.handle, player, self.perfect_recall)
