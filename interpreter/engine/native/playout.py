"""Whole games and perft counts played in a native module, with the Python engine taking over a step
the module gives up on.

`playout` plays one game between agents that need no lookahead (`random`,
`first`) exactly as `runs.play.play_game` does with the same seeds: the
same moves, chance draws, fired rules, end, scores and returns.  If the
module bails at a step, the game is made again natively up to the step
before it, converted to a `State`, and the Python engine plays on from
there with the agents' generators where the module left them.  `perft`
counts as `runs.perft.perft_table` does; if the module bails anywhere in
the tree, the Python engine counts the whole tree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from ..legal import CHANCE
from ..rng import seed_state
from ..state import State
from .backend import NativeGame
from .convert import from_module
from .handle import native_scores

AGENT_KINDS = {"random": 0, "first": 1}  # agents the module plays itself: no lookahead, no state of their own


@dataclass
class Playout:
    """One game's record, as `runs.workers.run_one` summarises a played game."""

    moves: list[str] = field(default_factory=list)
    fired: dict[str, int] = field(default_factory=dict)  # rule id -> moves it fired in
    decisions: int = 0
    branching: int = 0
    scores: list = field(default_factory=list)
    returns: list[float] = field(default_factory=list)
    ended_by: str | None = None
    handed_over: bool = False  # the Python engine made some step
    judged: list[list] = field(default_factory=list)  # with a judge: the values of each position not over
    first_mover: int | None = None  # with a judge: the seat of the first decision


def native_agents(agents: Sequence[str]) -> list[int] | None:
    """The module's codes for these agent names (one per seat), or None if some agent needs Python."""
    kinds = [AGENT_KINDS.get(a) for a in agents]
    return None if any(k is None for k in kinds) else kinds  # type: ignore[return-value]


def playout(ng: NativeGame, kinds: list[int], agent_seeds: list[int], seed: int, judge: int = -1) -> Playout | None:
    """Game `seed` with seat k played by agent `kinds[k]` seeded `agent_seeds[k]`.

    With a `judge` (0: the scores, k > 0: heuristic k - 1 of the ruleset), each position not over is
    judged as `runs.arc.Judge` judges it, and a game the module does not play to its end by itself is
    None: its caller plays it on the Python engine, judged there (a step or a judgement the module gives
    up on is rare, and a judge's error is the game's error)."""
    lib, ffi, model = ng.lib, ng.ffi, ng.game.model
    limit = model.limits["max_steps"] + 1
    moves = ffi.new("int32_t[]", limit)
    rngs = ffi.new("uint64_t[]", [seed_state(s) & (2 ** 64 - 1) for s in agent_seeds])
    made, stats = ffi.new("int64_t *"), ffi.new("int64_t[2]")
    fired = ffi.new("int64_t[]", max(len(ng.rules), 1))
    final, err = ffi.new("rp_state **"), ffi.new("rp_error *")
    kinds_c = ffi.new("int32_t[]", kinds)
    judged = ffi.gc(ffi.new("rp_judged *"), lib.rp_judged_free) if judge >= 0 else ffi.NULL
    if lib.rp_playout(seed, kinds_c, rngs, limit, moves, made, stats, fired, final, err, judge, judged):
        ptr = ffi.gc(final[0], lib.rp_free)
        out = Playout([str(ng.move(i)) for i in ffi.unpack(moves, made[0])],
                      {ng.rules[r]: n for r, n in enumerate(ffi.unpack(fired, len(ng.rules))) if n},
                      stats[0], stats[1])
        scores = native_scores(ng, ptr)
        returns = ffi.new("double[]", model.players)
        if scores is None or not lib.rp_returns(ptr, returns, err):
            return None if judge >= 0 else _finish_in_python(ng, out, _state(ng, ptr, out.moves), None, None)
        out.scores, out.returns = scores, list(returns)
        out.ended_by = ng.text(lib.rp_ended_by(ptr))
        if judge >= 0:
            if not lib.rp_done(ptr):
                return None
            out.judged, out.first_mover = _judged(ffi, judged, model.players)
        return out
    if judge >= 0:
        return None
    steps = made[0]
    if steps < 0:  # set-up bailed: the whole game on the Python engine
        return _finish_in_python(ng, Playout(), ng.game.new_state(seed), kinds, agent_seeds, fresh=True)
    # Again, natively, to the state before the step the module gave up on; on from there in Python.
    rngs = ffi.new("uint64_t[]", [seed_state(s) & (2 ** 64 - 1) for s in agent_seeds])
    fired = ffi.new("int64_t[]", max(len(ng.rules), 1))
    if not lib.rp_playout(seed, kinds_c, rngs, steps, moves, made, stats, fired, final, err, -1, ffi.NULL):
        raise AssertionError("the moves a native module made once failed when made again")
    ptr = ffi.gc(final[0], lib.rp_free)
    out = Playout([str(ng.move(i)) for i in ffi.unpack(moves, made[0])],
                  {ng.rules[r]: n for r, n in enumerate(ffi.unpack(fired, len(ng.rules))) if n},
                  stats[0], stats[1])
    return _finish_in_python(ng, out, _state(ng, ptr, out.moves), kinds, list(rngs))


