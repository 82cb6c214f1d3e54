"""Grids: cells, named directions, step sets, steps, rays and the perimeter track.

Cells are ints numbered row by row (`y * width + x`), row 0 at the top, so
they are plain JSON and index lists directly.  Besides the named direction
sets every board knows, a board may declare step sets of its own (a hex
board's six neighbours are one: six vectors on a rhombus of cells).  A grid
keeps no tables: the neighbours of a cell are a few steps, computed when
asked.  A table
built on first use would be work and memory that no move pays for (a
ruleset may declare hundreds of 256 x 256 boards), and charging it to the
move that happens to build it would make a move's cost depend on which
moves ran before it in the same process.
"""

from __future__ import annotations

from dataclasses import dataclass, field

Vector = tuple[int, int]

DIRECTIONS: dict[str, tuple[int, int]] = {
    "N": (0, -1), "NE": (1, -1), "E": (1, 0), "SE": (1, 1),
    "S": (0, 1), "SW": (-1, 1), "W": (-1, 0), "NW": (-1, -1),
}

DIRECTION_SETS: dict[str, tuple[tuple[int, int], ...]] = {
    "orthogonal": (DIRECTIONS["N"], DIRECTIONS["E"], DIRECTIONS["S"], DIRECTIONS["W"]),
    "diagonal": (DIRECTIONS["NE"], DIRECTIONS["SE"], DIRECTIONS["SW"], DIRECTIONS["NW"]),
    "king": tuple(DIRECTIONS.values()),
    "knight": ((1, -2), (2, -1), (2, 1), (1, 2), (-1, 2), (-2, 1), (-2, -1), (-1, -2)),
}


MAX_STEP = 256  # the largest |dx| or |dy| of a declared step: no board is wider, so a longer step never lands


def step_vector(d: object) -> Vector | None:
    """A direction written in a ruleset (a name such as `NE`, or `[dx, dy]`) as a vector; None if it is neither."""
    if type(d) is str:
        return DIRECTIONS.get(d)
    if type(d) is list and len(d) == 2 and all(type(v) is int and abs(v) <= MAX_STEP for v in d):
        return (d[0], d[1])
    return None


def direction_name(d: tuple[int, int]) -> str | None:
    for name, vec in DIRECTIONS.items():
        if vec == d:
            return name
    return None


@dataclass(frozen=True)
class Grid:
    """A width x height board of cells, with the step sets it declares besides the named ones."""

    name: str
    width: int
    height: int
    own_sets: dict[str, tuple[Vector, ...]] = field(default_factory=dict, hash=False)

    def step_set(self, name: str) -> tuple[Vector, ...] | None:
        """The vectors of a step set this board knows (its own, then the named ones), or None."""
        found = self.own_sets.get(name)
        return found if found is not None else DIRECTION_SETS.get(name)

    def set_names(self) -> list[str]:
        return [*DIRECTION_SETS, *self.own_sets]

    @property
    def size(self) -> int:
        return self.width * self.height

    def cell(self, x: int, y: int) -> int | None:
        if 0 <= x < self.width and 0 <= y < self.height:
            return y * self.width + x
        return None

    def xy(self, cell: int) -> tuple[int, int]:
        return cell % self.width, cell // self.width

    def contains(self, cell: object) -> bool:
        return type(cell) is int and 0 <= cell < self.size

    def step(self, cell: int, d: tuple[int, int], n: int = 1) -> int | None:
        x, y = self.xy(cell)
        return self.cell(x + d[0] * n, y + d[1] * n)

    def ray(self, cell: int, d: tuple[int, int]) -> list[int]:
        if d == (0, 0):  # every step would stay on the board: the walk would never end
            raise ValueError("a ray needs a direction other than (0, 0)")
        out = []
        nxt = self.step(cell, d)
        while nxt is not None:
            out.append(nxt)
            nxt = self.step(nxt, d)
        return out

    def neighbors(self, cell: int, dirset: str) -> list[int]:
        """The cells one step of the set away, in the set's order: work of the set's size, a new list."""
        return self.neighbors_by(cell, self.own_sets.get(dirset) or DIRECTION_SETS[dirset])

    def neighbors_by(self, cell: int, steps: tuple[Vector, ...]) -> list[int]:
        """The cells one of `steps` away (off the board left out), in their order."""
        w, h = self.width, self.height
        x, y = cell % w, cell // w
        return [(y + dy) * w + x + dx for dx, dy in steps if 0 <= x + dx < w and 0 <= y + dy < h]

    def perimeter(self) -> list[int]:
        """Border cells clockwise from the top-left corner."""
        w, h = self.width, self.height
        if w == 1 or h == 1:
            return list(range(self.size))
        top = [self.cell(x, 0) for x in range(w)]
        right = [self.cell(w - 1, y) for y in range(1, h)]
        bottom = [self.cell(x, h - 1) for x in range(w - 2, -1, -1)]
        left = [self.cell(0, y) for y in range(h - 2, 0, -1)]
        return [c for c in top + right + bottom + left if c is not None]

    def edges(self, steps: tuple[Vector, ...]) -> list[tuple[int, int]]:
        return [(a, b) for a in range(self.size) for b in self.neighbors_by(a, steps)]
