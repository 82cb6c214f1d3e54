"""Reinforcement-learning environments' steps per CPU-second: PettingZoo's loop, and the batched Gymnasium one.

`python -m benchmarks rl [COMMIT]` measures random play through
`ruleplay.pettingzoo.env` in an older commit (issue 35's reference is
5970966, on its Python engine) against the current tree's PettingZoo
environment on the native backend and its batch of `BATCH` games per call
(`vector_env`: with a copy of each step's observations, as
`SyncVectorEnv` makes by default, and with `copy=False`), each tree in a
worker process of its own (`benchmarks.worker`), the four alternated pair
after pair.  A step is
one `env.step` (PettingZoo's loop steps each agent once more at the end,
with None, in every tree alike) or one game's move in a batch step.
Actions are uniform choices among the legal actions: in PettingZoo's loop
one agent's among its mask's by Python's `random` per step, as its users
write it; in the batch all games' at once by NumPy among the lists the
batch hands out beside its masks (`legal_actions()`, `random_legal`).

Nothing here imports ruleplay: the environments are handed in by the
worker, so the same code measures every tree.
"""

from __future__ import annotations

import random
import statistics
from typing import Any

import numpy as np

from .measure import Chunk, Playout, Sample, alternate

BATCH = 64  # games per batched step
# The configurations issue 35 names: the card game and Nautilus at three seats.
RL_GAMES = [("nautilus-cards", None), ("nautilus", 3)]
KINDS = {"reference": "PettingZoo, older commit", "pettingzoo": "PettingZoo, native", "vector": f"batch of {BATCH}",
         "vector-nocopy": "batch, copy=False"}


def pettingzoo_playout(env: Any) -> Playout:
    """One game through PettingZoo's AEC loop with random legal actions: the steps it took."""

    def play(rng: random.Random) -> int:
        env.reset(seed=rng.getrandbits(32))
        steps = 0
        for _agent in env.agent_iter():
            observation, _reward, termination, truncation, _info = env.last()
            legal = np.flatnonzero(observation["action_mask"]).tolist()
            env.step(None if termination or truncation else rng.choice(legal))
            steps += 1
        return steps

    return play


def vector_chunk(env: Any, rng: random.Random) -> Chunk:
    """One batched step of random legal actions a call: (games that ended, game-steps made)."""
    env.reset(seed=rng.getrandbits(32))
    draws = np.random.default_rng(rng.getrandbits(64))

    def play() -> tuple[int, int]:
        _observations, _rewards, ended, _truncated, _infos = env.step(random_legal(*env.legal_actions(), draws))
        return int(ended.sum()), len(ended)

    return play


def random_legal(counts: np.ndarray, legal: np.ndarray, draws: np.random.Generator) -> np.ndarray:
    """One uniformly drawn legal action per game, 0 for a game without one: row i of `legal` lists game i's
    `counts[i]` legal actions first (`VectorTurnEnv.legal_actions()`), so a pick is a uniform place below the
    count, for the whole batch in a few array operations that never read the masks."""
    games = len(counts)
    if legal.shape[1] == 0:  # no game has a legal action
        return np.zeros(games, np.int64)
    picks = (draws.random(games) * counts).astype(np.int64)  # below each count; 0 where it is 0
    return np.where(counts > 0, legal[np.arange(games), picks], 0)


def compare(commit: str, games: list[tuple[str, int | None]], pairs: int, seconds: float) -> dict:
    """Steps per CPU-second of `commit`'s PettingZoo environment and of the current tree's (native, batched)."""
    from .against import ROOT, Worker, checkout

    with checkout(commit) as old_tree:
        workers = {"reference": Worker(old_tree), "current": Worker(ROOT)}
        try:
            rows = [_row(workers, {"game": g, "players": p, "variant": None}, pairs, seconds) for g, p in games]
        finally:
            for worker in workers.values():
                worker.close()
    return {"reference": commit, "pairs": pairs, "seconds": seconds, "batch": BATCH, "rows": rows}


def _row(workers: dict, key: dict, pairs: int, seconds: float) -> dict:
    from .against import _asker

    requests = {"reference": (workers["reference"], {"env": "pettingzoo", "backend": None}),
                "pettingzoo": (workers["current"], {"env": "pettingzoo", "backend": "native"}),
                "vector": (workers["current"], {"env": "vector", "backend": "native"}),
                "vector-nocopy": (workers["current"], {"env": "vector-nocopy", "backend": "native"})}
    for worker, extra in requests.values():  # built (and warmed up) before any is timed
        _asker(worker, {"op": "rl", **key, **extra, "seconds": 0})()
    samples = alternate({name: lambda ask=_asker(w, {"op": "rl", **key, **extra, "seconds": seconds}):
                         Sample.of(ask()) for name, (w, extra) in requests.items()}, pairs)
    rates = {name: statistics.median(s.moves_per_s for s in v) for name, v in samples.items()}
    return key | {"steps_per_s": rates, "ratios": {name: r / rates["reference"] for name, r in rates.items()},
                  "batch_over_pettingzoo": rates["vector"] / rates["pettingzoo"],
                  "nocopy_over_pettingzoo": rates["vector-nocopy"] / rates["pettingzoo"],
                  "samples": {k: [s.to_dict() for s in v] for k, v in samples.items()}}


def report(result: dict) -> str:
    lines = [f"environment steps per CPU-second, random legal actions: {result['reference']}'s PettingZoo "
             f"environment (Python engine) against the current tree's on the native backend, and its batch of "
             f"{result['batch']} games per step (median of {result['pairs']} alternated pairs of "
             f"{result['seconds']:g} s)",
             f"{'game':<28}" + "".join(f"{KINDS[k]:>28}" for k in KINDS) + f"{'batch/PettingZoo':>18}"
             f"{'no copy/PettingZoo':>20}"]
    for row in result["rows"]:
        label = row["game"] + (f" -p {row['players']}" if row["players"] else "")
        cells = "".join(f"{row['steps_per_s'][k]:>19,.0f} ({row['ratios'][k]:>5.1f}x)" for k in KINDS)
        lines.append(f"{label:<28}{cells}{row['batch_over_pettingzoo']:>17.2f}x{row['nocopy_over_pettingzoo']:>19.2f}x")
    return "\n".join(lines)
