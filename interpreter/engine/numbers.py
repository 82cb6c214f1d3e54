"""Numbers the rules hand to the engine: scores, returns and chance weights.

The language's integers go up to 1024 bits, past the largest float, so an
integer is always a finite number but not always a float; `math.isfinite`
and `float()` raise OverflowError on such an integer instead of answering.
"""

from __future__ import annotations

import math
from typing import Any


def is_finite_number(value: Any) -> bool:
    """An int (never a bool) or a finite float."""
    t = type(value)
    return t is int or (t is float and math.isfinite(value))


def as_float(value: int | float) -> float | None:
    """The number as a finite float, or None when it is too large for one."""
    try:
        out = float(value)
    except OverflowError:
        return None
    return out if math.isfinite(out) else None
