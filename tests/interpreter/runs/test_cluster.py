"""Games on Dask give exactly the process pool's results: a LocalCluster, and a scheduler and worker
started as separate processes on loopback (`dask scheduler`, `dask worker`)."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from ruleplay.runs.cluster import ExecutorError, check_executor
from ruleplay.runs.simulate import simulate
from ruleplay.runs.workers import GameSpec

pytest.importorskip("distributed")

TTT = GameSpec("tic-tac-toe")
AGENTS = ["random", "greedy"]


def _same(a, b, timing: tuple[str, ...] = ("run",)) -> None:
    """Equal games and summaries; only the `timing` keys (backend, workers, speed) may differ."""
    assert [o for o in sorted(a.outcomes, key=lambda o: o.index)] == \
        [o for o in sorted(b.outcomes, key=lambda o: o.index)]
    assert a.statistics == b.statistics
    assert {k: v for k, v in a.to_dict().items() if k not in timing} == \
        {k: v for k, v in b.to_dict().items() if k not in timing}


@pytest.mark.slow  # a local cluster started, used and stopped: some fifteen seconds
def test_a_local_cluster_plays_what_the_process_pool_plays(tmp_path: Path) -> None:
    pool = simulate(TTT, 60, seed=4, agents=AGENTS, workers=2)
    dask = simulate(TTT, 60, seed=4, agents=AGENTS, workers=2, executor="dask-local", out=tmp_path / "r.jsonl")
    _same(pool, dask)
    assert dask.to_dict()["run"]["executor"] == "dask-local"
    # a run cut short and resumed on the cluster ends with the same games
    lines = (tmp_path / "r.jsonl").read_text().splitlines(keepends=True)
    (tmp_path / "r.jsonl").write_text("".join(lines[:21]) + lines[21][:10])  # 20 games and a torn line
    resumed = simulate(TTT, 60, seed=4, agents=AGENTS, workers=2, executor="dask-local", out=tmp_path / "r.jsonl",
                       resume=True)
    assert resumed.resumed == 20
    _same(pool, resumed, ("run", "resumed"))
    assert sorted((tmp_path / "r.jsonl").read_text().splitlines(keepends=True)[1:]) == sorted(lines[1:])


def test_search_agents_play_the_same_games_on_either_backend_pool_or_cluster() -> None:
    """A batch with search agents on the native backend (searching in the module, in the process pool and on a
    local cluster) plays the Python engine's games."""
    spec = GameSpec("nautilus-cards")
    agents = ["ismcts:iterations=20:depth=4", "random"]
    python = simulate(spec, 4, seed=2, agents=agents, workers=2)
    native = replace(spec, backend="native")
    _same(python, simulate(native, 4, seed=2, agents=agents, workers=2))
    _same(python, simulate(native, 4, seed=2, agents=agents, workers=2, executor="dask-local"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def scheduler():
    dask = shutil.which("dask", path=str(Path(sys.executable).parent))
    if dask is None:
        pytest.skip("the dask command is not installed")
    port = _free_port()
    address = f"127.0.0.1:{port}"
    started = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    started.append(subprocess.Popen([dask, "worker", f"tcp://{address}", "--nthreads", "1", "--no-dashboard"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    from distributed import Client

    deadline = time.monotonic() + 60
    while True:
        try:
            with Client(address, timeout=5) as client:
                client.wait_for_workers(1, timeout=30)
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)
    yield f"dask://{address}"
    for process in reversed(started):
        process.terminate()
        process.wait(timeout=30)


def test_a_scheduler_and_worker_in_other_processes_play_the_same(scheduler: str) -> None:
    pool = simulate(TTT, 60, seed=6, agents=AGENTS, workers=1)
    _same(pool, simulate(TTT, 60, seed=6, agents=AGENTS, executor=scheduler))


def test_a_workers_address_is_not_taken_for_its_schedulers(scheduler: str) -> None:
    from distributed import Client

    from ruleplay.engine.errors import SchedulerError

    with Client(scheduler[len("dask://"):], timeout=10) as client:
        worker = next(iter(client.scheduler_info()["workers"]))
    address = worker.removeprefix("tcp://")
    with pytest.raises(SchedulerError) as err:
        simulate(TTT, 2, executor=f"dask://{address}")
    assert err.value.message == f"no Dask scheduler at {address}: a Dask worker answers there, not a scheduler"


@pytest.mark.parametrize("executor", ["threads", "dask://", "dask://nohostport"])
def test_an_unknown_executor_is_refused(executor: str) -> None:
    with pytest.raises(ExecutorError, match="unknown executor"):
        check_executor(executor)


@pytest.mark.parametrize("address", ["[::1", "user:pass@host:80", "a" * 5000 + ":1", "127.0.0.1:99999", "h:0", "h:x",
                                     "h:80/path", "-h:80", "[nohost]:80"])
def test_a_scheduler_address_that_cannot_be_one_is_refused(address: str) -> None:
    with pytest.raises(ExecutorError, match="give dask://HOST:PORT"):
        check_executor("dask://" + address)


@pytest.mark.parametrize("address", ["127.0.0.1:8786", "[::1]:8786", "scheduler.example.org:8786", "node-7:1",
                                     "dask_scheduler:8786", "host.example.:8786"])
def test_a_scheduler_address_is_a_host_and_a_port(address: str) -> None:
    check_executor("dask://" + address)


@pytest.mark.slow  # a scheduler and two workers in child processes, one killed: some fifteen seconds
def test_a_worker_killed_mid_run_loses_and_repeats_no_game(tmp_path: Path) -> None:
    """Two workers without nannies; one is killed once the first batch is back: its batches run again on
    the other, and the results file holds every game exactly once, as the process pool plays them."""
    dask = shutil.which("dask", path=str(Path(sys.executable).parent))
    if dask is None:
        pytest.skip("the dask command is not installed")
    port = _free_port()
    address = f"127.0.0.1:{port}"
    scheduler = subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers = [subprocess.Popen([dask, "worker", f"tcp://{address}", "--nthreads", "1", "--no-nanny",
                                 "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
               for _ in range(2)]
    try:
        from distributed import Client

        with Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=60)
        spec = GameSpec("nautilus-cards")
        killed = []

        def kill_one(k: int) -> None:
            if not killed:
                workers[0].kill()
                killed.append(workers[0].wait(timeout=30))

        out = tmp_path / "r.jsonl"
        played = simulate(spec, 100, seed=2, executor=f"dask://{address}", out=out, progress=kill_one)
        assert killed
        pool = simulate(spec, 100, seed=2)
        _same(pool, played)
        indices = [json.loads(line)["index"] for line in out.read_text().splitlines()[1:]]
        assert sorted(indices) == list(range(100))
    finally:
        for process in [*workers, scheduler]:
            process.kill()
            process.wait(timeout=30)


@pytest.mark.slow  # a local cluster started and stopped in a child process: some ten seconds
def test_ctrl_c_stops_a_local_cluster_run_without_a_traceback_from_its_workers() -> None:
    """Ctrl-C at a terminal reaches every process of its group, the cluster's workers too; they leave the
    signal to the command (`cluster.dask_setup`), which stops with 130 and closes them."""
    import os
    import signal

    command = shutil.which("ruleplay", path=str(Path(sys.executable).parent))
    assert command, "the ruleplay command is not installed beside this Python"
    proc = subprocess.Popen([command, "simulate", "nautilus", "-n", "100000", "--executor", "dask-local",
                             "--workers", "2"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True,  # a group of its own, as a terminal's foreground job
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(8)  # the cluster is up and playing
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    assert stderr.strip().endswith("interrupted: nothing was saved (give --out FILE to keep finished games)")
