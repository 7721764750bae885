"""Shape sampling: pymunk shape geometry -> points in body-local coordinates.

Runs once per shape, when it is coupled (plain numpy; nothing here is per step). Three products:

* **outline** points at spacing ``r_L / 2`` along the shape's surface (the rounding radius
  included): the solid particles of the fluid's local-repulsion stage. DESIGN.md measured that
  ``r_L`` spacing leaks and ``r_L / 2`` holds (with geometric containment behind it).
* **interior** points on a body-local square grid at spacing ``s`` (about ``a0 / 4``), each
  carrying an area, scaled so that the areas sum to the exact shape area: they rasterise the
  body's volume into the pressure grid and carry the buoyancy.
* a **geometry** record (circle, capsule or convex polygon with radius) for containment.

Shapes: ``pymunk.Circle`` (radius, offset), ``pymunk.Segment`` (a capsule ``a``-``b`` with
radius), ``pymunk.Poly`` (convex, counter-clockwise, with rounding radius).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pymunk
from numpy.typing import NDArray

__all__ = [
    "ShapeGeometry",
    "geometry_of",
    "outline_points",
    "ArcCount",
    "arc_count_radius",
    "kernel_arc_count",
    "interior_points",
    "push_anchors",
    "shape_area",
    "contains",
    "local_bounds",
    "max_inset",
    "perimeter",
    "moment_for",
]

CIRCLE, CAPSULE, POLYGON = 0, 1, 2


@dataclass(frozen=True)
class ShapeGeometry:
    """Body-local geometry of one coupled shape.

    Attributes:
        kind: 0 circle, 1 capsule (segment with radius), 2 convex polygon with radius.
        points: (k, 2) body-local points: the centre (circle), the end points (capsule) or the
            counter-clockwise vertices (polygon).
        radius: Rounding radius (circle radius; segment and polygon rounding).
    """

    kind: int
    points: NDArray[np.float64]
    radius: float


def geometry_of(shape: pymunk.Shape) -> ShapeGeometry:
    """Body-local geometry of a pymunk Circle, Segment or Poly.

    Raises:
        TypeError: for any other shape type.
    """
    if isinstance(shape, pymunk.Circle):
        o = shape.offset
        return ShapeGeometry(CIRCLE, np.array([[o.x, o.y]]), float(shape.radius))
    if isinstance(shape, pymunk.Segment):
        a, b = shape.a, shape.b
        return ShapeGeometry(CAPSULE, np.array([[a.x, a.y], [b.x, b.y]]), float(shape.radius))
    if isinstance(shape, pymunk.Poly):
        v = np.array([[p.x, p.y] for p in shape.get_vertices()], dtype=np.float64)
        if _signed_area(v) < 0.0:
            v = v[::-1].copy()
        return ShapeGeometry(POLYGON, v, float(shape.radius))
    raise TypeError(
        f"shape must be a pymunk Circle, Segment or Poly, got {type(shape).__name__}"
    )


def _signed_area(v: NDArray[np.float64]) -> float:
    if len(v) < 3:
        return 0.0
    x, y = v[:, 0], v[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))


def shape_area(g: ShapeGeometry) -> float:
    """Exact area of the shape, rounding included."""
    r = g.radius
    if g.kind == CIRCLE:
        return math.pi * r * r
    if g.kind == CAPSULE:
        return 2.0 * r * float(np.linalg.norm(g.points[1] - g.points[0])) + math.pi * r * r
    v = g.points
    perim = float(np.linalg.norm(np.roll(v, -1, axis=0) - v, axis=1).sum()) if len(v) > 1 else 0.0
    return abs(_signed_area(v)) + perim * r + math.pi * r * r


def perimeter(g: ShapeGeometry) -> float:
    """Length of the shape's surface (rounding included; a segment counts both faces)."""
    ring = 2.0 * math.pi * g.radius
    if g.kind == CIRCLE:
        return ring
    v = g.points
    if g.kind == CAPSULE:
        return 2.0 * float(np.hypot(*(v[1] - v[0]))) + ring
    return float(np.hypot(*(np.roll(v, -1, axis=0) - v).T).sum()) + ring


