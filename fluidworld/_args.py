"""Argument checks shared by the World's helpers: every bad value raises a ValueError or
TypeError that names the argument."""

from __future__ import annotations

from typing import Any

import numpy as np
import pymunk
from numpy.typing import NDArray

from .fluid.params import _finite

__all__ = ["_vec", "_points", "_convex_vertices", "_in_polygon"]


def _vec(name: str, v: Any) -> tuple[float, float]:
    try:
        x, y = v
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a pair (x, y), got {v!r}") from None
    return (_finite(f"{name}[0]", x), _finite(f"{name}[1]", y))


def _points(name: str, v: Any, min_len: int) -> NDArray[np.float64]:
    try:
        a = np.asarray(v, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a sequence of (x, y) pairs") from None
    if a.ndim != 2 or a.shape[1] != 2 or len(a) < min_len:
        raise ValueError(f"{name} must be at least {min_len} (x, y) pairs, got shape {a.shape}")
    if not np.isfinite(a).all():
        raise ValueError(f"{name} must be finite (found NaN or inf)")
    return a


def _convex_vertices(name: str, v: NDArray[np.float64]) -> list[tuple[float, float]]:
    """The vertices as tuples, checked to span an area (pymunk takes the convex hull; collinear
    or identical points would make a degenerate shape that fails only later, in the step)."""
    pts = [(float(x), float(y)) for x, y in v]
    hull = pymunk.Poly(None, pts)
    if len(hull.get_vertices()) < 3 or not hull.area > 0.0:
        raise ValueError(f"{name} must span an area (3 or more points, not all on one line), "
                         f"got {pts!r}")
    return pts


def _in_polygon(pts: NDArray[np.float64], poly: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Even-odd rule, vectorised over points (set-up time only)."""
    inside = np.zeros(len(pts), bool)
    x, y = pts[:, 0], pts[:, 1]
    k = len(poly)
    for i in range(k):
        x0, y0 = poly[i]
        x1, y1 = poly[(i + 1) % k]
        cross = (y0 > y) != (y1 > y)
        with np.errstate(divide="ignore", invalid="ignore"):
            xc = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
        inside ^= cross & (x < xc)
    return inside


# ---------------------------------------------------------------------------- world
