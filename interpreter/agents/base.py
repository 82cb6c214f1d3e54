"""What an agent is: anything that picks a move for the player to move."""

from __future__ import annotations

from typing import Protocol

from ..engine.moves import Move
from ..engine.state import State


class Agent(Protocol):
    """Anything that picks a move for the player to move in a decision state."""

    def choose(self, state: State) -> Move: ...


def no_moves_error(state: State) -> ValueError:
    return ValueError(f"no legal move to choose from in {state!r}")
