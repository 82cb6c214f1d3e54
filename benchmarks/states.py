"""Seed-game states: how large they are as JSON, and what `copy()` costs against a move.

Issue 13 asks that a seed-game state stay under 20 KiB as JSON and that
`copy()` cost less than a move.  Both depend on how far a game has gone
(Nautilus grows its station, Lovci pokladů its hands), so every state of a
few seeded random games is measured, not just the first one: the size of
`to_json()` written compactly, and for each state the CPU time of a copy
against the CPU time of the move made from it, each repeated so a
microsecond-long call is timed over a measurable stretch.  The copy and
the move are timed alternately on the same state in one process, so the
machine's load weighs on both alike; the figure to read is their ratio.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from typing import Callable

from ruleplay import load_game

# Every seed game at the player counts issue 13 names (the card game is for two).
GAMES = [("nautilus", 2), ("nautilus", 4), ("nautilus-cards", 2), ("lovci-pokladu", 2), ("lovci-pokladu", 4)]
LIMIT_BYTES = 20 * 1024


def _cpu(call: Callable[[], object], repeat: int) -> float:
    """CPU seconds of one call, the mean of `repeat` calls."""
    start = time.process_time()
    for _ in range(repeat):
        call()
    return (time.process_time() - start) / repeat


def measure(game_name: str, players: int, games: int = 5, repeat: int = 20) -> dict:
    """JSON sizes and copy/move CPU times over every state of `games` random games (seeds 0..games-1)."""
    game = load_game(game_name, players=players)
    sizes: list[int] = []
    copies: list[float] = []
    moves: list[float] = []
    for seed in range(games):
        rng = random.Random(seed)
        state = game.new_state(seed=seed)
        while not state.is_terminal():
            sizes.append(len(json.dumps(state.to_json(), separators=(",", ":")).encode()))
            if state.is_chance_node():
                state = state.apply_chance()
                continue
            move = rng.choice(state.legal_moves())
            before = state
            copies.append(_cpu(before.copy, repeat))
            moves.append(_cpu(lambda: before.apply(move), repeat))
            state = before.apply(move)
    ratios = [c / m for c, m in zip(copies, moves) if m > 0]
    return {"game": game_name, "players": players, "games": games, "states": len(sizes),
            "json_bytes": {"median": statistics.median(sizes), "max": max(sizes)},
            "under_limit": max(sizes) < LIMIT_BYTES,
            "copy_us": statistics.median(copies) * 1e6, "move_us": statistics.median(moves) * 1e6,
            "copy_per_move": {"median": statistics.median(ratios), "p90": statistics.quantiles(ratios, n=10)[-1]}}


def report(rows: list[dict]) -> str:
    """One line per game: sizes against the 20 KiB limit, and the copy/move ratio (median, 90th percentile)."""
    lines = [f"{'game':<22}{'states':>8}{'JSON median':>13}{'max':>8}{'< 20 KiB':>10}"
             f"{'copy µs':>10}{'move µs':>10}{'copy/move':>11}{'p90':>7}"]
    for r in rows:
        lines.append(f"{r['game'] + ' ' + str(r['players']) + 'p':<22}{r['states']:>8}"
                     f"{r['json_bytes']['median']:>13.0f}{r['json_bytes']['max']:>8}"
                     f"{'yes' if r['under_limit'] else 'NO':>10}{r['copy_us']:>10.1f}{r['move_us']:>10.1f}"
                     f"{r['copy_per_move']['median']:>11.2f}{r['copy_per_move']['p90']:>7.2f}")
    return "\n".join(lines)
