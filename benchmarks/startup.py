"""Start-up costs: `import ruleplay`, then loading (and so validating) one built-in ruleset, in a fresh process.

Each figure is the CPU time (`time.process_time`) of a new interpreter
started as `python -S -E -m benchmarks.startup TREE DEPENDENCIES GAME`,
which imports `ruleplay` from TREE the way `benchmarks.worker` does and
prints `{"import": s, "load": s}` as JSON.  A load runs every check a
ruleset goes through (`load_game` reports its diagnostics), and it is the
process's first, so it pays for building the parser.  `measure` repeats
this and keeps the fastest and the median run of each figure: start-up
noise only ever adds time.
"""

from __future__ import annotations

import json
import site
import statistics
import subprocess
import sys
import time
from pathlib import Path

GAMES = ["connect-four", "kuhn-poker", "lovci-pokladu", "nautilus", "nautilus-cards", "tic-tac-toe"]


class ProbeError(RuntimeError):
    """A probe process failed: its standard error says why."""


def _probe(tree: Path, game: str) -> dict:
    root = Path(__file__).resolve().parent.parent
    dependencies = [p for p in site.getsitepackages() if Path(p).is_dir()]
    done = subprocess.run([sys.executable, "-S", "-E", "-m", "benchmarks.startup", str(tree),
                           json.dumps(dependencies), game], cwd=root, capture_output=True, text=True)
    if done.returncode != 0:
        raise ProbeError(f"the start-up probe of {game} in {tree} failed: {done.stderr}")
    return json.loads(done.stdout)


def measure(tree: Path, runs: int = 5, games: list[str] = GAMES) -> dict:
    """Fastest and median CPU seconds of `import ruleplay` and of each game's first load, over `runs` processes."""
    probes = {game: [_probe(tree, game) for _ in range(runs)] for game in games}
    imports = [p["import"] for per_game in probes.values() for p in per_game]
    return {"runs": runs, "import": {"min": min(imports), "median": statistics.median(imports)},
            "load": {game: {"min": min(p["load"] for p in per_game),
                            "median": statistics.median(p["load"] for p in per_game)}
                     for game, per_game in probes.items()}}


def report(results: dict[str, dict]) -> str:
    """CPU milliseconds per tree, fastest run (median in brackets)."""
    names = list(results)
    lines = ["CPU ms in a fresh process, fastest of the runs (median)",
             f"{'':<24}" + "".join(f"{n:>22}" for n in names)]
    rows = [("import ruleplay", {n: r["import"] for n, r in results.items()})]
    rows += [(f"load {game}", {n: r["load"][game] for n, r in results.items()}) for game in results[names[0]]["load"]]
    for label, cells in rows:
        lines.append(f"{label:<24}" + "".join(f"{c['min'] * 1e3:>14.0f} ({c['median'] * 1e3:>4.0f})"
                                              for c in cells.values()))
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    tree, dependencies, game = Path(argv[0]), json.loads(argv[1]), argv[2]
    sys.path.extend(dependencies)
    from .worker import import_tree  # nothing of ruleplay before the clock starts

    start = time.process_time()
    ruleplay = import_tree(tree)
    imported = time.process_time()
    ruleplay.load_game(game)
    print(json.dumps({"import": imported - start, "load": time.process_time() - imported}))


if __name__ == "__main__":
    main(sys.argv[1:])
