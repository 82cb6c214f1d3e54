"""Many games between agents: win rates, draws, lengths, speed, and rule errors.

Game i of a batch uses the seed `game_seed(seed, i)`, so each game's result
depends only on (seed, i), never on how the batch is split between worker
processes or on whether it ran in one go.  Workers receive a `GameSpec`
(name or path, players, variant) and load the game themselves when they are
not forked from a process that already has it: a compiled model holds
closures that do not pickle.

With `out`, every finished game is appended to a results file as it arrives
(`runs.results_file`), and `resume=True` plays only the games that file
lacks, so an interrupted batch costs only the games that were in flight.
A resume first plays a random sample of the games it reads back (all of
them with `verify_all`) again, on the same workers, and refuses a file
whose lines are not what their seeds play.

Counting (see `engine.outcome`): a seat wins a game when its return is the
highest and beats someone's (tied top seats all win); a draw is a game where
every return is equal.  Rates are over the games that finished without a
rule error; errored games are counted, and the first thousand listed with
their index and seed, so any of them can be replayed alone with
`play_game(game, agents, seed)`.  Games are counted as they finish and the
indices to play are generated, not listed, so a batch of any size runs in
the same memory.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import heapq
import os
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Sequence

from ..engine.game import ENGINE_VERSION, Game
from ..engine.outcome import GameFailure, GameOutcome
from ..engine.rng import check_seed
from . import results_file, stats
from .play import plays_on, seat_agents
from .summary import Measures
from .cluster import games_on
from .workers import GameSpec, check_workers

MAX_ERRORS_KEPT = 1000  # failures listed in a report; `failed` counts them all


@dataclass
class SimulationReport:
    games: int
    players: int
    seed: int
    agents: list[str]
    workers: int
    executor: str = "process"
    rotate: bool = False
    wins: list[int] = field(default_factory=list)
    draws: int = 0
    win_rate: list[float] = field(default_factory=list)
    mean_length: float = 0.0
    ended_by: dict[str, int] = field(default_factory=dict)  # end condition -> games it ended
    playouts_per_s: float = 0.0  # of the games played by this call (not those read back by a resume)
    seconds: float = 0.0
    resumed: int = 0  # games read back from the results file
    failed: int = 0  # games stopped by a rule error
    errors: list[GameFailure] = field(default_factory=list)  # the first MAX_ERRORS_KEPT of them, by index
    outcomes: list[GameOutcome] = field(default_factory=list)  # every game, by index (only if asked for)
    measures: Measures | None = None  # the finished games' distributions (`runs.summary`)
    statistics: dict = field(default_factory=dict)  # `measures` summarised, coverage included
    backend: str = "python"  # what the games played on (`play.plays_on`): the results are the same

    @property
    def completed(self) -> int:
        return self.games - self.failed

    def to_dict(self) -> dict:
        """The summary (per-game outcomes left out: they can be large)."""
        return {"games": self.games, "completed": self.completed, "players": self.players, "seed": self.seed,
                "agents": self.agents, "rotate": self.rotate, "wins": self.wins, "draws": self.draws,
                "win_rate": self.win_rate, "mean_length": self.mean_length, "ended_by": self.ended_by,
                "run": {"executor": self.executor, "workers": self.workers, "backend": self.backend,
                        "playouts_per_s": self.playouts_per_s, "seconds": self.seconds}, "resumed": self.resumed,
                "failed": self.failed, "errors": [e.to_dict() for e in self.errors], "statistics": self.statistics}


def simulate(game_spec: GameSpec, n: int, seed: int = 0, agents: Sequence[str] = ("random",),
             workers: int = 1, progress: Callable[[int], None] | None = None,
             out: str | os.PathLike | None = None, resume: bool = False,
             keep_outcomes: bool = True, game: Game | None = None, verify_all: bool = False,
             spec_ids: Sequence[str] | None = None, rotate: bool = False,
             executor: str | None = None,
             on_outcome: Callable[[GameOutcome], None] | None = None) -> SimulationReport:
    """Play `n` games; `progress(k)` is told each time k more games have finished.

    Games are tallied as they finish, so memory does not grow with `n`
    unless `keep_outcomes` asks for every game's outcome in the report (the
    command line does not).  With `out`, each finished game is appended to
    that results file at once; `resume` first reads the games it already
    holds (they count in the report) and plays only the others.  Raises
    RulesetError if the game does not load, ResultsFileError for a results
    file of another run, and ValueError on bad arguments (SeatingError for
    an agent count that fits no seating); rule errors inside games are
    counted in `failed` and the first ones listed in `errors`.  An interrupt
    (KeyboardInterrupt), or WorkerLostError when a worker process dies,
    propagates after every finished game has been written.  `game` is
    `game_spec` already loaded (the command line loads it first, to check
    its files against the outputs), so that it is not loaded twice.
    `verify_all` plays every game a resume reads back again, not a sample.
    `spec_ids` are the rule ids of the game's spec, for the coverage report
    to name those nothing cites.  `rotate` shifts the seating by one seat
    per game (game i seats `play.rotated(agents, i)`), and the report counts
    each agent wherever it sat, in `agents` order.  `executor` is None (or
    "process") for worker processes here, or a Dask one (`runs.cluster`);
    the results are the same on every executor, and on either engine
    (`game_spec.backend`: "python", "native" or "auto").  `on_outcome` is handed
    every game's outcome as it is tallied, those a resume reads back too,
    in the order they finish (`compare` pairs the games of two batches).
    """
    if n < 0:
        raise ValueError("simulate needs n >= 0")
    check_seed(seed)  # the batch seed: each game's own seed is drawn from it, so a wrapped one would go unseen
    check_workers(workers)
    game = game if game is not None else game_spec.load()
    seats = [str(a) for a in seat_agents(list(agents), game.info.players)]
    judge = game_spec.judge(game)
    backend = plays_on(game, game_spec.backend, seats, judge is not None,  # made here, before workers fork
                       judge.heuristic if judge is not None else None).name
    tally = Tally(game.info.players, keep_outcomes, rotate, game_spec.arcs)

    def record(outcome: GameOutcome) -> None:
        tally.add(outcome)
        if on_outcome is not None:
            on_outcome(outcome)

    with contextlib.ExitStack() as stack:
        writer, finished = None, None
        if out is not None:
            info = game.info
            judge = game_spec.judge(game)
            head = results_file.header(info.name, game_spec.ruleset, info.ruleset_hash, ENGINE_VERSION,
                                       info.variant, info.players, seed, n, seats, game_spec.checking, rotate,
                                       judge.name if judge is not None else None)
            if resume:
                verify = functools.partial(_verify, game_spec, game, seats, seed, workers, out, rotate, executor)
                writer, finished = results_file.resume(out, head, record, verify, verify_all)
            else:
                writer = results_file.create(out, head)
            stack.enter_context(writer)
        resumed = tally.games
        if progress and resumed:
            progress(resumed)
        todo = range(n) if finished is None else (i for i in range(n) if i not in finished)
        workers = max(1, min(workers, n - resumed))
        start = time.perf_counter()
        with games_on(executor, game_spec, game, seats, seed, todo, workers, rotate) as stream:
            for outcome in stream:
                if writer is not None:
                    writer.write(outcome)
                record(outcome)
                if progress:
                    progress(1)
        elapsed = time.perf_counter() - start
    report = tally.report(seed, seats, workers)
    report.executor, report.rotate, report.backend = executor or "process", rotate, backend
    report.statistics = tally.measures.summary(game.model.cited_rules, spec_ids)
    report.seconds = elapsed
    report.playouts_per_s = (tally.games - resumed) / elapsed if elapsed > 0 else 0.0
    report.resumed = resumed
    return report


def _verify(game_spec: GameSpec, game: Game, seats: Sequence[str], seed: int, workers: int,
            out: str | os.PathLike, rotate: bool, executor: str | None,
            recorded: Iterable[tuple[int, GameOutcome]]) -> None:
    """Play read-back games again and refuse the first line that differs (`results_file.check_replayed`).

    `recorded` may be a stream of every line of a large file: only the games
    in flight are held, keyed by index, since workers finish out of order.
    """
    pending: dict[int, tuple[int, GameOutcome]] = {}

    def indices() -> Iterator[int]:
        for number, outcome in recorded:
            pending[outcome.index] = (number, outcome)
            yield outcome.index

    with games_on(executor, game_spec, game, seats, seed, indices(), workers, rotate) as stream:
        for replayed in stream:
            number, claimed = pending.pop(replayed.index)
            results_file.check_replayed(out, number, claimed, replayed)


class Tally:
    """A batch's counts, updated one game at a time in any order; the report does not depend on the order."""

    def __init__(self, players: int, keep_outcomes: bool = False, rotate: bool = False, arcs: bool = False):
        self.players = players
        self.rotate = rotate  # measures are kept per agent: seat j of game i held agent (j + i) mod players
        self.games = 0
        self.measures = Measures(players, arcs)
        self.ends: Counter[str] = Counter()
        self.failed = 0
        self._errors: list[tuple[int, GameFailure]] = []  # a heap of (-index, failure): the lowest indices
        self._outcomes: list[GameOutcome] | None = [] if keep_outcomes else None

    def add(self, outcome: GameOutcome) -> None:
        self.games += 1
        if self._outcomes is not None:
            self._outcomes.append(outcome)
        if outcome.failure is not None:
            self.failed += 1
            item = (-outcome.index, outcome.failure)
            if len(self._errors) < MAX_ERRORS_KEPT:
                heapq.heappush(self._errors, item)
            elif item[0] > self._errors[0][0]:
                heapq.heapreplace(self._errors, item)
            return
        self.measures.add(by_agent(outcome, self.players) if self.rotate else outcome)
        self.ends[outcome.ended_by or "unknown"] += 1

    def report(self, seed: int, agents: list[str], workers: int) -> SimulationReport:
        done = self.games - self.failed
        outcomes = sorted(self._outcomes or [], key=lambda o: o.index)
        measures = self.measures
        return SimulationReport(
            self.games, self.players, seed, agents, workers, wins=list(measures.wins), draws=measures.draws,
            win_rate=[w / done if done else 0.0 for w in measures.wins],
            mean_length=stats.mean(measures.lengths),
            ended_by=dict(sorted(self.ends.items(), key=lambda item: (-item[1], item[0]))),
            failed=self.failed, errors=[f for _, f in sorted(self._errors, key=lambda item: -item[0])],
            outcomes=outcomes, measures=measures)


def by_agent(outcome: GameOutcome, players: int) -> GameOutcome:
    """A rotated game's scores and returns in agent order: agent a sat in seat (a - index) mod players, so
    seat s held agent (s + index) mod players (the arc's first mover becomes the agent who moved first)."""
    def order(values: tuple[float, ...]) -> tuple[float, ...]:
        return tuple(values[(a - outcome.index) % players] for a in range(players))

    arc = outcome.arc
    if arc is not None and arc.first_mover is not None:
        arc = dataclasses.replace(arc, first_mover=(arc.first_mover + outcome.index) % players)
    return dataclasses.replace(outcome, scores=order(outcome.scores), returns=order(outcome.returns), arc=arc)
