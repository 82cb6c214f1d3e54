"""Games on a Dask cluster: batches of games as tasks, through Dask's `concurrent.futures` executor.

`--executor dask://HOST:PORT` joins a running scheduler (`dask scheduler`,
with `dask worker HOST:PORT` on each machine); `--executor dask-local`
starts a LocalCluster of `workers` single-threaded worker processes for the
run.  Either way the parent submits batches of `BATCH_GAMES` indices (one
task per game would spend more on scheduling than on play), keeps a few
batches per worker in flight so a long run holds little, and yields each
batch's outcomes as it comes back.  Every game is a pure function of
(seed, index), so which worker plays a batch, and in which order batches
return, changes nothing in the results.

A worker lost mid-batch (killed, out of memory) loses nothing: the
scheduler runs the batch again on another worker (up to its
`allowed-failures`), and the parent only receives a batch once, whole, so
the results file neither lacks nor repeats a game.  A batch that fails on
every try is WorkerLostError, as for the process pool.

A worker loads the game itself from the `GameSpec` (compiled rules do not
pickle) once per process, so a ruleset given by path must be readable at
the same path on every worker machine; the path is made absolute first.
Dask is the optional extra `ruleplay[dask]`.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import functools
import ipaddress
import logging
import re
import signal
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from ..engine.errors import SchedulerError, WorkerLostError
from ..engine.game import Game
from ..engine.outcome import GameOutcome
from .workers import GameSpec, outcomes, run_one

BATCH_GAMES = 25
CONNECT_TIMEOUT = 30  # seconds to reach a running scheduler before giving up
IN_FLIGHT_PER_WORKER = 2
LOCAL = "dask-local"
SCHEME = "dask://"


def is_dask(executor: str | None) -> bool:
    return executor is not None and (executor == LOCAL or executor.startswith(SCHEME))


class ExecutorError(ValueError):
    """An --executor that names no backend, or Dask missing."""


def check_executor(executor: str | None) -> None:
    """ExecutorError unless `executor` is None, 'process', 'dask-local' or 'dask://HOST:PORT' with Dask installed."""
    if executor in (None, "process"):
        return
    if not is_dask(executor) or (executor.startswith(SCHEME) and ":" not in executor[len(SCHEME):]):
        raise ExecutorError(f"unknown executor {executor!r}: give 'process', 'dask-local' or "
                            f"'dask://HOST:PORT' (a running dask scheduler)")
    if executor.startswith(SCHEME):
        _check_address(executor[len(SCHEME):])
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise ExecutorError(f"--executor {executor} needs Dask: pip install 'ruleplay[dask]'") from None


# Labels of letters, digits, `-` and `_` (container and service names such as dask_scheduler have one), with a
# final dot allowed (a fully qualified name); 253 characters in all.
_HOST_NAME = re.compile(r"(?=.{1,254}$)[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
                        r"(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?")


def _check_address(address: str) -> None:
    """ExecutorError unless `address` is HOST:PORT: a host name, an IPv4 address or a bracketed IPv6 one, and a
    port 1-65535; Dask would otherwise fail inside with its own exception, or wait 30 s for a port that cannot be."""
    shown = address if len(address) <= 80 else address[:80] + "…"
    problem = f"--executor dask://{shown}: give dask://HOST:PORT, a host name or address and a port 1-65535"
    try:
        parts = urllib.parse.urlsplit("tcp://" + address)
        port, host = parts.port, parts.hostname
    except ValueError:  # a port out of range or not a number, an unclosed bracket
        raise ExecutorError(problem) from None
    if not host or not port or parts.username is not None or parts.path or parts.query or parts.fragment:
        raise ExecutorError(problem)
    if ":" in host:  # only a bracketed IPv6 address holds a colon
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise ExecutorError(problem) from None
    elif not _HOST_NAME.fullmatch(host):
        raise ExecutorError(problem)


@functools.lru_cache(maxsize=4)
def _game(spec: GameSpec) -> Game:
    """The game a worker process plays, loaded once per process and spec."""
    return spec.load()


def play_batch(spec: GameSpec, agents: Sequence[str], seed: int, indices: Sequence[int],
               rotate: bool) -> list[GameOutcome]:
    """The task a Dask worker runs: the games `indices` of a batch, in order."""
    game = _game(spec)
    judge = spec.judge(game)
    return [run_one(game, agents, seed, i, rotate, judge, spec.backend) for i in indices]


def _portable(spec: GameSpec) -> GameSpec:
    """A spec whose ruleset path means the same file in a worker started in another folder."""
    path = Path(spec.ruleset)
    if path.suffix in (".yaml", ".yml") and path.is_file():
        return dataclasses.replace(spec, ruleset=str(path.resolve()))
    return spec


def dask_setup(worker: Any) -> None:
    """Run by dask in each worker of the local cluster (`preload`): Ctrl-C is the command's alone.

    Ctrl-C reaches every process of the terminal's foreground group; the
    command stops the batch and closes the cluster, which ends its workers,
    while a worker that took the signal itself printed a traceback.
    """
    if threading.current_thread() is threading.main_thread():  # signals are the main thread's alone
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    logging.getLogger("distributed.worker").addFilter(_not_a_lost_heartbeat)


def _not_a_lost_heartbeat(record: logging.LogRecord) -> bool:
    """Drop a local worker's report that its heartbeat found the scheduler gone, with its traceback.

    The local cluster's scheduler lives in the command's own process: when
    the command stops (Ctrl-C, an error) it closes first, and a worker whose
    heartbeat fell between the two printed an OSError's traceback under the
    command's last line.  A scheduler that fails while the batch runs is
    reported by the command itself, through its client.
    """
    return not record.getMessage().startswith("Failed to communicate with scheduler during heartbeat")


@contextlib.contextmanager
def _client(executor: str, workers: int) -> Iterator[Any]:
    from distributed import Client, LocalCluster

    if executor == LOCAL:
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                          preload=[__name__], silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
            yield client
    else:
        with _connected(executor[len(SCHEME):]) as client:
            yield client


def _connected(address: str) -> Any:
    """A client of the running scheduler at `address`; SchedulerError (RP652) naming the address if nothing
    answers there in CONNECT_TIMEOUT seconds, or something that is not a Dask scheduler does.

    Dask bounds only the TCP connection by its timeout: a port that accepts
    and then says nothing held the client for ever in its handshake, and one
    that answered anything else had its bytes read as frame lengths (an
    allocation of exabytes: MemoryError).  So the address is first asked who
    it is (`_identity`, bounded as a whole), and only a scheduler is joined.
    """
    from distributed import Client

    kind = _identity(address)
    if kind != "Scheduler":
        raise _not_a_scheduler(address, f"a Dask {kind.lower()} answers there, not a scheduler" if kind else
                               "something there answered, but not as Dask does")
    try:
        return Client(address, timeout=CONNECT_TIMEOUT)
    except OSError as err:
        raise _unanswered(address, str(err)) from None
    except Exception as err:  # a scheduler that went away, or another server, between the two connections
        raise _not_a_scheduler(address, f"it broke off as the client joined ({type(err).__name__})") from None


def _identity(address: str) -> str | None:
    """What answers Dask's `identity` call at `address` ("Scheduler", "Worker", ...), or None if what answers
    is not Dask.  SchedulerError if no connection is made within CONNECT_TIMEOUT seconds, or if what accepts
    it does not answer within CONNECT_TIMEOUT seconds more."""
    import asyncio

    from distributed.comm import connect

    async def reached() -> None:  # the TCP connection alone, retried while refused (a scheduler starting up)
        parts = urllib.parse.urlsplit("tcp://" + address)
        deadline = time.monotonic() + CONNECT_TIMEOUT
        while True:
            try:
                _, writer = await asyncio.wait_for(asyncio.open_connection(parts.hostname, parts.port),
                                                   max(0.1, deadline - time.monotonic()))
            except ConnectionRefusedError:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.2)
                continue
            writer.close()
            return

    async def ask() -> Any:
        # The TCP connection is known to be made: Dask's retries of it (of a server that closes it at once)
        # end in half the time, before the bound on the whole exchange below, and say so by an OSError.
        comm = await connect(address, timeout=CONNECT_TIMEOUT / 2)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    async def identity() -> Any:
        try:
            await reached()
        except asyncio.TimeoutError:
            raise _unanswered(address, f"no connection in {CONNECT_TIMEOUT:g} s") from None
        except OSError as err:
            raise _unanswered(address, str(err)) from None
        try:
            return await asyncio.wait_for(ask(), CONNECT_TIMEOUT)
        except asyncio.TimeoutError:
            raise _not_a_scheduler(address, f"something there accepts connections but said nothing in "
                                            f"{CONNECT_TIMEOUT:g} s") from None
        except OSError:  # it closed the connection: no Dask server does that to `identity`
            raise _not_a_scheduler(address, "something there accepts connections, then closes them") from None
        except Exception:  # Dask reading what is not its protocol: MemoryError, ValueError, a decoding error
            return None

    # In a thread of its own: the caller may be running an event loop (a notebook), which asyncio.run refuses.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        reply = pool.submit(asyncio.run, identity()).result()
    kind = reply.get("type") if isinstance(reply, dict) else None
    return kind if isinstance(kind, str) else None


_START_ONE = "`dask scheduler`, with `dask worker {address}` on each machine that plays"


def _unanswered(address: str, why: str) -> SchedulerError:
    return SchedulerError(f"no Dask scheduler answered at {address} ({why})",
                          hint=f"start one there ({_START_ONE.format(address=address)}), check the host and port "
                               f"it prints, or run here with --executor dask-local")


def _not_a_scheduler(address: str, said: str) -> SchedulerError:
    return SchedulerError(f"no Dask scheduler at {address}: {said}",
                          hint=f"check the host and port the scheduler printed (`Scheduler at: tcp://HOST:PORT`; "
                               f"start one with {_START_ONE.format(address=address)}), or run here with "
                               f"--executor dask-local")


def cluster_workers(client: Any) -> int:
    return max(1, len(client.scheduler_info().get("workers", {})))


def _batches(indices: Iterable[int]) -> Iterator[list[int]]:
    batch: list[int] = []
    for index in indices:
        batch.append(index)
        if len(batch) == BATCH_GAMES:
            yield batch
            batch = []
    if batch:
        yield batch


@contextlib.contextmanager
def dask_outcomes(executor: str, spec: GameSpec, agents: Sequence[str], seed: int, indices: Iterable[int],
                  workers: int, rotate: bool = False) -> Iterator[Iterator[GameOutcome]]:
    """The outcomes of games `indices` played on Dask, batch by batch as batches finish."""
    with _client(executor, workers) as client:
        pool = client.get_executor(pure=False)
        limit = IN_FLIGHT_PER_WORKER * cluster_workers(client)
        portable = _portable(spec)
        pending: set[concurrent.futures.Future] = set()

        def stream() -> Iterator[GameOutcome]:
            todo = _batches(indices)
            for batch in todo:
                pending.add(pool.submit(play_batch, portable, list(agents), seed, batch, rotate))
                if len(pending) >= limit:
                    yield from _finished(pending)
            while pending:
                yield from _finished(pending)

        try:
            yield stream()
        finally:
            for future in pending:
                future.cancel()


def games_on(executor: str | None, spec: GameSpec, game: Game, agents: Sequence[str], seed: int,
             indices: Iterable[int], workers: int, rotate: bool = False) -> Any:
    """The one place a batch's backend is chosen: the process pool (`workers.outcomes`) or Dask."""
    if is_dask(executor):
        return dask_outcomes(str(executor), spec, agents, seed, indices, workers, rotate)
    return outcomes(spec, game, agents, seed, indices, workers, rotate)


def _finished(pending: set[concurrent.futures.Future]) -> Iterator[GameOutcome]:
    done, _ = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
    for future in done:
        pending.discard(future)
        try:
            batch = future.result()
        except Exception as err:  # KilledWorker after every retry, a lost scheduler: the games are not played
            raise WorkerLostError(f"a Dask batch failed on every try ({type(err).__name__}: {err})") from None
        yield from batch