def moment_for(g: ShapeGeometry, mass: float) -> float:
    """The moment of inertia about the body's origin the shape would have with ``mass``."""
    if g.kind == CIRCLE:
        return float(pymunk.moment_for_circle(mass, 0.0, g.radius, tuple(g.points[0])))
    if g.kind == CAPSULE:
        return float(pymunk.moment_for_segment(mass, tuple(g.points[0]), tuple(g.points[1]),
                                               g.radius))
    return float(pymunk.moment_for_poly(mass, [tuple(p) for p in g.points], (0.0, 0.0),
                                        g.radius))


def arc_count_radius(row: float, rest: float | None, outer: float) -> float:
    """The radius by which an arc of solid particles is counted: ``outer`` (the surface's: the
    points lie ``spacing`` apart along it and move inwards to the ``row`` radius) without
    ``rest``; with ``rest`` (how far the fluid rests from a row of solids) ``row + rest / 2``,
    so that a fluid particle resting outside the arc sums about the density of solids it
    would outside a straight row ``spacing`` apart. At ``rest`` from an arc of radius ``row``
    it meets the point at angle ``theta`` at ``sqrt(rest^2 + row (row + rest) theta^2)``
    for small angles: the arc looks ``sqrt(row (row + rest))`` long per radian, which is
    ``row + rest / 2`` to first order in ``rest / row``. A sharp corner (``row`` 0) gets
    ``rest / 2`` too: a cluster at its vertex (measured on boxes 30 x 16 to 72 x 24 at
    0.4-0.9: ``rest / 2`` within 0.03 of Archimedes, ``rest`` 0.04-0.06 high)."""
    if rest is None or rest <= 0.0:
        return outer
    return max(row, 0.0) + 0.5 * rest


#: How many solid points an arc gets: ``count(row, turn)`` for an arc whose row lies at radius
#: ``row`` and turns by ``turn`` radians (:func:`kernel_arc_count`).
ArcCount = Callable[[float, float], float]


def kernel_arc_count(weight: Callable[[NDArray[np.float64]], NDArray[np.float64]],
                     reach: float, rest: float, spacing: float) -> ArcCount:
    """The point count of arcs of solids for a fluid that sums ``weight(distance)`` over
    them (zero from ``reach`` on) and rests ``rest`` off a row of them: a fluid particle
    ``rest`` outside an arc's row then sums what it would ``rest`` off a straight row
    ``spacing`` apart. That is :func:`arc_count_radius`'s rule without its first-order step,
    which counted small arcs high (a ring of row radius 1.8, a ball of radius 6 under the
    constraint solver's inset: 12.2 points where the kernel asks 8.0)."""
    s = np.linspace(-reach, reach, 2001)
    flat = _trapezoid(weight(np.hypot(rest, s)), s) / spacing

    def count(row: float, turn: float) -> float:
        row = max(row, 0.0)
        x = row + rest
        if row <= 1e-9 * rest:
            ring = float(weight(np.array([rest]))[0])
        else:  # the ring's mean weight at ``x`` from its centre, over the angles it reaches
            c = (row * row + x * x - reach * reach) / (2.0 * row * x)
            top = math.acos(min(max(c, -1.0), 1.0))
            t = np.linspace(-top, top, 2001)
            d = np.sqrt(np.maximum(row * row + x * x - 2.0 * row * x * np.cos(t), 0.0))
            ring = _trapezoid(weight(d), t) / (2.0 * math.pi)
        return turn / (2.0 * math.pi) * flat / ring if ring > 0.0 else 1.0

    return count


def _trapezoid(y: NDArray[np.float64], x: NDArray[np.float64]) -> float:
    """The trapezoid rule (``numpy.trapezoid`` is numpy 2's; we take numpy 1.26 too)."""
    return float(0.5 * np.sum((y[1:] + y[:-1]) * np.diff(x)))


def _kernel_count(arc_count: ArcCount | None, row: float, turn: float) -> int | None:
    """An arc's point count from ``arc_count`` (at least one), or ``None`` without it."""
    return None if arc_count is None else max(1, int(round(arc_count(row, turn))))


