"""The engine against the hand-written games, measured alternately in this one process.

For each game the engine (through its public API loop) and the hand-written
baseline play random games in turns, `pairs` times `seconds` of CPU time
each; the figures are the medians over the pairs, and `ratio` is engine over
baseline, the number issue 13's targets are stated in (0.25 at least).  With
`perft`, both also count the move sequences of a fixed depth, which must
agree, and the figure is leaf nodes per CPU-second, as `ruleplay perft`
reports it.
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass
from functools import partial
from typing import Callable

from . import connect_four, nautilus_cards, tictactoe
from .measure import Position, alternate, baseline_playout, engine_playout, median_rate, perft, sample, warm_up


@dataclass(frozen=True)
class Baseline:
    """A built-in ruleset (and variant) and the hand-written game that plays it."""

    game: str
    variant: str | None
    new_game: Callable[[random.Random], Position]
    perft_depth: int | None  # a depth the engine counts in about a second, or None: no perft for this game

    @property
    def label(self) -> str:
        return f"{self.game} --variant {self.variant}" if self.variant else self.game


BASELINES = {
    "tic-tac-toe": Baseline("tic-tac-toe", None, tictactoe.new_game, 5),
    "connect-four": Baseline("connect-four", None, connect_four.new_game, 4),
    "nautilus-cards": Baseline("nautilus-cards", "seed-only", nautilus_cards.new_game, None),
}


class Disagreement(RuntimeError):
    """The engine and a baseline counted different perft nodes: they do not play the same game."""


def _load(baseline: Baseline):
    from ruleplay import load_game  # here: `against` and `startup` never import this tree in the parent process

    return load_game(baseline.game, variant=baseline.variant)


def playouts(name: str, pairs: int, seconds: float, seed: int = 0) -> dict:
    """Random playouts per CPU-second of engine and baseline, alternated, and their ratio."""
    baseline = BASELINES[name]
    plays = {"engine": engine_playout(_load(baseline)), "baseline": baseline_playout(baseline.new_game)}
    for play in plays.values():
        warm_up(play)
    contenders = {k: partial(sample, play, seconds, random.Random(seed)) for k, play in plays.items()}
    samples = alternate(contenders, pairs)
    engine, hand = median_rate(samples["engine"]), median_rate(samples["baseline"])
    return {"game": baseline.game, "variant": baseline.variant, "pairs": pairs, "seconds": seconds,
            "engine_playouts_per_s": engine, "baseline_playouts_per_s": hand, "ratio": engine / hand,
            "engine_us_per_move": 1e6 / statistics.median(s.moves_per_s for s in samples["engine"]),
            "baseline_us_per_move": 1e6 / statistics.median(s.moves_per_s for s in samples["baseline"]),
            "samples": {k: [s.to_dict() for s in v] for k, v in samples.items()}}


def _timed(count: Callable[[], int]) -> tuple[int, float]:
    start = time.process_time()
    nodes = count()
    return nodes, time.process_time() - start


def perft_rates(name: str, pairs: int) -> dict:
    """Leaf nodes per CPU-second of a fixed-depth perft, engine and baseline alternated; the counts must agree."""
    from ruleplay.runs.perft import perft as engine_perft

    baseline = BASELINES[name]
    depth = baseline.perft_depth
    game = _load(baseline)
    contenders = {"engine": partial(_timed, lambda: engine_perft(game.new_state(0), depth).nodes),
                  "baseline": partial(_timed, lambda: perft(baseline.new_game(random.Random(0)), depth))}
    runs = alternate(contenders, pairs)
    counts = {k: {nodes for nodes, _ in v} for k, v in runs.items()}
    if counts["engine"] != counts["baseline"] or len(counts["engine"]) != 1:
        raise Disagreement(f"{baseline.label} perft {depth}: engine counted {sorted(counts['engine'])}, "
                           f"baseline {sorted(counts['baseline'])}")
    rates = {k: statistics.median(nodes / seconds for nodes, seconds in v) for k, v in runs.items()}
    return {"game": baseline.game, "depth": depth, "nodes": counts["engine"].pop(), "pairs": pairs,
            "engine_nodes_per_s": rates["engine"], "baseline_nodes_per_s": rates["baseline"],
            "ratio": rates["engine"] / rates["baseline"]}


def report(results: list[dict], perfts: list[dict]) -> str:
    """The figures as a table, for people."""
    lines = [f"{'game':<32}{'engine/s':>12}{'baseline/s':>13}{'ratio':>8}{'µs/move':>10}{'(baseline)':>12}"]
    for r in results:
        label = f"{r['game']} --variant {r['variant']}" if r["variant"] else r["game"]
        lines.append(f"{label:<32}{r['engine_playouts_per_s']:>12,.1f}{r['baseline_playouts_per_s']:>13,.1f}"
                     f"{r['ratio']:>8.3f}{r['engine_us_per_move']:>10.1f}{r['baseline_us_per_move']:>12.2f}")
    if perfts:
        lines.append("")
        lines.append(f"{'perft':<32}{'engine n/s':>12}{'baseline n/s':>13}{'ratio':>8}")
        for p in perfts:
            label = f"{p['game']} depth {p['depth']} ({p['nodes']:,} nodes)"
            lines.append(f"{label:<32}{p['engine_nodes_per_s']:>12,.0f}{p['baseline_nodes_per_s']:>13,.0f}"
                         f"{p['ratio']:>8.3f}")
    return "\n".join(lines)
