"""The native backend: each ruleset lowered to C, compiled, and played natively.

The one way in for the rest of ruleplay: `choose(game, "auto"|"python"|
"native")` says what a run plays on, and holds the game's native module
when it is the native one.  Whole games (`playout`), perft counts
(`perft_counts`) and states stepped one move at a time (`NativeState`) all
play exactly as the Python engine does, which stays the reference: a step
the native module cannot make as the rules say (a rule error, a limit, an
int past 64 bits) is made by the Python engine, which decides and reports
it, and play goes on.  Without cffi or a C compiler, or for a ruleset with
a construct the lowering does not take, everything runs on Python.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..game import Game
from .backend import NativeGame, NativeUnavailable
from .handle import NativeState
from .playout import AGENT_KINDS, Playout, batch, native_agents, perft_counts, playout

BACKENDS = ("auto", "python", "native")
ENV_VAR = "RULEPLAY_BACKEND"  # the default of --backend where a command is not told one


@dataclass(frozen=True)
class Backend:
    """What a run plays on: "python" or "native", and, where `auto` fell back to Python, why."""

    name: str
    native: NativeGame | None = None
    why_not: str | None = None


def default_choice() -> str:
    choice = os.environ.get(ENV_VAR) or "auto"
    return choice if choice in BACKENDS else "auto"


def choose(game: Game, choice: str = "auto") -> Backend:
    """The backend `choice` means for `game`; NativeUnavailable when "native" is asked for and cannot be."""
    if choice not in BACKENDS:
        raise ValueError(f"backend {choice!r} is not one of {', '.join(BACKENDS)}")
    if choice == "python":
        return Backend("python")
    try:
        return Backend("native", NativeGame.of(game))
    except NativeUnavailable as err:
        if choice == "native":
            raise
        return Backend("python", why_not=str(err))


def plays_on(game: Game, choice: str, agents: list[str] | None = None, judged: bool = False,
             heuristic: str | None = None) -> Backend:
    """What games of `game` between `agents` (one spec per seat; None: no agents, as perft) play on: the
    native module when `choice` allows it, it builds, and every agent is one it plays itself (random,
    first); when each position is `judged` (an arc's standings, `runs.arc`), by `heuristic` or (None) the
    scores, the module must hold that heuristic.  NativeUnavailable when "native" is asked for and cannot be."""
    backend = choose(game, choice)
    if backend.native is None:
        return backend
    why = None
    if agents is not None and native_agents(agents) is None:
        others = sorted({a for a in agents if native_agents([a]) is None})
        why = (f"the agent{'s' if len(others) > 1 else ''} {', '.join(others)} play{'' if len(others) > 1 else 's'} "
               f"on the Python engine (the native backend plays {', '.join(AGENT_KINDS)} itself)")
    elif judged and backend.native.judge_code(heuristic) is None:
        why = (f"the heuristic {heuristic} judges each position (an arc's standings), and the native module does "
               f"not hold it (`ruleplay validate --native` says what it does not lower)")
    if why is None:
        return backend
    if choice == "native":
        raise NativeUnavailable(why)
    return Backend("python", why_not=why)


__all__ = ["BACKENDS", "ENV_VAR", "Backend", "NativeGame", "NativeState", "NativeUnavailable", "Playout", "choose",
           "batch", "default_choice", "native_agents", "perft_counts", "playout", "plays_on"]
