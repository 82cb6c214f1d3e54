"""A game state held natively, stepped one move at a time: what agents and adapters drive.

`NativeState` answers as a `State` does (current player, legal actions,
chance outcomes, returns) and is changed in place by `apply_action` and
`apply_chance`.  It converts exactly to a `State` (`to_state`) and back
(`NativeState.of`), history and all.

When the native module bails on a step (a rule error, a budget that runs
out, an int past 64 bits), the step is handed to the Python engine: the
state before the step is rebuilt natively from its checkpoint (the seed it
was set up from, or the JSON it was read from) by making the steps since
again, converted to a `State`, and the step made there, so it fails with
the Python engine's own error and message, or succeeds as the Python engine
says; play then goes on natively from the result, or on the Python engine
when the module cannot hold it.  A failed step leaves the state as it was.
"""

from __future__ import annotations

from typing import Any

from ..history import History
from ..legal import CHANCE, TERMINAL
from ..state import State
from ..views import Seen
from .backend import NativeGame
from .convert import from_module, to_module

BAIL_ILLEGAL = 5
CHANCE_DRAW = -1  # the op of `apply_chance`: a draw with the state's own generator
CHECKPOINT_EVERY = 256  # steps replayed at most to rebuild a state before a step the module gave up on
WEIGHTS_BUFFER = 64  # chance weights read without another allocation
NO_HISTORY = History()  # a history is immutable: every new game's handle starts from this one
NO_SEENS: dict[int, list[int]] = {}  # the moves' masks of a handle that has made no private move (read only)


