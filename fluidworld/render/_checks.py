"""Argument checks shared by the render classes: a TypeError (not a number, not a pair) or a
ValueError (out of range) naming the argument.

Why not plain ``if x <= 0``: NaN fails every comparison, so such a check lets it through, and a
NaN size or spacing then draws nothing, silently.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._args import _rgba as rgba
from ..fluid.params import _finite as finite

__all__ = ["at_least", "between", "finite", "pair", "positive", "rgba", "whole"]


def positive(name: str, value: Any) -> float:
    """``value`` as a finite float > 0."""
    v = finite(name, value)
    if v <= 0.0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return v


def at_least(name: str, value: Any, lo: float) -> float:
    """``value`` as a finite float >= ``lo``."""
    v = finite(name, value)
    if v < lo:
        raise ValueError(f"{name} must be >= {lo:g}, got {value!r}")
    return v


def between(name: str, value: Any, lo: float, hi: float, *, open_lo: bool = False,
            open_hi: bool = False) -> float:
    """``value`` as a finite float in ``[lo, hi]`` (an end excluded when it is ``open_``)."""
    v = finite(name, value)
    if v < lo or v > hi or (open_lo and v == lo) or (open_hi and v == hi):
        span = f"{'(' if open_lo else '['}{lo:g}, {hi:g}{')' if open_hi else ']'}"
        raise ValueError(f"{name} must be in {span}, got {value!r}")
    return v


def whole(name: str, value: Any, minimum: int, maximum: int | None = None) -> int:
    """``value`` as an int in ``[minimum, maximum]`` (a float with no fraction is accepted)."""
    if (isinstance(value, bool) or not isinstance(value, int | float | np.integer)
            or not math.isfinite(value) or int(value) != value):
        raise TypeError(f"{name} must be a whole number, got {value!r}")
    if value < minimum or (maximum is not None and value > maximum):
        shown = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum:,}]"
        raise ValueError(f"{name} must be {shown}, got {value!r}")
    return int(value)


def pair(name: str, value: Any) -> tuple[float, float]:
    """``value`` as two finite floats ``(x, y)``."""
    if isinstance(value, str | bytes) or not hasattr(value, "__len__") or len(value) != 2:
        raise TypeError(f"{name} must be a pair (x, y), got {value!r}")
    return finite(name, value[0]), finite(name, value[1])
