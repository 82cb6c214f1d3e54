"""What both search agents share: a seeded generator, budget settings, the scale of the returns, and the
positions a decision is searched over — the game's native module where the backend allows it, else the
Python engine, with the same decision either way."""

from __future__ import annotations

from typing import Any

from ..engine.moves import Move
from ..engine.native import NativeGame, NativeUnavailable
from ..engine.rng import Rng, seed_state
from ..engine.state import State
from .base import no_moves_error
from .native_positions import NativeBail, NativePositions
from .positions import EnginePositions, Positions
from .search import CutOff, SearchSettings

BACKENDS = ("python", "native", "auto")  # as `engine.native.BACKENDS`: native and auto search natively where they can


class SearchAgent:
    """The base of `mcts` and `ismcts`: no search where there is nothing to choose (one legal move is played at
    once), else `decide` over native positions or, where the module cannot search this decision, the Python
    engine's.

    `spread` is the widest return (in absolute value) a search has backed up, at least 1.  UCB's `c` is
    set for returns in [-1, 1], which returns by rank are; declared returns (chips, points) may be far
    wider, and measured in them the means would outweigh any exploration: a game of three in a row paid in
    hundreds played as with c = 0 and let a line of three through.  It starts again at 1 for each search, so a
    decision depends on its own iterations alone.

    `backend` "native" or "auto" searches in the game's native module when it has one: a decision the module
    gives up on part of the way (`NativeBail`) is searched again on the Python engine from the generator
    state it began with, so its move is the one the Python engine's search picks.  "python" never asks the
    module.
    """

    def __init__(self, seed: int = 0, backend: str = "python", **options: Any):
        if backend not in BACKENDS:
            raise ValueError(f"backend {backend!r} is not one of {', '.join(BACKENDS)}")
        self.rng = Rng(seed_state(seed))
        self.settings = SearchSettings(**options)
        self.backend = backend
        self.spread = 1.0
        self.natively = 0  # decisions searched in the native module to the end
        self.bails = 0  # decisions searched again on the Python engine after the module gave up on them

    def choose(self, state: State) -> Move:
        moves = state.legal_moves()
        if not moves:
            raise no_moves_error(state)
        if len(moves) == 1:
            return moves[0]
        cut = CutOff.of(state, self.settings)
        native = self._native(state, cut)
        if native is not None:
            began = self.rng.state
            try:
                self.spread = 1.0
                chosen = self.decide(native, state, moves)
                self.natively += 1
                return chosen
            except NativeBail:
                self.rng.state = began
                self.bails += 1
        self.spread = 1.0
        return self.decide(EnginePositions(cut, self.settings.depth), state, moves)

    def _native(self, state: State, cut: CutOff) -> NativePositions | None:
        """The native positions to search `state` over, or None: the backend says python, or the game has no
        module, or the module does not hold the cut-off's heuristic."""
        if self.backend == "python":
            return None
        try:
            return NativePositions(NativeGame.of(state.game), cut, self.settings.depth)
        except (NativeUnavailable, NativeBail):
            return None

    def widen(self, returns: list[float]) -> None:
        """Take a backed-up `returns` into `spread`."""
        self.spread = max(self.spread, *map(abs, returns))

    def decide(self, at: Positions, state: State, moves: list[Move]) -> Move:
        """The move a search over positions `at` picks among two or more legal `moves` of `state`."""
        raise NotImplementedError
