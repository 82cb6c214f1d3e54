"""ruleplay against hand-written games and OpenSpiel's own, every contender measured alternately in this one process.

Three comparisons, each a table of contenders and their ratio to a reference:

- `playouts`: random playouts per CPU-second of a built-in game against the
  hand-written Python game of `benchmarks/` that plays it (the reference):
  the Python engine through its value API loop (`engine`), the native
  backend playing whole games in C (`native`, `batch` a chunk at a time),
  and the native state handle stepped from a Python loop (`handle`:
  `legal_actions()`, a random choice, `apply_action` in place).
- `spiel`: OpenSpiel's own implementation of a game through pyspiel (the
  reference) against ruleplay's native handle and ruleplay's OpenSpiel
  adapter: its C++ game on the native module (`adapter`, what `register`
  gives where it builds), its pyspiel game written in Python on the native
  handle (`adapter_pygame`) and on the Python engine (`adapter_python`),
  all driven by one loop (`measure.action_playout`), so the ratio compares
  the games alone.
- `perft_rates`: leaf nodes per CPU-second of a fixed-depth perft of the
  hand-written game (the reference), the Python engine and the native
  module; the counts must agree.

A contender that cannot be measured here (no native module, no pyspiel) is
listed with the reason instead of its figures.
"""

from __future__ import annotations

import random
import statistics
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable

from . import connect_four, nautilus_cards, native, tictactoe
from .measure import (Chunk, Playout, Position, Sample, action_playout, alternate, baseline_playout, batch_chunks,
                      engine_playout, perft, perft_sample, sample, sample_chunks, summary, warm_up)


@dataclass(frozen=True)
class Baseline:
    """A built-in ruleset (and variant) and the hand-written game that plays it."""

    game: str
    variant: str | None
    new_game: Callable[[random.Random], Position]
    perft_depth: int | None  # a depth the Python engine counts in about a second, or None: no perft for this game

    @property
    def label(self) -> str:
        return f"{self.game} --variant {self.variant}" if self.variant else self.game


@dataclass(frozen=True)
class SpielGame:
    """A built-in ruleset and OpenSpiel's own implementation of the same game."""

    game: str
    spiel_name: str  # pyspiel.load_game's name


BASELINES = {
    "tic-tac-toe": Baseline("tic-tac-toe", None, tictactoe.new_game, 5),
    "connect-four": Baseline("connect-four", None, connect_four.new_game, 5),
    "nautilus-cards": Baseline("nautilus-cards", "seed-only", nautilus_cards.new_game, None),
}
OPENSPIEL = {
    "tic-tac-toe": SpielGame("tic-tac-toe", "tic_tac_toe"),
    "connect-four": SpielGame("connect-four", "connect_four"),
    "kuhn-poker": SpielGame("kuhn-poker", "kuhn_poker"),
}
GAMES = sorted(set(BASELINES) | set(OPENSPIEL))
# What each contender is, in the reports for people.
CONTENDERS = {"baseline": "hand-written", "engine": "python engine", "native": "native module",
              "handle": "native handle", "openspiel": "OpenSpiel's own", "adapter": "ruleplay.openspiel",
               "adapter_pygame": "ruleplay.openspiel, pygame", "adapter_python": "ruleplay.openspiel, py"}
LABEL = 36  # the width of a row's label in the tables: "nautilus-cards --variant seed-only" fits
NAME = 28  # the width of a contender's name: "ruleplay.openspiel, pygame" fits
NO_PYSPIEL = "pyspiel is not installed (the rl extra: pip install -e '.[rl]')"


class Disagreement(RuntimeError):
    """Contenders counted different perft nodes: they do not play the same game."""


def _load(game: str, variant: str | None = None) -> Any:
    from ruleplay import load_game  # here: `against` and `startup` never import this tree in the parent process

    return load_game(game, variant=variant)


