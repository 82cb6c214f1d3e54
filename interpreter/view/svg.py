"""A small SVG builder on `xml.etree`: every text and attribute is escaped by the serializer.

Text in a picture comes from rulesets and saved states, so it may hold
anything.  ElementTree escapes `&`, `<`, `>` and quotes, but writes control
characters as they are, and XML 1.0 cannot hold most of them at all; they
become U+FFFD here, so the picture always parses.  Colours are taken only
from the palette or as `#rgb`/`#rrggbb`; any other text is never written
into a style.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from xml.sax.saxutils import quoteattr
from typing import Any

SVG_NS = "http://www.w3.org/2000/svg"
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_HEX = re.compile(r"#[0-9a-fA-F]{3}(?:[0-9a-fA-F]{3})?")

PALETTE = {
    # plain colours
    "white": "#ffffff", "black": "#222222", "grey": "#9e9e9e", "silver": "#cfcfcf", "red": "#d9473f",
    "orange": "#ef8a2e", "yellow": "#f2cf3a", "green": "#58a55c", "teal": "#3aa39b", "blue": "#3f7fd0",
    "navy": "#23437a", "purple": "#8a5cc2", "pink": "#e58fb5", "brown": "#8d6240", "sand": "#e9d8a6",
    "gold": "#d4a72c", "wood": "#c49a6c",
    # water by depth, shallow to deepest
    "shallow": "#bfe6f2", "water": "#7cc3e0", "deep": "#3f8fc0", "abyss": "#1f5a8c", "trench": "#123a63",
    # card faces and backs
    "card": "#fdfaf2", "back": "#5a4a8a",
}
SEAT_COLOURS = ["#d9473f", "#2f6fc4", "#3f9b4a", "#e0a020", "#8a5cc2", "#7a5230", "#e07ab0", "#3aa39b"]


def colour(name: Any, default: str) -> str:
    """A palette name or #hex colour as a colour; anything else (an unknown name, a non-text) is `default`."""
    if isinstance(name, str):
        if _HEX.fullmatch(name):
            return name
        return PALETTE.get(name, default)
    return default


def ink(fill: str) -> str:
    """Dark text on a light fill, white text on a dark one (`fill` is #rgb or #rrggbb)."""
    digits = fill[1:] if len(fill) == 7 else "".join(ch * 2 for ch in fill[1:])
    r, g, b = (int(digits[i:i + 2], 16) for i in (0, 2, 4))
    return "#222222" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff"


def seat_colour(seat: int | None) -> str:
    return PALETTE["grey"] if seat is None else SEAT_COLOURS[seat % len(SEAT_COLOURS)]


def xml_text(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


class Svg:
    """An SVG document built element by element; `to_text()` serializes it with everything escaped."""

    def __init__(self) -> None:
        self.root = ET.Element("svg", {"xmlns": SVG_NS, "font-family": "DejaVu Sans, Verdana, sans-serif"})

    def add(self, tag: str, parent: ET.Element | None = None, text: str | None = None, **attrs: Any) -> ET.Element:
        """An element; attribute names use `_` for `-` (`font_size` is `font-size`), numbers are rounded."""
        el = ET.SubElement(self.root if parent is None else parent, tag, {
            k.rstrip("_").replace("_", "-"): _num(v) if isinstance(v, float) else xml_text(str(v))
            for k, v in attrs.items() if v is not None})
        if text is not None:
            el.text = xml_text(text)
        return el

    def label(self, x: float, y: float, text: str, size: float, parent: ET.Element | None = None,
              anchor: str = "middle", fill: str = "#222222", weight: str | None = None) -> ET.Element:
        return self.add("text", parent, text, x=float(x), y=float(y), font_size=float(size), text_anchor=anchor,
                        dominant_baseline="central", fill=fill, font_weight=weight)

    def size(self, width: float, height: float) -> None:
        self.root.set("width", _num(width))
        self.root.set("height", _num(height))
        self.root.set("viewBox", f"0 0 {_num(width)} {_num(height)}")

    def to_text(self) -> str:
        return ET.tostring(self.root, encoding="unicode")

    def parts(self, known: dict[int, tuple[ET.Element, str]] | None = None) -> list[str]:
        """The document as a list of serialized pieces that join to it: the root's open tag, each item
        group's open tag, every element inside, the closing tags.  A replay viewer stores each distinct
        piece once, and most pieces (a board's cells) stay the same from one move to the next.
        `known` holds elements serialized before with their text, by `id` (holding the element keeps its
        `id` from being reused)."""
        known = {} if known is None else known
        out = [_open_tag(self.root)]
        for child in self.root:
            if child.tag == "g" and len(child):
                out.append(_open_tag(child))
                for e in child:
                    if id(e) not in known:
                        known[id(e)] = (e, ET.tostring(e, encoding="unicode"))
                    out.append(known[id(e)][1])
                out.append("</g>")
            else:
                out.append(ET.tostring(child, encoding="unicode"))
        out.append("</svg>")
        return out


def _open_tag(el: ET.Element) -> str:
    return "<" + el.tag + "".join(f" {k}={quoteattr(v)}" for k, v in el.attrib.items()) + ">"
