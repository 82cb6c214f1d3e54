"""Positions of a search held in the game's native module: what makes `mcts` and `ismcts` run at native speed.

A position is a native state (a pointer the module allocated, freed with
it); a move is its index in the game's numbering.  Steps, rollouts and
their cut-off judgements, chance draws and move views run in the module
(csrc/rp_search.c), and so do `ismcts`'s tree (`native_tree`) and
determinizations that only deal (`NativeSampler`, csrc/rp_determinize.c);
each draws from the agent's generator exactly as `EnginePositions` does,
so a search over them makes the same decisions.

Where the module gives up — a position it cannot hold, a heuristic it does
not lower, a rule error, a budget, an int past 64 bits — `NativeBail` is
raised and the agent makes the whole decision again on the Python engine
from the generator state it started with (`SearchAgent.choose`): the
Python engine decides, and reports any error, as it always did.  A
rollout is the one part taken over in place (one that passes
`limits.max_steps`, say): the Python engine plays that rollout again from
the same generator state, and the search goes on natively.
"""

from __future__ import annotations

from typing import Any
from weakref import WeakKeyDictionary

from ..engine.determinize import DRAWS, DealPlan, Determinizer
from ..engine.legal import CHANCE
from ..engine.native import NativeGame
from ..engine.native.convert import from_module, to_module
from ..engine.native.handle import _read
from ..engine.rng import Rng
from ..engine.state import State
from ..engine.views import view_text
from .search import CutOff, rollout

PUBLIC = -1  # a move view that shows every argument (its action has no `seen_by`)
NONE = -1  # a slot's seat in a variable that is not per player (the dealer's plan)


# Move views by game, then by viewer and (move, mask): a view's text depends on nothing else, and making one
# costs more than a tree's iteration, so every decision on the game shares them.
_TEXTS: WeakKeyDictionary[NativeGame, dict[int, dict[tuple[int, int], str]]] = WeakKeyDictionary()


class NativeBail(Exception):
    """The module gave up on a part of the search: the decision is made on the Python engine."""


