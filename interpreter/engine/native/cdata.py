"""The data a lowered ruleset carries: its texts, its constants and the C literals that hold them.

User text never becomes C source.  A text is numbered here, and the module
holds its bytes in one array of integers (`texts_c`); a constant value (a
named constant, a parameter's `of:` values, the components' properties, a
graph's nodes) is encoded as bytes (`encode`) that the runtime decodes into
values when the module first loads.  Numbers are written by `int_literal`
and `float_literal`, which only ever produce digits, a sign, `x`, `p` and
`.`, so `engine.native.verify` can check every literal of the source.
"""

from __future__ import annotations

import math
import struct
from typing import Any

from ruleplay.dsl.builtins import BUILTINS

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


class NotLowered(Exception):
    """A construct, or a value, the native backend does not take: the ruleset keeps to the Python engine."""

    def __init__(self, what: str, pos: Any = None):
        super().__init__(what)
        self.what = what
        self.pos = pos


class Texts:
    """The texts of a module, numbered in the order they are first met: text k is id k in C."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def id(self, text: str) -> int:
        found = self.ids.get(text)
        if found is None:
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:  # half of a surrogate pair: no UTF-8 holds it
                raise NotLowered("a text that is not valid Unicode") from None
            found = self.ids[text] = len(self.ids)
        return found

    def c_arrays(self) -> str:
        """The texts as C data: their UTF-8 bytes in one array, and where each ends."""
        blob = bytearray()
        ends = []
        for text in self.ids:
            blob += text.encode("utf-8")
            ends.append(len(blob))
        return (f"static const unsigned char TEXT_BYTES[{max(len(blob), 1)}] = {{{byte_list(blob)}}};\n"
                f"static const int64_t TEXT_ENDS[{max(len(ends), 1)}] = {{{', '.join(map(str, ends)) or '0'}}};\n"
                f"static const int64_t TEXT_COUNT = {len(ends)};\n")


def byte_list(data: bytes) -> str:
    """Bytes as a C initializer of decimal numbers (never a string literal)."""
    if not data:
        return "0"
    return ",".join(map(str, data))


def int_literal(value: int) -> str:
    if type(value) is not int or not INT64_MIN <= value <= INT64_MAX:
        raise NotLowered("an int past 64 bits")
    if value == INT64_MIN:
        return "(-INT64_C(9223372036854775807) - 1)"
    return f"INT64_C({value})" if value >= 0 else f"(-INT64_C({-value}))"


def float_literal(value: float) -> str:
    if not math.isfinite(value):
        raise NotLowered("a float that is not finite")
    text = value.hex()  # exact: C99 reads hexadecimal floats bit for bit
    return f"({text})" if text.startswith("-") else text


# Tags of the encoded constants (rp_api.c's `decode`).
_NULL, _FALSE, _TRUE, _INT, _FLOAT, _TEXT, _LIST, _MAP, _MISSING = range(9)
BUILTIN_IDS = {name: k for k, name in enumerate(BUILTINS)}  # the runtime's numbering of the builtins
MISSING = object()  # a component without the property: read as an error, not as a value


def encode(value: Any, texts: Texts, out: bytearray) -> None:
    """Append the bytes of one constant value."""
    t = type(value)
    if value is MISSING:
        out.append(_MISSING)
    elif value is None:
        out.append(_NULL)
    elif t is bool:
        out.append(_TRUE if value else _FALSE)
    elif t is int:
        if not INT64_MIN <= value <= INT64_MAX:
            raise NotLowered("a constant int past 64 bits")
        out.append(_INT)
        out += struct.pack("<q", value)
    elif t is float:
        out.append(_FLOAT)
        out += struct.pack("<d", value)
    elif t is str:
        out.append(_TEXT)
        out += struct.pack("<I", texts.id(value))
    elif t is list or t is tuple:
        out.append(_LIST)
        out += struct.pack("<I", len(value))
        for item in value:
            encode(item, texts, out)
    elif t is dict:
        out.append(_MAP)
        out += struct.pack("<I", len(value))
        for key, item in value.items():
            out += struct.pack("<I", texts.id(key))
            encode(item, texts, out)
    else:
        raise NotLowered(f"a constant of type {t.__name__}")


class Constants:
    """The module's constant values, each decoded once into `K[k]` (immortal in the runtime)."""

    def __init__(self, texts: Texts):
        self.texts = texts
        self.values: list[Any] = []
        self._index: dict[int, int] = {}
        self._keep: list[Any] = []  # values whose id() is a key of `_index` stay alive while it is used

    def index(self, value: Any) -> int:
        """The slot of `value` (one slot per distinct object: constants are shared, never changed)."""
        key = id(value)
        found = self._index.get(key)
        if found is None:
            found = self._index[key] = len(self.values)
            self.values.append(value)
            self._keep.append(value)
        return found

    def c_arrays(self) -> str:
        blob = bytearray()
        for value in self.values:
            encode(value, self.texts, blob)
        return (f"static const unsigned char CONST_BYTES[{max(len(blob), 1)}] = {{{byte_list(blob)}}};\n"
                f"static rv K[{max(len(self.values), 1)}];\nstatic const int64_t CONST_COUNT = {len(self.values)};\n")
