"""One source tree's engine in a process of its own, measuring playouts on request.

Started by `against` as `python -S -E -m benchmarks.worker TREE DEPENDENCIES`
from the current checkout: `-S` keeps the editable install's import hook
(which maps `ruleplay` onto the current checkout) out, so the `ruleplay`
package is built from TREE's own `interpreter/`, `dsl/` and `validators/`
folders, the way the wheel lays them out, and the dependencies come from the
folders named in DEPENDENCIES.  The playout loop and the timing are this
checkout's (`measure`), so an older commit and the current tree are measured
by the same code.

It reads one JSON request a line and answers each with one JSON line.
`{"op": "load", "game", "players", "variant", "backend"}` loads a game (kept
for later requests) and, with `"backend": "native"`, its native module too
(compiled now unless it is in the cache: the answer gives that step's CPU
seconds, the compiler's included, and its wall seconds); it plays one
untimed game (`measure.warm_up`) and answers with the game's variants, the
CPU seconds the load took and the file the package was imported from.
`{"op": "sample", ..., "seconds"}` answers with a `Sample` of random
playouts: the engine's loop on "python", whole games in C a chunk at a
time (`native.batch_player`) on "native".  `{"op": "perft", ..., "depth",
"seconds"}` answers with a `PerftSample` of the tree's own perft from the
initial state (counted in the native module on "native").  `{"op": "rl",
..., "env": "pettingzoo"|"vector"|"vector-nocopy", "backend", "seconds"}` answers with a
`Sample` of steps of the tree's own `ruleplay.pettingzoo` environment
(`rl`: PettingZoo's loop, or a batch per step; `backend` None for a tree
whose environment takes none), made and warmed up on the first request.  A request that
fails (a game that does not load in this tree, a tree without a native
backend, a rule error in play) answers `{"error": ...}`; the worker carries
on.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import random
import resource
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

from . import native
from .measure import Sample, batch_chunks, engine_playout, perft_sample, sample, sample_chunks, warm_up


def import_tree(root: Path) -> ModuleType:
    """Import `ruleplay` from the source tree at `root`: the package is `interpreter/`, its dsl and checks beside it."""
    spec = importlib.util.spec_from_file_location("ruleplay", root / "interpreter" / "__init__.py",
                                                  submodule_search_locations=[str(root / "interpreter"), str(root)])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["ruleplay"] = module
    spec.loader.exec_module(module)
    return module


@dataclass
class Loaded:
    """A game loaded in this worker, on one backend: how to sample its playouts, and its native module."""

    game: Any
    sampler: Callable[[float], Sample]
    module: Any = None


def cpu_with_children() -> float:
    """CPU seconds of this process and of its finished children (the C compiler runs as one)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _load(ruleplay: ModuleType, key: tuple, backend: str) -> tuple[Loaded, dict]:
    start = time.process_time()
    game = ruleplay.load_game(*key)
    answer: dict = {"variants": list(game.info.variants), "load_seconds": time.process_time() - start,
                    "package": ruleplay.__file__, "backend": backend}
    if backend == "native":
        cpu, wall = cpu_with_children(), time.perf_counter()
        module = native.module_of(game)
        answer |= {"native_cpu_seconds": cpu_with_children() - cpu, "native_wall_seconds": time.perf_counter() - wall}
        chunk = batch_chunks(native.batch_player(module))
        chunk()  # warm up: one untimed chunk
        return Loaded(game, lambda seconds: sample_chunks(chunk, seconds), module), answer
    play, rng = engine_playout(game), random.Random(0)
    warm_up(play)
    return Loaded(game, lambda seconds: sample(play, seconds, rng)), answer


def _perft(loaded: Loaded, depth: int, seconds: float) -> dict:
    try:
        count = importlib.import_module("ruleplay.runs.perft").perft
    except ImportError:  # the package before it had layers (90d38aa)
        count = importlib.import_module("ruleplay.perft").perft
    if loaded.module is None:
        return perft_sample(lambda: count(loaded.game.new_state(0), depth).nodes, seconds).to_dict()
    return perft_sample(native.perft_counter(loaded.module, count, depth), seconds).to_dict()


def _rl_sampler(key: tuple, kind: str, backend: str | None) -> Callable[[float], Sample]:
    """Steps of the tree's own RL environment of `kind` for the game `key`, by `benchmarks.rl`'s loops."""
    from . import rl  # here: it imports numpy, which the worker finds only once main() extends its path

    environments = importlib.import_module("ruleplay.pettingzoo")
    options = {"players": key[1], "variant": key[2]} | ({} if backend is None else {"backend": backend})
    rng = random.Random(0)
    if kind in ("vector", "vector-nocopy"):
        copies = {"copy": False} if kind == "vector-nocopy" else {}
        chunk = rl.vector_chunk(environments.vector_env(key[0], num_envs=rl.BATCH, **options, **copies), rng)
        return lambda seconds: sample_chunks(chunk, seconds)
    play = rl.pettingzoo_playout(environments.env(key[0], **options))
    warm_up(play)
    return lambda seconds: sample(play, seconds, rng)


def serve(ruleplay: ModuleType, requests, replies) -> None:
    loaded: dict[tuple, Loaded] = {}
    environments: dict[tuple, Callable[[float], Sample]] = {}
    for line in requests:
        request = json.loads(line)
        key = (request["game"], request["players"], request["variant"])
        backend = request.get("backend", "python")
        try:
            if request["op"] == "load":
                loaded[key + (backend,)], answer = _load(ruleplay, key, backend)
            elif request["op"] == "sample":
                answer = loaded[key + (backend,)].sampler(request["seconds"]).to_dict()
            elif request["op"] == "rl":
                which = key + (request["env"], request["backend"])
                if which not in environments:
                    environments[which] = _rl_sampler(key, request["env"], request["backend"])
                answer = environments[which](request["seconds"]).to_dict()
            else:
                answer = _perft(loaded[key + (backend,)], request["depth"], request["seconds"])
        except Exception as error:  # noqa: BLE001 - any tree's own errors (their classes differ between commits)
            answer = {"error": f"{type(error).__name__}: {error}"}
        replies.write(json.dumps(answer) + "\n")
        replies.flush()


def main(argv: list[str]) -> None:
    tree, dependencies = Path(argv[0]), json.loads(argv[1])
    sys.path.extend(dependencies)
    serve(import_tree(tree), sys.stdin, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1:])