class NativePositions:
    """Positions as native states of `ng`'s module; built per decision (its buffers are its own)."""

    def __init__(self, ng: NativeGame, cut: CutOff, depth: int | None):
        heuristics = list(ng.game.model.heuristics)
        self.heuristic = -1 if cut.heuristic is None else heuristics.index(cut.heuristic)
        if self.heuristic >= 0 and not ng.lib.rp_heuristic_lowered(self.heuristic):
            raise NativeBail(f"the heuristic {cut.heuristic} is not lowered")
        self.ng, self.lib, self.ffi = ng, ng.lib, ng.ffi
        self.cut, self.depth = cut, depth
        self.scale = float(cut.scale or 0.0)
        self.max_chance = ng.game.max_chance_outcomes
        self.count = ng.game.model.players
        self.err = self.ffi.new("rp_error *")
        self.cell = self.ffi.new("uint64_t[1]")
        self.out = self.ffi.new("double[]", max(self.count, 1))
        self.legal = self.ffi.new("int32_t[]", 64)
        self.texts = _TEXTS.setdefault(ng, {})

    # ------------------------------------------------------------ positions
    def root(self, state: State) -> Any:
        text = to_module(self.ng.game.model, state.data)
        ptr = None if text is None else _read(self.ng, text)
        if ptr is None:
            raise NativeBail("the module cannot hold this position")
        return ptr

    def players(self, position: Any) -> int:
        return self.count

    def terminal(self, position: Any) -> bool:
        return bool(self.lib.rp_done(position))

    def chance(self, position: Any) -> bool:
        return self.lib.rp_player(position) == CHANCE

    def mover(self, position: Any) -> int:
        return self.lib.rp_player(position)

    def turn(self, position: Any) -> int | None:
        """Who moves at `position`: a seat, CHANCE, or None once the game is over."""
        return None if self.lib.rp_done(position) else self.lib.rp_player(position)

    def moves(self, position: Any) -> list[int]:
        n = self._listed(position)  # first: it may grow the buffer
        return self.ffi.unpack(self.legal, n)

    def _listed(self, position: Any) -> int:
        """The legal moves of `position` read into `self.legal` (grown to fit): how many."""
        n = self.lib.rp_legal(position, self.legal, len(self.legal), self.err)
        if n > len(self.legal):
            self.legal = self.ffi.new("int32_t[]", n)
            n = self.lib.rp_legal(position, self.legal, n, self.err)
        if n < 0:
            raise NativeBail("a listing")
        return n

    def shuffled(self, position: Any, rng: Rng) -> list[int]:
        cell = self.cell
        cell[0] = rng.state
        n = self.lib.rp_shuffled(position, cell, self.legal, len(self.legal), self.err)
        if n > len(self.legal):
            self.moves(position)  # a larger buffer
            n = self.lib.rp_shuffled(position, cell, self.legal, len(self.legal), self.err)
        if n < 0:
            raise NativeBail("a listing")
        rng.state = cell[0]
        return self.ffi.unpack(self.legal, n)

    def apply(self, position: Any, move: int) -> Any:
        lib = self.lib
        after = self.ffi.gc(lib.rp_clone_state(position), lib.rp_free)
        if not lib.rp_apply(after, move, self.err):
            raise NativeBail("a step")
        return after

    def advance(self, position: Any, move: int) -> Any:
        """`apply` for a walk that gives `position` up (a determinization, a fresh copy): the move is made on it
        in place, with no copy to make and free."""
        if not self.lib.rp_apply(position, move, self.err):
            raise NativeBail("a step")
        return position

    def generator(self, position: Any) -> int:
        return self.lib.rp_rng(position)

    def reseeded(self, position: Any, rng: Rng) -> Any:
        lib = self.lib
        other = self.ffi.gc(lib.rp_clone_state(position), lib.rp_free)
        lib.rp_set_rng(other, rng.next64())
        return other

    def key(self, position: Any) -> str:
        """The module's JSON of the position without its generator (the last item)."""
        text = self.lib.rp_to_json(position)
        try:
            data = self.ffi.string(text).decode("utf-8")
        finally:
            self.lib.rp_free_text(text)
        return data[:data.rindex(",")]

    # ------------------------------------------------------------ drawing and judging
    def sample_chance(self, position: Any, rng: Rng) -> int:
        cell = self.cell
        cell[0] = rng.state
        move = self.lib.rp_sample_chance(position, cell, self.max_chance, self.err)
        if move < 0:
            raise NativeBail("a chance draw")
        rng.state = cell[0]
        return move

    def rollout(self, position: Any, rng: Rng) -> list[float]:
        cell, out = self.cell, self.out
        cell[0] = rng.state
        if self.lib.rp_rollout(position, cell, -1 if self.depth is None else self.depth, self.heuristic, self.scale,
                               self.max_chance, out, self.err):
            rng.state = cell[0]
            return self.ffi.unpack(out, self.count)
        return rollout(self.state_of(position), rng, self.depth, self.cut)  # the Python engine plays it, or raises

    def state_of(self, position: Any) -> State:
        """`position` as a state of the Python engine."""
        text = self.lib.rp_to_json(position)
        try:
            data = from_module(self.ng.game.model, self.ffi.string(text).decode("utf-8"))
        finally:
            self.lib.rp_free_text(text)
        return State(self.ng.game, data, None, ())

    # ------------------------------------------------------------ what a seat sees
    def text(self, move: int, mask: int, viewer: int) -> str:
        """`view_text` of `move` with the arguments in `mask` shown to `viewer` (as the tree's walk names them; PUBLIC:
        its action keeps none)."""
        known = self.texts.setdefault(viewer, {})
        text = known.get((move, mask))
        if text is None:
            made = self.ng.move(move)
            seen = None if mask == PUBLIC else tuple(None if mask >> k & 1 else () for k in range(len(made.args)))
            text = known[move, mask] = view_text(made, seen, viewer)
        return text

    def sampler(self, state: State, viewer: int) -> "NativeSampler":
        return NativeSampler(state, viewer, self)


