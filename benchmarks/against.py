"""The current tree against an older commit, each with its own rulesets, alternately in one run.

The commit is checked out into a temporary git worktree (removed
afterwards); each tree runs in a worker process of its own
(`benchmarks.worker`), and the two are asked for playout samples in turns,
pair after pair, as `measure.alternate` does in one process.  The default
commit is 90d38aa, issue 13's reference point: its target is at least 5x
that commit's playouts per CPU-second on every seed game.
"""

from __future__ import annotations

import json
import shutil
import site
import statistics
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from .measure import Sample, alternate

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = "90d38aa"
# The seed games and the player counts issue 13 names; each is measured without variants and with each of them.
SEED_GAMES = [("nautilus", 2), ("nautilus", 4), ("nautilus-cards", None), ("lovci-pokladu", 2), ("lovci-pokladu", 4)]


class WorkerError(RuntimeError):
    """A worker process died or could not start: its standard error says why."""


class Worker:
    """A `benchmarks.worker` process for one source tree."""

    def __init__(self, tree: Path):
        dependencies = [p for p in site.getsitepackages() if Path(p).is_dir()]
        self.tree = tree
        self.process = subprocess.Popen([sys.executable, "-S", "-E", "-m", "benchmarks.worker", str(tree),
                                         json.dumps(dependencies)], cwd=ROOT, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

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


def _configs(workers: dict[str, Worker], games: list[tuple[str, int | None]]) -> tuple[list[tuple], list[dict]]:
    """Every game, player count and variant to measure (loaded in both trees), and those that load in one only."""
    measured, skipped = [], []
    for game, players in games:
        answers = {name: w.ask({"op": "load", "game": game, "players": players, "variant": None})
                   for name, w in workers.items()}
        variants = sorted({v for a in answers.values() for v in a.get("variants", [])})
        for variant in [None, *variants]:
            key = {"game": game, "players": players, "variant": variant}
            loaded = {name: w.ask({"op": "load", **key}) for name, w in workers.items()}
            missing = {name: a["error"] for name, a in loaded.items() if "error" in a}
            if missing:
                skipped.append(key | {"missing": missing})
            else:
                measured.append((game, players, variant))
    return measured, skipped


def compare(commit: str = REFERENCE, pairs: int = 5, seconds: float = 1.0,
            games: list[tuple[str, int | None]] | None = None) -> dict:
    """Playouts per CPU-second of `commit` and of the current tree on every seed game, alternated."""
    with checkout(commit) as old_tree:
        workers = {"reference": Worker(old_tree), "current": Worker(ROOT)}
        try:
            measured, skipped = _configs(workers, games or SEED_GAMES)
            rows = []
            for game, players, variant in measured:
                key = {"game": game, "players": players, "variant": variant}

                def ask(worker: Worker, key: dict = key) -> Sample:
                    answer = worker.ask({"op": "sample", "seconds": seconds, **key})
                    if "error" in answer:
                        raise WorkerError(f"{key}: {answer['error']}")
                    return Sample(answer["playouts"], answer["moves"], answer["cpu_seconds"])

                samples = alternate({name: (lambda w=w: ask(w)) for name, w in workers.items()}, pairs)
                rates = {name: statistics.median(s.playouts_per_s for s in v) for name, v in samples.items()}
                rows.append(key | {"reference_playouts_per_s": rates["reference"],
                                   "current_playouts_per_s": rates["current"],
                                   "ratio": rates["current"] / rates["reference"],
                                   "samples": {k: [s.to_dict() for s in v] for k, v in samples.items()}})
        finally:
            for worker in workers.values():
                worker.close()
    return {"reference": commit, "pairs": pairs, "seconds": seconds, "rows": rows, "skipped": skipped}


def report(result: dict) -> str:
    lines = [f"playouts per CPU-second, {result['reference']} against the current tree "
             f"(median of {result['pairs']} alternated pairs of {result['seconds']:g} s)",
             f"{'game':<44}{result['reference']:>12}{'current':>12}{'ratio':>8}"]
    for row in result["rows"]:
        lines.append(f"{_label(row):<44}{row['reference_playouts_per_s']:>12,.2f}"
                     f"{row['current_playouts_per_s']:>12,.2f}{row['ratio']:>8.2f}")
    for row in result["skipped"]:
        lines.append(f"{_label(row):<44}  not measured: "
                     + "; ".join(f"{name}: {error.splitlines()[0]}" for name, error in row["missing"].items()))
    return "\n".join(lines)


def _label(row: dict) -> str:
    return " ".join([row["game"], *([f"-p {row['players']}"] if row["players"] else []),
                     *([f"--variant {row['variant']}"] if row["variant"] else [])])
