"""A state as an SVG picture, drawn from the scene the engine computes from the ruleset's `render:` list.

Items stack top to bottom under a header (title, round, phase, who moves,
whose view): a grid as square or hex cells with fill colours, text, pieces
(discs in seat colours) and exits (a tile's open sides); a row or a track
as boxes or cards (hidden ones as card backs), a track with arrows, a ring
round a rectangle; a list as a table; a value as a counter.  `state_svg`
is the entry point; `render_png` turns the SVG into PNG when the optional
`picture` extra (cairosvg) is installed.
"""

from __future__ import annotations

import json
import math
import textwrap
from typing import Any

from ..engine.errors import RuleplayError
from ..engine.scene import scene
from ..engine.state import State
from .svg import PALETTE, Svg, colour, ink, seat_colour

MAX_WIDTH = 960  # rows wrap at this width
GAP = 6
LABEL_H = 22
LABEL_CHARS = 120  # a caption wraps after this many characters
TEXT_LIMIT = 40  # characters in one box; the whole text stays in its tooltip
DIRECTIONS = {"N": (0, -1), "NE": (1, -1), "E": (1, 0), "SE": (1, 1), "S": (0, 1), "SW": (-1, 1), "W": (-1, 0),
              "NW": (-1, -1)}


class PictureError(RuleplayError):
    """A picture that cannot be made: PNG asked for without the `picture` extra."""

    code = "RP660"


def _short(text: str) -> str:
    return text if len(text) <= TEXT_LIMIT else text[:TEXT_LIMIT - 1] + "…"


def _fit(text: str, room: float, most: float) -> float:
    """A font size at which `text` fits in `room` pixels, at most `most`."""
    return max(6.0, min(most, room / max(1, len(text)) * 1.45))


class PaintCache:
    """Grid cells already drawn, by position and content, shared by the pictures of one replay.

    From one move to the next most cells of a board stay as they were; a
    cell seen before is reused (element and serialized text) instead of
    being drawn again, which is most of the work of a long game's pages.
    """

    def __init__(self) -> None:
        self.cells: dict[str, Any] = {}
        self.text: dict[int, tuple[Any, str]] = {}


