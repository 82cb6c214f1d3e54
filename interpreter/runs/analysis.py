"""`ruleplay analyze`: what makes a game good, measured, for a game and any variants of it.

Each ruleset (the base, then each variant) plays one batch of the same
games: same seed, same agents, its arcs measured (`runs.arc`), so game i
of every side starts from the same seed.  From each batch come the metrics
of `runs.quality`; each variant's games are paired with the base's as
`compare` pairs them, so every tested statistic gets B - A with its
paired, Bonferroni-corrected interval (`runs.compare.differences`).
Strategic depth plays its own skill chain on each ruleset (`runs.depth`);
each side's steps carry their own intervals, not tested as differences.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

from ..engine.game import Game
from ..engine.outcome import GameOutcome
from . import quality
from .compare import Pairs, differences
from .depth import Depth, strategic_depth
from .simulate import SimulationReport, simulate
from .stats import Difference
from .workers import GameSpec


@dataclass
class Side:
    """One ruleset of an analysis: how it is named, its batch, its metrics and its strategic depth."""

    label: str
    title: str
    spec: GameSpec
    report: SimulationReport
    judged_by: str
    metrics: dict[str, dict]
    depth: Depth | None = None

    def to_dict(self) -> dict:
        return {"label": self.label, "title": self.title, "ruleset": self.spec.ruleset, "variant": self.spec.variant,
                "judged_by": self.judged_by, "metrics": self.metrics,
                "strategic_depth": self.depth.to_dict() if self.depth is not None else None,
                "batch": self.report.to_dict()}


@dataclass
class Versus:
    """A variant against the base: every tested statistic's B - A, from the games paired by seed."""

    label: str
    confidence: float
    paired_games: int
    differences: list[Difference]

    def to_dict(self) -> dict:
        return {"variant": self.label, "correction": "Bonferroni", "confidence_per_comparison": self.confidence,
                "paired_games": self.paired_games, "differences": [d.to_dict() for d in self.differences]}


@dataclass
class Analysis:
    game: str
    title: str
    games: int
    seed: int
    agents: list[str]
    sides: list[Side] = field(default_factory=list)
    versus: list[Versus] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"game": self.game, "title": self.title, "games": self.games, "seed": self.seed, "agents": self.agents,
                "metrics": [{"name": m.name, "label": m.label, "definition": m.definition, "source": m.source}
                            for m in quality.METRICS],
                "rulesets": [s.to_dict() for s in self.sides], "against_base": [v.to_dict() for v in self.versus]}


def analyze(game_name: str, sides: Sequence[tuple[GameSpec, str, Game]], n: int, seed: int = 0,
            agents: Sequence[str] = ("random",), workers: int = 1, executor: str | None = None,
            chains: Sequence[Sequence[str]] | None = None, depth_games: int = 0,
            spec_ids: Sequence[Any] | None = None,
            progress: Callable[[int], None] | None = None) -> Analysis:
    """Measure every ruleset of `sides` ((spec with arcs, label, loaded game), the base first): `n` games
    each, and with `depth_games`, its skill chain (`chains[k]`, weakest first) at that many games a step.
    `progress(k)` is told as k more games finish."""
    base_game = sides[0][2]
    found = Analysis(game_name, base_game.info.title, n, seed, list(agents))
    pairs = [Pairs(base_game.info.players, False, True) for _ in sides[1:]]

    def to_every_pairing(outcome: GameOutcome) -> None:
        for pairing in pairs:
            pairing.add_a(outcome)

    for k, (spec, label, game) in enumerate(sides):
        report = simulate(spec, n, seed, agents, workers, keep_outcomes=False, game=game, executor=executor,
                          on_outcome=pairs[k - 1].add_b if k else to_every_pairing, progress=progress,
                          spec_ids=spec_ids[k] if spec_ids is not None else None)
        judge = spec.judge(game)
        assert report.measures is not None and judge is not None
        side = Side(label, game.info.title, spec, report, judge.name, quality.game_metrics(report.measures, seed))
        if depth_games and chains is not None:
            # The chain's games need no arcs; `auto`, as its greedy agent plays on the Python engine (its search
            # agents search in the module where they can).
            chain_spec = replace(spec, arcs=False, backend="auto" if spec.backend == "native" else spec.backend)
            side.depth = strategic_depth(chain_spec, game, chains[k], depth_games, seed, workers, executor,
                                         progress)
            side.metrics["strategic_depth"] = {"value": side.depth.depth, "steps": len(side.depth.steps)}
        found.sides.append(side)
    base = found.sides[0]
    for pair, side in zip(pairs, found.sides[1:]):
        confidence, tested = differences(base.report, side.report, pair, seed)
        found.versus.append(Versus(side.label, confidence, pair.games, tested))
    return found
