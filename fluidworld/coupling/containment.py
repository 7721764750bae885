"""Containment kernels: particles put back out of coupled shapes after advection.

A particle that ends a substep inside a shape (or that crossed one during it) is moved to the
shape's surface along the way it came in, and its velocity relative to the shape is bounced or
damped per material. Particles that were moved are tested again against every shape, and no
particle ends past a wall (a shape that does not move) it started on the right side of; one
squeezed between a moving body and a wall leaves the body sideways. Split from
:mod:`fluidworld.coupling.kernels` (the exchange), which re-exports :func:`shape_bounds` and
:func:`contain_particles`; the one-particle, one-shape tests are in
:mod:`fluidworld.coupling.shapetests`.

The kernels take the coupling's grouped arrays (tuples, unpacked on the kernels' first lines;
the layouts are those of :mod:`fluidworld.coupling.kernels`, which documents them):

* ``fluid``: ``(pos, vel, mat, n, start_pos, cell_of)``, the particles;
* ``mats``: ``(mass, bounce, rest, keep, rho)``, per-material tables;
* ``shapes``: ``(kind, vstart, verts, radius, thick, body, box, active, wall, vlocal, vowner,
  vvel)``, the posed shapes (``box`` grown by the margin, ``wall`` scratch);
* ``bodies``: ``(state, dynamic, levels, kick_levels, box, prof, out_j, out_tau,
  submerged)``, per-body state and impulse accumulators;
* ``bins``: ``(nb_start, inv_nb, nb_nx, nb_ny)``, the fluid's neighbour grid;
* ``scratch`` (containment's own): ``(hits, hit_flag, anchor)``;
* ``params`` (containment's own): ``(use_old, h_body, width, height, eps, margin, reach,
  rounds, scan_reach)``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .cut_cells import _still_body
from .shapetests import _edge_normal, _push_out, _swept_through, _wall_crossing

__all__ = ["shape_bounds", "contain_particles", "max_displacement", "max_displacement_parallel"]


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


@njit(cache=True, fastmath=True)
def _max_displacement_range(pos, start, i0, i1):
    d = 0.0
    for i in range(i0, i1):
        d = max(d, abs(pos[i, 0] - start[i, 0]))
        d = max(d, abs(pos[i, 1] - start[i, 1]))
    return d


@njit(cache=True)
def max_displacement(pos, start, n):
    """Largest coordinate change ``max |pos - start|`` (per axis) over the first ``n`` particles:
    how far any particle can be from the cell it was binned in (a maximum, so neither
    ``fastmath``'s reordering nor the parallel variant's chunks can change it; positions are
    finite)."""
    return _max_displacement_range(pos, start, 0, n)


@njit(cache=True, parallel=True)
def max_displacement_parallel(pos, start, n):
    """:func:`max_displacement` over chunks in parallel (the same value: a maximum)."""
    chunk = 8192
    nchunk = (n + chunk - 1) // chunk
    out = np.zeros(max(nchunk, 1))
    for t in prange(nchunk):
        out[t] = _max_displacement_range(pos, start, t * chunk, min(n, (t + 1) * chunk))
    return out.max()


@njit(cache=True, inline="always")
def _origin(p, b, px, py, anchor_x, anchor_y, h_body, state):
    """Where the particle came from, seen from body ``b``: ``anchor`` moved back by the body's
    own motion over ``h_body`` (the body moved on since)."""
    w = state[b, 6]
    ox = anchor_x + (state[b, 4] - w * (py - state[b, 8])) * h_body
    oy = anchor_y + (state[b, 5] + w * (px - state[b, 7])) * h_body
    return ox, oy


@njit(cache=True)
def _hit_shape(px, py, ox, oy, q, shapes, eps, margin):
    """Test one particle (now at ``p``, from ``o``) against shape ``q``: inside it (pushed out)
    or swept right through it (put back where it entered). ``box`` is grown by ``margin``."""
    kind, vstart, verts, radius, thick, shape_body, box, active, wall, vlocal, vowner, vvel = (
        shapes)
    x0 = box[q, 0] + margin
    y0 = box[q, 1] + margin
    x1 = box[q, 2] - margin
    y1 = box[q, 3] - margin
    if max(px, ox) < x0 or min(px, ox) > x1 or max(py, oy) < y0 or min(py, oy) > y1:
        return False, px, py, 0.0, 0.0  # the move's box misses the shape's
    hit = False
    nxp = nyp = nrx = nry = 0.0
    if x0 <= px <= x1 and y0 <= py <= y1:  # else not inside the shape
        hit, nxp, nyp, nrx, nry = _push_out(px, py, ox, oy, kind[q], vstart[q], vstart[q + 1],
                                            verts, radius[q], eps)
    if not hit:
        mx = px - ox
        my = py - oy
        if mx * mx + my * my <= thick[q] * thick[q] and not wall[q]:
            return False, px, py, 0.0, 0.0  # too short a move to have gone through it
        hit, nxp, nyp, nrx, nry = _swept_through(ox, oy, px, py, kind[q], vstart[q],
                                                 vstart[q + 1], verts, radius[q], eps)
    return hit, nxp, nyp, nrx, nry


@njit(cache=True, inline="always")
def _settle_velocity(p, b, px, py, nrx, nry, fluid, mats, bodies):
    """Remove (bounce/adhere) the particle's velocity into a surface of body ``b`` with outward
    normal ``n`` at ``p``; the momentum change goes to the body."""
    pos, vel, mat, n, start_pos, cell_of = fluid
    mass_table, bounce_table, rest_table, keep_table, rho_table = mats
    state, dynamic, levels, kick_levels, body_box, prof, out_j, out_tau, submerged = bodies
    w = state[b, 6]
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


@njit(cache=True)
def _first_wall(ax, ay, px, py, shapes, margin, skip=-1):
    """The first wall barrier that the move a -> p passes (-1 if none), where and its normal;
    shape ``skip`` is not looked at."""
    kind, vstart, verts, radius, thick, shape_body, box, active, wall, vlocal, vowner, vvel = (
        shapes)
    best = 2.0
    hit_q = -1
    bnx = bny = 0.0
    for q in range(kind.shape[0]):
        if not wall[q] or q == skip:
            continue
        if (max(px, ax) < box[q, 0] + margin or min(px, ax) > box[q, 2] - margin
                or max(py, ay) < box[q, 1] + margin or min(py, ay) > box[q, 3] - margin):
            continue
        hit, t, nx_, ny_ = _wall_crossing(ax, ay, px, py, kind[q], vstart[q], vstart[q + 1],
                                          verts, radius[q])
        if hit and t < best:
            best = t
            hit_q = q
            bnx = nx_
            bny = ny_
    return hit_q, best, bnx, bny


@njit(cache=True)
def _in_barrier(x, y, shapes, margin):
    """Whether ``(x, y)`` lies inside a wall's barrier (:func:`_wall_crossing`: the core
    polygon, or the disc of a circle; a capsule's core segment has no inside)."""
    kind, vstart, verts, radius, thick, shape_body, box, active, wall, vlocal, vowner, vvel = (
        shapes)
    for q in range(kind.shape[0]):
        if not wall[q] or kind[q] == 1:
            continue
        if not (box[q, 0] + margin < x < box[q, 2] - margin
                and box[q, 1] + margin < y < box[q, 3] - margin):
            continue
        v0 = vstart[q]
        if kind[q] == 0:
            dx = x - verts[v0, 0]
            dy = y - verts[v0, 1]
            if dx * dx + dy * dy < radius[q] * radius[q]:
                return True
            continue
        k = vstart[q + 1] - v0
        inside = True
        for e in range(k):
            ex0, ey0, nx_, ny_, ok = _edge_normal(verts, v0, k, e)
            if ok and nx_ * (x - ex0) + ny_ * (y - ey0) >= 0.0:
                inside = False
                break
        if inside:
            return True
    return False


