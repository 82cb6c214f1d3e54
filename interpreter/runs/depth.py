"""Strategic depth: does a stronger player beat a weaker one, step after step up a chain of agents?

A game rewards skill when a player who thinks more wins more: Lantz,
Isaksen, Jaffe, Nealen and Togelius ("Depth in Strategic Games", 2017)
measure depth as the length of the chain of ever stronger players in
which each beats the one before; Ludii's SkillTrace plays a search with
twice the iterations against one with as many, again and again.  Here the
chain is `random` < search at 50 iterations < search at 500 (`mcts`, or
`ismcts` in a game that keeps secrets: `agents.search_agent`), or any
chain of agent specs given, weakest first.  Each step plays the two agents
against each other in every seating (a `tournament` pairing, so the seat
advantage cancels out) and reports the stronger agent's score, wins plus
half the draws over the games, with a 95% Wilson interval taken on that
count (draws make the real spread smaller, so the interval is, if
anything, wide).  A step is *significant* when the interval lies above
one half; `depth` counts the significant steps.

The searches run on today's engine, so the budgets are small and a long
game takes minutes a step; the agents are built from the registry
(`agents.make_agent`), so a faster backend speeds them up unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

from ..agents import search_agent
from ..engine.game import Game
from . import stats
from .tournament import games_per_seating, seatings, tournament
from .workers import GameSpec

BUDGETS = (50, 500)  # the search agents' iterations, weaker first


def default_chain(game: Game) -> list[str]:
    """random, then the search agent for `game` at each of BUDGETS iterations."""
    search = search_agent(game)
    return ["random", *(f"{search}:iterations={budget}" for budget in BUDGETS)]


def chain_games(chain: Sequence[str], n: int, players: int) -> int:
    """The games `strategic_depth` plays: `n` per step, rounded up to fill every seating."""
    return (len(chain) - 1) * games_per_seating(n, players) * len(seatings(0, 1, players))


@dataclass(frozen=True)
class Step:
    """One link of the chain: the stronger agent's games against the weaker one."""

    weaker: str
    stronger: str
    wins: int
    draws: int
    losses: int
    failed: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + self.draws / 2) / self.games if self.games else 0.0

    @property
    def ci95(self) -> tuple[float, float]:
        return stats.wilson(self.wins + self.draws / 2, self.games)

    @property
    def significant(self) -> bool:
        return self.ci95[0] > 0.5

    def to_dict(self) -> dict:
        return {"weaker": self.weaker, "stronger": self.stronger, "wins": self.wins, "draws": self.draws,
                "losses": self.losses, "failed": self.failed, "score": self.score, "ci95": list(self.ci95),
                "significant": self.significant}


@dataclass
class Depth:
    chain: list[str]
    steps: list[Step] = field(default_factory=list)

    @property
    def depth(self) -> int:
        """The steps in which the stronger agent scores significantly more than half."""
        return sum(step.significant for step in self.steps)

    def to_dict(self) -> dict:
        return {"chain": self.chain, "depth": self.depth, "steps": [s.to_dict() for s in self.steps]}


def strategic_depth(spec: GameSpec, game: Game, chain: Sequence[str], n: int, seed: int = 0, workers: int = 1,
                    executor: str | None = None, progress: Callable[[int], None] | None = None) -> Depth:
    """Play each step of `chain` (weakest first) for about `n` games and score it; `progress(k)` is told as
    k more games finish (`chain_games` in all)."""
    if len(chain) < 2:
        raise ValueError("a skill chain needs at least two agents, weakest first")
    found = Depth(list(chain))
    for weaker, stronger in zip(chain, chain[1:]):
        played = tournament(spec, [weaker, stronger], n, seed, workers, executor, game=game, progress=progress)
        [pairing] = played.pairings  # wins are the weaker agent's (agent 0 of the pairing)
        found.steps.append(Step(weaker, stronger, pairing.losses, pairing.draws, pairing.wins, pairing.failed))
    return found
