"""Point-against-shape tests for containment (numba): one particle against one posed shape.

Shapes are given as in the coupler's flat arrays: ``kind`` 0 circle (centre at ``verts[v0]``),
1 capsule (core segment ``verts[v0]``-``verts[v0 + 1]``), 2 convex counter-clockwise polygon
(``verts[v0:v1]``), each with rounding radius ``r``. Used by
:mod:`fluidworld.coupling.containment`.
"""

from __future__ import annotations

import math

from numba import njit

__all__: list[str] = []


@njit(cache=True)
def _closest_on_segment(px, py, ax, ay, bx, by):
    dx = bx - ax
    dy = by - ay
    l2 = dx * dx + dy * dy
    t = 0.0
    if l2 > 1e-24:
        t = ((px - ax) * dx + (py - ay) * dy) / l2
        t = min(max(t, 0.0), 1.0)
    return ax + t * dx, ay + t * dy


@njit(cache=True, inline="always")
def _edge_normal(verts, v0, k, e):
    """Start point of edge ``e`` of a ``k``-vertex polygon starting at ``v0`` and its outward unit
    normal (counter-clockwise winding); ``ok`` is False for a degenerate edge."""
    ax = verts[v0 + e, 0]
    ay = verts[v0 + e, 1]
    ex = verts[v0 + (e + 1) % k, 0] - ax
    ey = verts[v0 + (e + 1) % k, 1] - ay
    le = math.sqrt(ex * ex + ey * ey)
    if le <= 1e-12:
        return ax, ay, 0.0, 0.0, False
    return ax, ay, ey / le, -ex / le, True


@njit(cache=True)
def _push_out(px, py, ox, oy, kind, v0, v1, verts, r, eps):
    """If (px, py) lies inside the shape, return (True, new point, outward normal).

    ``(ox, oy)`` is where the particle came from (its position a substep ago, relative to the
    shape): a particle that went more than halfway through a thin capsule or polygon leaves
    by the side it entered, not by the nearest one, so nothing tunnels through a thin wall.
    """
    if kind == 0:
        return _push_out_circle(px, py, verts[v0, 0], verts[v0, 1], r, eps)
    if kind == 1:
        return _push_out_capsule(px, py, ox, oy, verts, v0, r, eps)
    return _push_out_polygon(px, py, ox, oy, verts, v0, v1, r, eps)


@njit(cache=True)
def _push_out_circle(px, py, cx, cy, r, eps):
    """:func:`_push_out` for a disc of radius ``r`` at ``c``: out along the radius."""
    dx = px - cx
    dy = py - cy
    l2 = dx * dx + dy * dy
    if l2 >= r * r:
        return False, px, py, 0.0, 0.0
    ln = math.sqrt(l2)
    if ln > 1e-12:
        nx_ = dx / ln
        ny_ = dy / ln
    else:
        nx_ = 0.0
        ny_ = 1.0
    return True, cx + nx_ * (r + eps), cy + ny_ * (r + eps), nx_, ny_


@njit(cache=True)
def _push_out_capsule(px, py, ox, oy, verts, v0, r, eps):
    """:func:`_push_out` for the capsule of radius ``r`` around segment ``verts[v0:v0 + 2]``:
    out from the nearest core point, or on the side it came from if it crossed the core line."""
    ax = verts[v0, 0]
    ay = verts[v0, 1]
    bx = verts[v0 + 1, 0]
    by = verts[v0 + 1, 1]
    qx, qy = _closest_on_segment(px, py, ax, ay, bx, by)
    dx = px - qx
    dy = py - qy
    l2 = dx * dx + dy * dy
    if l2 >= r * r:
        return False, px, py, 0.0, 0.0
    ex = bx - ax
    ey = by - ay
    le = math.sqrt(ex * ex + ey * ey)
    side_new = ex * (py - ay) - ey * (px - ax)
    side_old = ex * (oy - ay) - ey * (ox - ax)
    if le > 1e-12 and (side_new * side_old < 0.0 or math.sqrt(l2) <= 1e-12):
        # crossed (or sits on) the core line: out on the side it came from
        s = 1.0 if side_old > 0.0 else -1.0
        if side_old == 0.0:
            s = 1.0 if side_new >= 0.0 else -1.0
        nx_ = -ey / le * s
        ny_ = ex / le * s
        return True, qx + nx_ * (r + eps), qy + ny_ * (r + eps), nx_, ny_
    return _push_out_circle(px, py, qx, qy, r, eps)  # else out from the nearest core point


