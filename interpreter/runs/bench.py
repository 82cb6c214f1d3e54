"""Engine speed: random playouts per second, measured over several timed runs.

Each run plays uniformly random games back to back for about `seconds`
(a game in progress when time is up is finished and counted), each on one
state changed in place (`play_game(in_place=True)`: the games `simulate`
plays, without a state made per move), and times
them with `time.perf_counter`.  The median of the runs is the headline
figure — one slow run (another process, a cold cache) does not move it —
and the min and max show the spread.  Playout seeds follow from one seed, so two
benchmarks of the same ruleset play the same games in the same order.

Playouts per second still depend on the machine and on what else it is
doing.  So before each run the same process times a fixed pure-Python
workload (the baseline: the copying, indexing and dictionary work the
interpreter does), and the report's `cost` is the median, run by run, of
what one playout costs in baseline operations.  A busy or slower machine
slows both alike, so `cost` can be compared across machines and commits
where raw rates cannot.
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass, field

from ..engine.game import Game
from ..engine.native import NativeGame, batch
from ..engine.rng import Rng, seed_state
from .play import play_game


@dataclass(frozen=True)
class BenchRun:
    playouts: int
    moves: int
    seconds: float
    baseline_ops_per_s: float  # of the baseline workload, timed just before this run

    @property
    def playouts_per_s(self) -> float:
        return self.playouts / self.seconds if self.seconds > 0 else 0.0

    @property
    def moves_per_s(self) -> float:
        return self.moves / self.seconds if self.seconds > 0 else 0.0

    @property
    def cost(self) -> float:
        """Baseline operations one playout takes the time of."""
        return self.baseline_ops_per_s / self.playouts_per_s if self.playouts_per_s else 0.0


@dataclass
class BenchReport:
    game: str
    backend: str = "python"
    runs: list[BenchRun] = field(default_factory=list)

    @property
    def playouts_per_s(self) -> float:
        return statistics.median(r.playouts_per_s for r in self.runs)

    @property
    def moves_per_s(self) -> float:
        return statistics.median(r.moves_per_s for r in self.runs)

    @property
    def cost(self) -> float:
        return statistics.median(r.cost for r in self.runs)

    @property
    def mean_length(self) -> float:
        playouts = sum(r.playouts for r in self.runs)
        return sum(r.moves for r in self.runs) / playouts if playouts else 0.0

    def to_dict(self) -> dict:
        rates = [r.playouts_per_s for r in self.runs]
        return {"game": self.game, "backend": self.backend, "playouts_per_s": self.playouts_per_s, "moves_per_s": self.moves_per_s,
                "mean_length": self.mean_length,
                "min_playouts_per_s": min(rates), "max_playouts_per_s": max(rates),
                "baseline_ops_per_playout": self.cost,
                "runs": [{"playouts": r.playouts, "moves": r.moves, "seconds": r.seconds,
                          "playouts_per_s": r.playouts_per_s, "moves_per_s": r.moves_per_s,
                          "baseline_ops_per_s": r.baseline_ops_per_s,
                          "baseline_ops_per_playout": r.cost} for r in self.runs]}


BASELINE_SHARE = 0.25  # of each run's time spent timing the baseline
NATIVE_CHUNK = 256  # native games played in one call at most: the clock is read between calls


def _baseline_op(board: list[dict]) -> int:
    """One baseline operation: copy a small board of records and read it back, as rules do."""
    copy = [{key: (list(v) if type(v) is list else v) for key, v in cell.items()} for cell in board]
    return sum(cell["n"] + len(cell["tags"]) for cell in copy if cell["owner"] is not None)


def baseline_ops_per_s(seconds: float) -> float:
    """How many baseline operations this process does per second now."""
    board = [{"n": i, "owner": i % 3 or None, "tags": ["a"] * (i % 4)} for i in range(16)]
    ops = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(100):
            _baseline_op(board)
        ops += 100
        now = time.perf_counter()
        if now >= deadline:
            return ops / (now - start)


def bench(game: Game, seconds: float = 1.0, runs: int = 3, seed: int = 0,
          native: NativeGame | None = None) -> BenchReport:
    """Time random playouts (game k uses seed `derive(k)` of `seed`, as game k of a `simulate` batch);
    rule errors propagate.  With `native`, the games are played in the game's native module, a few
    hundred to a call (the same games)."""
    if not (math.isfinite(seconds) and seconds > 0) or runs < 1:
        raise ValueError("bench needs a finite number of seconds > 0 and runs >= 1")
    seeds = Rng(seed_state(seed))
    report = BenchReport(game.name, "native" if native is not None else "python")
    index = 0
    chunk = 1
    for _ in range(runs):
        reference = baseline_ops_per_s(seconds * BASELINE_SHARE)
        playouts = moves = 0
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            if native is not None:
                games, made = batch(native, seed, index, chunk, [0] * game.info.players)
                chunk = min(chunk * 2, NATIVE_CHUNK)
            else:
                games, made = 1, play_game(game, ["random"], seeds.derive(index), in_place=True).length
            index += games
            playouts += games
            moves += made
            now = time.perf_counter()
            if now >= deadline:
                break
        report.runs.append(BenchRun(playouts, moves, now - start, reference))
    return report
