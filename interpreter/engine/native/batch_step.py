"""A batch of games stepped natively in one call per step: the batched environment's engine (csrc/rp_batch.c).

`NativeBatch.step` makes every slot's move (or sets up the slot's next
game, Gymnasium's next-step autoreset), plays the chance nodes after it,
and writes each slot's reward, end, returns, seat to move, observation
vector (in a `ViewWriter`'s layout), action mask and list of legal actions
into the caller's arrays, without a Python call per game.  A slot the module cannot step
(a rule error, a limit, a view it does not write) is handed back with
what `replay` needs to make that game again through `NativeState`, so the
caller makes the step on the engine's own handle, which raises what the
rules raise or goes on in Python.  Nothing here imports NumPy: the arrays
are any writable buffers of the types `BatchArrays` names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .handle import CHANCE_DRAW, NativeState
from .observe import ViewWriter


@dataclass(frozen=True)
class BatchArrays:
    """The arrays a batch step reads and writes, one entry (or row) per game: any writable buffers of these types,
    bound once (`NativeBatch`), so a step passes no argument."""

    actions: Any       # int64: each game's move (ignored where the game is over)
    rngs: Any          # uint64: each slot's seed generator state (SplitMix64), drawn at each new game
    mine: Any          # int8: the games the native batch holds (set to 0 where it hands one back)
    over: Any          # int8: whether each game ended at the last step (set to whether it ends at this one)
    rewards: Any       # float64: the return of the seat that moved where its move ended the game, else 0
    returns: Any       # float64, games x players: every seat's return where the game ended
    movers: Any        # int64: the seat to move now, or -4 where the game is over
    observations: Any  # float32, games x the layout's size: the seat to move's vector (else the last mover's)
    masks: Any         # int8, games x actions: 1 for each legal move (0s where the game is over)
    nlegal: Any        # int64: how many legal moves each game has (0 where it is over)
    legal: Any         # int32, games x actions, -1s at first: each game's legal moves as the rules list them, then -1s


class NativeBatch:
    """The slots of `arrays`, each holding one game natively; the observations written in `writer`'s layout."""

    def __init__(self, writer: ViewWriter, arrays: BatchArrays):
        ng = self.ng = writer.ng
        ffi = ng.ffi
        self.games = games = len(arrays.mine)
        self.actions = ng.game.info.num_distinct_actions
        batch = ng.lib.rp_batch_new(games)
        if batch == ffi.NULL:
            raise MemoryError(f"no memory for a batch of {games} games")
        self._batch = ffi.gc(batch, ng.lib.rp_batch_free)
        self._seed = ffi.new("uint64_t *")
        self._ops = ffi.new("int32_t **")
        sizes = {"actions": games, "rngs": games, "mine": games, "over": games, "rewards": games,
                 "returns": games * ng.game.model.players, "movers": games,
                 "observations": games * writer.layout.size, "masks": games * self.actions, "nlegal": games,
                 "legal": games * self.actions}
        types = {"actions": "int64_t[]", "rngs": "uint64_t[]", "mine": "int8_t[]", "over": "int8_t[]",
                 "rewards": "double[]", "returns": "double[]", "movers": "int64_t[]", "observations": "float[]",
                 "masks": "int8_t[]", "nlegal": "int64_t[]", "legal": "int32_t[]"}
        bound = {}
        for name, ctype in types.items():
            bound[name] = ffi.from_buffer(ctype, getattr(arrays, name), require_writable=True)
            if len(bound[name]) != sizes[name]:
                raise ValueError(f"a batch of {games} games needs {sizes[name]} numbers of {name}, not "
                                 f"{len(bound[name])}")
        self._args = (self._batch, writer.layout, bound["actions"], bound["rngs"], bound["mine"], bound["over"],
                      bound["rewards"], bound["returns"], bound["movers"], bound["observations"], bound["masks"],
                      bound["nlegal"], bound["legal"], self.actions)
        self._step = ng.lib.rp_batch_step

    def step(self) -> int:
        """One step of every slot `mine` marks, as rp_batch_step says: how many slots were handed back (their
        `mine` set to 0), or -1 - the slot whose action was refused, every game left as it was."""
        return self._step(*self._args)

    def seed(self, slot: int) -> int:
        """The seed of slot `slot`'s game (of the game it was to set up, where that was handed back)."""
        self.ng.lib.rp_batch_log(self._batch, slot, self._seed, self._ops)
        return int(self._seed[0])

    def replay(self, slot: int) -> NativeState:
        """Slot `slot`'s game as a `NativeState`, made again from its seed and logged steps (up to the step that
        was handed back, if it was): history, private moves' witnesses and all."""
        lib = self.ng.lib
        count = lib.rp_batch_log(self._batch, slot, self._seed, self._ops)
        handle = NativeState.new(self.ng, int(self._seed[0]))
        for op in self.ng.ffi.unpack(self._ops[0], count) if count else ():
            if op == CHANCE_DRAW:
                handle.apply_chance()
            else:
                handle.apply_action(op)
        return handle
