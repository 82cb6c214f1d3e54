"""One player's observation as a flat vector of numbers, the same length in every state of a game.

Learning code needs a fixed-size input; a ruleset's state is free-form JSON
whose lists grow and shrink.  The layout is therefore fixed once per game
(ruleset, player count, variant) from what the ruleset declares — seats,
phases and stages, components, the variables of `state:` and the length each
variable's lists have in the initial state — and every observation is
written into it.  Only `State.observe(player)` is read, so a value the
player may not see is masked here exactly as it is there.

The vector, in order (docs/adapters.md has the same table):

| block | width | contents |
| --- | --- | --- |
| viewer | N | one-hot: the seat observing |
| to move | N + 2 | one-hot: seat 0..N-1 to move, chance, game over |
| phase | phases | one-hot over the phases in flow order |
| stage | stages + 1 | one-hot over every stage name (sorted), last: no stage |
| round | 1 | the round number |
| each variable entry | 4 + C + 4·L | see below, one entry per variable, N for a per-player one (seat order) |

A variable entry is its value as one *atom*, then how many times each of the
game's C components (in declaration order) occurs anywhere in it (list items,
map keys and values, nested), then its first L items one atom each, where L
is the length of that variable's list in the initial state of seed 0 (0 for a
value that is not a list; at most MAX_CELLS): boards, tracks and per-slot
tables keep their positions, growing zones are counted by component.  C is 0
for a variable that never shows a text (`engine.textless`: its values are
null, flags, numbers and lists of those), whose counts would always be 0.

An atom is 4 numbers `[known, hidden, number, symbol]`:
null `[0, 0, 0, 0]`; a masked value `[0, 1, n, 0]` with n its list length
(1 if it is not a list); true/false `[1, 0, 1/0, 0]`; a number `[1, 0, x, 0]`
(clipped to ±1e30); a list or map `[1, 0, length, 0]`; a text
`[1, 0, 0, k]`, k the text's place (from 1) in the game's symbols — the
component ids, then every other text in `constants:` — or 0 for any other text.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..engine.game import Game
from ..engine.native.backend import NativeGame
from ..engine.native.observe import ViewWriter
from ..engine.textless import textless_vars

MAX_CELLS = 1024  # items of one list kept by position; the rest count only by component
LIMIT = 1e30  # numbers are clipped to what a float32 holds with room to spare
ATOM = 4


@dataclass(frozen=True)
class Block:
    """One named run of the vector: where it starts, how wide it is, what it holds."""

    name: str
    start: int
    width: int


class Encoding:
    """The fixed layout of one game's observation vectors, and the writer that fills one in."""

    def __init__(self, game: Game):
        model = game.model
        self.players = model.players
        self.phases = {name: i for i, name in enumerate(model.phase_order)}
        self.stages = {name: i for i, name in
                       enumerate(sorted({s for p in model.phases.values() for s in p.stages}))}
        self.components = {cid: i for i, cid in enumerate(model.component_ids)}
        self.symbols = {cid: i + 1 for i, cid in enumerate(model.component_ids)}
        for text in _texts(list(model.constants.values())):  # the values: a constant's own name is no datum
            self.symbols.setdefault(text, len(self.symbols) + 1)
        self.per_player = {name: decl.per_player for name, decl in model.vars.items()}
        # Only these can be masked, and only as a whole entry: elsewhere `{"hidden": 2}` is a map of the rules.
        self.maskable = {name: decl.visibility != "public" for name, decl in model.vars.items()}
        initial = game.new_state(seed=0).data["vars"]
        self.cells: dict[str, int] = {}
        for name, decl in model.vars.items():
            entries = initial[name] if decl.per_player else [initial[name]]
            self.cells[name] = min(MAX_CELLS, max((len(e) if isinstance(e, list) else 0 for e in entries),
                                                  default=0))
        # Each variable's entries' component counts: C, or none where no component id can occur (they would be
        # zeros in every state).
        textless = textless_vars(model)
        self.counts = {name: 0 if name in textless else len(self.components) for name in model.vars}
        self.blocks = self._layout(model.vars)
        self.size = sum(b.width for b in self.blocks)

    def _layout(self, decls: dict) -> list[Block]:
        n = self.players
        widths = [("viewer", n), ("to move", n + 2), ("phase", len(self.phases)),
                  ("stage", len(self.stages) + 1), ("round", 1)]
        for name, decl in decls.items():
            width = ATOM + self.counts[name] + ATOM * self.cells[name]
            widths += [(f"{name}[{seat}]", width) for seat in range(n)] if decl.per_player else [(name, width)]
        blocks, start = [], 0
        for name, width in widths:
            blocks.append(Block(name, start, width))
            start += width
        return blocks

    def native_writer(self, ng: NativeGame) -> ViewWriter:
        """A writer of this layout's vectors straight from the native states of `ng` (the same game)."""
        cells = [self.cells[name] for name in self.per_player]
        counts = [self.counts[name] for name in self.per_player]
        return ViewWriter(ng, self.size, cells, counts, self.stages, self.symbols)

    def encode(self, seen: dict) -> list[float]:
        """The vector of an observation made by `State.observe(player)`."""
        out = [0.0] * self.size
        n = self.players
        out[seen["viewer"]] = 1.0
        current = seen["current"]
        out[n + (current if 0 <= current < n else (n + 1 if seen["terminal"] else n))] = 1.0
        at = n + n + 2
        out[at + self.phases[seen["phase"]]] = 1.0
        at += len(self.phases)
        stage = seen["stage"]
        out[at + (self.stages[stage] if stage is not None else len(self.stages))] = 1.0
        at += len(self.stages) + 1
        out[at] = _number(seen["round"])
        at += 1
        for name, value in seen["state"].items():
            for entry in (value if self.per_player[name] else [value]):
                at = self._entry(out, at, name, entry)
        return out

    def _entry(self, out: list[float], at: int, name: str, value: Any) -> int:
        masked = self.maskable[name] and _masked(value)
        self._atom(out, at, value, masked)
        at += ATOM
        if not masked and self.counts[name]:
            for text in _strings(value):
                k = self.components.get(text)
                if k is not None:
                    out[at + k] += 1.0
        at += self.counts[name]
        cells = self.cells[name]
        if isinstance(value, list):
            for i, item in enumerate(value[:cells]):
                self._atom(out, at + ATOM * i, item)
        return at + ATOM * cells

    def _atom(self, out: list[float], at: int, value: Any, masked: bool = False) -> None:
        if value is None:
            return
        if masked:
            hidden = value["hidden"]
            out[at + 1] = 1.0
            out[at + 2] = 1.0 if hidden is True else _number(hidden)
            return
        out[at] = 1.0
        if isinstance(value, str):
            out[at + 3] = float(self.symbols.get(value, 0))
        elif isinstance(value, (list, dict)):
            out[at + 2] = float(len(value))
        else:
            out[at + 2] = _number(value)


def _masked(value: Any) -> bool:
    """What `engine.observe` leaves of a value the viewer may not see: {"hidden": length or true}.

    A seat's own entry may be a map of the rules of that shape; one whose `hidden` is no length (a text)
    is taken as the map it is (it stopped the encoding with a ValueError)."""
    if type(value) is not dict or len(value) != 1 or "hidden" not in value:
        return False
    hidden = value["hidden"]
    return hidden is True or (type(hidden) is int and hidden >= 0)


def _number(value: Any) -> float:
    try:
        x = float(value)
    except OverflowError:
        x = math.inf if value > 0 else -math.inf
    return max(-LIMIT, min(LIMIT, x)) if not math.isnan(x) else 0.0


def _strings(value: Any) -> Iterator[str]:
    """Every text inside a value: items, map keys and map values, at any depth."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())


def _texts(value: Any) -> list[str]:
    """The texts of the constants, in a fixed order (first appearance, depth first)."""
    out: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, list):
            stack.extend(reversed(item))
        elif isinstance(item, dict):
            for k, v in reversed(list(item.items())):
                stack.extend((v, k))
    return out