def _arc(c: NDArray[np.float64], r: float, a0: float, a1: float, spacing: float,
         endpoint: bool, count_r: float | None = None, count: int | None = None
         ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Points on an arc of radius r (at most ``spacing`` apart, or as many as an arc of radius
    ``count_r`` would have, or ``count``) and their outward normals."""
    n = count if count is not None else max(
        1, int(math.ceil(abs(a1 - a0) * (r if count_r is None else count_r) / spacing)))
    t = np.linspace(a0, a1, n + 1 if endpoint else n, endpoint=endpoint)
    nrm = np.column_stack([np.cos(t), np.sin(t)])
    return c + r * nrm, nrm


def _line(p: NDArray[np.float64], q: NDArray[np.float64], spacing: float,
          normal: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Points from p (included) towards q (excluded) at most ``spacing`` apart, with a normal."""
    n = max(1, int(math.ceil(float(np.linalg.norm(q - p)) / spacing)))
    t = np.arange(n)[:, None] / n
    return p + t * (q - p), np.broadcast_to(normal, (n, 2))


def max_inset(g: ShapeGeometry) -> float:
    """How far surface points can move inwards and stay inside the shape (the inradius)."""
    if g.kind in (CIRCLE, CAPSULE):
        return g.radius
    return g.radius + 0.9 * _core_inradius(g)


def _core_inradius(g: ShapeGeometry) -> float:
    """A polygon's distance from its vertices' centroid to the nearest edge line (0 if none)."""
    v = g.points
    c = v.mean(axis=0)
    k = len(v)
    dmin = math.inf
    for i in range(k):
        p, q = v[i], v[(i + 1) % k]
        d = q - p
        ln = float(np.linalg.norm(d))
        if ln > 1e-12:
            dmin = min(dmin, abs(float(d[0] * (c[1] - p[1]) - d[1] * (c[0] - p[0]))) / ln)
    return 0.0 if not math.isfinite(dmin) else dmin


def outline_points(g: ShapeGeometry, spacing: float, inset: float = 0.0,
                   rest: float | None = None,
                   arc_count: ArcCount | None = None) -> NDArray[np.float64]:
    """Points along the shape's surface (rounding radius included), at most ``spacing`` apart
    along the surface, moved ``inset`` inwards along the surface normal (at most the shape's
    inradius, so thin shapes keep their points inside). A segment whose two sides would come
    within ``spacing`` of each other gets one row of points on its centre line; with ``rest``,
    so does a polygon too thin for ``inset`` (held to 0.9 of its inradius).

    ``rest``: how far from a row of solids the fluid rests, for a fluid that meets the solids
    by a kernel sum (the constraint solver's ``solid_rest_distance``); arcs (balls, capsule
    ends, rounded corners) then get the point count that looks like a straight row to it
    (:func:`arc_count_radius`). ``None``: the count of the surface's own length.
    ``arc_count``: with ``rest``, the arcs' counts from the solver's kernel instead
    (:func:`kernel_arc_count`; sharp corners keep :func:`arc_count_radius`)."""
    r = g.radius
    inward = min(max(inset, 0.0), max_inset(g))
    parts: list[tuple[NDArray[np.float64], NDArray[np.float64]]] = []
    if g.kind == CIRCLE:
        if r <= 0.0:
            return g.points.copy()
        parts.append(_arc(g.points[0], r, 0.0, 2.0 * math.pi, spacing, endpoint=False,
                          count_r=arc_count_radius(r - inward, rest, r),
                          count=_kernel_count(arc_count, r - inward, 2.0 * math.pi)))
    elif g.kind == CAPSULE:
        a, b = g.points
        d = b - a
        ln = float(np.linalg.norm(d))
        if ln <= 1e-12:
            return outline_points(ShapeGeometry(CIRCLE, a[None, :], r), spacing, inset, rest,
                                  arc_count)
        n = np.array([-d[1], d[0]]) / ln
        if 2.0 * (r - inward) < spacing:  # (a capsule's inward is min(inset, r))
            # a thin wall (or one whose points move in to its centre line): its two sides' rows
            # would lie within a spacing of each other, on top of each other at ``inset >= r``,
            # and the fluid would meet twice the solids a face has (double density relaxation
            # shot water filled against a segment of radius 1 off it at 1,800 units/s). One row
            # on the centre line.
            pts, _ = _line(a, b, spacing, n)
            return np.concatenate([pts, b[None, :]])
        ang = math.atan2(n[1], n[0])
        cr = arc_count_radius(r - inward, rest, r)
        cn = _kernel_count(arc_count, r - inward, math.pi)
        parts += [_line(a + r * n, b + r * n, spacing, n),
                  _arc(b, r, ang, ang - math.pi, spacing, endpoint=False, count_r=cr, count=cn),
                  _line(b - r * n, a - r * n, spacing, -n),
                  _arc(a, r, ang + math.pi, ang, spacing, endpoint=False, count_r=cr, count=cn)]
    else:
        # a polygon no thicker than twice the inset: one row on its centre line, for a fluid
        # that meets solids by a kernel sum (:func:`_centre_line`)
        return _polygon_outline(g.points, r, spacing, inward, rest,
                                rest is not None and inset >= r + _core_inradius(g), arc_count)
    pts = np.concatenate([p for p, _ in parts])
    nrm = np.concatenate([n for _, n in parts])
    return np.ascontiguousarray(pts - inward * nrm)


def _edge(v: NDArray[np.float64], i: int) -> float:
    """Length of a polygon's edge from vertex ``i`` to the next."""
    return float(np.hypot(*(v[(i + 1) % len(v)] - v[i])))


def _centre_line(v: NDArray[np.float64], nrm: NDArray[np.float64], ok: NDArray[np.bool_],
                 rr: float, spacing: float) -> NDArray[np.float64]:
    """One row of points, at most ``spacing`` apart, on the centre line of a convex polygon
    (vertices ``v``, outward normals ``nrm``, rounding ``rr``) across its thinnest direction.

    For a polygon no thicker than twice the solver's inset, whose rows from its two faces
    meet at its centre (the inset is held to 0.9 of the inradius, so they came within a tenth
    of its thickness): the fluid met the two rows as twice a face's solids and stood off
    further. Planks at 0.5 / 0.8 with the constraint solver (inset 4.2): 60 x 6 at 0.035 /
    0.46, 80 x 8 at 0.27 / 0.64; with one row 0.21 / 0.60 and 0.51 / 0.835. A plank 90 x 9,
    4.5 from its faces to the centre, keeps two rows 0.9 apart (0.36 / 0.75): one row at its
    centre, deeper in than the inset, floated it at 0.55 / 0.915."""
    idx = np.flatnonzero(ok)
    widths = np.array([float(np.max((v[i] - v) @ nrm[i])) for i in idx])
    n0 = nrm[idx[int(np.argmin(widths))]]
    axis = np.array([-n0[1], n0[0]])
    t = v @ axis
    off = v @ n0
    mid = 0.5 * (off.max() + off.min()) * n0
    a = mid + (t.min() - rr) * axis
    b = mid + (t.max() + rr) * axis
    if float(np.hypot(*(b - a))) <= 1e-12:
        return a[None, :].copy()
    pts, _ = _line(a, b, spacing, n0)
    return np.ascontiguousarray(np.concatenate([pts, b[None, :]]))


def _polygon_outline(v: NDArray[np.float64], r: float, spacing: float,
                     inset: float, rest: float | None = None,
                     centre_line: bool = False,
                     arc_count: ArcCount | None = None) -> NDArray[np.float64]:
    """Outline of a counter-clockwise polygon with rounding ``r``, moved ``inset`` inwards.

    With ``inset <= r`` that is the same polygon with rounding ``r - inset`` (the arcs keep the
    point count of the full radius, so the spacing seen from outside holds); beyond, the core
    polygon itself shrinks by ``inset - r`` (edges moved in, corners mitred).
    """
    k = len(v)
    d = np.roll(v, -1, axis=0) - v
    ln = np.linalg.norm(d, axis=1)
    ok = ln > 1e-12
    nrm = np.zeros_like(v)
    nrm[ok] = np.column_stack([d[ok, 1], -d[ok, 0]]) / ln[ok, None]
    rr = r - inset
    if rr < 0.0:  # shrink the core: vertex i moves along the bisector of edges i-1 and i
        n_prev = np.roll(nrm, 1, axis=0)
        denom = np.maximum(1.0 + (n_prev * nrm).sum(axis=1), 1e-6)
        v = v + rr * (n_prev + nrm) / denom[:, None]
        rr = 0.0
    if centre_line and ok.any():
        return _centre_line(v, nrm, ok, rr, spacing)
    parts = []
    for i in range(k):
        if not ok[i]:
            continue
        p, q = v[i], v[(i + 1) % k]
        n = nrm[i]
        pts, _ = _line(p + rr * n, q + rr * n, spacing, n)
        parts.append(pts)
        j = (i + 1) % k
        while not ok[j]:
            j = (j + 1) % k
        a0 = math.atan2(n[1], n[0])
        a1 = math.atan2(nrm[j][1], nrm[j][0])
        while a1 < a0:
            a1 += 2.0 * math.pi
        if a1 - a0 <= 1e-9:
            continue
        if rr > 0.0:
            m = _kernel_count(arc_count, rr, a1 - a0) or max(
                1, int(math.ceil((a1 - a0) * arc_count_radius(rr, rest, r) / spacing)))
            t = np.linspace(a0, a1, m, endpoint=False)
            parts.append(q + rr * np.column_stack([np.cos(t), np.sin(t)]))
        elif rest is not None and min(_edge(v, i), _edge(v, j)) >= rest:
            # a sharp corner is an arc of radius 0: its count at the vertex (the next edge's
            # row has one of them there). Without it the fluid wrapped round the corners
            # closer than along the faces: boxes 30 x 16 and 72 x 24 at 0.6 floated at 0.653
            # and 0.625 (with it 0.598, 0.614). Not where a row's edge is shorter than
            # ``rest``: the corners' clusters would overlap (a box 24 x 8, its rows 0.8 apart,
            # rode 0.20-0.25 high with them, 0.05-0.17 without)
            m = int(math.ceil((a1 - a0) * arc_count_radius(0.0, rest, 0.0) / spacing))
            if m > 1:
                parts.append(np.repeat(q[None, :], m - 1, axis=0))
    return np.ascontiguousarray(np.concatenate(parts)) if parts else v.copy()


def contains(g: ShapeGeometry, pts: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Which body-local points lie inside the shape (numpy, set-up time only)."""
    r = g.radius
    if g.kind == CIRCLE:
        return ((pts - g.points[0]) ** 2).sum(axis=1) < r * r
    if g.kind == CAPSULE:
        return _dist_to_segment(pts, g.points[0], g.points[1]) < r
    v = g.points
    k = len(v)
    inside = np.ones(len(pts), bool)
    near = np.zeros(len(pts), bool)
    for i in range(k):
        p, q = v[i], v[(i + 1) % k]
        d = q - p
        cross = d[0] * (pts[:, 1] - p[1]) - d[1] * (pts[:, 0] - p[0])
        inside &= cross >= 0.0
        if r > 0.0:
            near |= _dist_to_segment(pts, p, q) < r
    return inside | near


def _dist_to_segment(pts: NDArray[np.float64], a: NDArray[np.float64],
                     b: NDArray[np.float64]) -> NDArray[np.float64]:
    d = b - a
    l2 = float(d @ d)
    t = np.zeros(len(pts)) if l2 <= 1e-24 else np.clip(((pts - a) @ d) / l2, 0.0, 1.0)
    c = a + t[:, None] * d
    return np.sqrt(((pts - c) ** 2).sum(axis=1))


def local_bounds(g: ShapeGeometry) -> tuple[float, float, float, float]:
    """Body-local bounding box ``(x0, y0, x1, y1)`` of the shape, rounding included."""
    r = g.radius
    lo = g.points.min(axis=0) - r
    hi = g.points.max(axis=0) + r
    return float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])


def interior_points(
    g: ShapeGeometry, spacing: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Grid points inside the shape at ``spacing`` and their areas (summing to the exact area).

    A shape thinner than the grid still gets at least one point (at its centre), so that every
    shape has volume in the pressure grid.
    """
    x0, y0, x1, y1 = local_bounds(g)
    xs = np.arange(x0 + 0.5 * spacing, x1, spacing)
    ys = np.arange(y0 + 0.5 * spacing, y1, spacing)
    if len(xs) and len(ys):
        gx, gy = np.meshgrid(xs, ys)
        pts = np.column_stack([gx.ravel(), gy.ravel()])
        pts = pts[contains(g, pts)]
    else:
        pts = np.zeros((0, 2))
    if len(pts) == 0:
        pts = g.points.mean(axis=0)[None, :]
    area = np.full(len(pts), shape_area(g) / len(pts))
    return pts, area


def push_anchors(g: ShapeGeometry, interior: NDArray[np.float64]) -> NDArray[np.float64]:
    """Where the pressure's push on each interior sample acts for the torque (body-local): the
    circle's centre for a circle, whose pressure all passes through it, else the sample.

    The push is a volume sum of the pressure stage's correction, sampled on the grid; over a
    circle its torque should vanish exactly (``r x n = 0`` all along the surface) but the
    sampled field's grid noise left one that spun a floating ball (tens of degrees in 10 s of
    still water after the ball was put into the pool)."""
    if g.kind == CIRCLE:
        return np.repeat(np.asarray(g.points, np.float64).reshape(-1, 2)[:1], len(interior), 0)
    return np.asarray(interior, np.float64).copy()
