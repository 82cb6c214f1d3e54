"""Where a ruleset's games spend their time: each of its own pieces of code, ranked, with file and line.

`profile(game, games, agents, seed)` plays games on a game loaded for the
purpose and times every piece of the ruleset's code each time it runs: its
functions and procedures, every action's `from:` and `where:` filters,
requirements and effects, the end conditions, triggers, phase hooks, the
setup and the scoring.  Each piece keeps its calls, its own time (without
the pieces it called) and its total time (with them, counted once however
deeply it calls itself).  What no piece accounts for is the engine's own
work: walking parameters, passing turns, copying states, the agents.

Every compiled piece is compiled to Python before the games (rather than
at its first call) and wrapped in a timer, so the figures carry the timer's
overhead (a fraction of a microsecond a call); moves are listed by the
reference listing, a call per check, where play lists an action's moves
with one generated function; both make a profiled game slower than a
played one, neither changes which pieces are the costly ones.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from ruleplay.dsl.emit import compile_pending
from ruleplay.dsl.yamlload import format_path, lookup

from ..engine.game import Game
from ..engine.model import GameModel
from ..runs.play import play_game


@dataclass
class Piece:
    """One piece of the ruleset's code and the time spent in it."""

    what: str  # "function run", "requirement 1 of place", …
    path: tuple  # where the ruleset writes it
    file: str
    line: int
    calls: int = 0
    own: float = 0.0  # seconds in its own code, without the pieces it called
    total: float = 0.0  # seconds from its call to its return, each outermost call once
    active: int = 0  # calls under way (a recursive function is in several)

    def to_dict(self, played: float) -> dict:
        share = self.own / played if played > 0 else 0.0
        return {"what": self.what, "path": format_path(self.path), "file": self.file, "line": self.line,
                "calls": self.calls, "own_seconds": self.own, "total_seconds": self.total, "own_share": share}


@dataclass
class ProfileReport:
    game: str
    variant: str | None
    players: int
    games: int
    moves: int
    seconds: float  # the whole of the games' play
    pieces: list[Piece]  # by own time, the longest first; pieces that never ran are left out

    @property
    def ruleset_seconds(self) -> float:
        """The time inside the ruleset's code (its pieces' own times together)."""
        return sum(p.own for p in self.pieces)

    def to_dict(self) -> dict:
        return {"game": self.game, "variant": self.variant, "players": self.players, "games": self.games,
                "moves": self.moves, "seconds": self.seconds, "ruleset_seconds": self.ruleset_seconds,
                "pieces": [p.to_dict(self.seconds) for p in self.pieces]}


class _Clock:
    """The timers of one profile: which pieces are running, and the time their callees took."""

    def __init__(self) -> None:
        self.inner: list[float] = []  # per running piece, innermost last: the time spent in pieces it called

    def timed(self, fn: Callable[..., Any], piece: Piece) -> Callable[..., Any]:
        inner = self.inner
        now = time.perf_counter

        def run(*args: Any) -> Any:
            piece.active += 1
            inner.append(0.0)
            start = now()
            try:
                return fn(*args)
            finally:
                spent = now() - start
                called = inner.pop()
                piece.calls += 1
                piece.own += spent - called
                piece.active -= 1
                if not piece.active:
                    piece.total += spent
                if inner:
                    inner[-1] += spent

        return run


def _pieces(model: GameModel) -> list[tuple[str, tuple, Any, str]]:
    """Every compiled piece of play as (what it is, its ruleset path, the object holding it, the attribute
    or key it is held under)."""
    out: list[tuple[str, tuple, Any, str]] = []
    for name in model.function_bodies:
        out.append((f"function {name}", ("functions", name, "value"), model.function_bodies, name))
    for name in model.procedure_bodies:
        out.append((f"procedure {name}", ("procedures", name, "effects"), model.procedure_bodies, name))
    for name, action in model.actions.items():
        for p in action.params:
            for key, what in (("source", "from:"), ("where", "where:")):
                out.append((f"{what} of {name}.{p.name}", p.path + (key.replace("source", "from"),), p, key))
        for i, r in enumerate(action.requires):
            text = r.path + ("check",) if isinstance(lookup(model.data, r.path), dict) else r.path
            out.append((f"requirement {r.path[-1] + 1} of {name}", text, r, "check"))
        out.append((f"weight of {name}", action.path + ("weight",), action, "weight"))
        out.append((f"effects of {name}", action.path + ("effects",), action, "effects"))
    for phase in model.phases.values():
        for key in ("first", "end_if", "on_begin", "on_end"):
            out.append((f"{key} of phase {phase.name}", phase.path + (key,), phase, key))
    for i, cond in enumerate(model.end):
        out.append((f"end condition {i + 1}", cond.path + ("when",), cond, "when"))
    for i, trigger in enumerate(model.triggers):
        out.append((f"trigger {i + 1} (when)", trigger.path + ("when",), trigger, "when"))
        out.append((f"trigger {i + 1} (effects)", trigger.path + ("effects",), trigger, "effects"))
    for i, inv in enumerate(model.invariants):
        out.append((f"invariant {i + 1}", inv.path + ("check",), inv, "check"))
    for key, path in (("setup", ("setup",)), ("on_round_begin", ("flow", "on_round_begin")),
                      ("on_round_end", ("flow", "on_round_end")), ("start_player", ("flow", "start_player")),
                      ("skip_if", ("flow", "skip_if")), ("score", ("scoring", "score")),
                      ("returns", ("scoring", "returns"))):
        out.append((key, path, model, key))
    for i in range(len(model.tiebreak)):
        out.append((f"tiebreak {i + 1}", ("scoring", "tiebreak", i), model.tiebreak, i))  # type: ignore[arg-type]
    for name in model.heuristics:
        out.append((f"heuristic {name}", ("heuristics", name, "value"), model.heuristics, name))
    return out


def instrument(model: GameModel) -> list[Piece]:
    """Wrap every compiled piece of `model` in a timer (the model is changed: load one for the purpose),
    and have moves listed by the reference listing, which calls each check on its own."""
    clock = _Clock()
    pieces = []
    for what, path, holder, key in _pieces(model):
        fn = holder[key] if isinstance(holder, (dict, list)) else getattr(holder, key, None)
        if fn is None or lookup(model.data, path) is None:  # not written in the ruleset (a default)
            continue
        for code in (fn, getattr(getattr(fn, "__self__", None), "body", None)):  # a kept function's body too
            compile_pending(code)
        where = model.code_at(path)
        piece = Piece(what, path, where.file, where.line)
        wrapped = clock.timed(fn, piece)
        if isinstance(holder, (dict, list)):
            holder[key] = wrapped
        else:
            setattr(holder, key, wrapped)
        pieces.append(piece)
    model.listings = None  # the generated listings write the checks into one function, out of the timers' reach
    for action in model.actions.values():
        action.__dict__.pop("checks_by_level", None)  # made again from the wrapped checks, if made already
    return pieces


def profile(game: Game, games: int, agents: Sequence[str], seed: int) -> ProfileReport:
    """Play `games` games (seeds `seed`, `seed + 1`, …) on `game`, which this instruments, and time its code."""
    pieces = instrument(game.model)
    moves = 0
    started = time.perf_counter()
    for k in range(games):
        moves += play_game(game, list(agents), seed + k).length
    seconds = time.perf_counter() - started
    ran = sorted((p for p in pieces if p.calls), key=lambda p: (-p.own, p.file, p.line))
    info = game.info
    return ProfileReport(info.name, info.variant, info.players, games, moves, seconds, ran)
