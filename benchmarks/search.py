"""Search agents' iterations per CPU-second on the native backend against the Python engine, in one process.

Each row is a game and an agent spec: the agent decides a fixed set of
positions (reached by random moves from a few seeds, each with a choice to
make), once searching over the Python engine's states and once over the
native module's (`agents.searcher`), in turns as `measure.alternate` runs
its contenders, fresh agents with the same seed each time.  The figure is
the iterations searched per CPU-second of this process (the decisions times
the spec's iterations, over `time.process_time`), the median over the
pairs; the two must decide every position alike, or the row fails with
`Disagreement`.

The reference is the current tree's Python engine.  Issue 35's targets
are ratios to commit 5970966's search, which ran on that commit's Python
engine; its rate is measured apart, and the two ratios multiply.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Any

from .measure import alternate

POSITIONS = (2, 6, 10, 14, 18, 24)  # random moves made from the start before each decision
SEEDS = (1, 2)  # games the positions are drawn from
ROWS = (  # (game, variant, agent spec): the seed games and connect-four, with issue 35's settings
    ("nautilus", None, "ismcts:iterations=200:depth=4"),
    ("nautilus", "short", "ismcts:iterations=200:depth=4"),
    ("nautilus", None, "mcts:iterations=200:depth=4"),
    ("nautilus-cards", None, "ismcts:iterations=200:depth=4"),
    ("nautilus-cards", None, "mcts:iterations=200:depth=4"),
    ("lovci-pokladu", None, "ismcts:iterations=200:depth=4"),
    ("lovci-pokladu", None, "mcts:iterations=200:depth=4"),
    ("connect-four", None, "mcts:iterations=200"),
    ("connect-four", None, "ismcts:iterations=200"),
)
AGENT_SEED = 7


class Disagreement(RuntimeError):
    """The native search decided a position otherwise than the Python engine's: a bug, never a figure."""


@dataclass(frozen=True)
class SearchSample:
    """One contender's pass over the positions: iterations searched, CPU seconds, the moves decided."""

    iterations: int
    seconds: float
    moves: tuple[str, ...]

    @property
    def rate(self) -> float:
        return self.iterations / self.seconds if self.seconds > 0 else 0.0


def positions(game: Any) -> list[Any]:
    """States with a choice to make, reached by random moves (the agent's rng, seeded) from SEEDS' games."""
    from ruleplay.engine.rng import Rng

    found = []
    for seed in SEEDS:
        for made in POSITIONS:
            state, rng, k = game.new_state(seed), Rng(seed), 0
            while not state.is_terminal() and (k < made or state.is_chance_node() or len(state.legal_moves()) < 2):
                if state.is_chance_node():
                    state.apply_chance_in_place()
                    continue
                moves = state.legal_moves()
                state.apply_in_place(moves[rng.below(len(moves))])
                k += 1
            if not state.is_terminal():
                found.append(state)
    return found


def decide(states: list[Any], spec: str, backend: str) -> SearchSample:
    """Every position decided by a fresh agent of `spec` on `backend`: iterations, CPU time and moves."""
    from ruleplay.agents import make_agent

    iterations, moves, spent = 0, [], 0.0
    for state in states:
        agent = make_agent(spec, AGENT_SEED, backend)
        began = time.process_time()
        moves.append(str(agent.choose(state)))
        spent += time.process_time() - began
        iterations += agent.settings.iterations
        if backend != "python" and agent.bails:
            raise Disagreement(f"{spec}: the native module gave a decision back to the Python engine")
    return SearchSample(iterations, spent, tuple(moves))


def measure(name: str, variant: str | None, spec: str, pairs: int) -> dict:
    """One row: the Python engine's and the native module's iterations per CPU-second, and their ratio."""
    from ruleplay import load_game
    from ruleplay.engine.native import NativeGame

    game = load_game(name, None, variant)
    NativeGame.of(game)  # built (or found in the cache) before any timing
    states = positions(game)
    decide(states[:1], spec, "native")  # warm: the engine makes some code on first use
    samples = alternate({"python": lambda: decide(states, spec, "python"),
                         "native": lambda: decide(states, spec, "native")}, pairs)
    decided = {s.moves for v in samples.values() for s in v}
    if len(decided) != 1:
        raise Disagreement(f"{name} {spec}: the backends decided the positions differently")
    rates = {k: statistics.median(s.rate for s in v) for k, v in samples.items()}
    return {"game": name, "variant": variant, "agent": spec, "positions": len(states),
            "python_per_s": rates["python"], "native_per_s": rates["native"],
            "ratio": rates["native"] / rates["python"]}


def report(rows: list[dict]) -> str:
    lines = [f"{'game':<22} {'agent':<31} {'python it/CPU-s':>15} {'native it/CPU-s':>15} {'ratio':>7}"]
    for row in rows:
        label = row["game"] + (f" ({row['variant']})" if row["variant"] else "")
        lines.append(f"{label:<22} {row['agent']:<31} {row['python_per_s']:>15,.0f} {row['native_per_s']:>15,.0f} "
                     f"{row['ratio']:>6.1f}x")
    return "\n".join(lines)
