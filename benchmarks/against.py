"""The current tree against an older commit, each with its own rulesets, alternately in one run.

The commit is checked out into a temporary git worktree (removed
afterwards); each tree runs in a worker process of its own
(`benchmarks.worker`), and the two are asked for playout samples in turns,
pair after pair, as `measure.alternate` does in one process.  The default
commit is 90d38aa, issue 13's reference point: its target is at least 5x
that commit's playouts per CPU-second on every seed game.

The older tree always plays on its Python engine; the current tree plays on
its Python engine too, or (`backend="native"`) on the native backend, whole
games in C a chunk at a time: issue 34's targets are at least 20x commit
5970966's playouts per CPU-second on every seed game configuration, and
50x its perft of tic-tac-toe and Connect Four.  With `perft`, both trees
also count those perfts (each its own `perft`, the current one natively on
"native"), and the counts must agree.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import statistics
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from .measure import PerftSample, Sample, alternate
from .run import BASELINES, rate_text

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = "90d38aa"
NATIVE_REFERENCE = "5970966"  # issue 34's reference point for the native backend's targets
# The seed games and the player counts issue 13 names; each is measured without variants and with each of them.
SEED_GAMES = [("nautilus", 2), ("nautilus", 4), ("nautilus-cards", None), ("lovci-pokladu", 2), ("lovci-pokladu", 4)]
PERFT_GAMES = [(g, b.perft_depth) for g, b in BASELINES.items() if b.perft_depth]  # as `run --perft` counts them


class WorkerError(RuntimeError):
    """A worker process died or could not start: its standard error says why."""


class Worker:
    """A `benchmarks.worker` process for one source tree."""

    def __init__(self, tree: Path, env: dict[str, str] | None = None):
        """`env`: variables to set in the worker's environment (a native build's cache and flags)."""
        dependencies = [p for p in site.getsitepackages() if Path(p).is_dir()]
        self.tree = tree
        self.process = subprocess.Popen([sys.executable, "-S", "-E", "-m", "benchmarks.worker", str(tree),
                                         json.dumps(dependencies)], cwd=ROOT, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                        env=None if env is None else os.environ | env)

    def ask(self, request: dict) -> dict:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise WorkerError(f"the worker for {self.tree} stopped: {self.process.stderr.read()}")
        answer = json.loads(line)
        if "package" in answer and not Path(answer["package"]).is_relative_to(self.tree):
            raise WorkerError(f"the worker for {self.tree} imported ruleplay from {answer['package']}")
        return answer

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


@contextmanager
def checkout(commit: str) -> Iterator[Path]:
    """`commit` in a temporary worktree of this repository, removed again afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="ruleplay-against-"))
    tree = folder / "tree"
    added = subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(tree), commit],
                           capture_output=True, text=True)
    if added.returncode != 0:
        shutil.rmtree(folder, ignore_errors=True)
        raise WorkerError(f"cannot check out {commit}: {added.stderr.strip()}")
    try:
        yield tree
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


def _configs(workers: dict[str, Worker], backends: dict[str, str],
             games: list[tuple[str, int | None]]) -> tuple[list[tuple], list[dict]]:
    """Every game, player count and variant to measure (loaded in both trees), and those that load in one only."""
    measured, skipped = [], []
    for game, players in games:
        answers = {name: w.ask({"op": "load", "game": game, "players": players, "variant": None,
                                "backend": backends[name]}) for name, w in workers.items()}
        variants = sorted({v for a in answers.values() for v in a.get("variants", [])})
        for variant in [None, *variants]:
            key = {"game": game, "players": players, "variant": variant}
            loaded = {name: w.ask({"op": "load", **key, "backend": backends[name]}) for name, w in workers.items()}
            missing = {name: a["error"] for name, a in loaded.items() if "error" in a}
            if missing:
                skipped.append(key | {"missing": missing})
            else:
                measured.append((game, players, variant))
    return measured, skipped


def _asker(worker: Worker, request: dict):
    """Asks `worker` for one measurement; WorkerError when it answers with an error."""
    def ask() -> dict:
        answer = worker.ask(request)
        if "error" in answer:
            raise WorkerError(f"{request}: {answer['error']}")
        return answer

    return ask