class NativeState:
    """A state in a game's native module, or (after a step only the Python engine could make) a `State`."""

    __slots__ = ("ng", "_lib", "_ptr", "_io", "_buf", "_cap", "_py", "_checkpoint", "_ops", "_moves", "_seens",
                 "_base", "_nlegal", "_player", "_weights", "_masks")

    def __init__(self, ng: NativeGame, checkpoint: int | str | None, base: History):
        self.ng = ng
        self._lib = ng.lib
        self._ptr: Any = None  # the native state (owned: freed with the last reference), or None
        # what the module's steps read and write: the state, the error of a step that bailed, the legal moves after a
        # step (this state's own, so that a step allocates nothing and takes two arguments)
        self._io = io = ng.ffi.new(ng.io_type)
        self._buf = io.legal  # where the steps write the legal moves: `io.legal`, or a larger buffer (`io.more`)
        self._cap = ng.io_legal  # len(self._buf)
        self._py: State | None = None
        # where `_ops` begin: the seed the game was set up from, or the module's JSON of a state (None: no state yet)
        self._checkpoint = checkpoint
        self._ops: list[int] = []
        self._moves: list[int] = []  # every move since `base`, chance outcomes included
        self._seens: dict[int, list[int]] | None = None  # who saw the private moves' arguments (masks), by position
        self._base = base
        self._nlegal = -1  # the legal actions in `_buf` (read with the last step), or -1: not read
        self._player: int | None = None  # who moves (read with the last step), or None: ask the module
        self._weights: Any = None  # the chance weights' buffer, made at the first chance node asked about
        self._masks: Any = None  # the buffer `rp_seen` writes, made at the first private move

    # ------------------------------------------------------------ making states
    @classmethod
    def new(cls, ng: NativeGame, seed: int) -> "NativeState":
        """The initial state of seed `seed` (as `Game.new_state(seed)`)."""
        handle = cls(ng, seed, NO_HISTORY)
        io = handle._io
        step = ng.begin(io, seed)
        if step >= 0:
            handle._ptr = ng.ffi.gc(io.S, ng.lib.rp_free)
            handle._nlegal, handle._player = step >> 5, (step & 31) - 4
            return handle
        if io.S != ng.ffi.NULL:  # set-up itself bailed: the Python engine sets the game up
            ng.lib.rp_free(io.S)
            io.S = ng.ffi.NULL
        handle._py = ng.game.new_state(seed)
        return handle

    @classmethod
    def of(cls, ng: NativeGame, state: State) -> "NativeState":
        """`state` as a native state (it stays a `State` inside when the module cannot hold it)."""
        handle = cls(ng, None, state._history)
        handle._resume(state)
        return handle

    def _resume(self, state: State) -> None:
        """Go on from `state`: natively when the module holds it, else on the Python engine."""
        text = to_module(self.ng.game.model, state.data)
        ptr = None if text is None else _read(self.ng, text)
        self._ops, self._moves, self._seens, self._base = [], [], None, state._history
        self._nlegal, self._player = -1, None
        self._hold(ptr)
        if ptr is None:
            self._py = state
            return
        self._py = None
        self._checkpoint = text

    def _hold(self, ptr: Any) -> None:
        """Step the native state `ptr` from now on (None: none, the Python engine holds this state)."""
        self._ptr = ptr
        self._io.S = self.ng.ffi.NULL if ptr is None else ptr

    def clone(self) -> "NativeState":
        other = NativeState(self.ng, self._checkpoint, self._base)
        if self._py is not None:
            other._py = self._py.copy()
        else:
            lib = self._lib
            other._hold(self.ng.ffi.gc(lib.rp_clone_state(self._ptr), lib.rp_free))
            other._player = self._player
        other._ops, other._moves = list(self._ops), list(self._moves)
        other._seens = None if self._seens is None else dict(self._seens)
        return other

    # ------------------------------------------------------------ questions
    @property
    def native(self) -> Any:
        """The module's own state (a cffi pointer) to hand to the module, or None while the Python engine
        holds this one (after a step only it could make)."""
        return self._ptr if self._py is None else None

    def current_player(self) -> int:
        player = self._player
        if player is not None:
            return player
        if self._py is not None:
            return self._py.current_player
        return self._lib.rp_player(self._ptr)

    def is_terminal(self) -> bool:
        player = self._player
        if player is not None:
            return player == TERMINAL
        if self._py is not None:
            return self._py.is_terminal()
        return bool(self._lib.rp_done(self._ptr))

    def is_chance_node(self) -> bool:
        player = self._player  # current_player(), written out: every loop asks this once a move
        if player is not None:
            return player == CHANCE
        return self.current_player() == CHANCE

    def legal_actions(self) -> list[int]:
        if self._py is not None:
            return self._py.legal_actions()
        n = self._nlegal
        if 0 <= n <= self._cap:  # read with the step that led here
            return self.ng.unpack(self._buf, n)
        n = self._lib.rp_legal(self._ptr, self._buf, self._cap, self._error())
        if n > self._cap:  # room for them in this state's steps from now on
            io = self._io
            io.more = self._buf = self.ng.ffi.new(self.ng.buffer_type, n)
            io.cap = self._cap = n
            n = self._lib.rp_legal(self._ptr, self._buf, n, self._error())
        if n < 0:  # a listing the module gave up on: the Python engine lists (or raises)
            return self.to_state().legal_actions()
        self._nlegal = n
        return self.ng.unpack(self._buf, n)

    def _error(self) -> Any:
        """Where the module writes why a call bailed (`rp_error *`)."""
        return self.ng.ffi.addressof(self._io, "err")

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """[(action, probability)] at a chance node, as `State.chance_outcomes` gives them ([] where it gives
        None: too many outcomes to list); the weights are worked out natively where the module can."""
        if self._py is None and self.is_chance_node():
            actions = self.legal_actions()
            if len(actions) > self.ng.game.max_chance_outcomes:
                return []
            weights = self._weights
            if weights is None or len(weights) < len(actions):
                weights = self._weights = self.ng.ffi.new("double[]", max(len(actions), WEIGHTS_BUFFER))
            if self._lib.rp_weights(self._ptr, weights, self._error()):
                drawn = self.ng.ffi.unpack(weights, len(actions))
                total = sum(drawn)
                return [(a, w / total) for a, w in zip(actions, drawn)]
        state = self.to_state() if self._py is None else self._py
        outcomes = state.chance_outcomes()
        if outcomes is None:
            return []
        return [(self.ng.game.move_to_index(m), p) for m, p in outcomes]

    def returns(self) -> list[float]:
        if self._py is not None:
            return self._py.returns()
        lib, ffi = self.ng.lib, self.ng.ffi
        n = self.ng.game.model.players
        out, err = ffi.new("double[]", n), ffi.new("rp_error *")
        if not lib.rp_returns(self._ptr, out, err):
            return self.to_state().returns()
        return list(out)

    def scores(self) -> list:
        if self._py is not None:
            return self._py.scores()
        return native_scores(self.ng, self._ptr) or self.to_state().scores()

    @property
    def last_fired(self) -> list[str]:
        if self._py is not None:
            return list(self._py.last_fired)
        return self.ng.fired(self._ptr)

    def to_state(self) -> State:
        """The same state as a `State`: equal data, the same history (who saw what included)."""
        if self._py is not None:
            return self._py.copy()
        return self._state_of(self._ptr)

    def _state_of(self, ptr: Any) -> State:
        ng = self.ng
        text = ng.lib.rp_to_json(ptr)
        try:
            data = from_module(ng.game.model, ng.ffi.string(text).decode("utf-8"))
        finally:
            ng.lib.rp_free_text(text)
        history = self._base
        seens = self._seens or NO_SEENS
        for k, index in enumerate(self._moves):
            masks = seens.get(k)
            history = history.then(ng.move(index), None if masks is None else _seen_of(masks))
        state = State(ng.game, data, None, history)
        state.last_fired = ng.fired(ptr)
        return state

    # ------------------------------------------------------------ steps
    def apply_action(self, action: int) -> None:
        """Make move `action` (an index of the game's numbering) on this state: a chance node's outcome
        too, chosen rather than drawn."""
        if self._py is not None:
            self._py.apply_in_place(self.ng.game.index_to_move(action))
            return
        step = self.ng.step(self._io, action)
        if step >= 0:  # this is the step every loop makes
            self._nlegal, self._player = step >> 5, (step & 31) - 4
            if action in self.ng.private_moves:
                self._made(action)
            else:  # the common step, written out
                self._moves.append(action)
                ops = self._ops
                ops.append(action)
                if len(ops) >= CHECKPOINT_EVERY:
                    self._checkpoint_here()
            return
        self._nlegal, self._player = -1, None
        self._hand_over(action, self._io.err.code)

    def apply_chance(self) -> None:
        """Draw the outcome at a chance node with the state's own generator and make it."""
        if self._py is not None:
            self._py.apply_chance_in_place()
            return
        step = self.ng.step_chance(self._io)
        if step >= 0:
            self._nlegal, self._player = step >> 5, (step & 31) - 4
            self._made(CHANCE_DRAW)
            return
        self._nlegal, self._player = -1, None
        self._hand_over(CHANCE_DRAW, self._io.err.code)

    def _made(self, op: int) -> None:
        ng = self.ng
        index = op if op >= 0 else self._lib.rp_last_move(self._ptr)
        if index in ng.private_moves:  # who saw its arguments: kept as the module's masks, read in `_state_of`
            masks = self._masks
            if masks is None:
                masks = self._masks = ng.ffi.new("uint32_t[17]")
            if self._seens is None:
                self._seens = {}
            self._seens[len(self._moves)] = ng.ffi.unpack(masks, self._lib.rp_seen(self._ptr, masks))
        self._moves.append(index)
        self._ops.append(op)
        if len(self._ops) >= CHECKPOINT_EVERY:
            self._checkpoint_here()

    def _checkpoint_here(self) -> None:
        """Rebuilt states start from here on: the replay before a hand-over stays short."""
        lib = self._lib
        text = lib.rp_to_json(self._ptr)
        try:
            kept = self.ng.ffi.string(text).decode("utf-8")
        finally:
            lib.rp_free_text(text)
        self._checkpoint = kept
        self._ops = []

    def _hand_over(self, op: int, code: int) -> None:
        """The step the module gave up on, made by the Python engine from the state before it."""
        if code == BAIL_ILLEGAL:  # refused before anything changed: the Python engine says why
            before = self._state_of(self._ptr)
        else:
            before = self._rebuilt()
        try:
            if op == CHANCE_DRAW:
                before.apply_chance_in_place()
            else:
                before.apply_in_place(self.ng.game.index_to_move(op))
        except BaseException:
            self._hold(None)  # unchanged, as the Python engine leaves a failed move
            self._py = before
            raise
        self._resume(before)

    def _rebuilt(self) -> State:
        """The state before the step that bailed, made again natively from the checkpoint."""
        ng = self.ng
        kept = self._checkpoint
        ptr = _seeded(ng, kept) if isinstance(kept, int) else None if kept is None else _read(ng, kept)
        err = ng.ffi.new("rp_error *")
        for op in self._ops:
            ok = ng.lib.rp_apply_chance(ptr, err) if op == CHANCE_DRAW else ng.lib.rp_apply(ptr, op, err)
            if not ok:
                raise AssertionError("a step the native module made once failed when made again")
        return self._state_of(ptr)


