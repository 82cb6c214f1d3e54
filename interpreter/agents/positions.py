"""What a tree search asks of the positions it walks, answered by the Python engine (`EnginePositions`) or by the
game's native module (`native_positions.NativePositions`).

`mcts` is written once, against `Positions`: the tree, its statistics
and every number drawn from the agent's generator are its own, and only
the positions differ.  `ismcts` walks its tree over the Python engine's
positions, which also show a seat the moves (`view`, `views`), and has
the native module walk the same tree (`native_tree`).  Both kinds answer
alike (the same legal moves in the same order, the same chance draws, the
same rollouts and cut-off judgements for the same generator state), so a
search makes the same decisions on either.  A move is what the positions
name it by: a `Move` here, its index natively.
"""

from __future__ import annotations

import json
from typing import Any, Hashable, Protocol

from ..engine.determinize import Determinizer
from ..engine.legal import CHANCE
from ..engine.rng import Rng
from ..engine.state import State
from .search import CutOff, rollout, sample_chance


class Positions(Protocol):
    """The positions a search walks: made from the real state, stepped by value, judged by rollouts."""

    def root(self, state: State) -> Any: ...
    def players(self, position: Any) -> int: ...
    def terminal(self, position: Any) -> bool: ...
    def chance(self, position: Any) -> bool: ...
    def mover(self, position: Any) -> int: ...
    def turn(self, position: Any) -> int | None: ...
    def moves(self, position: Any) -> list: ...
    def shuffled(self, position: Any, rng: Rng) -> list: ...
    def apply(self, position: Any, move: Hashable) -> Any: ...
    def advance(self, position: Any, move: Hashable) -> Any: ...
    def generator(self, position: Any) -> int: ...
    def reseeded(self, position: Any, rng: Rng) -> Any: ...
    def key(self, position: Any) -> str: ...
    def sample_chance(self, position: Any, rng: Rng) -> Hashable: ...
    def rollout(self, position: Any, rng: Rng) -> list[float]: ...
    def sampler(self, state: State, viewer: int) -> Any: ...


class EnginePositions:
    """Positions as `State`s of the Python engine; a move is a `Move`."""

    def __init__(self, cut: CutOff, depth: int | None):
        self.cut, self.depth = cut, depth

    def root(self, state: State) -> State:
        return state

    def players(self, position: State) -> int:
        return position.data["flow"]["players"]

    def terminal(self, position: State) -> bool:
        return position.is_terminal()

    def chance(self, position: State) -> bool:
        return position.is_chance_node()

    def mover(self, position: State) -> int:
        return position.current_player

    def turn(self, position: State) -> int | None:
        """Who moves at `position`: a seat, CHANCE, or None once the game is over (one question for a walk)."""
        if position.is_terminal():
            return None
        return CHANCE if position.is_chance_node() else position.current_player

    def moves(self, position: State) -> list:
        return position.legal_moves()

    def shuffled(self, position: State, rng: Rng) -> list:
        """The legal moves in an order drawn with `rng` (`Rng.shuffle`)."""
        moves = position.legal_moves()
        rng.shuffle(moves)
        return moves

    def apply(self, position: State, move: Any) -> State:
        return position.apply(move)

    def advance(self, position: State, move: Any) -> State:
        """`apply` for a walk that gives `position` up (a Python state is stepped by copy all the same)."""
        return position.apply(move)

    def generator(self, position: State) -> int:
        return position.data["rng"]

    def reseeded(self, position: State, rng: Rng) -> State:
        """`position` with a generator drawn from `rng` in place of its own."""
        return position.with_data(dict(position.data, rng=rng.next64()))

    def key(self, position: State) -> str:
        """What tells two positions apart (the generator aside)."""
        return json.dumps([position.data["vars"], position.data["flow"]], sort_keys=True)

    def sample_chance(self, position: State, rng: Rng) -> Any:
        return sample_chance(position, rng)

    def rollout(self, position: State, rng: Rng) -> list[float]:
        return rollout(position, rng, self.depth, self.cut)

    def view(self, position: State, move: Any, viewer: int) -> str:
        return position.move_view(move, viewer)

    def views(self, position: State, viewer: int) -> dict[str, list]:
        """The legal moves by how `viewer` is shown them, in the rules' order."""
        by_view: dict[str, list] = {}
        for move in position.legal_moves():
            by_view.setdefault(position.move_view(move, viewer), []).append(move)
        return by_view

    def sampler(self, state: State, viewer: int) -> Determinizer:
        """What draws the determinizations of `state` for `viewer` (its `sample(rng)`), as positions."""
        return Determinizer(state, viewer)
