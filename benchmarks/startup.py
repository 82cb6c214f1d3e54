"""Start-up costs in fresh processes: `import ruleplay`, loading one built-in ruleset, and its native module.

Each probe is a new interpreter started as `python -S -E -m
benchmarks.startup TREE DEPENDENCIES GAME MODE`, which imports `ruleplay`
from TREE the way `benchmarks.worker` does, loads GAME and prints its
figures as JSON.  A load runs every check a ruleset goes through
(`load_game` reports its diagnostics), and it is the process's first, so it
pays for building the parser.  MODE says what follows the load:

- "python": nothing (an older commit, which has no native backend);
- "cached": the game's native module, found in the cache (what every
  command on the default `--backend auto` adds to its start);
- "first": the game's native module in an empty cache, compiled now: the
  native runtime first (a machine compiles it once per compiler and
  optimisation level, for every ruleset), then the ruleset's own module.

Loading figures are CPU seconds of the probe (`time.process_time`); a native
build's figures add the CPU seconds of the C compiler (the probe's children)
and give the wall seconds beside them.  `measure` runs one "first" probe per
game in a fresh cache folder (`XDG_CACHE_HOME`), then `runs` "cached" probes
in it, and keeps the fastest and the median run of each repeated figure:
start-up noise only ever adds time.  `opt_levels` weighs the C compiler's
optimisation levels (`RULEPLAY_NATIVE_OPT`, which sets the runtime's and
the module's) and the default choice (the runtime at -O2, a module by its
size: `build.optimization`): the compile time of each against the playouts
per CPU-second of the module it builds.
"""

from __future__ import annotations

import json
import os
import site
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted(path.stem for path in (ROOT / "rulesets").glob("*.yaml"))  # every built-in ruleset
DEFAULT_OPT = "default"  # RULEPLAY_NATIVE_OPT empty: the flags the native backend chooses, the ratios' reference
OPT_LEVELS = ["-O1", "-O2", "-O3", DEFAULT_OPT]
OPT_GAMES = [("nautilus", None), ("connect-four", None)]


class ProbeError(RuntimeError):
    """A probe process failed: its standard error says why."""


def _probe(tree: Path, game: str, mode: str, env: dict[str, str] | None = None) -> dict:
    dependencies = [p for p in site.getsitepackages() if Path(p).is_dir()]
    done = subprocess.run([sys.executable, "-S", "-E", "-m", "benchmarks.startup", str(tree),
                           json.dumps(dependencies), game, mode], cwd=ROOT, capture_output=True, text=True,
                          env=None if env is None else os.environ | env)
    if done.returncode != 0:
        raise ProbeError(f"the start-up probe of {game} in {tree} failed: {done.stderr}")
    return json.loads(done.stdout)


def _spread(values: list[float]) -> dict:
    return {"min": min(values), "median": statistics.median(values)}


def measure(tree: Path, runs: int = 5, games: list[str] = GAMES, native: bool = True) -> dict:
    """Fastest and median CPU seconds of `import ruleplay` and of each game's first load over `runs` processes;
    with `native`, each game's native module built in an empty cache, then loaded from it in each process."""
    probes: dict[str, list[dict]] = {}
    firsts: dict[str, dict] = {}
    for game in games:
        if not native:
            probes[game] = [_probe(tree, game, "python") for _ in range(runs)]
            continue
        with tempfile.TemporaryDirectory(prefix="ruleplay-cache-") as cache:
            firsts[game] = _probe(tree, game, "first", {"XDG_CACHE_HOME": cache})
            probes[game] = [_probe(tree, game, "cached", {"XDG_CACHE_HOME": cache}) for _ in range(runs)]
    imports = [p["import"] for per_game in probes.values() for p in per_game]
    result = {"runs": runs, "import": _spread(imports),
              "load": {game: _spread([p["load"] for p in per_game]) for game, per_game in probes.items()}}
    if native:
        result["native"] = {game: _native_figures(firsts[game], probes[game]) for game in games}
    return result


def _native_figures(first: dict, cached: list[dict]) -> dict:
    """A game's first native load (runtime and module) and its cached loads, or why it has no native module."""
    failed = next((p["native"]["error"] for p in [first, *cached] if "error" in p["native"]), None)
    if failed is not None:
        return {"error": failed}
    return {"first": {"runtime": first["runtime"], "module": first["native"],
                      "cpu": first["runtime"]["cpu"] + first["native"]["cpu"],
                      "wall": first["runtime"]["wall"] + first["native"]["wall"]},
            "cached": _spread([p["native"]["cpu"] for p in cached])}