def _playout_row(workers: dict[str, Worker], backends: dict[str, str], key: dict, pairs: int,
                 seconds: float) -> dict:
    samples = alternate({name: lambda ask=_asker(w, {"op": "sample", "seconds": seconds, **key,
                                                     "backend": backends[name]}): Sample.of(ask())
                         for name, w in workers.items()}, pairs)
    rates = {name: statistics.median(s.playouts_per_s for s in v) for name, v in samples.items()}
    return key | {"reference_playouts_per_s": rates["reference"], "current_playouts_per_s": rates["current"],
                  "ratio": rates["current"] / rates["reference"],
                  "samples": {k: [s.to_dict() for s in v] for k, v in samples.items()}}


def _perft_row(workers: dict[str, Worker], backends: dict[str, str], game: str, depth: int, pairs: int,
               seconds: float) -> dict:
    key = {"game": game, "players": None, "variant": None}
    for name, w in workers.items():
        _asker(w, {"op": "load", **key, "backend": backends[name]})()
    samples = alternate({name: lambda ask=_asker(w, {"op": "perft", "depth": depth, "seconds": seconds, **key,
                                                     "backend": backends[name]}): PerftSample.of(ask())
                         for name, w in workers.items()}, pairs)
    counts = {name: {s.nodes for s in v} for name, v in samples.items()}
    if len(counts["reference"] | counts["current"]) != 1:
        raise WorkerError(f"{game} perft {depth}: the reference counted {sorted(counts['reference'])}, "
                          f"the current tree {sorted(counts['current'])}")
    rates = {name: statistics.median(s.nodes_per_s for s in v) for name, v in samples.items()}
    return {"game": game, "depth": depth, "nodes": counts["current"].pop(),
            "reference_nodes_per_s": rates["reference"], "current_nodes_per_s": rates["current"],
            "ratio": rates["current"] / rates["reference"],
            "samples": {k: [s.to_dict() for s in v] for k, v in samples.items()}}


def compare(commit: str = REFERENCE, pairs: int = 5, seconds: float = 1.0,
            games: list[tuple[str, int | None]] | None = None, backend: str = "python", perft: bool = False) -> dict:
    """Playouts per CPU-second of `commit` (on its Python engine) and of the current tree (on `backend`) on every
    seed game, alternated; with `perft`, the perfts of `PERFT_GAMES` too."""
    backends = {"reference": "python", "current": backend}
    with checkout(commit) as old_tree:
        workers = {"reference": Worker(old_tree), "current": Worker(ROOT)}
        try:
            measured, skipped = _configs(workers, backends, games or SEED_GAMES)
            rows = [_playout_row(workers, backends, {"game": g, "players": p, "variant": v}, pairs, seconds)
                    for g, p, v in measured]
            perfts = [_perft_row(workers, backends, g, depth, pairs, seconds) for g, depth in PERFT_GAMES if perft]
        finally:
            for worker in workers.values():
                worker.close()
    return {"reference": commit, "backend": backend, "pairs": pairs, "seconds": seconds, "rows": rows,
            "skipped": skipped, "perft": perfts}


def report(result: dict) -> str:
    reference = f"{result['reference']} (python)"
    current = f"current ({result['backend']})"
    lines = [f"playouts per CPU-second, {result['reference']} on its Python engine against the current tree on "
             f"{result['backend']} (median of {result['pairs']} alternated pairs of {result['seconds']:g} s)",
             f"{'game':<44}{reference:>18}{current:>18}{'ratio':>9}"]
    for row in result["rows"]:
        lines.append(f"{_label(row):<44}{rate_text(row['reference_playouts_per_s']):>18}"
                     f"{rate_text(row['current_playouts_per_s']):>18}{row['ratio']:>9.2f}")
    for row in result["skipped"]:
        lines.append(f"{_label(row):<44}  not measured: "
                     + "; ".join(f"{name}: {error.splitlines()[0]}" for name, error in row["missing"].items()))
    if result["perft"]:
        lines += ["", "perft leaf nodes per CPU-second", f"{'game':<44}{reference:>18}{current:>18}{'ratio':>9}"]
        for row in result["perft"]:
            label = f"{row['game']} depth {row['depth']} ({row['nodes']:,})"
            lines.append(f"{label:<44}{rate_text(row['reference_nodes_per_s']):>18}"
                         f"{rate_text(row['current_nodes_per_s']):>18}{row['ratio']:>9.2f}")
    return "\n".join(lines)


def _label(row: dict) -> str:
    return " ".join([row["game"], *([f"-p {row['players']}"] if row["players"] else []),
                     *([f"--variant {row['variant']}"] if row["variant"] else [])])