class _Painter:
    def __init__(self, cache: PaintCache | None) -> None:
        self.svg = Svg()
        self.width = 0.0
        self.cache = cache

    # ---------------------------------------------------------------- pieces
    def _back(self, x: float, y: float, w: float, h: float, parent: Any) -> None:
        self.svg.add("rect", parent, x=x, y=y, width=w, height=h, rx=4.0, fill=PALETTE["back"], stroke="#2c2350",
                     class_="back")
        self.svg.add("rect", parent, x=x + 4, y=y + 4, width=w - 8, height=h - 8, rx=3.0, fill="none",
                     stroke="#b9aee0", stroke_dasharray="3 2")

    def _box(self, x: float, y: float, w: float, h: float, entry: dict, card: bool, parent: Any) -> None:
        """One box or card; fill `slot` is an empty place (a dashed outline)."""
        if "hidden" in entry:
            self._back(x, y, w, h, parent)
            return
        empty = entry.get("fill") == "slot"
        fill = "none" if empty else colour(entry.get("fill"), PALETTE["card"] if card else "#f4f4f4")
        group = self.svg.add("g", parent, class_="slot" if empty else "card" if card else "box", data_pick=_pick(entry))
        self.svg.add("title", group, entry["text"] or entry.get("place", ""))
        if "place" in entry:  # the value a move names for this place, under it
            self.svg.label(x + w / 2, y + h + 8, _short(entry["place"]), 10.0, group, fill="#666666")
        self.svg.add("rect", group, x=x, y=y, width=w, height=h, rx=5.0 if card else 2.0, fill=fill,
                     stroke="#888888" if empty else "#555555", stroke_dasharray="4 3" if empty else None)
        lines = textwrap.wrap(_short(entry["text"]), max(3, int(w / 7)), break_long_words=False) if card else [_short(entry["text"])]
        size = min(_fit(line, w - 4, 14.0) for line in lines) if lines else 14.0
        for n, line in enumerate(lines[:4]):
            self.svg.label(x + w / 2, y + h / 2 + (n - (len(lines[:4]) - 1) / 2) * size * 1.15, line, size, group,
                           fill=ink("#ffffff" if empty else fill))

    def _widths(self, entry: dict, card: bool, size: int) -> list[float]:
        """The width of each box an entry is drawn as (a hidden list is one back per card, a card is `size` wide)."""
        if "hidden" in entry:
            return [float(size) if card else size * 1.0] * min(entry["hidden"], 30)
        if "cards" in entry:
            return [w for c in entry["cards"] for w in self._widths(c, True, size)] or [size * 0.4]
        if card:
            return [float(size)]
        return [max(float(size), min(len(_short(entry["text"])) * 8.0 + 12, 320.0))]

    # ----------------------------------------------------------------- items
    def row(self, y: float, item: dict, parent: Any) -> float:
        card = item["style"] == "cards"
        size = item["size"] or (56 if card else 28)
        h = size * 1.4 if card else float(size)
        below = 14.0 if any("place" in e for e in item["items"]) else 0.0  # room for the places' labels
        if not item["items"]:
            self.svg.label(0, y + 10, "none", 12.0, parent, anchor="start", fill="#777777")
            return 20.0
        x = 0.0
        top = y
        arrow = item["kind"] == "track"
        for entry in item["items"]:
            widths = self._widths(entry, card, size)
            total = sum(widths) + GAP * (len(widths) - 1)
            if x > 0 and x + total > MAX_WIDTH:
                x, y = 0.0, y + h + below + GAP
            if "hidden" in entry:
                for w in widths:
                    self._back(x, y, w, h, parent)
                    x += w + GAP
            elif "cards" in entry:
                group = self.svg.add("g", parent, class_="group")
                if not entry["cards"]:
                    self.svg.add("rect", group, x=x, y=y, width=widths[0], height=h, fill="none", stroke="#999999",
                                 stroke_dasharray="4 3")
                    x += widths[0] + GAP
                for c in entry["cards"]:
                    for w in self._widths(c, True, size):
                        self._box(x, y, w, h, c, True, group)
                        x += w + GAP
            else:
                self._box(x, y, widths[0], h, entry, card, parent)
                x += widths[0] + GAP
            if arrow:
                self.svg.label(x + 3, y + h / 2, "›", 16.0, parent, fill="#777777")
                x += 10
            x += GAP * 2 if "cards" in entry or "hidden" in entry else 0
            self.width = max(self.width, x)
        return y + h + below - top

    def ring(self, y: float, item: dict, parent: Any) -> float:
        entries = item["items"]
        size = float(item["size"] or 44)
        side = max(2, math.ceil(len(entries) / 4) + 1)
        spots = ([(i, 0) for i in range(side)] + [(side - 1, j) for j in range(1, side)]
                 + [(i, side - 1) for i in range(side - 2, -1, -1)] + [(0, j) for j in range(side - 2, 0, -1)])
        for (i, j), entry in zip(spots, entries):
            self._box(i * size, y + j * size, size - 2, size - 2, entry, False, parent)
        self.width = max(self.width, side * size)
        return side * size

    def table(self, y: float, item: dict, parent: Any) -> float:
        h = 20.0
        for n, entry in enumerate(item["items"]):
            row_y = y + n * h
            self.svg.label(14, row_y + h / 2, str(n), 11.0, parent, fill="#777777")
            if "hidden" in entry:
                self._back(30, row_y + 1, 40, h - 2, parent)
                continue
            text = entry["text"] if len(entry["text"]) <= 120 else entry["text"][:119] + "…"
            band = self.svg.add("g", parent, class_="row")
            self.svg.add("rect", band, x=30.0, y=row_y, width=len(text) * 7.2 + 10, height=h,
                         fill=colour(entry.get("fill"), "#f4f4f4" if n % 2 else "#eaeaea"))
            self.svg.label(35, row_y + h / 2, text, 12.0, band, anchor="start")
            self.width = max(self.width, 40 + len(text) * 7.2)
        return max(h, h * len(item["items"]))

    def grid(self, y: float, item: dict, parent: Any) -> float:
        w, h, hexes = item["width"], item["height"], item["shape"] == "hex"
        across = w + ((h - 1) / 2 if hexes else 0)  # hex rows shift half a cell each (steps N NE E S SW W)
        s = float(item["size"] or max(16, min(52, (MAX_WIDTH - 40) // across)))
        dy = s * 0.866 if hexes else s
        left, top = 18.0, y + 14
        for x in range(w):
            self.svg.label(left + x * s + s / 2, y + 6, str(x), 9.0, parent, fill="#888888")
        for row in range(h):
            self.svg.label(9, top + row * dy + s / 2, str(row), 9.0, parent, fill="#888888")
        for index, cell in enumerate(item["cells"]):
            cx = left + (index % w) * s + s / 2 + (s / 2 * (index // w) if hexes else 0)
            cy = top + (index // w) * dy + s / 2
            self._cell(cx, cy, s, cell, hexes, parent, index)
        self.width = max(self.width, left + across * s)
        return 14 + (h - 1) * dy + s

    def _cell(self, cx: float, cy: float, s: float, cell: dict, hexes: bool, parent: Any, index: int) -> None:
        key = json.dumps([cx, cy, s, hexes, index, cell], sort_keys=True) if self.cache is not None else ""
        if self.cache is not None and key in self.cache.cells:
            parent.append(self.cache.cells[key])
            return
        group = self.svg.add("g", parent, class_="cell", data_index=index, data_pick=_pick(cell))
        if self.cache is not None:
            self.cache.cells[key] = group
        if "hidden" in cell:
            self._back(cx - s / 2, cy - s / 2, s, s, group)
            return
        fill = colour(cell.get("fill"), "#f7f7f2")
        if cell["text"]:
            self.svg.add("title", group, cell["text"])
        if hexes:
            r = s / math.sqrt(3)
            points = " ".join(f"{cx + r * math.cos(math.radians(60 * k + 30)):.1f},"
                              f"{cy + r * math.sin(math.radians(60 * k + 30)):.1f}" for k in range(6))
            self.svg.add("polygon", group, points=points, fill=fill, stroke="#666666", stroke_width=0.8)
        else:
            self.svg.add("rect", group, x=cx - s / 2, y=cy - s / 2, width=s, height=s, fill=fill, stroke="#666666",
                         stroke_width=0.5)
        for name in cell["exits"]:
            dx, dy = DIRECTIONS.get(name.upper(), (0, 0))
            if (dx, dy) != (0, 0):
                self.svg.add("line", group, x1=cx, y1=cy, x2=cx + dx * s / 2, y2=cy + dy * s / 2,
                             stroke="#f5f0dc", stroke_width=max(2.0, s / 6), class_="exit")
        pieces = cell["pieces"]
        if cell["text"]:
            ty = cy - s * 0.22 if pieces else cy
            text = _short(cell["text"])
            if cell["exits"]:  # a tile's name stays readable over its passages
                self.svg.add("rect", group, x=cx - s * 0.42, y=ty - s * 0.2, width=s * 0.84, height=s * 0.4, rx=3.0,
                             fill=fill)
            self.svg.label(cx, ty, text, _fit(text, s - 2, s * (0.32 if pieces else 0.42)), group, fill=ink(fill))
        for k, piece in enumerate(pieces[:6]):
            r = s * (0.2 if len(pieces) > 1 else 0.26)
            px = cx + (k - (min(len(pieces), 6) - 1) / 2) * (2 * r + 1)
            py = cy + (s * 0.18 if cell["text"] else 0)
            disc = self.svg.add("g", group, class_="piece", data_seat=piece["seat"])
            self.svg.add("circle", disc, cx=px, cy=py, r=r, fill=seat_colour(piece["seat"]), stroke="#ffffff",
                         stroke_width=1.0)
            if piece["text"]:
                self.svg.label(px, py, piece["text"][:3], r * 1.1, disc, fill="#ffffff", weight="bold")


    def key(self, y: float, pairs: list, parent: Any) -> float:
        """Swatches with what each colour means, wrapped at the picture's width."""
        x, top = 0.0, y
        for name, fill in pairs:
            width = 22 + len(_short(name)) * 6.6
            if x > 0 and x + width > MAX_WIDTH:
                x, y = 0.0, y + 18
            self.svg.add("rect", parent, x=x, y=y + 2, width=12.0, height=12.0, rx=2.0, fill=colour(fill, "#ffffff"),
                         stroke="#777777")
            self.svg.label(x + 16, y + 8, _short(name), 11.0, parent, anchor="start", fill="#333333")
            x += width + 8
            self.width = max(self.width, x)
        return y + 18 - top

    def seats(self, y: float, players: int, mover: int) -> None:
        """The key of the seat colours: a disc and `player k` each, the seat to move in bold."""
        x = 0.0
        for seat in range(players):
            self.svg.add("circle", cx=x + 7, cy=y, r=6.0, fill=seat_colour(seat), stroke="#ffffff", class_="seat-key")
            text = f"player {seat}" + (" (to move)" if seat == mover else "")
            self.svg.label(x + 17, y, text, 12.0, anchor="start", weight="bold" if seat == mover else None)
            x += 30 + len(text) * 7.2
        self.width = max(self.width, x)


def _pick(entry: dict) -> str | None:
    """What clicking an entry picks, as JSON text (an attribute), or None for an entry that names nothing."""
    return json.dumps(entry["pick"], ensure_ascii=False) if "pick" in entry else None


def scene_svg(picture: dict) -> str:
    """The SVG text of a scene (see `engine.scene`)."""
    return scene_painted(picture).to_text()


def scene_parts(picture: dict, cache: PaintCache) -> list[str]:
    """The SVG of a scene as the pieces that join to it (`Svg.parts`), reusing the cells in `cache`."""
    return scene_painted(picture, cache).parts(cache.text)


def scene_painted(picture: dict, cache: PaintCache | None = None) -> Svg:
    """The SVG document of a scene, sized, before serialization (the viewer serializes it in parts)."""
    p = _Painter(cache)
    view = "all-seeing view" if picture["viewer"] is None else f"seat {picture['viewer']}'s view"
    header = f"{picture['title']} — {picture['status']}"
    p.svg.label(0, 12, header, 15.0, anchor="start", weight="bold")
    p.width = min(len(header) * 9.5, MAX_WIDTH)
    p.svg.label(0, 32, view, 12.0, anchor="start", fill="#555555")
    p.seats(50, picture["players"], picture["mover"])
    y = 66.0
    for item in picture["items"]:
        group = p.svg.add("g", class_=f"item {item['kind']}")
        for line in textwrap.wrap(item["label"], LABEL_CHARS)[:6] or [""]:
            p.svg.label(0, y + 10, line, 12.0, group, anchor="start", fill="#333333", weight="bold")
            p.width = max(p.width, len(line) * 7.0)
            y += LABEL_H - 6
        y += 6
        if "error" in item:
            p.svg.label(0, y + 8, f"({item['error']})", 12.0, group, anchor="start", fill="#b00020")
            y += 20 + GAP * 2
            continue
        if item["kind"] == "grid":
            y += p.grid(y, item, group)
        elif item["style"] == "ring":
            y += p.ring(y, item, group)
        elif item["kind"] == "list":
            y += p.table(y, item, group)
        else:
            y += p.row(y, item, group)
        if item.get("key"):
            y += 4 + p.key(y + 4, item["key"], group)
        if "problems" in item:
            y += 14
            problems = item["problems"]
            p.svg.label(0, y, f"({problems['count']} entries could not be drawn; first {problems['first']})", 11.0,
                        group, anchor="start", fill="#b00020")
        y += GAP * 3
    p.svg.size(max(p.width, 480.0) + 4, y)
    return p.svg


def state_svg(state: State, seat: int | None = None) -> str:
    """The picture of `state` as SVG text: all-seeing, or as seat `seat` is shown it."""
    return scene_svg(state_scene(state, seat))


def state_scene(state: State, seat: int | None = None, full_errors: bool = False) -> dict:
    """What the picture of `state` shows (`engine.scene`): all-seeing, or from seat `seat`'s observation
    (`full_errors`: a rule error in it keeps its text, for a page that shows everything)."""
    if seat is not None:
        state.observe(seat, full_errors=full_errors)  # the seat is checked by the public API, with its clear error
    return scene(state.game.model, state.data, seat, full_errors)


def render_png(svg: str) -> bytes:
    """PNG bytes of an SVG picture, through cairosvg (the `picture` extra)."""
    try:
        import cairosvg  # type: ignore[import-untyped]
    except ImportError:
        raise PictureError("PNG pictures need cairosvg: install the extra with `pip install 'ruleplay[picture]'`, "
                           "or write SVG with --format svg") from None
    return cairosvg.svg2png(bytestring=svg.encode("utf-8"))