@njit(cache=True)
def _guard_walls(p, ax, ay, fluid, mats, shapes, bodies, eps, margin):
    """Hold the walls: if the particle's whole move from ``a`` (where it was on the right side
    of every wall) passes a wall, it stops ``eps`` short of the first one, off the barrier on
    ``a``'s side, and loses its velocity into that wall; if even that point is past a wall
    (a tight corner), it goes back to ``a``. A particle that was inside a wall's barrier at
    ``a`` (walls put onto water) had no right side to keep: it is left where the pushes put it
    (held at the barrier of a second wall that touches the first, it stayed inside them).
    Returns whether it was moved."""
    pos, vel, mat, n, start_pos, cell_of = fluid
    kind, vstart, verts, radius, thick, shape_body, box, active, wall, vlocal, vowner, vvel = (
        shapes)
    px = pos[p, 0]
    py = pos[p, 1]
    q, t, nx_, ny_ = _first_wall(ax, ay, px, py, shapes, margin)
    if q < 0 or _in_barrier(ax, ay, shapes, margin):
        return False
    cx = ax + t * (px - ax) + eps * nx_
    cy = ay + t * (py - ay) + eps * ny_
    q2, _, _, _ = _first_wall(ax, ay, cx, cy, shapes, margin)
    if q2 >= 0:
        cx = ax
        cy = ay
    pos[p, 0] = cx
    pos[p, 1] = cy
    _settle_velocity(p, shape_body[q], cx, cy, nx_, ny_, fluid, mats, bodies)
    return True


