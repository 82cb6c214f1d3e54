"""Where a batched environment step's time goes, per game-step: `python -m benchmarks rl --split`.

The batched loop of `benchmarks.rl` (64 games, actions drawn for the whole
batch by `rl.random_legal` among the lists `legal_actions()` hands out), timed in its parts: the draw, the Python of
`env.step` (checks, copies of the batch's arrays, infos), and the one
native call that steps the batch.  Beside it, on the same game's module,
what the native call is made of: a move with the listing of the next legal
moves (random playouts played natively, `engine.native.batch`), and one
observation vector with its mask (`ViewWriter.write_masked` over states of
random games), with how many numbers each writes.  All CPU time of this
process, in microseconds per game-step.
"""

from __future__ import annotations

import random
import time

import numpy as np

from .rl import BATCH, random_legal

STATES = 200  # states of random games whose observations are timed
KEEP_ONE_IN = 8  # the share of a random game's states kept for that


def split(games: list[tuple[str, int | None]], seconds: float) -> list[dict]:
    """Per game, the parts of a batched step in microseconds per game-step (see the module's text)."""
    return [_split(name, players, seconds) for name, players in games]


def _split(name: str, players: int | None, seconds: float) -> dict:
    from ruleplay.pettingzoo import vector_env

    env = vector_env(name, num_envs=BATCH, players=players, backend="native")
    stepper, native = env.games.stepper, env._native
    spent = {"native": 0.0, "draw": 0.0, "env": 0.0}
    native_step = native.step

    def timed() -> int:  # the native call, timed inside env.step
        t0 = time.process_time()
        handed = native_step()
        spent["native"] += time.process_time() - t0
        return handed

    native.step = timed
    draws = np.random.default_rng(0)
    env.reset(seed=0)
    spent["native"] = 0.0
    steps = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        t0 = time.process_time()
        actions = random_legal(*env.legal_actions(), draws)
        t1 = time.process_time()
        env.step(actions)
        spent["draw"] += t1 - t0
        spent["env"] += time.process_time() - t1
        steps += 1
    per = 1e6 / (steps * BATCH)
    return {"game": name, "players": players, "game_steps_per_s": steps * BATCH / (spent["draw"] + spent["env"]),
            "draw_us": spent["draw"] * per, "env_python_us": (spent["env"] - spent["native"]) * per,
            "native_us": spent["native"] * per, "move_us": _move_us(stepper, seconds),
            "observation_us": _observation_us(stepper, seconds), "numbers": stepper.encoding.size,
            "actions": stepper.game.info.num_distinct_actions}


def _move_us(stepper, seconds: float) -> float:
    """A move and the listing after it, natively (random playouts, the agent's pick included)."""
    from ruleplay.engine.native import batch

    ng, kinds = stepper._native, [0] * stepper.game.model.players
    moves, first, start = 0, 0, time.process_time()
    while time.process_time() - start < seconds:
        moves += batch(ng, 0, first, 4, kinds)[1]
        first += 4
    return (time.process_time() - start) / moves * 1e6


def _observation_us(stepper, seconds: float) -> float:
    """One seat's observation vector and the action mask, written natively, over states of random games (one in
    `KEEP_ONE_IN`, so that they come from whole games, the long ones' late states too)."""
    rng, held = random.Random(0), []
    while len(held) < STATES:
        handle = stepper.settle(stepper.new(rng.getrandbits(64)))
        while not handle.is_terminal() and len(held) < STATES:
            if rng.randrange(KEEP_ONE_IN) == 0:
                held.append(handle.clone())
            handle.apply_action(rng.choice(handle.legal_actions()))
            stepper.settle(handle)
    writer = stepper._writer
    ffi, lib, actions = writer.ng.ffi, writer.ng.lib, stepper.game.info.num_distinct_actions
    out, mask = ffi.new("float[]", stepper.encoding.size), ffi.new("int8_t[]", actions)
    calls = [(handle.native, handle.current_player()) for handle in held]
    written, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        for ptr, seat in calls:
            lib.rp_observe_masked(ptr, writer.layout, seat, 1, out, mask, actions)
        written += len(calls)
    return (time.process_time() - start) / written * 1e6


def report(rows: list[dict]) -> str:
    lines = [f"a batched step of {BATCH} games, in CPU microseconds per game-step: the batch's random draw, the "
             f"Python of env.step, its native call; natively apart, a move with its listing and one observation "
             f"with its mask",
             f"{'game':<20}{'steps/s':>11}{'draw':>8}{'Python':>8}{'native':>8}{'move':>8}{'observe':>9}"
             f"{'numbers':>9}{'actions':>9}"]
    for row in rows:
        label = row["game"] + (f" -p {row['players']}" if row["players"] else "")
        lines.append(f"{label:<20}{row['game_steps_per_s']:>11,.0f}{row['draw_us']:>8.2f}{row['env_python_us']:>8.2f}"
                     f"{row['native_us']:>8.2f}{row['move_us']:>8.2f}{row['observation_us']:>9.2f}"
                     f"{row['numbers']:>9,}{row['actions']:>9,}")
    return "\n".join(lines)