@njit(cache=True)
def _push_out_polygon(px, py, ox, oy, verts, v0, v1, r, eps):
    """:func:`_push_out` for the convex counter-clockwise polygon ``verts[v0:v1]`` rounded by
    ``r``: inside the core, out through the edge it came in by (Cyrus-Beck along old -> new) or
    else the nearest edge; in the rounding, out from the nearest boundary point."""
    best = -1e300
    bnx = 0.0
    bny = 1.0
    t_in = -1.0  # Cyrus-Beck: latest entering crossing along old -> new
    enx = 0.0
    eny = 1.0
    esd = 0.0
    k = v1 - v0
    for e in range(k):
        ax, ay, nx_, ny_, ok = _edge_normal(verts, v0, k, e)
        if not ok:
            continue
        sd = nx_ * (px - ax) + ny_ * (py - ay)
        if sd > 0.0 and (r <= 0.0 or sd >= r):
            # outside this edge beyond the rounding: outside the shape (what the full loop
            # below would conclude, since best >= sd); most tested particles leave here
            return False, px, py, 0.0, 0.0
        if sd > best:
            best = sd
            bnx = nx_
            bny = ny_
        sdo = nx_ * (ox - ax) + ny_ * (oy - ay)
        if sdo > 0.0 and sd < sdo:
            t = sdo / (sdo - sd)
            if t > t_in:
                t_in = t
                enx = nx_
                eny = ny_
                esd = sd
    if best <= 0.0:  # inside the core polygon
        if t_in >= 0.0:  # came in through an edge: leave through it
            d = r + eps - esd
            return True, px + enx * d, py + eny * d, enx, eny
        d = r + eps - best  # nearest edge
        return True, px + bnx * d, py + bny * d, bnx, bny
    if r <= 0.0 or best >= r:
        return False, px, py, 0.0, 0.0
    return _push_out_rounding(px, py, verts, v0, k, r, eps)


@njit(cache=True)
def _push_out_rounding(px, py, verts, v0, k, r, eps):
    """:func:`_push_out_polygon` for a point outside the core polygon (``k`` vertices from
    ``v0``) but maybe within ``r`` of it: out from the nearest boundary point."""
    dmin = 1e300
    qbx = px
    qby = py
    for e in range(k):
        ax = verts[v0 + e, 0]
        ay = verts[v0 + e, 1]
        bx = verts[v0 + (e + 1) % k, 0]
        by = verts[v0 + (e + 1) % k, 1]
        qx, qy = _closest_on_segment(px, py, ax, ay, bx, by)
        d2 = (px - qx) ** 2 + (py - qy) ** 2
        if d2 < dmin:
            dmin = d2
            qbx = qx
            qby = qy
    if dmin >= r * r:
        return False, px, py, 0.0, 0.0
    ln = math.sqrt(dmin)
    nx_ = (px - qbx) / ln
    ny_ = (py - qby) / ln
    return True, qbx + nx_ * (r + eps), qby + ny_ * (r + eps), nx_, ny_


@njit(cache=True)
def _swept_circle(ox, oy, px, py, cx, cy, r, eps):
    """:func:`_swept_through` for a disc of radius ``r`` at ``c``: a move that starts outside it
    and passes it returns (True, where it entered pushed out by ``eps``, the normal there)."""
    dx = px - ox
    dy = py - oy
    d2 = dx * dx + dy * dy
    if d2 <= 1e-24:
        return False, px, py, 0.0, 0.0
    t = min(max(((cx - ox) * dx + (cy - oy) * dy) / d2, 0.0), 1.0)
    qx = ox + t * dx - cx
    qy = oy + t * dy - cy
    if qx * qx + qy * qy >= r * r or (ox - cx) ** 2 + (oy - cy) ** 2 < r * r:
        return False, px, py, 0.0, 0.0  # missed it, or started inside (not a sweep)
    # first crossing of the circle: |o - c + s d| = r, smallest s
    fx = ox - cx
    fy = oy - cy
    bq = fx * dx + fy * dy
    cq = fx * fx + fy * fy - r * r
    disc = max(bq * bq - d2 * cq, 0.0)
    s = (-bq - math.sqrt(disc)) / d2
    ex = fx + s * dx
    ey = fy + s * dy
    ln = math.sqrt(ex * ex + ey * ey)
    nx_ = ex / ln if ln > 1e-12 else 0.0
    ny_ = ey / ln if ln > 1e-12 else 1.0
    return True, cx + nx_ * (r + eps), cy + ny_ * (r + eps), nx_, ny_