def _per_game(play: Playout, seconds: float, seed: int) -> Callable[[], Sample]:
    """A contender playing one game at a time, warmed up by one untimed game."""
    warm_up(play)
    return partial(sample, play, seconds, random.Random(seed))


def _chunked(play: Chunk, seconds: float) -> Callable[[], Sample]:
    """A contender playing a batch a chunk at a time, warmed up by one untimed chunk."""
    play()
    return partial(sample_chunks, play, seconds)


def _native_contenders(game: Any, seconds: float, seed: int, names: tuple[str, ...]) -> tuple[dict, dict]:
    """The native contenders of `names` ("native": whole games, "handle": the stepped state), or why there are none."""
    try:
        module = native.module_of(game)
    except native.NoNative as error:
        return {}, {name: str(error) for name in names}
    makers = {"native": lambda: _chunked(batch_chunks(native.batch_player(module)), seconds),
              "handle": lambda: _per_game(action_playout(native.new_handle(module)), seconds, seed)}
    return {name: makers[name]() for name in names}, {}


def playouts(name: str, pairs: int, seconds: float, seed: int = 0) -> dict:
    """Random playouts per CPU-second of the engine, the native backend and the native handle against the
    hand-written game, alternated, and each one's ratio to it."""
    baseline = BASELINES[name]
    game = _load(baseline.game, baseline.variant)
    contenders = {"baseline": _per_game(baseline_playout(baseline.new_game), seconds, seed),
                  "engine": _per_game(engine_playout(game), seconds, seed)}
    natives, not_measured = _native_contenders(game, seconds, seed, ("native", "handle"))
    contenders |= natives
    return {"game": baseline.game, "variant": baseline.variant, "label": baseline.label, "pairs": pairs,
            "seconds": seconds, "not_measured": not_measured, **summary(alternate(contenders, pairs), "baseline")}


def spiel(name: str, pairs: int, seconds: float, seed: int = 0) -> dict:
    """Random playouts per CPU-second through OpenSpiel's loop: OpenSpiel's own game against ruleplay's native
    handle and ruleplay's OpenSpiel adapter (its C++ game, its Python game on the native handle and on the Python
    engine), alternated, and each one's ratio to OpenSpiel's."""
    entry = OPENSPIEL[name]
    head = {"game": entry.game, "label": entry.game, "openspiel_game": entry.spiel_name, "pairs": pairs,
            "seconds": seconds}
    try:
        import pyspiel

        from ruleplay.engine.native.build import BuildError
        from ruleplay.openspiel import register
    except ImportError:
        return head | {"reference": "openspiel", "rates": {}, "ratios": {}, "samples": {},
                       "not_measured": {k: NO_PYSPIEL for k in ("openspiel", "handle", "adapter", "adapter_pygame",
                                                                "adapter_python")}}
    game = _load(entry.game)
    own = pyspiel.load_game(entry.spiel_name)
    contenders = {"openspiel": _per_game(action_playout(lambda rng: own.new_initial_state()), seconds, seed)}
    natives, not_measured = _native_contenders(game, seconds, seed, ("handle",))
    contenders |= natives
    games: dict[str, Any] = {}
    if natives:
        try:
            games["adapter"] = register(game, backend="native", cxx=True)
        except BuildError as error:
            not_measured["adapter"] = str(error)
        games["adapter_pygame"] = register(game, backend="native", cxx=False)
    else:
        not_measured["adapter"] = not_measured["adapter_pygame"] = not_measured["handle"]
    games["adapter_python"] = register(game, backend="python")
    for name, registered in games.items():
        adapted = pyspiel.load_game(registered)
        contenders[name] = _per_game(action_playout(lambda rng, g=adapted: g.new_initial_state()), seconds, seed)
    return head | {"not_measured": not_measured, **summary(alternate(contenders, pairs), "openspiel")}