@njit(cache=True)
def _blocked(px, py, bx, by, shapes, eps, margin, hi_x, hi_y, own, skip):
    """Whether the move p -> b passes a wall, ends inside one or inside another body's shape
    (``others``: the ``active`` shapes, those of body ``own`` left out), or leaves
    ``[eps, hi]``; shape ``skip`` (the one the particle leaves) is not looked at."""
    if bx < eps or by < eps or bx > hi_x or by > hi_y:
        return True
    w, _, _, _ = _first_wall(px, py, bx, by, shapes, margin, skip)
    if w >= 0:
        return True
    return _inside_any(bx, by, shapes, eps, margin, hi_x, hi_y, own, skip)


@njit(cache=True)
def _free_exit(px, py, q, shapes, eps, margin, hi_x, hi_y, own):
    """Out of shape ``q`` by a way not blocked by a wall or another body's shape
    (:func:`_blocked`, the shapes of body ``own`` left out; -1: every other shape blocks): a
    polygon through its shallowest such edge, a circle at the nearest such point of its
    surface, so that a particle squeezed between a body and a wall, or between two bodies, or
    caught in the seam of two shapes of one body, leaves sideways. Returns (True, point,
    normal), or False where every way out is blocked (or the shape is a capsule)."""
    kind, vstart, verts, radius, thick, shape_body, box, active, wall, vlocal, vowner, vvel = (
        shapes)
    if kind[q] == 0:  # a circle: the nearest free point of its surface, 7.5 degrees apart
        cx = verts[vstart[q], 0]
        cy = verts[vstart[q], 1]
        base = math.atan2(py - cy, px - cx)
        rr = radius[q] + eps
        for k in range(1, 25):
            for sgn in (1.0, -1.0):
                a = base + sgn * k * (math.pi / 24.0)
                nx_ = math.cos(a)
                ny_ = math.sin(a)
                bx = cx + rr * nx_
                by = cy + rr * ny_
                if not _blocked(px, py, bx, by, shapes, eps, margin, hi_x, hi_y, own, q):
                    return True, bx, by, nx_, ny_
        return False, px, py, 0.0, 0.0
    if kind[q] != 2:
        return False, px, py, 0.0, 0.0
    v0 = vstart[q]
    k = vstart[q + 1] - v0
    r = radius[q]
    tried = 0.0
    for _ in range(k):  # edges by depth, shallowest first
        best = -1e300
        bx = by = bnx = bny = 0.0
        for e in range(k):
            ax, ay, nx_, ny_, ok = _edge_normal(verts, v0, k, e)
            if not ok:
                continue
            sd = nx_ * (px - ax) + ny_ * (py - ay)
            if sd > best and (tried == 0.0 or sd < tried):
                best = sd
                d = r + eps - sd
                bx = px + nx_ * d
                by = py + ny_ * d
                bnx = nx_
                bny = ny_
        if best <= -1e300:
            break
        tried = best
        if not _blocked(px, py, bx, by, shapes, eps, margin, hi_x, hi_y, own, q):
            return True, bx, by, bnx, bny
    return False, px, py, 0.0, 0.0


#: :func:`_union_exit`'s directions and step (in ``eps``) and how many steps it takes at most.
_UNION_DIRECTIONS = 32
_UNION_STEP = 5.0
_UNION_STEPS = 400


@njit(cache=True)
def _inside_any(x, y, shapes, eps, margin, hi_x, hi_y, own=-1, skip=-1):
    """Whether ``(x, y)`` lies outside ``[eps, hi]`` or inside a wall or a shape of another
    body (the ``active`` shapes, those of body ``own`` left out); shape ``skip`` is not looked
    at."""
    kind, vstart, verts, radius, thick, shape_body, box, active, wall, vlocal, vowner, vvel = (
        shapes)
    if x < eps or y < eps or x > hi_x or y > hi_y:
        return True
    for q in range(kind.shape[0]):
        if q == skip or not (wall[q] or (active[q] and shape_body[q] != own)):
            continue
        if not (box[q, 0] + margin <= x <= box[q, 2] - margin
                and box[q, 1] + margin <= y <= box[q, 3] - margin):
            continue
        hit, _, _, _, _ = _push_out(x, y, x, y, kind[q], vstart[q], vstart[q + 1], verts,
                                    radius[q], eps)
        if hit:
            return True
    return False