def opt_levels(pairs: int, seconds: float, levels: list[str] = OPT_LEVELS,
               games: list[tuple[str, int | None]] = OPT_GAMES) -> dict:
    """Each optimisation level's compile times, in an empty cache per level (the runtime once, then each game's
    module, in "first" probes), and the playouts per CPU-second of the modules it built, measured in one worker
    process per level, alternated, with each level's ratio to the default level's rate."""
    from .against import Worker, WorkerError
    from .measure import Sample, alternate

    rows = []
    with tempfile.TemporaryDirectory(prefix="ruleplay-opt-") as folder:
        envs = {level: {"RULEPLAY_NATIVE_OPT": "" if level == DEFAULT_OPT else level,
                        "XDG_CACHE_HOME": str(Path(folder) / level)} for level in levels}
        builds = {level: {game: _probe(ROOT, game, "first", env) for game, _ in games} for level, env in envs.items()}
        for level, per_game in builds.items():
            failed = next((b["native"]["error"] for b in per_game.values() if "error" in b["native"]), None)
            if failed is not None:
                raise WorkerError(f"no native module at {level}: {failed}")
        workers = {level: Worker(ROOT, env) for level, env in envs.items()}
        try:
            for game, players in games:
                key = {"game": game, "players": players, "variant": None, "backend": "native"}
                for level, worker in workers.items():
                    if "error" in (answer := worker.ask({"op": "load", **key})):
                        raise WorkerError(f"{game} at {level}: {answer['error']}")
                samples = alternate({level: lambda w=worker: Sample.of(w.ask({"op": "sample", "seconds": seconds,
                                                                                **key}))
                                     for level, worker in workers.items()}, pairs)
                rates = {level: statistics.median(s.playouts_per_s for s in v) for level, v in samples.items()}
                reference = rates.get(DEFAULT_OPT, next(iter(rates.values())))
                rows.append({"game": game, "players": players, "levels": {
                    level: {"module_cpu": builds[level][game]["native"]["cpu"],
                            "module_wall": builds[level][game]["native"]["wall"],
                            "playouts_per_s": rates[level], "ratio": rates[level] / reference}
                    for level in levels}})
        finally:
            for worker in workers.values():
                worker.close()
    first = games[0][0]  # the game whose probe compiled each level's runtime
    return {"pairs": pairs, "seconds": seconds, "reference": DEFAULT_OPT,
            "runtime_cpu": {level: builds[level][first]["runtime"]["cpu"] for level in levels}, "rows": rows}


def report(results: dict[str, dict]) -> str:
    """CPU milliseconds per tree, fastest run (median in brackets); the first native loads in seconds."""
    names = list(results)
    lines = ["CPU ms in a fresh process, fastest of the runs (median)",
             f"{'':<34}" + "".join(f"{n:>22}" for n in names)]
    rows = [("import ruleplay", {n: r["import"] for n, r in results.items()})]
    rows += [(f"load {game}", {n: r["load"][game] for n, r in results.items()}) for game in results[names[0]]["load"]]
    natives = {n: r["native"] for n, r in results.items() if "native" in r}
    games = [game for per_tree in natives.values() for game in per_tree]
    rows += [(f"+ native {game} (cached)", {n: per_tree[game].get("cached") for n, per_tree in natives.items()})
             for game in dict.fromkeys(games)]
    for label, cells in rows:
        lines.append(f"{label:<34}" + "".join(f"{'-':>22}" if cells.get(n) is None else
                                              f"{cells[n]['min'] * 1e3:>14.0f} ({cells[n]['median'] * 1e3:>4.0f})"
                                              for n in names))
    for tree, per_tree in natives.items():
        lines += ["", f"first native load ({tree}), empty cache: CPU seconds with the C compiler's (wall seconds)",
                  f"{'':<34}{'runtime':>18}{'module':>18}{'total':>18}"]
        for game, figures in per_tree.items():
            if "error" in figures:
                lines.append(f"{game:<34}  not measured: {figures['error'].splitlines()[0]}")
                continue
            first = figures["first"]
            lines.append(f"{game:<34}" + "".join(f"{f['cpu']:>10.2f} ({f['wall']:>5.2f})"
                                                 for f in (first["runtime"], first["module"], first)))
    return "\n".join(lines)


def opt_report(result: dict) -> str:
    """Per level the runtime's compile time; per game and level the module's, and playouts per CPU-second with
    the ratio to the default level."""
    lines = [f"optimisation levels: compile CPU s (the compiler's included) against playouts per CPU-second "
             f"(median of {result['pairs']} alternated pairs of {result['seconds']:g} s; ratio: over "
             f"{result['reference']})",
             f"{'runtime':<16}" + "".join(f"{level:>8} {cpu:>6.2f}" for level, cpu in result["runtime_cpu"].items()),
             f"{'game':<16}{'level':<7}{'module s':>10}{'playouts/s':>13}{'ratio':>8}"]
    for row in result["rows"]:
        label = row["game"]
        for level, figures in row["levels"].items():
            lines.append(f"{label:<16}{level:<7}{figures['module_cpu']:>10.2f}"
                         f"{figures['playouts_per_s']:>13,.0f}{figures['ratio']:>8.3f}")
            label = ""
    return "\n".join(lines)


def _native_step(game: object, mode: str) -> dict:
    """The probe's native figures: the module built ("first", the runtime timed apart) or loaded ("cached")."""
    import importlib

    from . import native
    from .worker import cpu_with_children

    def timed(step) -> dict:
        cpu, wall = cpu_with_children(), time.perf_counter()
        step()
        return {"cpu": cpu_with_children() - cpu, "wall": time.perf_counter() - wall}

    try:
        build = importlib.import_module("ruleplay.engine.native.build")
    except ImportError:
        return {"native": {"error": "this tree has no native backend"}}
    figures = {}
    try:
        if mode == "first":
            figures["runtime"] = timed(build.runtime_objects)
        figures["native"] = timed(lambda: native.module_of(game))
    except (build.BuildError, native.NoNative) as error:
        figures["native"] = {"error": str(error)}
    return figures


def main(argv: list[str]) -> None:
    tree, dependencies, game, mode = Path(argv[0]), json.loads(argv[1]), argv[2], argv[3]
    sys.path.extend(dependencies)
    from .worker import import_tree  # nothing of ruleplay before the clock starts

    start = time.process_time()
    ruleplay = import_tree(tree)
    imported = time.process_time()
    loaded = ruleplay.load_game(game)
    figures = {"import": imported - start, "load": time.process_time() - imported}
    if mode != "python":
        figures |= _native_step(loaded, mode)
    print(json.dumps(figures))


if __name__ == "__main__":
    main(sys.argv[1:])
