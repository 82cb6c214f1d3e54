"""Engine speed: random playouts per second, measured over several timed runs.

Each run plays uniformly random games back to back for about `seconds`
(a game in progress when time is up is finished and counted) and times
them with `time.perf_counter`.  The median of the runs is the headline
figure — one slow run (another process, a cold cache) does not move it —
and the min and max show the spread.  Playout seeds follow from one seed, so two
benchmarks of the same ruleset play the same games in the same order.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field

from .game import Game
from .play import play_game
from .rng import Rng, seed_state


@dataclass(frozen=True)
class BenchRun:
    playouts: int
    moves: int
    seconds: float

    @property
    def playouts_per_s(self) -> float:
        return self.playouts / self.seconds if self.seconds > 0 else 0.0


@dataclass
class BenchReport:
    game: str
    runs: list[BenchRun] = field(default_factory=list)

    @property
    def playouts_per_s(self) -> float:
        return statistics.median(r.playouts_per_s for r in self.runs)

    @property
    def mean_length(self) -> float:
        playouts = sum(r.playouts for r in self.runs)
        return sum(r.moves for r in self.runs) / playouts if playouts else 0.0

    def to_dict(self) -> dict:
        rates = [r.playouts_per_s for r in self.runs]
        return {"game": self.game, "playouts_per_s": self.playouts_per_s, "mean_length": self.mean_length,
                "min_playouts_per_s": min(rates), "max_playouts_per_s": max(rates),
                "runs": [{"playouts": r.playouts, "moves": r.moves, "seconds": r.seconds,
                          "playouts_per_s": r.playouts_per_s} for r in self.runs]}


def bench(game: Game, seconds: float = 1.0, runs: int = 3, seed: int = 0) -> BenchReport:
    """Time random playouts (game k uses seed `derive(k)` of `seed`); rule errors propagate."""
    if seconds <= 0 or runs < 1:
        raise ValueError("bench needs seconds > 0 and runs >= 1")
    seeds = Rng(seed_state(seed))
    report = BenchReport(game.name)
    index = 0
    for _ in range(runs):
        playouts = moves = 0
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            moves += play_game(game, ["random"], seeds.derive(index)).length
            index += 1
            playouts += 1
            now = time.perf_counter()
            if now >= deadline:
                break
        report.runs.append(BenchRun(playouts, moves, now - start))
    return report