def _judged(ffi: Any, judged: Any, players: int) -> tuple[list[list], int | None]:
    """The values of each judged position, ints and floats as the rules made them, and the first mover."""
    n = judged.n
    ints, floats, is_float = ffi.unpack(judged.ints, n), ffi.unpack(judged.floats, n), ffi.unpack(judged.is_float, n)
    values = [floats[k] if is_float[k] else ints[k] for k in range(n)]
    first = judged.first_mover
    return [values[k:k + players] for k in range(0, n, players)], (first if first >= 0 else None)


def _state(ng: NativeGame, ptr: Any, moves: list[str]) -> State:
    text = ng.lib.rp_to_json(ptr)
    try:
        data = from_module(ng.game.model, ng.ffi.string(text).decode("utf-8"))
    finally:
        ng.lib.rp_free_text(text)
    return State(ng.game, data, None, ())


def _finish_in_python(ng: NativeGame, out: Playout, state: State, kinds: list[int] | None,
                      rngs: list[int] | None, fresh: bool = False) -> Playout:
    """Play on from `state` on the Python engine as `play_game` would, the agents' generators at `rngs` (their
    seeds when `fresh`); with no agents, only the end is read."""
    out.handed_over = True
    if kinds is not None:
        states = [seed_state(s) & (2 ** 64 - 1) for s in rngs] if fresh else list(rngs)  # type: ignore[union-attr]
        while not state.is_terminal():
            who = state.current_player
            if who == CHANCE:
                state.apply_chance_in_place(undo=False)
            else:
                legal = state.legal_moves()
                out.decisions += 1
                out.branching += len(legal)
                if kinds[who] == 0:
                    x = _below(states, who, len(legal))
                    move = legal[x]
                else:
                    move = legal[0]
                state.apply_in_place(move, undo=False)
            out.moves.append(str(state.last_move))
            for rule in state.last_fired:
                out.fired[rule] = out.fired.get(rule, 0) + 1
    out.scores = state.scores()
    out.returns = state.returns()
    out.ended_by = state.data["flow"]["ended_by"]
    return out


def _below(states: list[int], who: int, n: int) -> int:
    """`Rng.below(n)` of seat `who`'s generator, whose state is kept in `states`."""
    from ..rng import Rng

    rng = Rng(states[who])
    x = rng.below(n)
    states[who] = rng.state
    return x


def batch(ng: NativeGame, batch_seed: int, first: int, count: int, kinds: list[int]) -> tuple[int, int]:
    """Games first..first+count-1 of batch `batch_seed` (seated and seeded as `simulate` does), played and
    thrown away: the games played and their moves.  A game the module gives up on is played on through
    the Python engine (`playout`), so every game counts, as it would in a batch."""
    from ..rng import Rng

    moves_c = ng.ffi.new("int64_t *")
    kinds_c = ng.ffi.new("int32_t[]", kinds)
    games = moves = 0
    while games < count:
        done = ng.lib.rp_playouts(batch_seed, first + games, count - games, kinds_c, moves_c)
        games += done
        moves += moves_c[0]
        if games < count:  # game first + games was handed to the Python engine
            seed = Rng(seed_state(batch_seed)).derive(first + games)
            agent_seeds = [Rng(seed_state(seed)).derive(k) for k in range(len(kinds))]
            played = playout(ng, kinds, agent_seeds, seed)
            assert played is not None  # only a judged playout is left to its caller
            moves += len(played.moves)
            games += 1
    return games, moves


def perft_counts(ng: NativeGame, state: State, depth: int) -> tuple[list[int], list[int]] | None:
    """Per d in 0..depth (or up to `limits.max_steps`, past which there is nothing to count): the move
    sequences of exactly d decisions and the games over after exactly d; None when the module cannot hold
    `state` or gave up somewhere in the tree (the Python engine counts then)."""
    from .handle import NativeState

    handle = NativeState.of(ng, state)
    if handle._py is not None:
        return None
    ffi = ng.ffi
    depth = min(depth, ng.game.model.limits["max_steps"])  # no game has more decisions: the counts past it are 0
    nodes, ends = ffi.new("int64_t[]", depth + 1), ffi.new("int64_t[]", depth + 1)
    if not ng.lib.rp_perft(handle._ptr, depth, nodes, ends, ffi.new("rp_error *")):
        return None
    return list(nodes), list(ends)
