"""Playouts per CPU-second, measured in turns so that a busy machine slows every contender alike.

A contender plays whole random games: one at a time (a `Playout`, given
the `rng` it draws its moves from, returns the game's moves), or a chunk of
a batch at a time (a `Chunk`: the native backend plays a few hundred games
per call, each call going on where the last stopped).  Every contender is
timed with `time.process_time`, the CPU time of this process: other
processes on a shared machine take wall time, not this.  A measurement
plays games back to back until `seconds` of CPU time have passed (the game
or chunk in progress is finished and counted).  `alternate` measures the
contenders in turns, pair after pair, reversing the order every other pair
so that neither always goes first; the headline figure is the median over
the pairs, and `summary` gives each contender's ratio to a reference one.

Three loops drive the games, each the way its kind of caller steps one:
`engine_playout` the engine's value API (`legal_moves`, `apply` returning a
new state), `baseline_playout` the hand-written games through the same
shape, and `action_playout` OpenSpiel's API (`legal_actions`,
`apply_action` in place, chance outcomes drawn from `chance_outcomes`),
which pyspiel's own games, ruleplay's OpenSpiel adapter and the native
state handle all answer.  perft counts are timed alike (`perft_sample`).

Nothing here imports ruleplay: the games, and the native backend's batch
function, are handed in, so the same code measures the current tree and an
older commit alike.
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass
from typing import Any, Callable, Protocol, TypeVar

Playout = Callable[[random.Random], int]  # plays one game with moves drawn from the rng: its number of moves
Chunk = Callable[[], tuple[int, int]]  # plays the next few games of a batch: (games, moves)
BatchPlayer = Callable[[int, int], tuple[int, int]]  # (first, count) -> games first..first+count-1 played: (games, moves)
CHUNK = 256  # native games to a call at most (as `ruleplay bench` plays them)
CHUNK_SECONDS = 0.01  # a chunk's aim: short, so a sample ends close to its seconds, yet long beside a call's cost
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

    @classmethod
    def of(cls, data: dict) -> Sample:
        """The sample `to_dict` wrote (a worker's answer)."""
        return cls(data["playouts"], data["moves"], data["cpu_seconds"])


def sample(play: Playout, seconds: float, rng: random.Random) -> Sample:
    """Play games one at a time until `seconds` of this process's CPU time have passed."""
    return sample_chunks(lambda: (1, play(rng)), seconds)


def sample_chunks(play: Chunk, seconds: float) -> Sample:
    """Play chunks of games until `seconds` of this process's CPU time have passed."""
    playouts = moves = 0
    start = time.process_time()
    while True:
        games, made = play()
        playouts += games
        moves += made
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return Sample(playouts, moves, elapsed)


def batch_chunks(play_batch: BatchPlayer, most: int = CHUNK) -> Chunk:
    """The games of one batch a chunk to a call, each call going on where the last one stopped.

    The first chunk is one game; each next one as many as the last took
    `CHUNK_SECONDS` to play, up to `most`: a tic-tac-toe chunk of 256 games
    takes a third of a millisecond, one Nautilus game a few milliseconds.
    """
    first, count = 0, 1

    def play() -> tuple[int, int]:
        nonlocal first, count
        start = time.process_time()
        games, moves = play_batch(first, count)
        elapsed = time.process_time() - start
        first += games
        count = most if elapsed <= 0 else max(1, min(most, round(games * CHUNK_SECONDS / elapsed)))
        return games, moves

    return play


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


def summary(samples: dict[str, list[Sample]], reference: str) -> dict:
    """Each contender's median playouts per CPU-second and µs per move, and its ratio to `reference`'s rate."""
    rates = {name: {"playouts_per_s": median_rate(v),
                    "us_per_move": 1e6 / statistics.median(s.moves_per_s for s in v)} for name, v in samples.items()}
    return {"reference": reference, "rates": rates,
            "ratios": {name: r["playouts_per_s"] / rates[reference]["playouts_per_s"] for name, r in rates.items()},
            "samples": {name: [s.to_dict() for s in v] for name, v in samples.items()}}


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


def action_playout(new_state: Callable[[random.Random], Any]) -> Playout:
    """OpenSpiel's loop over a state changed in place: a random legal action, a chance outcome drawn by weight.

    pyspiel's own games, ruleplay's OpenSpiel adapter and the native state
    handle (`NativeState`) all answer `is_terminal()`, `is_chance_node()`,
    `legal_actions()`, `chance_outcomes()` and `apply_action(a)`, so one
    loop drives them all; `new_state(rng)` makes a game's first state (a
    seeded one draws its seed from `rng`).
    """

    def play(rng: random.Random) -> int:
        state = new_state(rng)
        moves = 0
        while not state.is_terminal():
            if state.is_chance_node():
                actions, weights = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(actions, weights)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            moves += 1
        return moves

    return play


@dataclass(frozen=True)
class PerftSample:
    """One measurement of a perft count: the count made `runs` times in `seconds` of CPU time."""

    nodes: int
    runs: int
    seconds: float

    @property
    def nodes_per_s(self) -> float:
        return self.nodes * self.runs / self.seconds

    def to_dict(self) -> dict:
        return {"nodes": self.nodes, "runs": self.runs, "cpu_seconds": self.seconds, "nodes_per_s": self.nodes_per_s}

    @classmethod
    def of(cls, data: dict) -> PerftSample:
        """The sample `to_dict` wrote (a worker's answer)."""
        return cls(data["nodes"], data["runs"], data["cpu_seconds"])


class CountChanged(RuntimeError):
    """A perft count gave another number when made again: something in the search is not deterministic."""


def perft_sample(count: Callable[[], int], seconds: float) -> PerftSample:
    """Make the count again and again until `seconds` of CPU time have passed (a fast one is timed over many)."""
    nodes: int | None = None
    runs = 0
    start = time.process_time()
    while True:
        made = count()
        if nodes is not None and made != nodes:
            raise CountChanged(f"a perft count gave {nodes:,} nodes, then {made:,}")
        nodes, runs = made, runs + 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return PerftSample(nodes, runs, elapsed)


def perft(state: Position, depth: int) -> int:
    """Move sequences of exactly `depth` moves, counted as `ruleplay perft` counts them (no chance nodes)."""
    if depth == 0:
        return 1
    if state.is_terminal():
        return 0
    return sum(perft(state.apply(move), depth - 1) for move in state.legal_moves())
