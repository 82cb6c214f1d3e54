"""Worker processes for `simulate`: games handed out in small batches, outcomes back as each finishes.

`outcomes(...)` is the one seam between a batch and where its games run:
in this process for one worker, in forked (or spawned) processes for more,
each with a pipe of its own so the parent always knows which game a worker
holds.  A `GameSpec` says how to load the game in any process.

Each worker is a whole process with its own copy of the game and the
states it plays, so their number is bounded by the machine (`max_workers`):
a few per core (more would only take turns) and no more than the memory
now available holds at `WORKER_MEMORY` each.  A typo such as `--workers
10000` is refused with those figures instead of forking until the machine
swaps or the OOM killer steps in.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from ..engine.errors import RuleplayError, WorkerLostError
from ..engine.game import Game, load_game
from ..engine.outcome import GameFailure, GameOutcome
from ..engine.legal import CHANCE
from ..engine.state import State
from ..engine.native import NativeGame, choose, native_agents, playout
from .arc import ArcRecorder, Judge, arc_of
from .play import MoveRecord, agent_seed, game_seed, play_game, rotated, seat_agents


BATCH_GAMES = 4  # games per message to a worker: few, since a killed run replays those in flight
WORKERS_PER_CORE = 4
WORKER_MEMORY = 64 << 20  # what one worker may come to hold: the interpreter, a forked game, the states it plays


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))  # the cores this process may run on, not all the machine has
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _machine_memory() -> int | None:
    """Bytes of memory the machine has available now (Linux MemAvailable, else free pages), or None."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def _cgroup_room() -> int | None:
    """Bytes this process's control group (a container's memory limit) may still use, or None if unlimited."""
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        if limit == "max":
            return None
        return max(0, int(limit) - int(Path("/sys/fs/cgroup/memory.current").read_text()))
    except (OSError, ValueError):
        return None


def _available_memory() -> int | None:
    """Bytes of memory available to new workers now: the machine's, or less in a container; None if unknown."""
    known = [m for m in (_machine_memory(), _cgroup_room()) if m is not None]
    return min(known) if known else None


