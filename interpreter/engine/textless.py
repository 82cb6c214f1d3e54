"""The state variables that can never show a seat a text: no component id is ever counted in them.

The adapters' observation vector (adapters/encoding.py) counts, per variable
entry, how often each component's id occurs in it; most variables of a game
hold numbers, flags and lists of those, whose counts are always zero.  The
type checker's inference (`stored_types`: `init` joined with every
assignment, whatever `type:` claims) bounds what a variable can hold;
what a seat is shown of it is that value, `null` for an item `visible_if`
hides, a `back` for one it hides where there is a `back` (any value, so such a
variable is never textless), or the `{"hidden": ...}` of a masked entry (which
the vector does not count).
"""

from __future__ import annotations

from ruleplay.validators.typelattice import Type, may_hold_text
from ruleplay.validators.type_passes import variable_types

from .model import GameModel


def stored_types(model: GameModel) -> dict[str, Type]:
    """The type of every value each state variable may ever hold: its `init` joined with every assignment, to a
    fixpoint (`any` where none is reached), whatever its `type:` says, which nothing checks at run time; a
    function's or procedure's parameters hold what its calls pass.  Only a variable's own name is ever a
    statement's target (`let`s hold copies; loop names and parameters are read-only), so these assignments are
    every way a value reaches it."""
    return variable_types(model, {}, at_run_time=True)[0]


def textless_vars(model: GameModel) -> frozenset[str]:
    """The variables no seat's view of which holds a text anywhere (each entry, for a per-player one)."""
    types = stored_types(model)
    out = set()
    for name, decl in model.vars.items():
        t = types.get(name)
        if t is None or decl.back is not None:
            continue
        if decl.per_player:
            if t.kind != "list":
                continue
            t = t.items()
        if not may_hold_text(t):
            out.add(name)
    return frozenset(out)
