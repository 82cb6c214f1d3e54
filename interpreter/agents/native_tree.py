"""`ismcts`'s tree held in the game's native module: a whole iteration in one call (csrc/rp_search.c's `rp_tree`).

The module walks the tree as `ismcts._Tree` walks it in Python: it groups
a node's legal moves by view, counts which views the determinization
allows, picks by UCB or expands, makes the moves in the determinization,
rolls out and backs up, drawing the same numbers from the agent's
generator, so the decision is the same.  What it cannot make is a view's
text (`view_text`): views are ids this class gives, one per text, so that
two moves shown alike are one edge.  The walk stops where it meets a move
(and mask of shown arguments) it has no id for; its text is made here, and
the walk goes on from where it stopped.  A rollout the module gives up on is
played on the Python engine from the same generator state and backed up.
"""

from __future__ import annotations

from typing import Any, Iterable

from ..engine.rng import Rng
from .native_positions import NativeBail, NativePositions
from .search import rollout

DONE, SKIP, ROLLOUT, TEXTS = 0, 1, 2, 3  # rp_tree_iterate's outcomes (besides -1, a bail)
ASKED = 64  # the most (move, mask) pairs one stop of a walk asks texts for


class NativeTree:
    """One decision's tree for seat `viewer`, whose root offers only `root_views` (the real moves' views)."""

    def __init__(self, at: NativePositions, viewer: int, root_views: Iterable[str], c: float):
        lib, ffi = at.lib, at.ffi
        made = lib.rp_tree_new(viewer, at.count, c, -1 if at.depth is None else at.depth, at.heuristic, at.scale,
                               at.max_chance)
        if made == ffi.NULL:
            raise NativeBail("out of memory")
        self.at, self.lib, self.viewer = at, lib, viewer
        self.tree = ffi.gc(made, lib.rp_tree_free)
        self.ids: dict[str, int] = {}  # a view's id by its text
        self.moves = ffi.new("int32_t[]", ASKED)
        self.masks = ffi.new("int64_t[]", ASKED)
        self.missing = ffi.new("int64_t[1]")
        for text in root_views:
            if not lib.rp_tree_root_view(self.tree, self._id(text)):
                raise NativeBail("out of memory")

    def _id(self, text: str) -> int:
        found = self.ids.get(text)
        if found is None:
            found = self.ids[text] = len(self.ids)
        return found

    def iterate(self, position: Any, rng: Rng) -> None:
        """One iteration over determinization `position` (its moves are made in it), drawing from `rng`."""
        at, lib, tree, cell = self.at, self.lib, self.tree, self.at.cell
        cell[0] = rng.state
        args = (tree, position, cell, self.moves, self.masks, ASKED, self.missing, at.out, at.err)
        status = lib.rp_tree_iterate(*args)
        while status == TEXTS:
            for k in range(self.missing[0]):
                move, mask = self.moves[k], self.masks[k]
                if not lib.rp_tree_intern(tree, move, mask, self._id(at.text(move, mask, self.viewer))):
                    raise NativeBail("out of memory")
            status = lib.rp_tree_iterate(*args)
        if status < 0:
            raise NativeBail("a step of the tree's walk")
        rng.state = cell[0]
        if status == ROLLOUT:  # the Python engine plays the rollout the module gave up on, or raises
            lib.rp_tree_backup(tree, rollout(at.state_of(position), rng, at.depth, at.cut))

    def root_edge(self, view: str) -> tuple[int, float] | None:
        """The visits of the root's edge of `view` and its total for the searching seat, or None: no such edge."""
        total = self.at.ffi.new("double *")
        visits = self.lib.rp_tree_root(self.tree, self._id(view), total)
        return None if visits < 0 else (visits, total[0])

    @property
    def spread(self) -> float:
        return self.lib.rp_tree_spread(self.tree)
