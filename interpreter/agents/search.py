"""What the tree-search agents share: budgets, chance sampling, rollouts, heuristic cut-offs, UCB.

Every random choice a search makes (chance outcomes, rollout moves,
determinizations) is drawn from the agent's own `Rng`, never from the
state's generator, so that each iteration samples afresh and the same seed
gives the same moves.  A budget counts iterations unless `seconds` asks for
wall-clock time, which is the one thing that makes a search irreproducible.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from ..engine.errors import StepLimitError
from ..engine.moves import Move
from ..engine.rng import Rng
from ..engine.scoring import heuristic_values
from ..engine.state import State
from .spec import Option

DEFAULT_ITERATIONS = 200
MAX_ITERATIONS = 10**9  # hours of search per decision on the smallest game
MAX_SECONDS = 86_400  # a day per decision

SEARCH_OPTIONS = (
    Option("iterations", int, DEFAULT_ITERATIONS, "iterations per decision", minimum=1, maximum=MAX_ITERATIONS),
    Option("seconds", float, None, "a time budget per decision instead (not reproducible)", minimum=0, above=True,
           maximum=MAX_SECONDS),
    Option("depth", int, None, "rollout moves before the heuristic judges the position (default: to the end)",
           minimum=0),
    Option("c", float, 1.4, "UCB exploration constant", minimum=0),
    Option("heuristic", str, None, "the ruleset's heuristic used at the cut-off (default: its first)"),
    Option("scale", float, None, "the heuristic lead counted as most of a win (default: the heuristic's own "
           "`scale`; 0 or none: only the order counts)", minimum=0),
)


@dataclass(frozen=True)
class SearchSettings:
    iterations: int = DEFAULT_ITERATIONS
    seconds: float | None = None
    depth: int | None = None
    c: float = 1.4
    heuristic: str | None = None
    scale: float | None = None

    def stopwatch(self) -> "Stopwatch":
        return Stopwatch(self)


class Stopwatch:
    """Whether one more iteration fits: `iterations` of them, or until `seconds` have passed."""

    def __init__(self, settings: SearchSettings):
        self.limit = None if settings.seconds is None else time.perf_counter() + settings.seconds
        self.iterations = settings.iterations
        self.done = 0

    def more(self) -> bool:
        if self.limit is not None:
            return self.done == 0 or time.perf_counter() < self.limit
        return self.done < self.iterations

    def tick(self) -> None:
        self.done += 1


def sample_chance(state: State, rng: Rng) -> Move:
    """A chance outcome drawn with the agent's generator, by the outcomes' probabilities.

    When there are too many outcomes to list, the state's own weighted draw is
    used with a generator seeded from `rng`.
    """
    outcomes = state.chance_outcomes()
    if outcomes is None:
        reseeded = state.with_data(dict(state.data, rng=rng.next64()))
        last = reseeded.apply_chance().last_move
        assert last is not None
        return last
    pick = rng.random()
    for move, p in outcomes:
        if pick < p:
            return move
        pick -= p
    return outcomes[-1][0]


def resolve_heuristic(state: State, name: str | None) -> str | None:
    """The heuristic to judge cut-offs with: the one named (which must exist) or the ruleset's first."""
    heuristics = state.game.model.heuristics
    if name is not None:
        if name not in heuristics:
            heuristic_values(state.game.model, state.data, name)  # raises, naming the heuristics there are
        return name
    return next(iter(heuristics), None)


@dataclass(frozen=True)
class CutOff:
    """How a search judges a position it stops in before the end: which heuristic, and on what scale."""

    heuristic: str | None
    scale: float | None

    @classmethod
    def of(cls, state: State, settings: SearchSettings) -> "CutOff":
        """The settings' heuristic (or the ruleset's first), on the settings' scale or else the heuristic's own."""
        heuristic = resolve_heuristic(state, settings.heuristic)
        scale = settings.scale
        if scale is None and heuristic is not None:
            scale = state.game.model.heuristic_scales.get(heuristic)
        return cls(heuristic, scale)


def evaluate(state: State, cut: CutOff) -> list[float]:
    """Returns at the end; before it, each seat's standing by the heuristic as a pseudo-return in [-1, 1]
    (0 for all without a heuristic), the mean over the other seats of how it stands against each.

    With a scale, a seat `d` ahead scores tanh(d / scale): a search then tells a wide lead from a narrow one,
    and a seat that cannot change the order still sees which moves help it.  Without one (or with 0, the
    limit of tanh(d / scale) as the scale shrinks) only the order counts: 1 ahead, -1 behind, 0 level, so a
    heuristic may be in any unit.
    """
    if state.is_terminal():
        return state.returns()
    n = state.data["flow"]["players"]
    if cut.heuristic is None or n < 2:
        return [0.0] * n
    h = heuristic_values(state.game.model, state.data, cut.heuristic)
    scale = cut.scale
    if not scale:
        return [sum((h[p] > h[q]) - (h[p] < h[q]) for q in range(n) if q != p) / (n - 1) for p in range(n)]
    return [sum(_lead(h[p] - h[q], scale) for q in range(n) if q != p) / (n - 1) for p in range(n)]


def _lead(difference: float, scale: float) -> float:
    """tanh(difference / scale); a whole-number lead too large for a float is a whole win or loss."""
    try:
        return math.tanh(difference / scale)
    except OverflowError:
        return 1.0 if difference > 0 else -1.0


def rollout(state: State, rng: Rng, depth: int | None, cut: CutOff) -> list[float]:
    """Uniformly random moves from `state` to the end, or for `depth` moves and then the heuristic.

    A game that passes `limits.max_steps` in a rollout is judged where it stopped.  The moves are made
    in place on one copy of `state` (the tree's own states stay as they are), without keeping them for
    `undo()`: a rollout only goes forward.  A move made in place that raises leaves no state to judge, so
    a move that may pass `max_steps` is made as a value, and the state before it is the one judged.
    """
    if state.is_terminal() or depth == 0:
        return evaluate(state, cut)
    walk = state.copy()
    last_safe_step = walk.game.model.limits["max_steps"] - 2  # the last step count no move can take to the limit
    steps = 0
    while not walk.is_terminal() and (depth is None or steps < depth):
        if walk.is_chance_node():
            move = sample_chance(walk, rng)
        else:
            moves = walk.legal_moves()
            move = moves[rng.below(len(moves))]
        if walk.data["flow"]["steps"] <= last_safe_step:
            walk.apply_in_place(move, undo=False)
        else:
            try:
                walk = walk.apply(move)
            except StepLimitError:
                break
        steps += 1
    return evaluate(walk, cut)


def ucb(total: float, visits: int, parent_visits: int, c: float, spread: float = 1.0) -> float:
    """UCB1 on a mean return counted in `spread`s, so that it lies in [-1, 1] whatever unit a ruleset's
    declared returns are in (`SearchAgent.spread`); an unvisited edge comes first."""
    if visits == 0:
        return math.inf
    return total / visits / spread + c * math.sqrt(math.log(parent_visits) / visits)