def _seeded(ng: NativeGame, seed: int) -> Any:
    """A fresh native state of the game's seed `seed` (the checkpoint of a new game's handle)."""
    ptr = ng.ffi.gc(ng.lib.rp_new(), ng.lib.rp_free)
    return ptr if ng.lib.rp_setup(ptr, seed, ng.ffi.new("rp_error *")) else None


def _seen_of(masks: list[int]) -> Seen:
    """Who saw each argument of a private move, from the module's masks (bit 31: everyone; else one bit a seat)."""
    return tuple(None if mask & (1 << 31) else tuple(s for s in range(32) if mask >> s & 1) for mask in masks)


def _read(ng: NativeGame, text: str) -> Any:
    """A native state read from the module's JSON, or None when the module cannot hold it."""
    try:
        raw = text.encode("utf-8")
    except UnicodeEncodeError:
        return None
    ptr = ng.ffi.gc(ng.lib.rp_new(), ng.lib.rp_free)
    return ptr if ng.lib.rp_from_json(ptr, raw) else None


def native_scores(ng: NativeGame, ptr: Any) -> list | None:
    """The scores of a native state, ints and floats as the rules made them; None if the module bailed."""
    ffi, n = ng.ffi, ng.game.model.players
    ints, floats, is_float = ffi.new("int64_t[]", n), ffi.new("double[]", n), ffi.new("int8_t[]", n)
    if not ng.lib.rp_scores(ptr, ints, floats, is_float, ffi.new("rp_error *")):
        return None
    return [floats[p] if is_float[p] else ints[p] for p in range(n)]
