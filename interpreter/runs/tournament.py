"""Every pairing of agents, seats rotated, ranked by a Bradley-Terry fit with bootstrap intervals.

A pairing (a, b) plays the game in every *seating* of the two: seat s
holds pattern[(s + r) % P] for each rotation r of the P seats, for both
patterns a,b,a,b,... and b,a,b,a,... (duplicates dropped: two players give
the two seatings a,b and b,a).  With more seats than agents in a pairing
the agents hold several seats each; over the seatings each agent holds
every seat equally often, so no seat's advantage favours either.  A game
is a win for the agent whose seats' mean return is higher, a draw when
they are equal.  `-n` games per pairing are shared evenly between its
seatings, rounded up to a multiple of their number (`games_per_seating`),
so a pairing plays at least the games asked for.  Each seating is one `simulate` batch,
so the backend, `--out` and `--resume` work as there.

Bradley-Terry: P(i beats j) = p_i / (p_i + p_j), fitted by Hunter's MM
iterations with a draw counted as half a win each way, and half a virtual
draw added to every pairing so an agent that wins every game still gets
a finite strength.  Ratings are shown on the Elo scale, 400 log10(p_i),
centred on their mean; the 95% intervals are percentiles of
BOOTSTRAP_FITS fits to games resampled within each pairing.
"""

from __future__ import annotations

import itertools
import math
import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from ..engine.game import Game
from ..engine.outcome import GameFailure
from .simulate import simulate
from .workers import GameSpec

BOOTSTRAP_FITS = 200
MM_ITERATIONS = 500
VIRTUAL_DRAW = 0.5


def seatings(a: int, b: int, players: int) -> list[tuple[int, ...]]:
    """Every rotation of both alternating patterns of agents a and b over `players` seats, each once."""
    found: list[tuple[int, ...]] = []
    for first, second in ((a, b), (b, a)):
        pattern = [first if s % 2 == 0 else second for s in range(players)]
        for r in range(players):
            seating = tuple(pattern[(s + r) % players] for s in range(players))
            if seating not in found:
                found.append(seating)
    return found


