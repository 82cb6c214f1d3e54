"""Playouts per CPU-second, measured in turns so that a busy machine slows every contender alike.

A contender is a function that plays one whole random game with the `rng`
it is given and returns the number of moves.  Every contender is timed with
`time.process_time`, the CPU time of this process: other processes on a
shared machine take wall time, not this.  A measurement plays games back to
back until `seconds` of CPU time have passed (the game in progress is
finished and counted).  `alternate` measures the contenders in turns, pair
after pair, reversing the order every other pair so that neither always
goes first; the headline figure is the median over the pairs.

Nothing here imports ruleplay: `engine_playout` is handed a loaded game, so
the same loop measures the current tree and an older commit alike.
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass
from typing import Any, Callable, Protocol, TypeVar

Playout = Callable[[random.Random], int]
WARM_UP_SEED = 12345  # the warm-up game's own generator, so the timed games are the same with or without it
T = TypeVar("T")


class Position(Protocol):
    """The public shape every contender is driven through, the engine's `State` and the baselines alike."""

    def legal_moves(self) -> Any: ...

    def apply(self, move: Any) -> Position: ...

    def is_terminal(self) -> bool: ...


@dataclass(frozen=True)
class Sample:
    """One measurement: whole games played in `seconds` of CPU time."""

    playouts: int
    moves: int
    seconds: float

    @property
    def playouts_per_s(self) -> float:
        return self.playouts / self.seconds

    @property
    def moves_per_s(self) -> float:
        return self.moves / self.seconds

    def to_dict(self) -> dict:
        return {"playouts": self.playouts, "moves": self.moves, "cpu_seconds": self.seconds,
                "playouts_per_s": self.playouts_per_s, "moves_per_s": self.moves_per_s}


def sample(play: Playout, seconds: float, rng: random.Random) -> Sample:
    """Play games until `seconds` of this process's CPU time have passed."""
    playouts = moves = 0
    start = time.process_time()
    while True:
        moves += play(rng)
        playouts += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return Sample(playouts, moves, elapsed)


def warm_up(play: Playout) -> None:
    """Play one untimed game first: the engine makes some of its code on first use, not at load.

    An action's generated listing is made the first time the action is
    listed (`engine.listing`), which costs the first Nautilus game about a
    quarter of a second; timed, that first game would drag down whichever
    row a process measures first.  The figures are of play in a warm
    process; what loading costs is `startup`'s to measure.
    """
    play(random.Random(WARM_UP_SEED))


def alternate(contenders: dict[str, Callable[[], T]], pairs: int) -> dict[str, list[T]]:
    """Measure each contender `pairs` times, in turns; every other round runs them in reverse order."""
    out: dict[str, list[T]] = {name: [] for name in contenders}
    names = list(contenders)
    for k in range(pairs):
        for name in names if k % 2 == 0 else reversed(names):
            out[name].append(contenders[name]())
    return out


def median_rate(samples: list[Sample]) -> float:
    return statistics.median(s.playouts_per_s for s in samples)


def engine_playout(game: Any) -> Playout:
    """A random playout through the engine's public API, seeded from `rng` (chance nodes draw from the state)."""

    def play(rng: random.Random) -> int:
        state = game.new_state(rng.getrandbits(32))
        moves = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state = state.apply_chance()
            else:
                state = state.apply(rng.choice(state.legal_moves()))
            moves += 1
        return moves

    return play


def baseline_playout(new_game: Callable[[random.Random], Position]) -> Playout:
    """The same loop over a hand-written game (which has no chance nodes: its shuffles happen inside `apply`)."""

    def play(rng: random.Random) -> int:
        state = new_game(rng)
        moves = 0
        while not state.is_terminal():
            state = state.apply(rng.choice(state.legal_moves()))
            moves += 1
        return moves

    return play


def perft(state: Position, depth: int) -> int:
    """Move sequences of exactly `depth` moves, counted as `ruleplay perft` counts them (no chance nodes)."""
    if depth == 0:
        return 1
    if state.is_terminal():
        return 0
    return sum(perft(state.apply(move), depth - 1) for move in state.legal_moves())
