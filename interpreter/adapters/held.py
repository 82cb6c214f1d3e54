"""The game an adapter steps, on the native backend where it can play it, else on the Python engine.

Both adapters hold one *handle* per game in play and ask it what
`NativeState` answers (`current_player()`, `is_terminal()`,
`is_chance_node()`, `legal_actions()`, `chance_outcomes()`,
`apply_action(a)`, `apply_chance()`, `returns()`, `clone()`, `to_state()`),
so they have one code path whatever plays the game.  `backend="auto"`
steps the game's native module when it builds (`engine.native.choose`)
and the Python engine otherwise; "python" keeps the Python engine, the
reference every native answer is tested against; "native" insists (an
RP670 error says why it cannot).

Observations are written natively too (`engine.native.observe`), in the
layout of `encoding.Encoding`, number for number; a view the module cannot
write (a `visible_if` it does not lower, a rule error inside one) is
encoded from `State.observe`, which raises what the rules raise.
"""

from __future__ import annotations

from typing import Any


from ..engine.game import Game
from ..engine.native import BACKENDS, NativeState, choose
from ..engine.native.batch_step import BatchArrays, NativeBatch
from ..engine.state import State
from .encoding import Encoding


class PythonHandle:
    """A `State` answering as `NativeState` does: the Python engine's path, immutable states shared by clones."""

    __slots__ = ("state",)
    native = None  # no module state to hand to a native writer

    def __init__(self, state: State):
        self.state = state

    def current_player(self) -> int:
        return self.state.current_player

    def is_terminal(self) -> bool:
        return self.state.is_terminal()

    def is_chance_node(self) -> bool:
        return self.state.is_chance_node()

    def legal_actions(self) -> list[int]:
        return self.state.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """[(action, probability)]; [] when the node has too many outcomes to list (as `NativeState` says)."""
        outcomes = self.state.chance_outcomes()
        index = self.state.game.move_to_index
        return [] if outcomes is None else [(index(m), p) for m, p in outcomes]

    def apply_action(self, action: int) -> None:
        self.state = self.state.apply(self.state.game.index_to_move(action))

    def apply_chance(self) -> None:
        self.state = self.state.apply_chance()

    def returns(self) -> list[float]:
        return self.state.returns()

    def clone(self) -> PythonHandle:
        return PythonHandle(self.state)

    def to_state(self) -> State:
        """The state itself: states are never changed in place on this path, so it may be shared."""
        return self.state


Handle = NativeState | PythonHandle


class Stepper:
    """One game's handles and observation vectors, on the backend `backend` chooses for it."""

    def __init__(self, game: Game, encoding: Encoding, backend: str = "auto"):
        if backend not in BACKENDS:
            raise ValueError(f"backend {backend!r} is not one of {', '.join(BACKENDS)}")
        chosen = choose(game, backend)  # NativeUnavailable (RP670) when "native" cannot be
        self.game = game
        self.encoding = encoding
        self.backend = chosen.name
        self.why_not = chosen.why_not  # why "auto" stayed on the Python engine, or None
        self._native = chosen.native
        self._writer = None
        if chosen.native is not None:
            writer = encoding.native_writer(chosen.native)
            self._writer = writer if writer.available else None

    def batch(self, arrays: BatchArrays) -> NativeBatch | None:
        """A native batch of the games of `arrays` in this game's observation layout, or None where the module
        does not write the game's views (or there is no module): the games are then stepped in Python."""
        return None if self._writer is None else NativeBatch(self._writer, arrays)

    def new(self, seed: int) -> Handle:
        """The initial state of seed `seed`."""
        if self._native is None:
            return PythonHandle(self.game.new_state(seed=seed))
        return NativeState.new(self._native, seed)

    def of(self, state: State) -> Handle:
        """A handle on a copy of `state` (a position set up by hand, a saved game)."""
        theirs, ours = state.game.info, self.game.info
        if (theirs.name, theirs.players, theirs.variant, theirs.ruleset_hash) != (
                ours.name, ours.players, ours.variant, ours.ruleset_hash):
            raise ValueError(f"the state is of another game ({theirs.name}, {theirs.players} players, variant "
                             f"{theirs.variant}), not of this one ({ours.name}, {ours.players} players, variant "
                             f"{ours.variant}), or of another ruleset of it")
        if self._native is None:
            return PythonHandle(state)
        return NativeState.of(self._native, state.copy())

    def settle(self, handle: Handle) -> Handle:
        """Play every chance node with the state's own seeded generator, up to a seat's turn or the end."""
        while handle.is_chance_node():
            handle.apply_chance()
        return handle

    def observe_masked(self, handle: Handle, seat: int, masked: bool, out: Any, mask: Any) -> None:
        """`observe_into`, and into `mask` (int8, one per action) a 1 for each legal move when `masked`, else
        0s: in one native call where the module can write both."""
        ptr = handle.native
        if ptr is not None and self._writer is not None and self._writer.write_masked(ptr, seat, masked, out, mask):
            return
        self.observe_into(handle, seat, out)
        mask.fill(0)
        if masked:
            mask.put(handle.legal_actions(), 1)

    def observe_into(self, handle: Handle, seat: int, out: Any) -> None:
        """Seat `seat`'s observation vector of `handle` into `out` (float32, the encoding's size)."""
        ptr = handle.native
        if ptr is not None and self._writer is not None and self._writer.write(ptr, seat, out):
            return
        out[:] = self.encoding.encode(handle.to_state().observe(seat))