@njit(cache=True)
def _swept_caps(ox, oy, px, py, verts, v0, r, eps):
    """A move that passes a capsule's round end without crossing its core line (it cut the
    corner of a joint where the capsule meets another wall): :func:`_swept_circle` on the end
    it meets first."""
    hit, qx, qy, nx_, ny_ = _swept_circle(ox, oy, px, py, verts[v0, 0], verts[v0, 1], r, eps)
    hit2, qx2, qy2, nx2, ny2 = _swept_circle(ox, oy, px, py, verts[v0 + 1, 0],
                                              verts[v0 + 1, 1], r, eps)
    if hit2 and (not hit or (qx2 - ox) ** 2 + (qy2 - oy) ** 2 < (qx - ox) ** 2 + (qy - oy) ** 2):
        return hit2, qx2, qy2, nx2, ny2
    return hit, qx, qy, nx_, ny_


@njit(cache=True)
def _swept_through(ox, oy, px, py, kind, v0, v1, verts, r, eps):
    """A particle outside the shape at both ends of its move (ox, oy) -> (px, py) that passed
    through it: return (True, the point where it entered pushed out by ``r + eps``, the normal
    there). Circles and capsules are tested against their centre / core line (a capsule's
    round ends as circles: a move that cuts the corner where it meets another wall), polygons
    by Cyrus-Beck clipping against the core polygon (a move from a point on an edge inwards
    enters there)."""
    dx = px - ox
    dy = py - oy
    if kind == 0:
        return _swept_circle(ox, oy, px, py, verts[v0, 0], verts[v0, 1], r, eps)
    if kind == 1:
        ax = verts[v0, 0]
        ay = verts[v0, 1]
        ex = verts[v0 + 1, 0] - ax
        ey = verts[v0 + 1, 1] - ay
        den = dx * ey - dy * ex
        if abs(den) <= 1e-18:
            return _swept_caps(ox, oy, px, py, verts, v0, r, eps)
        t = ((ax - ox) * ey - (ay - oy) * ex) / den  # along the move
        u = ((ax - ox) * dy - (ay - oy) * dx) / den  # along the core line
        le = math.sqrt(ex * ex + ey * ey)
        tol = 1e-6 / le  # two walls that share an end leave no gap at the joint
        if t < 0.0 or t > 1.0 or u < -tol or u > 1.0 + tol:
            return _swept_caps(ox, oy, px, py, verts, v0, r, eps)
        sgn = 1.0 if ex * (oy - ay) - ey * (ox - ax) > 0.0 else -1.0
        nx_ = -ey / le * sgn
        ny_ = ex / le * sgn
        qx = ax + u * ex
        qy = ay + u * ey
        return True, qx + nx_ * (r + eps), qy + ny_ * (r + eps), nx_, ny_
    k = v1 - v0
    t_in = -1.0
    t_out = 2.0
    inx = 0.0
    iny = 1.0
    for e in range(k):
        ax, ay, nx_, ny_, ok = _edge_normal(verts, v0, k, e)
        if not ok:
            continue
        so = nx_ * (ox - ax) + ny_ * (oy - ay)
        sp = nx_ * (px - ax) + ny_ * (py - ay)
        if so > 0.0 and sp > 0.0:
            return False, px, py, 0.0, 0.0
        if so >= 0.0 and sp < 0.0:  # entering (from on the edge too: pushes put particles there)
            t = so / (so - sp)
            if t > t_in:
                t_in = t
                inx = nx_
                iny = ny_
        elif sp > 0.0:
            t = so / (so - sp)
            t_out = min(t_out, t)
    if t_in < 0.0 or t_in > t_out:
        return False, px, py, 0.0, 0.0
    qx = ox + t_in * dx + inx * (r + eps)
    qy = oy + t_in * dy + iny * (r + eps)
    return True, qx, qy, inx, iny