@njit(cache=True)
def _union_exit(px, py, shapes, eps, margin, hi_x, hi_y):
    """Out of a wall made of several parts when every part's own way out ends in another
    (:func:`_free_exit` failed: the particle lies deep in a concave wall put onto water, where
    the parts meet): the nearest point outside every shape, searched along
    :data:`_UNION_DIRECTIONS` directions in steps of ``_UNION_STEP * eps``, the first direction
    (counter-clockwise from +x) at the first distance that has one; a way that passes no wall's
    barrier (:func:`_first_wall`, which the wall guard would undo) first, else any. Returns
    (True, point, direction) or False if none is within ``_UNION_STEPS`` steps."""
    step = _UNION_STEP * eps
    for through in range(2):
        for k in range(1, _UNION_STEPS + 1):
            d = k * step
            for m in range(_UNION_DIRECTIONS):
                a = 2.0 * math.pi * m / _UNION_DIRECTIONS
                ux = math.cos(a)
                uy = math.sin(a)
                bx = px + d * ux
                by = py + d * uy
                if _inside_any(bx, by, shapes, eps, margin, hi_x, hi_y):
                    continue
                if through or _first_wall(px, py, bx, by, shapes, margin)[0] < 0:
                    return True, bx, by, ux, uy
    return False, px, py, 0.0, 0.0


@njit(cache=True, inline="always")
def _search_grow(q, b, grow, h_body, box, state):
    """How much further than ``box`` (already grown by the margin) a particle of shape ``q`` can
    be: ``grow`` plus, if the body moved since (``h_body``), as far as its surface moved."""
    if h_body <= 0.0:
        return grow
    ext = max(box[q, 2] - box[q, 0], box[q, 3] - box[q, 1])
    return grow + (abs(state[b, 4]) + abs(state[b, 5]) + abs(state[b, 6]) * ext) * h_body


@njit(cache=True)
def contain_particles(fluid, mats, shapes, bodies, bins, scratch, params):
    """Geometric containment: project fluid particles out of every shape they are inside, and
    never let one past a wall.

    **Pass 1, shape by shape.** Broad phase: each shape's bounding box (``box``, grown by
    ``margin``; the shape's own box is ``box`` shrunk by ``margin``) grown to ``reach`` (at least
    the distance any particle has moved since it was binned, :func:`max_displacement`) picks
    the cells of the fluid's neighbour grid (``nb_start`` from the ``bin`` stage of this
    substep; particles keep their sorted order until the next one) whose particles are tested,
    so the cost follows the shapes, not the particle count. Pass 1 scans the cells within
    ``scan_reach`` of the shape's own box (with ``use_old``: the largest move since the sort,
    which is all a particle needs to have met the shape; else ``reach``). A particle whose move
    misses the shape's own box is skipped; one outside that box only gets the swept-through
    test.

    A particle inside a shape moves to the nearest surface point plus ``eps``, or out the side it
    came in (see :func:`_push_out`), judged from where it was relative to the shape: at
    ``old_pos`` (if ``use_old``: its position at the start of the substep, before repulsion,
    density shift and advection moved it) or where it is, shifted back by the body's own motion
    over ``h_body``. A particle that went right through a shape in one substep (outside at both
    ends of the move, longer than the shape's thickness ``thick``) is put back where it entered
    (:func:`_swept_through`). The normal part of its velocity relative to the surface
    (``v_body + w x r``) that points inwards is removed ("bounce": reflected and scaled by the
    material's restitution; "adhere": removed and the rest scaled by ``1 - adhesion``). The
    momentum change goes, equal and opposite, to the shape's body (``out_j``, ``out_tau`` about
    its centre of gravity).

    **Then particle by particle**, for the particles pass 1 moved (listed in ``hits``, with
    ``hit_flag`` as scratch, cleared again, and ``anchor`` their positions before it): a push
    out of one shape can land in another (two walls at a joint, a particle squeezed between a
    ball and the floor), so up to ``rounds`` rounds test each against every shape again, walls
    (``wall``, scratch: shapes of bodies that are not ``dynamic`` and do not move) last, and
    after each round
    :func:`_guard_walls` makes sure that the move from the anchor passes no wall. Returns
    ``(pushes, particles moved, largest coordinate distance of a moved particle from old_pos)``
    (the last 0 unless ``use_old``).

    The groups are those of the module docstring (``old_pos`` is ``fluid``'s ``start_pos``).
    """
    kind, wall, active, shape_body = shapes[0], shapes[8], shapes[7], shapes[5]
    state, dynamic = bodies[0], bodies[1]
    hits, hit_flag, anchor = scratch
    use_old = params[0]
    old_pos = fluid[4]
    moved = 0
    nh = 0
    for q in range(kind.shape[0]):
        wall[q] = _still_body(shape_body[q], dynamic, state)
    for q in range(kind.shape[0]):
        if active[q]:
            pushes, nh = _shape_pass(q, nh, fluid, mats, shapes, bodies, bins, scratch, params)
            moved += pushes
    for k in range(nh):
        p = hits[k]
        hit_flag[p] = 0
        moved += _recheck(p, anchor[k, 0], anchor[k, 1], fluid, mats, shapes, bodies, params)
    far = 0.0  # how far the moved particles now are from where they were binned
    if use_old:
        for k in range(nh):
            p = hits[k]
            far = max(far, abs(fluid[0][p, 0] - old_pos[p, 0]),
                      abs(fluid[0][p, 1] - old_pos[p, 1]))
    return moved, nh, far