def perft_rates(name: str, pairs: int, seconds: float = 1.0) -> dict:
    """Leaf nodes per CPU-second of a fixed-depth perft: the hand-written game, the engine and the native module,
    alternated, each count made again until `seconds` have passed; every count must agree."""
    from ruleplay.runs.perft import perft as engine_perft

    baseline = BASELINES[name]
    depth = baseline.perft_depth
    game = _load(baseline.game, baseline.variant)
    counts: dict[str, Callable[[], int]] = {
        "baseline": lambda: perft(baseline.new_game(random.Random(0)), depth),
        "engine": lambda: engine_perft(game.new_state(0), depth).nodes}
    not_measured: dict[str, str] = {}
    try:
        counts["native"] = native.perft_counter(native.module_of(game), engine_perft, depth)
    except native.NoNative as error:
        not_measured["native"] = str(error)
    runs = alternate({k: partial(perft_sample, count, seconds) for k, count in counts.items()}, pairs)
    found = {k: sorted({s.nodes for s in v}) for k, v in runs.items()}
    if len({n for nodes in found.values() for n in nodes}) != 1:
        raise Disagreement(f"{baseline.label} perft {depth}: "
                           + ", ".join(f"{k} counted {nodes}" for k, nodes in found.items()))
    rates = {k: {"nodes_per_s": statistics.median(s.nodes_per_s for s in v)} for k, v in runs.items()}
    reference = rates["baseline"]["nodes_per_s"]
    return {"game": baseline.game, "label": f"{baseline.game} depth {depth}", "depth": depth,
            "nodes": found["baseline"][0], "pairs": pairs, "seconds": seconds, "reference": "baseline",
            "rates": rates, "ratios": {k: r["nodes_per_s"] / reference for k, r in rates.items()},
            "not_measured": not_measured, "samples": {k: [s.to_dict() for s in v] for k, v in runs.items()}}


def rate_text(value: float) -> str:
    """A rate for people: whole numbers from 100 up, two decimals below (the slow seed games)."""
    return f"{value:,.0f}" if value >= 100 else f"{value:,.2f}"


def table(title: str, rows: list[dict], rate: str, unit: str) -> list[str]:
    """One block per row: each contender's rate (and µs per move, for playouts) and its ratio to the row's
    reference, then the contenders not measured and why."""
    per_move = any("us_per_move" in f for row in rows for f in row["rates"].values())
    lines = [title, f"{'':<{LABEL}}{'':<{NAME}}{unit:>14}" + (f"{'µs/move':>10}" if per_move else "")
             + f"{'ratio':>9}"]
    for row in rows:
        label = row["label"]
        for name, figures in row["rates"].items():
            move = f"{figures['us_per_move']:>10.2f}" if per_move else ""
            lines.append(f"{label:<{LABEL}}{CONTENDERS.get(name, name):<{NAME}}{rate_text(figures[rate]):>14}{move}"
                         f"{row['ratios'][name]:>9.3f}")
            label = ""
        for name, why in row["not_measured"].items():
            lines.append(f"{label:<{LABEL}}{CONTENDERS.get(name, name):<{NAME}}  not measured: {why.splitlines()[0]}")
            label = ""
    return lines


def report(results: list[dict], spiels: list[dict], perfts: list[dict]) -> str:
    """The figures as tables, for people."""
    blocks = []
    if results:
        blocks.append(table("random playouts per CPU-second (ratio: over the hand-written game)", results,
                            "playouts_per_s", "playouts/s"))
    if spiels:
        blocks.append(table("random playouts per CPU-second in OpenSpiel's loop (ratio: over OpenSpiel's own game)",
                            spiels, "playouts_per_s", "playouts/s"))
    if perfts:
        blocks.append(table("perft leaf nodes per CPU-second (ratio: over the hand-written game)",
                            [p | {"label": f"{p['label']} ({p['nodes']:,})"} for p in perfts], "nodes_per_s",
                            "nodes/s"))
    return "\n\n".join("\n".join(block) for block in blocks)