@njit(cache=True)
def _wall_crossing(ax, ay, px, py, kind, v0, v1, verts, r):
    """First point where the move a -> p passes a wall's barrier: the core segment of a capsule
    (its ends stretched by 1e-6 so that two walls sharing an end leave no gap at the joint),
    the core polygon, or the disc of a circle. Returns (True, t along the move, normal towards
    ``a``'s side); a move that starts on or inside the barrier does not count."""
    dx = px - ax
    dy = py - ay
    if kind == 1:
        sx = verts[v0, 0]
        sy = verts[v0, 1]
        ex = verts[v0 + 1, 0] - sx
        ey = verts[v0 + 1, 1] - sy
        le = math.sqrt(ex * ex + ey * ey)
        side_a = ex * (ay - sy) - ey * (ax - sx)
        side_p = ex * (py - sy) - ey * (px - sx)
        if le <= 1e-12 or side_a == 0.0 or side_a * side_p > 0.0:
            return False, 2.0, 0.0, 0.0
        den = dx * ey - dy * ex
        if abs(den) <= 1e-300:
            return False, 2.0, 0.0, 0.0
        t = ((sx - ax) * ey - (sy - ay) * ex) / den
        u = ((sx - ax) * dy - (sy - ay) * dx) / den
        tol = 1e-6 / le
        if t < 0.0 or t > 1.0 or u < -tol or u > 1.0 + tol:
            return False, 2.0, 0.0, 0.0
        s = 1.0 if side_a > 0.0 else -1.0
        return True, t, -ey / le * s, ex / le * s
    if kind == 0:
        if r <= 0.0:
            return False, 2.0, 0.0, 0.0
        fx = ax - verts[v0, 0]
        fy = ay - verts[v0, 1]
        cq = fx * fx + fy * fy - r * r
        d2 = dx * dx + dy * dy
        if cq <= 0.0 or d2 <= 1e-24:
            return False, 2.0, 0.0, 0.0
        bq = fx * dx + fy * dy
        disc = bq * bq - d2 * cq
        if bq >= 0.0 or disc < 0.0:
            return False, 2.0, 0.0, 0.0
        t = (-bq - math.sqrt(disc)) / d2
        if t > 1.0:
            return False, 2.0, 0.0, 0.0
        nx_ = fx + t * dx
        ny_ = fy + t * dy
        ln = math.sqrt(nx_ * nx_ + ny_ * ny_)
        return True, t, nx_ / ln, ny_ / ln
    k = v1 - v0
    t_in = -1.0
    t_out = 2.0
    inx = 0.0
    iny = 1.0
    for e in range(k):
        ex0, ey0, nx_, ny_, ok = _edge_normal(verts, v0, k, e)
        if not ok:
            continue
        sa = nx_ * (ax - ex0) + ny_ * (ay - ey0)
        sp = nx_ * (px - ex0) + ny_ * (py - ey0)
        if sa > 0.0 and sp > 0.0:
            return False, 2.0, 0.0, 0.0
        if sa > 0.0:
            t = sa / (sa - sp)
            if t > t_in:
                t_in = t
                inx = nx_
                iny = ny_
        elif sp > 0.0:
            t_out = min(t_out, sa / (sa - sp))
    if t_in < 0.0 or t_in > t_out:
        return False, 2.0, 0.0, 0.0
    return True, t_in, inx, iny


@njit(cache=True, inline="always")
def _cross(ax, ay, bx, by, cx, cy):
    """``(b - a) x (c - a)``: its sign says on which side of the line a -> b ``c`` lies."""
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


@njit(cache=True)
def _segment_gap(ax, ay, bx, by, cx, cy, dx, dy):
    """Distance between the segments a-b and c-d (0 where they cross)."""
    d1 = _cross(cx, cy, dx, dy, ax, ay)
    d2 = _cross(cx, cy, dx, dy, bx, by)
    d3 = _cross(ax, ay, bx, by, cx, cy)
    d4 = _cross(ax, ay, bx, by, dx, dy)
    if d1 * d2 < 0.0 and d3 * d4 < 0.0:
        return 0.0
    best = 1e300
    for px, py, sx, sy, ex, ey in ((ax, ay, cx, cy, dx, dy), (bx, by, cx, cy, dx, dy),
                                   (cx, cy, ax, ay, bx, by), (dx, dy, ax, ay, bx, by)):
        qx, qy = _closest_on_segment(px, py, sx, sy, ex, ey)
        best = min(best, math.hypot(px - qx, py - qy))
    return best


@njit(cache=True)
def _segment_meets(ax, ay, bx, by, kind, v0, v1, verts, r):
    """Whether the segment a-b meets the shape (its core grown by ``r``): touches it or passes
    through it, or an end lies inside it."""
    if kind == 0:
        qx, qy = _closest_on_segment(verts[v0, 0], verts[v0, 1], ax, ay, bx, by)
        return math.hypot(verts[v0, 0] - qx, verts[v0, 1] - qy) <= r
    if kind == 1:
        return _segment_gap(ax, ay, bx, by, verts[v0, 0], verts[v0, 1], verts[v0 + 1, 0],
                            verts[v0 + 1, 1]) <= r
    k = v1 - v0
    inside = True
    for e in range(k):
        ex0, ey0, nx_, ny_, ok = _edge_normal(verts, v0, k, e)
        if ok and nx_ * (ax - ex0) + ny_ * (ay - ey0) > 0.0:
            inside = False
    if inside:
        return True
    for e in range(k):
        f = v0 + (e + 1) % k
        if _segment_gap(ax, ay, bx, by, verts[v0 + e, 0], verts[v0 + e, 1], verts[f, 0],
                        verts[f, 1]) <= r:
            return True
    return False
