"""One source tree's engine in a process of its own, measuring playouts on request.

Started by `against` as `python -S -E -m benchmarks.worker TREE DEPENDENCIES`
from the current checkout: `-S` keeps the editable install's import hook
(which maps `ruleplay` onto the current checkout) out, so the `ruleplay`
package is built from TREE's own `interpreter/`, `dsl/` and `validators/`
folders, the way the wheel lays them out, and the dependencies come from the
folders named in DEPENDENCIES.  The playout loop and the timing are this
checkout's (`measure`), so an older commit and the current tree are measured
by the same code.

It reads one JSON request a line and answers each with one JSON line:
`{"op": "load", "game", "players", "variant"}` loads a game (kept for later
requests), plays one untimed game with it (`measure.warm_up`) and answers with its
variants, the CPU seconds the load took and the file the package was imported from;
`{"op": "sample", "game", "players", "variant", "seconds"}` answers with a
`Sample`.  A request that fails (a game that does not load in this tree, a
rule error in play) answers `{"error": ...}`; the worker carries on.
"""

from __future__ import annotations

import importlib.util
import json
import random
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from .measure import engine_playout, sample, warm_up


def import_tree(root: Path) -> ModuleType:
    """Import `ruleplay` from the source tree at `root`: the package is `interpreter/`, its dsl and checks beside it."""
    spec = importlib.util.spec_from_file_location("ruleplay", root / "interpreter" / "__init__.py",
                                                  submodule_search_locations=[str(root / "interpreter"), str(root)])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["ruleplay"] = module
    spec.loader.exec_module(module)
    return module


def serve(ruleplay: ModuleType, requests, replies) -> None:
    games: dict[tuple, tuple[Any, random.Random]] = {}
    for line in requests:
        request = json.loads(line)
        key = (request["game"], request["players"], request["variant"])
        try:
            if request["op"] == "load":
                start = time.process_time()
                game = ruleplay.load_game(*key)
                load_seconds = time.process_time() - start
                warm_up(engine_playout(game))
                games[key] = (game, random.Random(0))
                answer = {"variants": list(game.info.variants), "load_seconds": load_seconds,
                          "package": ruleplay.__file__}
            else:
                game, rng = games[key]
                answer = sample(engine_playout(game), request["seconds"], rng).to_dict()
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
