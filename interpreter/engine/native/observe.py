"""Seats' observation vectors written natively, in a layout the caller describes (the adapters' encoding).

`adapters/encoding.py` fixes the layout of a game's vector (docs/adapters.md)
and writes it from `State.observe(seat)`; `ViewWriter` writes the same
numbers straight from a native state (`csrc/rp_observe.c`), without making
the view or its JSON.  A view the module cannot write exactly (a rule error
or a limit in a `visible_if`, a `visible_if` it does not lower, a state held
by the Python engine after a hand-over) is refused (`write` answers False),
and the caller encodes it from `State.observe`, which raises what the rules
raise.  Nothing here imports NumPy: `out` is any writable buffer of float32.
"""

from __future__ import annotations

from typing import Any

from ..model import GameModel
from .backend import NativeGame
from .convert import encodable as _encodable


class ViewWriter:
    """Writes one game's observation vectors natively; the layout's numbers come from the caller."""

    def __init__(self, ng: NativeGame, size: int, cells: list[int], counts: list[int], stages: dict[str, int],
                 symbols: dict[str, int]):
        """`size` numbers a vector; `cells[i]` items of variable i kept by position; `counts[i]` the component
        counts of each of its entries (the game's components, or 0); `stages` every stage name's place (sorted
        order); `symbols` each text's number (from 1) in the vector."""
        self.ng = ng
        ffi, lib, model = ng.ffi, ng.lib, ng.game.model
        self.available = bool(lib.rp_views_lowered())
        self._keep: list[Any] = []  # the arrays the layout points into live as long as it does
        starts, slots = _stage_slots(model, stages)
        by_id = {self._text_id(text): k for text, k in symbols.items() if _encodable(text)}
        layout = self.layout = ffi.new("rp_layout *")
        layout.size = size
        layout.cells = self._ints(cells)
        layout.counts = self._ints(counts)
        layout.phase_stages = self._ints(starts)
        layout.stage_slot = self._ints(slots)
        layout.nstages = len(stages)
        layout.text_hidden = self._text_id("hidden")
        table = [0] * (max(by_id, default=-1) + 1)
        for text_id, k in by_id.items():
            table[text_id] = k
        layout.nsymbols = len(table)
        layout.symbol_of_text = self._ints(table)
        self._err = ffi.new("rp_error *")

    def _ints(self, values: list[int]) -> Any:
        array = self.ng.ffi.new("int32_t[]", values or [0])
        self._keep.append(array)
        return array

    def _text_id(self, text: str) -> int:
        raw = text.encode("utf-8")
        return int(self.ng.lib.rp_text_id(raw, len(raw)))

    def write(self, ptr: Any, seat: int, out: Any) -> bool:
        """Seat `seat`'s vector of the native state `ptr` into `out` (a float32 buffer of the layout's
        size); False, with `out` to be written otherwise, where the module cannot write it exactly."""
        if not self.available:
            return False
        buffer = self.ng.ffi.from_buffer("float[]", out, require_writable=True)
        return bool(self.ng.lib.rp_observe(ptr, self.layout, seat, buffer, self._err))

    def write_masked(self, ptr: Any, seat: int, masked: bool, out: Any, mask: Any) -> bool:
        """`write`, and the state's action mask into `mask` (an int8 buffer, one number per action of the game):
        a 1 for each legal move when `masked`, else 0s.  False where the module cannot write both exactly."""
        if not self.available:
            return False
        ffi = self.ng.ffi
        return bool(self.ng.lib.rp_observe_masked(
            ptr, self.layout, seat, masked, ffi.from_buffer("float[]", out, require_writable=True),
            ffi.from_buffer("int8_t[]", mask, require_writable=True), len(mask)))


def _stage_slots(model: GameModel, stages: dict[str, int]) -> tuple[list[int], list[int]]:
    """Per phase (flow order) where its stages start, and each stage's place among every stage name."""
    starts, slots = [], []
    for name in model.phase_order:
        starts.append(len(slots))
        slots += [stages[stage] for stage in model.phases[name].stages]
    return starts, slots