@njit(cache=True)
def _shape_pass(q, nh, fluid, mats, shapes, bodies, bins, scratch, params):
    """Pass 1 of :func:`contain_particles` for shape ``q``: the particles of the grid cells
    near it put out of it (or back where they went through it), each recorded once in
    ``scratch`` (``nh`` recorded so far). Returns ``(pushes, nh)``."""
    pos, vel, mat, n, old_pos, cell_of = fluid
    kind, vstart, verts, radius, thick, shape_body, box, active, wall, vlocal, vowner, vvel = (
        shapes)
    state = bodies[0]
    nb_start, inv_nb, nb_nx, nb_ny = bins
    hits, hit_flag, anchor = scratch
    use_old, h_body, width, height, eps, margin, reach, rounds, scan_reach = params
    b = shape_body[q]
    gq = _search_grow(q, b, scan_reach - margin, h_body, box, state)  # see the docstring
    tx0 = box[q, 0] + margin  # the shape's own box
    ty0 = box[q, 1] + margin
    tx1 = box[q, 2] - margin
    ty1 = box[q, 3] - margin
    sx0 = box[q, 0] - gq
    sy0 = box[q, 1] - gq
    sx1 = box[q, 2] + gq
    sy1 = box[q, 3] + gq
    i0 = min(max(int(sx0 * inv_nb) - 1, 0), nb_nx - 1)
    j0 = min(max(int(sy0 * inv_nb) - 1, 0), nb_ny - 1)
    i1 = min(max(int(sx1 * inv_nb) + 1, 0), nb_nx - 1)
    j1 = min(max(int(sy1 * inv_nb) + 1, 0), nb_ny - 1)
    moved = 0
    for cy in range(j0, j1 + 1):
        for cx in range(i0, i1 + 1):
            c = cy * nb_nx + cx
            for p in range(np.uint64(nb_start[c]), np.uint64(min(nb_start[c + 1], n))):
                px = pos[p, 0]
                py = pos[p, 1]
                if px < sx0 or px > sx1 or py < sy0 or py > sy1:
                    continue  # its move (at most the reach) cannot meet the shape's box
                ax = old_pos[p, 0] if use_old else px
                ay = old_pos[p, 1] if use_old else py
                ox, oy = _origin(p, b, px, py, ax, ay, h_body, state)
                if max(px, ox) < tx0 or min(px, ox) > tx1 or max(py, oy) < ty0 or (
                        min(py, oy) > ty1):
                    continue  # the move's box misses the shape's own
                hit = False
                nxp = nyp = nrx = nry = 0.0
                if tx0 <= px <= tx1 and ty0 <= py <= ty1:  # else not inside the shape
                    hit, nxp, nyp, nrx, nry = _push_out(px, py, ox, oy, kind[q], vstart[q],
                                                        vstart[q + 1], verts, radius[q], eps)
                if not hit:
                    mx = px - ox
                    my = py - oy
                    if mx * mx + my * my <= thick[q] * thick[q] and not wall[q]:
                        # too short a move to have gone through this body's shape; a wall's
                        # corner is cut by any move (where two walls meet, the far side of
                        # that corner is outside the container)
                        continue
                    hit, nxp, nyp, nrx, nry = _swept_through(ox, oy, px, py, kind[q],
                                                             vstart[q], vstart[q + 1], verts,
                                                             radius[q], eps)
                    if not hit:
                        continue
                moved += 1
                if not hit_flag[p]:
                    hit_flag[p] = 1
                    hits[nh] = p
                    anchor[nh, 0] = ax
                    anchor[nh, 1] = ay
                    nh += 1
                _place(p, b, nxp, nyp, nrx, nry, fluid, mats, bodies, params)
    return moved, nh


