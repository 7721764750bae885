"""Containment kernels: particles put back out of coupled shapes after advection.

A particle that ends a substep inside a shape (or that crossed one during it) is moved to the
shape's surface along the way it came in, and its velocity relative to the shape is bounced or
damped per material. Split from :mod:`fluidworld.coupling.kernels` (the exchange), which
re-exports :func:`shape_bounds` and :func:`contain_particles`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["shape_bounds", "contain_particles"]

@njit(cache=True)
def shape_bounds(kind, vstart, verts, radius, margin, out_box):
    """World bounding box of each shape (vertices already posed), grown by radius + margin."""
    for q in range(kind.shape[0]):
        x0 = 1e300
        y0 = 1e300
        x1 = -1e300
        y1 = -1e300
        for v in range(vstart[q], vstart[q + 1]):
            x0 = min(x0, verts[v, 0])
            y0 = min(y0, verts[v, 1])
            x1 = max(x1, verts[v, 0])
            y1 = max(y1, verts[v, 1])
        r = radius[q] + margin
        out_box[q, 0] = x0 - r
        out_box[q, 1] = y0 - r
        out_box[q, 2] = x1 + r
        out_box[q, 3] = y1 + r


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
    if kind == 0:  # circle
        cx = verts[v0, 0]
        cy = verts[v0, 1]
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
    if kind == 1:  # capsule
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
        ln = math.sqrt(l2)
        if le > 1e-12 and (side_new * side_old < 0.0 or ln <= 1e-12):
            # crossed (or sits on) the core line: out on the side it came from
            s = 1.0 if side_old > 0.0 else -1.0
            if side_old == 0.0:
                s = 1.0 if side_new >= 0.0 else -1.0
            nx_ = -ey / le * s
            ny_ = ex / le * s
        elif ln > 1e-12:
            nx_ = dx / ln
            ny_ = dy / ln
        else:
            nx_ = 0.0
            ny_ = 1.0
        return True, qx + nx_ * (r + eps), qy + ny_ * (r + eps), nx_, ny_
    # convex counter-clockwise polygon with rounding radius r
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
    # outside the core but maybe inside the rounding: nearest point on the boundary
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
def _swept_through(ox, oy, px, py, kind, v0, v1, verts, r, eps):
    """A particle outside the shape at both ends of its move (ox, oy) -> (px, py) that passed
    through it: return (True, the point where it entered pushed out by ``r + eps``, the normal
    there). Circles and capsules are tested against their centre / core line, polygons by
    Cyrus-Beck clipping against the core polygon."""
    dx = px - ox
    dy = py - oy
    if kind == 0:
        cx = verts[v0, 0]
        cy = verts[v0, 1]
        d2 = dx * dx + dy * dy
        if d2 <= 1e-24:
            return False, px, py, 0.0, 0.0
        t = min(max(((cx - ox) * dx + (cy - oy) * dy) / d2, 0.0), 1.0)
        qx = ox + t * dx - cx
        qy = oy + t * dy - cy
        if qx * qx + qy * qy >= r * r:
            return False, px, py, 0.0, 0.0
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
    if kind == 1:
        ax = verts[v0, 0]
        ay = verts[v0, 1]
        ex = verts[v0 + 1, 0] - ax
        ey = verts[v0 + 1, 1] - ay
        den = dx * ey - dy * ex
        if abs(den) <= 1e-18:
            return False, px, py, 0.0, 0.0
        t = ((ax - ox) * ey - (ay - oy) * ex) / den  # along the move
        u = ((ax - ox) * dy - (ay - oy) * dx) / den  # along the core line
        if t < 0.0 or t > 1.0 or u < 0.0 or u > 1.0:
            return False, px, py, 0.0, 0.0
        le = math.sqrt(ex * ex + ey * ey)
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
        if so > 0.0:
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
def contain_particles(pos, vel, mat, n, old_pos, use_old, h_body, mass_table, bounce_table,
                      rest_table, keep_table, width, height, eps, kind, vstart, verts, radius,
                      thick, shape_body, box, margin, active, nb_start, inv_nb, nb_nx, nb_ny,
                      state, out_j, out_tau):
    """Geometric containment: project fluid particles out of every shape they are inside.

    Broad phase: each shape's bounding box ``box`` (grown by ``margin``, the distance particles
    can have moved since they were binned) picks the cells of the fluid's neighbour grid
    (``nb_start`` from the ``bin`` stage of this substep; particles keep their sorted order until
    the next one) whose particles are tested, so the cost follows the shapes, not the particle
    count. A particle outside the shape's own box (``box`` shrunk by ``margin``) cannot be inside
    it and only gets the swept-through test, if it moved far enough.

    A particle inside a shape moves to the nearest surface point plus ``eps``, or out the side it
    came in (see :func:`_push_out`), judged from where it was relative to the shape: at
    ``old_pos`` (if ``use_old``: its position at the start of the substep, before repulsion,
    density shift and advection moved it) or where it is, shifted back by the body's own motion
    over ``h_body``. A particle that went right through a shape in one substep (outside at both
    ends of the move, longer than the shape's thickness ``thick``) is put back where it entered
    (:func:`_swept_through`). The normal part of
    its velocity relative to the surface (``v_body + w x r``) that points inwards is removed
    ("bounce": reflected and scaled by the material's restitution; "adhere": removed and the rest
    scaled by ``1 - adhesion``). The momentum change goes, equal and opposite, to the shape's body
    (``out_j``, ``out_tau`` about its centre of gravity). Returns the number of pushes.
    """
    moved = 0
    lo_x = eps
    lo_y = eps
    hi_x = width - eps
    hi_y = height - eps
    for q in range(kind.shape[0]):
        if not active[q]:
            continue
        bx0 = box[q, 0]
        by0 = box[q, 1]
        bx1 = box[q, 2]
        by1 = box[q, 3]
        i0 = min(max(int(bx0 * inv_nb) - 1, 0), nb_nx - 1)
        j0 = min(max(int(by0 * inv_nb) - 1, 0), nb_ny - 1)
        i1 = min(max(int(bx1 * inv_nb) + 1, 0), nb_nx - 1)
        j1 = min(max(int(by1 * inv_nb) + 1, 0), nb_ny - 1)
        tx0 = bx0 + margin
        ty0 = by0 + margin
        tx1 = bx1 - margin
        ty1 = by1 - margin
        b = shape_body[q]
        w = state[b, 6]
        for cy in range(j0, j1 + 1):
            for cx in range(i0, i1 + 1):
                c = cy * nb_nx + cx
                for p in range(np.uint64(nb_start[c]), np.uint64(min(nb_start[c + 1], n))):
                    px = pos[p, 0]
                    py = pos[p, 1]
                    if px < bx0 or px > bx1 or py < by0 or py > by1:
                        continue
                    ox = old_pos[p, 0] if use_old else px
                    oy = old_pos[p, 1] if use_old else py
                    ox += (state[b, 4] - w * (py - state[b, 8])) * h_body
                    oy += (state[b, 5] + w * (px - state[b, 7])) * h_body
                    hit = False
                    nxp = nyp = nrx = nry = 0.0
                    if tx0 <= px <= tx1 and ty0 <= py <= ty1:  # else not inside the shape
                        hit, nxp, nyp, nrx, nry = _push_out(px, py, ox, oy, kind[q], vstart[q],
                                                            vstart[q + 1], verts, radius[q], eps)
                    if not hit:
                        mx = px - ox
                        my = py - oy
                        if mx * mx + my * my <= thick[q] * thick[q]:
                            continue  # too short a move to have gone through this shape
                        hit, nxp, nyp, nrx, nry = _swept_through(
                            ox, oy, px, py, kind[q], vstart[q], vstart[q + 1], verts,
                            radius[q], eps)
                        if not hit:
                            continue
                    moved += 1
                    px = min(max(nxp, lo_x), hi_x)
                    py = min(max(nyp, lo_y), hi_y)
                    pos[p, 0] = px
                    pos[p, 1] = py
                    rx = px - state[b, 7]
                    ry = py - state[b, 8]
                    vbx = state[b, 4] - w * ry
                    vby = state[b, 5] + w * rx
                    vx = vel[p, 0]
                    vy = vel[p, 1]
                    relx = vx - vbx
                    rely = vy - vby
                    vn = relx * nrx + rely * nry
                    if vn < 0.0:
                        mi = mat[p]
                        if bounce_table[mi]:
                            f = 1.0 + rest_table[mi]
                            relx -= f * vn * nrx
                            rely -= f * vn * nry
                        else:
                            relx = (relx - vn * nrx) * keep_table[mi]
                            rely = (rely - vn * nry) * keep_table[mi]
                        nvx = vbx + relx
                        nvy = vby + rely
                        m = mass_table[mi]
                        jx = -m * (nvx - vx)
                        jy = -m * (nvy - vy)
                        out_j[b, 0] += jx
                        out_j[b, 1] += jy
                        out_tau[b] += rx * jy - ry * jx
                        vel[p, 0] = nvx
                        vel[p, 1] = nvy
    return moved
