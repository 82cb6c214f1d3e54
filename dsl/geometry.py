"""Square grids: cells, named directions, steps, rays and the perimeter track.

Cells are ints numbered row by row (`y * width + x`), row 0 at the top, so
they are plain JSON and index lists directly.  A grid keeps no tables: the
neighbours of a cell are at most eight steps, computed when asked.  A table
built on first use would be work and memory that no move pays for (a
ruleset may declare hundreds of 256 x 256 boards), and charging it to the
move that happens to build it would make a move's cost depend on which
moves ran before it in the same process.
"""

from __future__ import annotations

from dataclasses import dataclass

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


def direction_name(d: tuple[int, int]) -> str | None:
    for name, vec in DIRECTIONS.items():
        if vec == d:
            return name
    return None


@dataclass(frozen=True)
class Grid:
    """A width x height board of square cells."""

    name: str
    width: int
    height: int

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
        """The cells one step of the set away, in the set's order: constant work, a new list."""
        w, h = self.width, self.height
        x, y = cell % w, cell // w
        return [(y + dy) * w + x + dx for dx, dy in DIRECTION_SETS[dirset] if 0 <= x + dx < w and 0 <= y + dy < h]

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

    def edges(self, dirset: str) -> list[tuple[int, int]]:
        return [(a, b) for a in range(self.size) for b in self.neighbors(a, dirset)]