@njit(cache=True, inline="always")
def _place(p, b, x, y, nrx, nry, fluid, mats, bodies, params):
    """Put particle ``p`` at ``(x, y)`` kept ``eps`` inside the domain, and settle its
    velocity against body ``b``'s surface (normal ``(nrx, nry)``)."""
    eps, width, height = params[4], params[2], params[3]
    px = min(max(x, eps), width - eps)
    py = min(max(y, eps), height - eps)
    fluid[0][p, 0] = px
    fluid[0][p, 1] = py
    _settle_velocity(p, b, px, py, nrx, nry, fluid, mats, bodies)


@njit(cache=True)
def _recheck(p, ax, ay, fluid, mats, shapes, bodies, params):
    """The rounds of :func:`contain_particles` for a particle pass 1 moved (anchored at
    ``(ax, ay)``): tested against every shape, moving bodies first and walls last, until a
    round moves it no more; after each round no wall may lie between it and the anchor.
    Returns how many pushes it took."""
    kind, active, wall = shapes[0], shapes[7], shapes[8]
    eps, margin, rounds = params[4], params[5], params[7]
    moved = 0
    for rnd in range(rounds):
        again = False
        for pass_walls in range(2):  # moving bodies first, then the walls
            for q in range(kind.shape[0]):
                if active[q] and wall[q] == (pass_walls == 1):
                    if _push_from(p, q, ax, ay, rnd, fluid, mats, shapes, bodies, params):
                        moved += 1
                        again = True
        if _guard_walls(p, ax, ay, fluid, mats, shapes, bodies, eps, margin):
            moved += 1
            again = True
        if not again:
            break
    return moved


@njit(cache=True)
def _push_from(p, q, ax, ay, rnd, fluid, mats, shapes, bodies, params):
    """One test of :func:`_recheck`: particle ``p`` put out of shape ``q`` if inside it
    (round ``rnd``), not into another shape where it can help it. Returns whether it moved."""
    pos = fluid[0]
    box, wall, shape_body = shapes[6], shapes[8], shapes[5]
    state = bodies[0]
    h_body, width, height, eps, margin, reach = params[1:7]
    lo_x = lo_y = eps
    hi_x = width - eps
    hi_y = height - eps
    px = pos[p, 0]
    py = pos[p, 1]
    b = shape_body[q]
    gq = _search_grow(q, b, reach - margin, h_body, box, state)
    if (px < box[q, 0] - gq or px > box[q, 2] + gq or py < box[q, 1] - gq
            or py > box[q, 3] + gq):
        return False  # as in pass 1: too far from this shape
    ox, oy = _origin(p, b, px, py, ax, ay, h_body, state)
    hit, nxp, nyp, nrx, nry = _hit_shape(px, py, ox, oy, q, shapes, eps, margin)
    if not hit:
        return False
    # out of a moving body, not into a wall or another body; out of a wall, not out of the
    # domain (a wall put onto water against the domain's side); and from the second round on
    # not into any other shape: two walls that touch or overlap, or two shapes of one body,
    # would hand a particle back and forth through their seam
    out = nxp < lo_x or nxp > hi_x or nyp < lo_y or nyp > hi_y
    if not wall[q] or out or rnd > 0:
        own = -1 if wall[q] or rnd > 0 else b
        if _blocked(px, py, nxp, nyp, shapes, eps, margin, hi_x, hi_y, own, q):
            ok, fx, fy, fnx, fny = _free_exit(px, py, q, shapes, eps, margin, hi_x, hi_y, own)
            if not ok and wall[q]:  # deep in a wall of several parts
                ok, fx, fy, fnx, fny = _union_exit(px, py, shapes, eps, margin, hi_x, hi_y)
            if ok:
                nxp, nyp, nrx, nry = fx, fy, fnx, fny
    _place(p, b, nxp, nyp, nrx, nry, fluid, mats, bodies, params)
    return True
