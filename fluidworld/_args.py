"""Argument checks shared by the World's helpers: every bad value raises a ValueError or
TypeError that names the argument."""

from __future__ import annotations

import inspect
import os
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pymunk
import pymunk.autogeometry
from numpy.typing import NDArray

from .fluid.params import _finite, _rgba

__all__ = ["_rgba", "_vec", "_points", "_convex_vertices", "_convex_parts", "_in_polygon",
           "takes_args", "warn_caller"]

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn_caller(message: str, category: type[Warning] = RuntimeWarning) -> None:
    """``warnings.warn`` at the first frame outside fluidworld: the line of the game's code
    that made the call, however many of the library's frames (helpers, the replay's
    :func:`~fluidworld.replay.recorded` wrapper) lie between."""
    level = 2
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    warnings.warn(message, category, stacklevel=level - 1 if frame is None else level)


def takes_args(fn: Callable[..., Any], n: int) -> bool:
    """Whether ``fn`` can be called with ``n`` positional arguments (True where Python cannot
    tell: a builtin without a signature). A callback with the wrong signature is refused when
    it is given, not when it first runs."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return True
    try:
        sig.bind(*range(n))
    except TypeError:
        return False
    return True


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


def _convex_parts(name: str, v: NDArray[np.float64]) -> list[list[tuple[float, float]]]:
    """Convex pieces of the polygon ``v``: one piece, the vertices as given (pymunk takes their
    convex hull), unless ``v`` in its order is a simple polygon that is not convex (an L, a U, a
    cup): then pymunk's convex decomposition of it, so that the shapes cover what was drawn and
    not its hull. Self-crossing or unordered points keep the hull, as before."""
    pts = _convex_vertices(name, v)
    if len(v) < 4 or not _simple(v):
        return [pts]
    x, y = v[:, 0], v[:, 1]
    area = 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))
    hull = pymunk.Poly(None, pts).area
    if abs(area) >= hull * (1.0 - 1e-9):
        return [pts]  # convex (or with points along its edges)
    ring = pts if area > 0.0 else pts[::-1]  # the decomposition wants counter-clockwise
    try:
        pieces = pymunk.autogeometry.convex_decomposition([*ring, ring[0]], 0.0)
    except (AssertionError, ValueError):  # pymunk checks its input with asserts
        return [pts]
    parts = [[(float(p[0]), float(p[1])) for p in piece[:-1]] for piece in pieces]
    areas = [pymunk.Poly(None, q).area if len(q) >= 3 else 0.0 for q in parts]
    parts = [q for q, a in zip(parts, areas, strict=True) if a > 1e-9 * hull]
    if not parts or abs(sum(areas) - abs(area)) > 1e-6 * hull:
        return [pts]  # the pieces do not cover the outline: keep the hull, as pymunk would
    return parts


def _simple(v: NDArray[np.float64]) -> bool:
    """Whether the closed polygon ``v`` has no two non-adjacent edges that touch or cross."""
    k = len(v)
    a, b = v, np.roll(v, -1, axis=0)
    for i in range(k):
        for j in range(i + 2, k):
            if i == 0 and j == k - 1:
                continue  # adjacent through the closing edge
            if _segments_meet(a[i], b[i], a[j], b[j]):
                return False
    return True


def _segments_meet(p: NDArray[np.float64], q: NDArray[np.float64], r: NDArray[np.float64],
                   s: NDArray[np.float64]) -> bool:
    """Whether the closed segments ``p q`` and ``r s`` share a point."""
    def side(a: NDArray[np.float64], b: NDArray[np.float64], c: NDArray[np.float64]) -> float:
        return float((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))

    def on(a: NDArray[np.float64], b: NDArray[np.float64], c: NDArray[np.float64]) -> bool:
        return (min(a[0], b[0]) <= c[0] <= max(a[0], b[0])
                and min(a[1], b[1]) <= c[1] <= max(a[1], b[1]))

    d1, d2, d3, d4 = side(r, s, p), side(r, s, q), side(p, q, r), side(p, q, s)
    if ((d1 > 0) != (d2 > 0) and d1 != 0 and d2 != 0
            and (d3 > 0) != (d4 > 0) and d3 != 0 and d4 != 0):
        return True
    return ((d1 == 0 and on(r, s, p)) or (d2 == 0 and on(r, s, q))
            or (d3 == 0 and on(p, q, r)) or (d4 == 0 and on(p, q, s)))


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