def max_workers() -> tuple[int, str]:
    """The most worker processes this machine takes now, and why (for the error message)."""
    cores = _cores()
    limit, why = WORKERS_PER_CORE * cores, f"{WORKERS_PER_CORE} per core for {cores} cores"
    memory = _available_memory()
    if memory is not None and memory // WORKER_MEMORY < limit:
        limit = max(1, memory // WORKER_MEMORY)
        why = f"{WORKER_MEMORY >> 20} MB each of the {memory >> 20} MB of memory available"
    return limit, why


def check_workers(workers: int) -> None:
    """ValueError unless 1 <= workers <= max_workers()."""
    if workers < 1:
        raise ValueError("simulate needs workers >= 1")
    limit, why = max_workers()
    if workers > limit:
        raise ValueError(f"{workers} worker processes is more than this machine takes: at most {limit} "
                         f"({why})")


@dataclass(frozen=True)
class GameSpec:
    """How to load a game in any process, and what to measure of each game beyond its result."""

    ruleset: str
    players: int | None = None
    variant: str | None = None
    checking: bool = False  # check the ruleset's invariants after every move; a broken one is a game error
    backend: str = "python"  # what the games play on: "python", "native" or "auto" (`engine.native.choose`)
    arcs: bool = False  # judge every position to measure each game's arc (`runs.arc`): lead changes, drama...
    heuristic: str | None = None  # what judges the positions (None: the ruleset's first heuristic, or its scores)

    def load(self) -> Game:
        return load_game(self.ruleset, self.players, self.variant, checking=self.checking)

    def judge(self, game: Game) -> Judge | None:
        """What judges the positions of `game`'s games when arcs are measured, else None."""
        return Judge.of(game, self.heuristic) if self.arcs else None


def run_one(game: Game, agents: Sequence[str], seed: int, index: int, rotate: bool = False,
            judge: Judge | None = None, backend: str = "python") -> GameOutcome:
    """Game `index` of a batch: its outcome, or the rule error that stopped it (a batch goes on).

    The legal moves counted at each decision are the ones the state already
    holds (it caches the next moves), so counting them plays nothing more and
    draws nothing from the game's generator.  With `rotate`, game i seats
    the agents shifted by i (`rotated`); the outcome stays in seat order.
    With a `judge`, every position is judged and the outcome holds the
    game's arc (`runs.arc`); judging reads states and draws nothing either.
    On the native backend, a game whose agents need no lookahead is played
    in the game's native module, its positions judged there too; search
    agents search in the module (`agents.searcher`).  The outcome is the
    same.
    """
    gseed = game_seed(seed, index)
    if rotate:
        agents = rotated(agents, index)
    if backend != "python":
        native = choose(game, backend).native
        kinds = native_agents(seat_agents(list(agents), game.info.players)) if native is not None else None
        code = native.judge_code(judge.heuristic) if native is not None and judge is not None else -1
        if kinds is not None and code is not None:
            outcome = _run_native(native, kinds, gseed, index, code, judge)  # type: ignore[arg-type]
            if outcome is not None:
                return outcome
    offered = [0, 0]  # decisions, legal moves over them
    recorder = ArcRecorder(judge) if judge is not None else None

    def count(state: State, record: MoveRecord | None) -> None:
        if not state.is_terminal() and state.current_player != CHANCE:
            offered[0] += 1
            offered[1] += len(state.legal_moves())
        if recorder is not None:
            recorder(state)

    try:
        result = play_game(game, agents, gseed, watch=count, backend=backend)
    except RuleplayError as err:
        return GameOutcome(index, gseed, failure=GameFailure(index, gseed, err.code, str(err),
                                                            getattr(err, "hint", "")))
    digest = hashlib.blake2b("\n".join(result.moves).encode(), digest_size=8).hexdigest()
    fired = Counter(rule for record in result.records for rule in record.rules)
    return GameOutcome(index, gseed, result.length, tuple(result.scores), tuple(result.returns), digest,
                       result.ended_by, decisions=offered[0], branching=offered[1], fired=tuple(sorted(fired.items())),
                       arc=recorder.arc() if recorder is not None else None)


def _run_native(native: NativeGame, kinds: list[int], gseed: int, index: int, code: int,
                judge: Judge | None) -> GameOutcome | None:
    """The game played in the native module; None for a judged game it did not play to its end by itself."""
    try:
        game = playout(native, kinds, [agent_seed(gseed, k) for k in range(len(kinds))], gseed, code)
    except RuleplayError as err:
        return GameOutcome(index, gseed, failure=GameFailure(index, gseed, err.code, str(err),
                                                            getattr(err, "hint", "")))
    if game is None:
        return None
    digest = hashlib.blake2b("\n".join(game.moves).encode(), digest_size=8).hexdigest()
    arc = None
    if judge is not None:
        arc = arc_of([judge.standing(values) for values in game.judged] + [judge.standing(game.returns, final=True)],
                     game.first_mover)
    return GameOutcome(index, gseed, len(game.moves), tuple(game.scores), tuple(game.returns), digest, game.ended_by,
                       decisions=game.decisions, branching=game.branching, fired=tuple(sorted(game.fired.items())),
                       arc=arc)


def _worker(conn: Any, spec: GameSpec, game: Game | None, agents: list[str], seed: int, rotate: bool,
            inherited: list[Any]) -> None:
    """A worker process: play the batch of game indices it is sent, sending back each outcome as it
    finishes, until told to stop.

    A forked worker gets the parent's loaded `game`; a spawned one (where
    arguments are pickled, and compiled rules do not pickle) loads `spec`.

    Workers leave Ctrl-C to the parent, which stops them once it has saved
    what finished.  They report only through their pipe, so their stderr goes
    nowhere (no broken-pipe traceback on the user's terminal after a kill).
    The pipe ends a forked worker inherited from the parent are closed: when
    the parent dies, the worker's next read then ends, instead of waiting for
    ever on a pipe it holds open itself.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.stderr = open(os.devnull, "w", encoding="utf-8")
    for end in inherited:
        end.close()
    if game is None:
        game = spec.load()
    judge = spec.judge(game)
    while True:
        try:
            batch = conn.recv()
        except (EOFError, OSError):
            return
        if batch is None:
            return
        for index in batch:
            conn.send(run_one(game, agents, seed, index, rotate, judge, spec.backend))


@dataclass
class _Worker:
    process: Any
    conn: Any
    batch: list[int] = field(default_factory=list)  # the games it holds and has not sent back


@contextlib.contextmanager
def outcomes(spec: GameSpec, game: Game, agents: Sequence[str], seed: int, indices: Iterable[int],
              workers: int, rotate: bool = False) -> Iterator[Iterator[GameOutcome]]:
    """The outcomes of games `indices`, each as soon as it finishes; workers stop when the block exits.

    Each worker has a pipe of its own and is handed a batch of BATCH_GAMES
    indices at a time (one message per batch, not per game), and sends each
    outcome back as it finishes, so the parent always knows which games a
    worker still holds.  A pool with a shared
    result queue could not say that, and a worker killed while holding the
    queue's lock deadlocked it.
    """
    if workers == 1:
        judge = spec.judge(game)
        yield (run_one(game, agents, seed, i, rotate, judge, spec.backend) for i in indices)
        return
    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    forked = context.get_start_method() == "fork"
    crew: list[_Worker] = []
    try:
        for _ in range(workers):
            mine, theirs = context.Pipe()
            inherited = [w.conn for w in crew] + [mine] if forked else []
            process = context.Process(target=_worker, daemon=True,
                                      args=(theirs, spec, game if forked else None, list(agents), seed, rotate,
                                            inherited))
            process.start()
            theirs.close()
            crew.append(_Worker(process, mine))
    except BaseException:
        _stop(crew)
        raise
    try:
        yield _dispatch(crew, iter(indices))
    finally:
        _stop(crew)


def _dispatch(crew: list[_Worker], todo: Iterator[int]) -> Iterator[GameOutcome]:
    """Hand out batches of games and yield outcomes as they come; WorkerLostError if a worker dies."""
    for worker in crew:
        _hand_out(worker, todo)
    while busy := [w for w in crew if w.batch]:
        ready = multiprocessing.connection.wait([w.conn for w in busy] + [w.process.sentinel for w in busy])
        for worker in busy:
            if worker.conn in ready:
                try:
                    outcome = worker.conn.recv()
                except (EOFError, OSError):
                    _lost(worker)
                worker.batch.remove(outcome.index)
                yield outcome
                if not worker.batch:
                    _hand_out(worker, todo)
            elif worker.process.sentinel in ready:
                _lost(worker)


def _hand_out(worker: _Worker, todo: Iterator[int]) -> None:
    worker.batch = list(itertools.islice(todo, BATCH_GAMES))
    try:
        worker.conn.send(worker.batch or None)
    except OSError:  # it died between two batches
        if worker.batch:
            _lost(worker)


def _lost(worker: _Worker) -> None:
    raise WorkerLostError(f"worker process {worker.process.pid} died (killed, or out of memory?) while "
                          f"playing games {', '.join(map(str, worker.batch))}")


def _stop(crew: list[_Worker]) -> None:
    """Stop every worker at once, also when interrupted: games in flight are replayed by a resume."""
    for worker in crew:
        if worker.process.is_alive():
            worker.process.kill()
    for worker in crew:
        worker.process.join()
        worker.conn.close()