def encode(plans: list[DealPlan], var_index: dict[str, int]) -> list[int]:
    """`plans` as the ints `rp_dealer_new` reads (rp_determinize.c's read_deal)."""
    out = [len(plans)]
    for plan in plans:
        out.append(len(plan.units))
        for unit in plan.units:
            out.append(len(unit))
            for slot in unit:
                out += [var_index[slot.var], NONE if slot.seat is None else slot.seat, slot.index,
                        int(slot.back is not None)]
        out += plan.start
        out.append(len(plan.masked))
        out += plan.masked
        out.append(len(plan.open))
        out += plan.open
    return out


class NativeSampler:
    """A decision's determinizations as native positions: dealt by the module's dealer where a draw only deals
    (csrc/rp_determinize.c, by `Determinizer.deal_plans`: the same numbers drawn from the agent's generator, the
    same check that the seat sees what it sees of the real position), else drawn by the `Determinizer` (a draw
    that plays the game again, a `visible_if` or `back` the module does not hold) and read into the module; the
    real position with a fresh generator where there is nothing to redraw.  Only the hidden places the plan
    names are dealt into, so no sample knows more than the seat."""

    def __init__(self, state: State, viewer: int, positions: NativePositions):
        self.determinizer = Determinizer(state, viewer)
        self.positions = positions
        self.real = self.dealer = None
        self.fallbacks = positions.ffi.new("int64_t[1]")
        if self.determinizer.redraws_nothing:
            self.real = positions.root(state)
            return
        plans = self.determinizer.deal_plans()
        if plans is not None:
            self.dealer = _dealer(positions, positions.root(state), viewer, plans)

    def sample(self, rng: Rng) -> Any:
        positions = self.positions
        if self.real is not None:  # nothing to redraw: the real position with a fresh generator
            return positions.reseeded(self.real, rng)
        if self.dealer is None:
            return positions.root(self.determinizer.sample(rng))
        lib, cell = positions.lib, positions.cell
        cell[0] = rng.state
        drawn = lib.rp_dealer_sample(self.dealer, cell, DRAWS, self.fallbacks, positions.err)
        if drawn == positions.ffi.NULL:
            raise NativeBail("a determinization")
        rng.state = cell[0]
        self.determinizer.fallbacks = self.fallbacks[0]
        return positions.ffi.gc(drawn, lib.rp_free)


def _dealer(positions: NativePositions, real: Any, viewer: int, plans: list[DealPlan]) -> Any:
    """The module's dealer of `plans` over the native position `real`, or None where it cannot deal them."""
    ffi, lib = positions.ffi, positions.lib
    var_index = {name: k for k, name in enumerate(positions.ng.game.model.vars)}
    plan = ffi.new("int64_t[]", encode(plans, var_index))
    dealer = lib.rp_dealer_new(real, viewer, plan, len(plan), positions.err)
    return None if dealer == ffi.NULL else ffi.gc(dealer, lib.rp_dealer_free)


def determinized_on_python(ng: NativeGame) -> str | None:
    """Why `ismcts` over `ng`'s module may draw its determinizations on the Python engine (`NativeSampler`),
    named by the ruleset's construct; None where every draw of a game that keeps secrets is dealt natively.

    A `visible_if` or `back` the module does not hold leaves every view to Python.  A chance action with a
    parameter some seats may not see whose values are not components makes a draw play the game again to draw
    that outcome anew (`Determinizer`'s replay) when the setup draws no random number, which only Python does."""
    model = ng.game.model
    if not model.keeps_secrets:
        return None
    for k, name in enumerate(model.vars):
        if not ng.lib.rp_view_lowered(k):
            return f"the native backend does not lower the `visible_if` or `back` of state variable `{name}`"
    if ng.game.setup_draws():
        return None
    components = {c for ids in model.components_by_kind.values() for c in ids}
    for action in model.actions.values():
        for param in action.params if action.chance and not action.disabled else ():
            if param.seen_by is not None and any(not (isinstance(v, str) and v in components) for v in param.universe):
                return (f"chance action `{action.name}` draws `{param.name}`, which some seats may not see, among "
                        f"values that are not components: a determinization plays the game again to draw it anew")
    return None
