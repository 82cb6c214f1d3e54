"""Determinization: a full state drawn from what one player knows.

A seat's information state is what `observe(p)` and its history view show.
`Determinizer(state, p).sample(rng)` redistributes what p cannot see among
the places it could be, and leaves everything p sees as it is:

- the *hidden slots* are each item of a list p sees nothing of (a `hidden`
  variable, another seat's entry of an `owner` one — its length stays, as
  observations show it) and each item of a list p sees through
  `visible_if` that is masked there;
- an item moves only among slots whose item is of its kind: a component
  among the slots holding components of its kind (`card`, `tile`), in
  any variable, so a pile of cards stays a pile of cards; any other value
  (a number, a name) only within its own variable, where it means the same;
- a masked slot only takes an item that is masked there too, behind the
  same `back` (a face-down card shows its colour);
- a component that occurs twice in the state is not a place but a record
  of it as well (`seen`: what a seat once saw): where the viewer sees an
  occurrence it stays where it is; where it sees none (the other seat's
  record of the card it put on top of the pile), all its occurrences are one
  *unit* and move together, so the record and the place still name one
  card, drawn like any other;
- values that are not lists keep their value: there is no telling what
  else they could have been;
- the random generator is drawn afresh: future chance is not known;
- a chance outcome the viewer was not shown, drawn as values that are not
  components (a die rolled as a number), is drawn again: permuting the
  values rolled would keep them, and the viewer does not know them.  When
  the setup draws no random number (so every game starts alike), the game
  is played again from its start with each such outcome drawn anew by its
  weights among those that show the viewer the same (`_Redraw`), every
  other move as it was, and kept if the viewer sees the same state; else
  (or after a few draws the viewer could tell) the permutation above is used.

Each arrangement consistent with these constraints has a positive
probability (the draw fills the masked slots one at a time, each from the
items that fit it, then the rest at random).  A draw that the viewer could
tell from the real state is never returned: the observation is compared,
and after a few failed draws the real arrangement is kept (`fallbacks`
counts them).  The history
(moves and who saw what) is the state's own, so the history view is
unchanged; its arguments the viewer was shown as `?` are not redrawn, so a
search must read the sample's data, never its history's private arguments.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

from ruleplay.dsl import runtime as R

from .errors import RuleplayError
from .model import GameModel, VarDecl
from .moves import Move
from .rng import Rng
from .state import State

DRAWS = 8  # tries before a determinizer keeps the real arrangement


@dataclass(frozen=True)
class Slot:
    """One hidden place: variable, seat (or None), index in the list; `back` is None for a wholly unseen list."""

    var: str
    seat: int | None
    index: int
    back: str | None


def _list_at(vars_: dict, var: str, seat: int | None) -> list:
    return vars_[var] if seat is None else vars_[var][seat]


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


class Determinizer:
    """Samples states that seat `viewer` cannot tell from `state`; built once per decision, sampled often."""

    def __init__(self, state: State, viewer: int):
        self.state, self.viewer = state, viewer
        self.model: GameModel = state.game.model
        self.seen = _key(state.observe(viewer))
        self.fallbacks = 0  # draws that fell back to the real arrangement (the viewer could tell them)
        vars_ = state.data["vars"]
        counts = _occurrences(vars_)
        kinds: dict[str, str] = {c: k for k, ids in self.model.components_by_kind.items() for c in ids}
        slots = self._slots(vars_)
        hidden = Counter(item for item in (_list_at(vars_, s.var, s.seat)[s.index] for s in slots)
                         if isinstance(item, str) and item in kinds)
        # By kind: the units (the hidden slots of one item) whose items may be exchanged.
        self.groups: dict[str, list[list[Slot]]] = {}
        units: dict[str, list[Slot]] = {}  # a component's hidden slots, when the viewer sees none of its places
        for slot in slots:
            item = _list_at(vars_, slot.var, slot.seat)[slot.index]
            if isinstance(item, str) and item in kinds:
                if counts[item] > hidden[item]:
                    continue  # the viewer sees it somewhere, or it is held where no slot is: it stays
                if item not in units:
                    units[item] = []
                    self.groups.setdefault("component " + kinds[item], []).append(units[item])
                units[item].append(slot)
            else:
                self.groups.setdefault(f"value {type(item).__name__} of {slot.var}", []).append([slot])
        self.groups = {k: group for k, group in self.groups.items() if len(group) > 1}
        self._deals = [_Deal(self, group) for group in self.groups.values()]
        self._redraw = _Redraw.of(state, viewer, frozenset(kinds))

    def deal_plans(self) -> "list[DealPlan] | None":
        """What every draw does, as data another engine can deal by (the native module's dealer): each group's
        units of hidden slots and the order its items start in; None when a draw also plays the game again
        (`_Redraw`), which only the Python engine does.  Which item fits which masked unit is left to the
        other engine to ask of the ruleset, as `fits` does."""
        if self._redraw is not None:
            return None
        return [deal.plan() for deal in self._deals]

    @property
    def redraws_nothing(self) -> bool:
        """Whether every sample is the real state with a generator drawn afresh (`rng.next64()`): the viewer
        sees everything that could be otherwise, so there is nothing to deal or to play again."""
        return not self._deals and self._redraw is None

    # ------------------------------------------------------------ hidden places
    def _slots(self, vars_: dict) -> list[Slot]:
        out: list[Slot] = []
        for name, decl in self.model.vars.items():
            seats: list[int | None] = list(range(len(vars_[name]))) if decl.per_player else [None]
            for seat in seats:
                value = _list_at(vars_, name, seat)
                if not isinstance(value, list):
                    continue
                if self._unseen(decl, seat):
                    out.extend(Slot(name, seat, i, None) for i in range(len(value)))
                elif decl.visible_if is not None:
                    for i, item in enumerate(value):
                        back = self._back(decl, vars_, item, i, seat)
                        if back is not None:
                            out.append(Slot(name, seat, i, back))
        return out

    def _unseen(self, decl: VarDecl, seat: int | None) -> bool:
        return decl.visibility == "hidden" or (decl.visibility == "owner" and seat is not None and seat != self.viewer)

    def _back(self, decl: VarDecl, vars_: dict, item: Any, index: int, owner: int | None) -> str | None:
        """The back (as JSON) the viewer sees instead of `item` at `index`, or None if it is shown."""
        assert decl.visible_if is not None
        ctx = R.Ctx(vars_, self.state.data["flow"], self.model, budget=self.model.budget())
        ctx.env = {"item": item, "index": index, "viewer": self.viewer, "owner": owner}
        with R.recursion_guard():
            if decl.visible_if(ctx):
                return None
            return _key(decl.back(ctx) if decl.back is not None else None)

    def fits(self, slot: Slot, item: Any) -> bool:
        """Whether `item` placed at the masked `slot` would show the viewer the same back."""
        try:
            back = self._back(self.model.vars[slot.var], self.state.data["vars"], item, slot.index, slot.seat)
        except R.RuleRuntimeError:
            back = None
        return back == slot.back

    # ------------------------------------------------------------ drawing
    def sample(self, rng: Rng) -> State:
        """A state the viewer cannot tell from the real one, drawn with `rng`."""
        if not isinstance(rng, Rng):  # the engine's generator, whose state is data a state can carry
            raise TypeError(f"Determinizer.sample() needs a ruleplay.engine.rng.Rng (e.g. Rng(seed)), "
                            f"not {type(rng).__name__}")
        if self._redraw is not None:
            for _ in range(DRAWS):
                played = self._redraw.play(rng)
                if played is not None and self._seen_in(played):
                    return self.state.with_data(dict(R.clone(played.data), rng=rng.next64()))
        data = R.clone(self.state.data)
        data["rng"] = rng.next64()
        for _ in range(DRAWS):
            trial = R.clone(self.state.data["vars"])
            if all(deal.into(trial, rng) for deal in self._deals) and self._same_view(data, trial):
                data["vars"] = trial
                break
        else:
            self.fallbacks += 1
        return self.state.with_data(data)

    def _same_view(self, data: dict, vars_: dict) -> bool:
        return self._seen_in(self.state.with_data(dict(data, vars=vars_)))

    def _seen_in(self, state: State) -> bool:
        """Whether the viewer sees `state` as it sees the real one (its history view included)."""
        try:
            return _key(state.observe(self.viewer)) == self.seen
        except R.RuleRuntimeError:
            return False


class _Redraw:
    """The game played again from its start, with the hidden chance outcomes of its history drawn anew.

    Only for a setup that draws no random number: the start is then the real
    game's. The moves the viewer saw whole are played as they were; each
    hidden outcome is drawn by its weights among the outcomes of its action
    that agree with what the viewer saw of it. A replay a move of which is
    no longer legal, or that ends where the viewer would see something else,
    is no draw (`None`, or refused by the caller).
    """

    def __init__(self, start: State, moves: tuple[Move, ...], shown: dict[int, tuple[bool, ...]]):
        self.start, self.moves, self.shown = start, moves, shown

    @classmethod
    def of(cls, state: State, viewer: int, components: frozenset[str]) -> "_Redraw | None":
        """The replay for `viewer`, or None where a permutation is exact (no hidden values but components)
        or no replay is possible (the setup draws)."""
        model, moves = state.game.model, state.history
        shown: dict[int, tuple[bool, ...]] = {}
        for i, (move, seen) in enumerate(zip(moves, state.history_seen_by())):
            if seen is None or not model.actions[move.action].chance:
                continue
            sees = tuple(who is None or viewer in who for who in seen)
            if any(not see and not (isinstance(arg, str) and arg in components)
                   for see, arg in zip(sees, move.args)):
                shown[i] = sees
        if not shown or state.game.setup_draws():
            return None
        return cls(state.game.new_state(0), moves, shown)

    def play(self, rng: Rng) -> State | None:
        state = self.start.copy()
        state.data["rng"] = rng.next64()  # what effects draw themselves (a shuffle) is drawn anew too
        for i, move in enumerate(self.moves):
            sees = self.shown.get(i)
            try:
                if sees is not None:
                    drawn = self._draw(state, move, sees, rng)
                    if drawn is None:
                        return None
                    move = drawn
                state.apply_in_place(move, undo=False)
            except RuleplayError:
                return None
        return state

    @staticmethod
    def _draw(state: State, real: Move, sees: tuple[bool, ...], rng: Rng) -> Move | None:
        """An outcome of `real`'s action, by weight, that agrees with `real` wherever the viewer saw it."""
        fitting = [m for m in state.legal_moves() if m.action == real.action
                   and all(not see or a == b for see, a, b in zip(sees, m.args, real.args))]
        return state.draw_outcome(fitting, rng) if fitting else None


@dataclass(frozen=True)
class DealPlan:
    """One group's deal as data: `units` (each the hidden slots of one item, the item the real state holds at
    its first slot; a slot with a `back` is masked), `start` (the items' order a draw shuffles, by unit),
    `masked` and `open` (the units a draw fills first, each from the items that show the same backs there, and
    the rest, by position in `units`)."""

    units: tuple[tuple[Slot, ...], ...]
    start: tuple[int, ...]
    masked: tuple[int, ...]
    open: tuple[int, ...]


class _Deal:
    """One group's items and units of hidden slots, fixed for a decision, so that each draw only shuffles and
    places.  A unit is the slots of one item: one slot, or every hidden place of a component the viewer sees
    nowhere; a draw puts one item in all of a unit's slots.

    Which item fits which masked unit is asked of the ruleset once per (unit, distinct item) and kept as a
    row of flags over the items: a draw then reads flags instead of evaluating `visible_if`.
    """

    def __init__(self, owner: Determinizer, units: list[list[Slot]]):
        self.owner = owner
        real = owner.state.data["vars"]
        self.items = [_list_at(real, unit[0].var, unit[0].seat)[unit[0].index] for unit in units]
        keys = [_key(item) for item in self.items]
        # Start from the items in a fixed order, not where they are: two states the viewer cannot tell
        # apart then give the same draws, and so the same search.
        self.start = sorted(range(len(self.items)), key=keys.__getitem__)
        self.keys = keys
        self.units = units
        self.masked = [unit for unit in units if any(s.back is not None for s in unit)]
        self.open = [unit for unit in units if all(s.back is None for s in unit)]
        self._rows: dict[int, list[bool]] = {}  # by position in `masked`: which items fit that unit

    def plan(self) -> DealPlan:
        masked = [k for k, unit in enumerate(self.units) if any(s.back is not None for s in unit)]
        opened = [k for k, unit in enumerate(self.units) if all(s.back is None for s in unit)]
        return DealPlan(tuple(tuple(unit) for unit in self.units), tuple(self.start), tuple(masked), tuple(opened))

    def _row(self, position: int) -> list[bool]:
        row = self._rows.get(position)
        if row is None:
            unit, by_key = [s for s in self.masked[position] if s.back is not None], {}
            for item, key in zip(self.items, self.keys):
                if key not in by_key:
                    by_key[key] = all(self.owner.fits(slot, item) for slot in unit)
            row = self._rows[position] = [by_key[key] for key in self.keys]
        return row

    def into(self, vars_: dict, rng: Rng) -> bool:
        """Deal the items among the units in `vars_`: the masked units first, each from the items that fit it."""
        order = list(self.start)
        rng.shuffle(order)
        positions = list(range(len(self.masked)))
        rng.shuffle(positions)
        items = self.items
        for position in positions:
            row = self._row(position)
            fitting = [k for k, i in enumerate(order) if row[i]]
            if not fitting:
                return False
            _place(vars_, self.masked[position], items[order.pop(fitting[rng.below(len(fitting))])])
        for unit, i in zip(self.open, order):
            _place(vars_, unit, items[i])
        return True


def _place(vars_: dict, unit: list[Slot], item: Any) -> None:
    for slot in unit:
        _list_at(vars_, slot.var, slot.seat)[slot.index] = item


def _occurrences(value: Any, counts: dict[str, int] | None = None) -> dict[str, int]:
    """How often each string occurs anywhere in `value` (component ids are strings)."""
    counts = {} if counts is None else counts
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            counts[item] = counts.get(item, 0) + 1
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return counts


def determinize(state: State, viewer: int, rng: Rng) -> State:
    """One sample of `Determinizer(state, viewer)`: for a single draw."""
    return Determinizer(state, viewer).sample(rng)
