"""A game's native module: lowered, compiled (or found in the cache), and what reading its answers needs.

`NativeGame.of(game)` is the one way in: it lowers the game's model,
builds or loads the module, and keeps it with the game, so every state,
playout and perft of that game shares one module.  When the ruleset has a
construct the lowering does not take, or there is no C compiler or cffi,
it raises `NativeUnavailable` with the reason, and callers play on the
Python engine.
"""

from __future__ import annotations

import threading
from typing import Any

from ..errors import RuleplayError
from ..game import Game
from ..moves import Move
from .build import BuildError, load_module
from .cdata import NotLowered
from .module import Lowered, lower_model


class NativeUnavailable(RuleplayError):
    """The game cannot be played natively here; the message says why (a construct and where, or the build)."""

    code = "RP670"


_LOCK = threading.Lock()
_ATTR = "_native_game"  # the game's NativeGame (or the reason it has none), kept on the game


class NativeGame:
    """The native module of one game (one ruleset, player count, variant and checking mode)."""

    def __init__(self, game: Game, lowered: Lowered, module: Any):
        self.game = game
        self.lowered = lowered
        self.ffi = module.ffi
        self.lib = module.lib
        self.rules = lowered.rules
        self.texts = lowered.texts
        # What a native state handle asks for on every game and move, looked up once (handle.py).
        self.io_type = module.ffi.typeof("rp_io *")
        self.io_legal = len(module.ffi.new(self.io_type).legal)  # the legal moves an `rp_io` holds itself
        self.buffer_type = module.ffi.typeof("int32_t[]")
        self.unpack = module.ffi.unpack
        self.begin, self.step, self.step_chance = module.lib.rp_begin, module.lib.rp_move, module.lib.rp_move_chance
        self._moves: dict[int, Move] = {}
        # the indexes of the moves of private actions: who saw their arguments is read after each of them
        self.private_moves = frozenset(
            i for a in game.model.actions.values() if a.private for i in range(a.first_index, a.first_index + a.size))

    @classmethod
    def of(cls, game: Game) -> "NativeGame":
        """The game's module, made the first time it is asked for (NativeUnavailable: why there is none)."""
        found = game.__dict__.get(_ATTR)
        if found is None:
            with _LOCK:
                found = game.__dict__.get(_ATTR)
                if found is None:
                    found = cls._make(game)
                    game.__dict__[_ATTR] = found
        if isinstance(found, NativeUnavailable):
            raise found
        return found

    @classmethod
    def _make(cls, game: Game) -> "NativeGame | NativeUnavailable":
        try:
            lowered = lower_model(game.model, game.checking)
        except NotLowered as err:
            where = f" at {err.pos}" if err.pos is not None and err.pos.line else ""
            return NativeUnavailable(f"the native backend does not lower {err.what}{where}")
        try:
            module = load_module(lowered.source)
        except BuildError as err:
            return NativeUnavailable(str(err))
        return cls(game, lowered, module)

    # ------------------------------------------------------------ reading answers
    def move(self, index: int) -> Move:
        found = self._moves.get(index)
        if found is None:
            found = self._moves[index] = self.game.index_to_move(index)
        return found

    def text(self, text_id: int, state: Any = None) -> str | None:
        """A text the module names by id: its own, or (made in play) read through the state's JSON."""
        if text_id < 0:
            return None
        if text_id < len(self.texts):
            return self.texts[text_id]
        raise LookupError(text_id)

    def judge_code(self, heuristic: str | None) -> int | None:
        """How `playout` names what judges positions: 0 the scores (`heuristic` None), k + 1 the ruleset's
        heuristic k; None for a heuristic the module does not hold (not lowered)."""
        if heuristic is None:
            return 0
        k = list(self.game.model.heuristics).index(heuristic)
        return k + 1 if self.lib.rp_heuristic_lowered(k) else None

    def fired(self, ptr: Any) -> list[str]:
        """The rules the last step of the native state `ptr` fired, each once, in firing order."""
        lib, ffi = self.lib, self.ffi
        n = lib.rp_fired(ptr, ffi.NULL, 0)
        out = ffi.new("int32_t[]", max(n, 1))
        lib.rp_fired(ptr, out, n)
        return [self.rules[out[i]] for i in range(n)]