def games_per_seating(n: int, players: int) -> int:
    """The games each seating of a pairing plays for `n` games per pairing: n shared evenly, rounded up,
    so no pairing plays fewer games than asked (rounding down played 2 of `-n 3` with two seatings)."""
    return -(-n // len(seatings(0, 1, players)))


@dataclass
class Pairing:
    a: int
    b: int
    wins: int = 0  # of a over b
    draws: int = 0
    losses: int = 0
    failed: int = 0  # games stopped by a rule error, not counted

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


def fit(agents: int, pairings: Sequence[Pairing]) -> list[float]:
    """Bradley-Terry ratings on the Elo scale (mean 0), from win/draw/loss counts."""
    score = [[0.0] * agents for _ in range(agents)]  # score[i][j]: i's wins over j, draws as halves
    for p in pairings:
        score[p.a][p.b] += p.wins + (p.draws + VIRTUAL_DRAW) / 2
        score[p.b][p.a] += p.losses + (p.draws + VIRTUAL_DRAW) / 2
    games = [[score[i][j] + score[j][i] for j in range(agents)] for i in range(agents)]
    strength = [1.0] * agents
    for _ in range(MM_ITERATIONS):
        new = []
        for i in range(agents):
            wins = sum(score[i])
            denominator = sum(games[i][j] / (strength[i] + strength[j]) for j in range(agents)
                              if j != i and games[i][j])
            new.append(wins / denominator if denominator else strength[i])
        centre = math.exp(sum(math.log(s) for s in new) / agents)
        strength = [s / centre for s in new]
    return [400 * math.log10(s) for s in strength]


def _resampled(pairing: Pairing, rng: random.Random) -> Pairing:
    drawn = rng.choices((0, 1, 2), (pairing.wins, pairing.draws, pairing.losses), k=pairing.games) \
        if pairing.games else []
    return Pairing(pairing.a, pairing.b, drawn.count(0), drawn.count(1), drawn.count(2))


@dataclass
class TournamentReport:
    agents: list[str]
    players: int
    seed: int
    games_per_seating: int
    pairings: list[Pairing] = field(default_factory=list)
    # Per seating that had any: its agents in seat order, its failed games' count and the first of them
    # (each a game of that seating's batch, so seed and seating replay it).
    failures: list[tuple[tuple[str, ...], int, list[GameFailure]]] = field(default_factory=list)
    ratings: list[float] = field(default_factory=list)
    intervals: list[tuple[float, float]] = field(default_factory=list)
    backend: str = "python"  # what the batches played on: "python", "native", or "native+python" when both

    def ranking(self) -> list[int]:
        return sorted(range(len(self.agents)), key=lambda k: -self.ratings[k])

    def to_dict(self) -> dict:
        return {"agents": self.agents, "players": self.players, "seed": self.seed, "backend": self.backend,
                "games_per_seating": self.games_per_seating, "rating": "Bradley-Terry, Elo scale",
                "ranking": [{"agent": self.agents[k], "rating": self.ratings[k], "ci95": list(self.intervals[k])}
                            for k in self.ranking()],
                "pairings": [{"a": self.agents[p.a], "b": self.agents[p.b], "wins": p.wins, "draws": p.draws,
                              "losses": p.losses, "failed": p.failed} for p in self.pairings],
                "failures": [{"agents": list(seating), "failed": count, "errors": [e.to_dict() for e in errors]}
                             for seating, count, errors in self.failures]}


def total_games(agents: int, n: int, players: int) -> int:
    """The games a tournament of `agents` plays at `n` games per pairing: every seating of every pairing."""
    return agents * (agents - 1) // 2 * len(seatings(0, 1, players)) * games_per_seating(n, players)


def tournament(spec: GameSpec, agents: Sequence[str], n: int, seed: int = 0, workers: int = 1,
               executor: str | None = None, out: str | os.PathLike | None = None, resume: bool = False,
               game: Game | None = None, progress: Callable[[int], None] | None = None) -> TournamentReport:
    """Play every pairing of `agents` in every seating (about `n` games per pairing) and rate them;
    `progress(k)` is told as k more games finish (`total_games` in all)."""
    if len(agents) < 2:
        raise ValueError("a tournament needs at least two agents")
    game = game if game is not None else spec.load()
    players = game.info.players
    if players < 2:
        raise ValueError("a tournament needs a game of at least two players: the agents play each other")
    per_seating = games_per_seating(n, players)
    report = TournamentReport(list(agents), players, seed, per_seating)
    backends: set[str] = set()
    for a, b in itertools.combinations(range(len(agents)), 2):
        pairing = Pairing(a, b)
        for r, seating in enumerate(seatings(a, b, players)):
            path = Path(out) / f"{a}-{b}-{r}.jsonl" if out is not None else None
            batch = simulate(spec, per_seating, seed, [agents[k] for k in seating], workers, out=path,
                             resume=resume, game=game, executor=executor, progress=progress)
            backends.add(batch.backend)
            if batch.failed:
                report.failures.append((tuple(batch.agents), batch.failed, batch.errors))
            for outcome in batch.outcomes:
                if outcome.failure is not None:
                    pairing.failed += 1
                    continue
                mine = [v for v, k in zip(outcome.returns, seating) if k == a]
                theirs = [v for v, k in zip(outcome.returns, seating) if k == b]
                difference = sum(mine) / len(mine) - sum(theirs) / len(theirs)
                pairing.wins += difference > 0
                pairing.draws += difference == 0
                pairing.losses += difference < 0
        report.pairings.append(pairing)
    report.backend = "+".join(sorted(backends))  # a seating of agents the native backend plays is native
    report.ratings = fit(len(agents), report.pairings)
    rng = random.Random(seed)
    fits = [fit(len(agents), [_resampled(p, rng) for p in report.pairings]) for _ in range(BOOTSTRAP_FITS)]
    for k in range(len(agents)):
        values = sorted(f[k] for f in fits)
        report.intervals.append((values[int(0.025 * BOOTSTRAP_FITS)], values[int(0.975 * BOOTSTRAP_FITS) - 1]))
    return report
