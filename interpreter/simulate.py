"""Many games between agents: win rates, draws, lengths, speed, and rule errors.

Game i of a batch uses the seed `Rng(seed_state(seed)).derive(i)`, so each
game's result depends only on (seed, i), never on how the batch is split
between worker processes.  Workers receive a `GameSpec` (name or path,
players, variant) and load the game themselves: a compiled model holds
closures that do not pickle, and loading once per process is cheap.

Counting (see `ruleplay.outcome`): a seat wins a game when its return is the
highest and beats someone's (tied top seats all win); a draw is a game where
every return is equal.  Rates are over the games that finished without a
rule error; errored games are listed with their index and seed, so any of
them can be replayed alone with `play_game(game, agents, seed)`.
"""

from __future__ import annotations

import hashlib
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Callable, Sequence

from ruleplay.dsl.runtime import RuleRuntimeError

from .errors import RuleplayError
from .game import Game, load_game
from .outcome import is_draw, winning_seats
from .play import play_game, seat_agents
from .rng import Rng, seed_state


@dataclass(frozen=True)
class GameSpec:
    """How to load a game in any process."""

    ruleset: str
    players: int | None = None
    variant: str | None = None
    checking: bool = False  # check the ruleset's invariants after every move; a broken one is a game error

    def load(self) -> Game:
        return load_game(self.ruleset, self.players, self.variant, checking=self.checking)


@dataclass(frozen=True)
class GameFailure:
    index: int
    seed: int
    code: str
    message: str
    hint: str = ""

    def to_dict(self) -> dict:
        return {"index": self.index, "seed": self.seed, "code": self.code, "message": self.message,
                "hint": self.hint}


@dataclass(frozen=True)
class GameOutcome:
    """One game of a batch: its result, or the rule error that stopped it."""

    index: int
    seed: int
    length: int = 0
    scores: tuple[float, ...] = ()
    returns: tuple[float, ...] = ()
    digest: str = ""  # of the move texts: equal digests mean the same game
    failure: GameFailure | None = None


@dataclass
class SimulationReport:
    games: int
    players: int
    seed: int
    agents: list[str]
    workers: int
    wins: list[int] = field(default_factory=list)
    draws: int = 0
    win_rate: list[float] = field(default_factory=list)
    mean_length: float = 0.0
    playouts_per_s: float = 0.0
    seconds: float = 0.0
    errors: list[GameFailure] = field(default_factory=list)
    outcomes: list[GameOutcome] = field(default_factory=list)

    @property
    def completed(self) -> int:
        return self.games - len(self.errors)

    def to_dict(self) -> dict:
        """The summary (per-game outcomes left out: they can be large)."""
        return {"games": self.games, "completed": self.completed, "players": self.players, "seed": self.seed,
                "agents": self.agents, "workers": self.workers, "wins": self.wins, "draws": self.draws,
                "win_rate": self.win_rate, "mean_length": self.mean_length,
                "playouts_per_s": self.playouts_per_s, "seconds": self.seconds,
                "errors": [e.to_dict() for e in self.errors]}


def game_seed(seed: int, index: int) -> int:
    return Rng(seed_state(seed)).derive(index)


_LOADED: dict[GameSpec, Game] = {}


def _game(spec: GameSpec) -> Game:
    """The game for `spec`, loaded once per worker process."""
    game = _LOADED.get(spec)
    if game is None:
        game = _LOADED[spec] = spec.load()
    return game


def run_one(game: Game, agents: Sequence[str], seed: int, index: int) -> GameOutcome:
    gseed = game_seed(seed, index)
    try:
        result = play_game(game, agents, gseed)
    except (RuleRuntimeError, RuleplayError) as err:
        return GameOutcome(index, gseed, failure=GameFailure(index, gseed, err.code, str(err),
                                                            getattr(err, "hint", "")))
    digest = hashlib.blake2b("\n".join(result.moves).encode(), digest_size=8).hexdigest()
    return GameOutcome(index, gseed, result.length, tuple(result.scores), tuple(result.returns), digest)


def _run_batch(spec: GameSpec, agents: Sequence[str], seed: int, indices: range) -> list[GameOutcome]:
    game = _game(spec)
    return [run_one(game, agents, seed, i) for i in indices]


def _batches(n: int, workers: int) -> list[range]:
    size = max(1, min(64, n // (workers * 8)))
    return [range(lo, min(lo + size, n)) for lo in range(0, n, size)]


def simulate(game_spec: GameSpec, n: int, seed: int = 0, agents: Sequence[str] = ("random",),
             workers: int = 1, progress: Callable[[int], None] | None = None) -> SimulationReport:
    """Play `n` games; `progress(k)` is told each time k more games have finished.

    Raises RulesetError if the game does not load and ValueError on bad
    arguments; rule errors inside games are collected in `errors`.
    """
    if n < 0 or workers < 1:
        raise ValueError("simulate needs n >= 0 and workers >= 1")
    game = game_spec.load()
    seats = [str(a) for a in seat_agents(list(agents), game.info.players)]
    workers = max(1, min(workers, n))
    start = time.perf_counter()
    outcomes: list[GameOutcome] = []
    if workers == 1:
        for i in range(n):
            outcomes.append(run_one(game, seats, seed, i))
            if progress:
                progress(1)
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(_run_batch, game_spec, seats, seed, r) for r in _batches(n, workers)]
            for future in as_completed(futures):
                batch = future.result()
                outcomes.extend(batch)
                if progress:
                    progress(len(batch))
    elapsed = time.perf_counter() - start
    outcomes.sort(key=lambda o: o.index)
    return tally(outcomes, game.info.players, seed, seats, workers, elapsed)


def tally(outcomes: list[GameOutcome], players: int, seed: int, agents: list[str], workers: int,
          seconds: float) -> SimulationReport:
    report = SimulationReport(len(outcomes), players, seed, agents, workers, wins=[0] * players,
                              seconds=seconds, outcomes=outcomes)
    total_length = 0
    for outcome in outcomes:
        if outcome.failure is not None:
            report.errors.append(outcome.failure)
            continue
        total_length += outcome.length
        if is_draw(outcome.returns):
            report.draws += 1
        for seat in winning_seats(outcome.returns):
            report.wins[seat] += 1
    done = report.completed
    report.win_rate = [w / done if done else 0.0 for w in report.wins]
    report.mean_length = total_length / done if done else 0.0
    report.playouts_per_s = done / seconds if seconds > 0 else 0.0
    return report
