"""Buoyancy from the fluid around a body: local density profiles and the pressure integral.

* :func:`surface_quadrature` (once per shape): points on the shape's surface with outward
  normals and lengths, body-local. A shape is a convex core (a point, a segment or a polygon)
  grown by its radius: straight sides offset along their normals, and arcs at the corners.
* :func:`cell_densities` and :func:`density_profiles` (once per step): the mean material density
  of the fluid particles in each pressure cell, then, per body and per row of cells, the mean
  over the cells beside the body where its water level is measured. Rows without fluid beside
  the body take the nearest row below that has some (else above).
* :func:`surface_buoyancy` (each substep): Archimedes as the integral of the hydrostatic
  pressure ``p(y) = g * integral_y^level rho(y') dy'`` over the submerged surface,
  ``-sum p n l`` at the surface points. Its torque comes from forces normal to the surface, so
  a circle gets none whatever its samples, and the pressure vanishes at the waterline, so the
  waterline's discretisation barely matters (a volume integral over interior samples gives every
  sample at the waterline its full weight: a floating ball turned by up to 174 degrees in 10 s).

Nothing here knows pymunk.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

from .sampling import CIRCLE, ShapeGeometry

__all__ = ["surface_quadrature", "outline_normals", "sum_contact_impulses", "cell_densities",
           "density_profiles", "surface_buoyancy"]


def surface_quadrature(g: ShapeGeometry, ds: float) -> tuple[NDArray[np.float64],
                                                              NDArray[np.float64],
                                                              NDArray[np.float64]]:
    """Midpoints, outward unit normals and lengths of pieces of at most ``ds`` along the
    surface of a shape (body-local). The lengths sum to the perimeter; a full circle is cut
    into equal arcs."""
    core = np.asarray(g.points, np.float64).reshape(-1, 2)
    r = float(g.radius)
    pts: list[tuple[float, float]] = []
    nrm: list[tuple[float, float]] = []
    lens: list[float] = []

    def arc(cx: float, cy: float, a0: float, span: float) -> None:
        if r <= 0.0 or span <= 0.0:
            return
        m = max(1, math.ceil(r * span / ds))
        for k in range(m):
            t = a0 + (k + 0.5) * span / m
            c, s = math.cos(t), math.sin(t)
            pts.append((cx + r * c, cy + r * s))
            nrm.append((c, s))
            lens.append(r * span / m)

    if g.kind == CIRCLE or len(core) == 1:
        arc(core[0, 0], core[0, 1], 0.0, 2.0 * math.pi)
    else:
        ring = core if len(core) > 2 else core[:2]
        k = len(ring)
        normals = []
        for i in range(k):  # a capsule's core is a -> b -> a: two sides of opposite normals
            p, q = ring[i], ring[(i + 1) % k]
            d = q - p
            ln = float(np.hypot(*d))
            n = (d[1] / ln, -d[0] / ln) if ln > 0.0 else (0.0, 0.0)
            normals.append(n)
            m = max(1, math.ceil(ln / ds))
            for j in range(m):
                t = (j + 0.5) / m
                pts.append((p[0] + t * d[0] + r * n[0], p[1] + t * d[1] + r * n[1]))
                nrm.append(n)
                lens.append(ln / m)
        for i in range(k):  # the corner arc at vertex i + 1, between sides i and i + 1
            n0, n1 = normals[i], normals[(i + 1) % k]
            a_start = math.atan2(n0[1], n0[0])
            span = (math.atan2(n1[1], n1[0]) - a_start) % (2.0 * math.pi)
            v = ring[(i + 1) % k]
            arc(v[0], v[1], a_start, span)
    return (np.array(pts, np.float64).reshape(-1, 2), np.array(nrm, np.float64).reshape(-1, 2),
            np.array(lens, np.float64))


def outline_normals(g: ShapeGeometry, pts: NDArray[np.float64]) -> NDArray[np.float64]:
    """Outward unit normal of the shape's surface nearest to each body-local point (the solid
    particles, set a little inside the surface): from the nearest point of the shape's core
    (centre, segment or polygon), or, for a point inside a polygon's core, the normal of its
    nearest side."""
    core = np.asarray(g.points, np.float64).reshape(-1, 2)
    out = np.zeros((len(pts), 2))
    for k, p in enumerate(np.asarray(pts, np.float64).reshape(-1, 2)):
        q = core[0]
        best = float(np.hypot(*(p - q))) if len(core) == 1 else np.inf
        side_n = None
        side_d = -np.inf
        m = len(core)
        for i in range(m if m > 2 else m - 1):
            a, b = core[i], core[(i + 1) % m]
            d = b - a
            ln2 = float(d @ d)
            t = 0.0 if ln2 == 0.0 else min(max(float((p - a) @ d) / ln2, 0.0), 1.0)
            c = a + t * d
            dist = float(np.hypot(*(p - c)))
            if dist < best:
                best, q = dist, c
            if m > 2 and ln2 > 0.0:
                n = np.array([d[1], -d[0]]) / math.sqrt(ln2)
                sd = float((p - a) @ n)
                if sd > side_d:
                    side_d, side_n = sd, n
        inside = m > 2 and side_d <= 0.0
        if best > 1e-9 and not inside:
            out[k] = (p - q) / best
        elif side_n is not None:
            out[k] = side_n
        else:  # on a segment's core line, or a circle's centre: no direction
            out[k] = 0.0
    return out


@njit(cache=True)
def sum_contact_impulses(pos, imp, normal, owner, state, out_j, out_tau):
    """The solid particles' contact impulses to their bodies: each whole impulse to the linear
    sum ``out_j``, and to ``out_tau`` the torque of its part along the surface normal
    (body-local ``normal``, rotated with the body). The part along the surface comes from the
    bumps of the solid particles' row, not from the smooth surface they stand for (shear
    between body and fluid is the drag's): on a floating ball it was a steady torque that
    turned it by tens of degrees in 10 s of still water."""
    contact_range(0, pos.shape[0], pos, imp, normal, owner, state, out_j, out_tau)


@njit(cache=True)
def contact_range(k0, k1, pos, imp, normal, owner, state, out_j, out_tau):
    """:func:`sum_contact_impulses` over the solid particles ``k0..k1`` (one body's, in the
    per-body parallel pass of :mod:`.per_body`)."""
    for k in range(k0, k1):
        b = np.uint64(owner[k])  # unsigned: no negative-index wrap-around
        jx = imp[k, 0]
        jy = imp[k, 1]
        if jx == 0.0 and jy == 0.0:
            continue
        out_j[b, 0] += jx
        out_j[b, 1] += jy
        c = state[b, 2]
        s = state[b, 3]
        nx = c * normal[k, 0] - s * normal[k, 1]
        ny = s * normal[k, 0] + c * normal[k, 1]
        if nx == 0.0 and ny == 0.0:
            nx = jx
            ny = jy
            jn = 1.0
        else:
            jn = jx * nx + jy * ny
        out_tau[b] += jn * ((pos[k, 0] - state[b, 7]) * ny - (pos[k, 1] - state[b, 8]) * nx)


@njit(cache=True)
def cell_densities(pos, mat, n, rho_table, a0, cell_rho, cell_n):
    """Per pressure cell: the sum of the material densities of its fluid particles
    (``cell_rho``) and their number (``cell_n``), both (ny, nx) and overwritten."""
    ny, nx = cell_n.shape
    cell_rho[:, :] = 0.0
    cell_n[:, :] = 0.0
    inv = 1.0 / a0
    for p in range(n):
        i = min(max(int(pos[p, 0] * inv), 0), nx - 1)
        j = min(max(int(pos[p, 1] * inv), 0), ny - 1)
        cell_rho[j, i] += rho_table[mat[p]]
        cell_n[j, i] += 1.0


@njit(cache=True)
def _band_rows(cell_rho, cell_n, c0, c1, out_sum, out_n):
    ny = cell_n.shape[0]
    for j in range(ny):
        for i in range(c0, c1):
            out_sum[j] += cell_rho[j, i]
            out_n[j] += cell_n[j, i]


@njit(cache=True)
def density_profiles(body_box, cell_rho, cell_n, a0, near, far, default_rho, out_prof,
                     scratch_sum, scratch_n):
    """``out_prof`` (n_bodies, ny): the fluid's mean density in each row of cells beside each
    body (columns between ``near`` and ``far`` from its box on both sides, the band where its
    water level is measured; widened x2 up to 4 times where no fluid is found). Rows without
    fluid take the nearest row below with some, else above; ``default_rho`` where none has."""
    ny, nx = cell_n.shape
    for b in range(body_box.shape[0]):
        x0 = body_box[b, 0]
        x1 = body_box[b, 2]
        for j in range(ny):
            out_prof[b, j] = default_rho
        if math.isnan(x0) or math.isnan(x1):
            continue
        f = far
        total = 0.0
        for _ in range(5):
            scratch_sum[:] = 0.0
            scratch_n[:] = 0.0
            l0 = max(int(math.floor((x0 - f) / a0)), 0)
            l1 = min(max(int(math.floor((x0 - near) / a0)) + 1, 0), nx)
            r0 = min(max(int(math.floor((x1 + near) / a0)), 0), nx)
            r1 = min(int(math.floor((x1 + f) / a0)) + 1, nx)
            if r0 < l1:  # the bands share columns (a body narrower than a cell): each once
                _band_rows(cell_rho, cell_n, l0, max(l1, r1), scratch_sum, scratch_n)
            else:
                _band_rows(cell_rho, cell_n, l0, l1, scratch_sum, scratch_n)
                _band_rows(cell_rho, cell_n, r0, r1, scratch_sum, scratch_n)
            total = 0.0
            for j in range(ny):
                total += scratch_n[j]
            if total > 0.0:
                break
            f *= 2.0
        if total <= 0.0:
            continue
        last = -1.0  # the nearest row below with fluid
        for j in range(ny):
            if scratch_n[j] > 0.0:
                last = scratch_sum[j] / scratch_n[j]
            out_prof[b, j] = last
        above = default_rho
        for j in range(ny - 1, -1, -1):  # rows below the lowest fluid: the row above
            if scratch_n[j] > 0.0:
                above = scratch_sum[j] / scratch_n[j]
            if out_prof[b, j] < 0.0:
                out_prof[b, j] = above


@njit(cache=True)
def column_sums(prof, b, out):
    """``out[j] = prof[b, 0] + ... + prof[b, j - 1]`` (summed in that order), the rows below
    row ``j`` of body ``b``'s density profile: :func:`_column_weight` reads them instead of
    summing the rows again at every surface point."""
    s = 0.0
    for k in range(prof.shape[1]):
        out[k] = s
        s += prof[b, k]


@njit(cache=True)
def _column_weight(prof, below, b, a0, y):
    """``integral_0^y rho dy`` of body ``b``'s density profile (rows of height ``a0``), with
    ``below`` its :func:`column_sums`."""
    ny = prof.shape[1]
    j = min(max(int(math.floor(y / a0)), 0), ny - 1)
    return below[j] * a0 + prof[b, j] * (y - j * a0)


@njit(cache=True)
def _level_at(levels, b, x):
    xl = levels[b, 0]
    ll = levels[b, 1]
    xr = levels[b, 2]
    lr = levels[b, 3]
    if math.isnan(ll):
        return lr
    if math.isnan(lr):
        return ll
    if xr - xl <= 1e-9:
        return 0.5 * (ll + lr)
    t = min(max((x - xl) / (xr - xl), 0.0), 1.0)
    return ll + t * (lr - ll)


@njit(cache=True)
def surface_buoyancy(local, normal, length, owner, state, levels, prof, a0, g_h, out_j,
                     out_tau):
    """Hydrostatic pressure on the submerged surface: at each surface point (body-local
    ``local``, ``normal``, ``length``) below the body's water level, the impulse
    ``-p n l h`` with ``p = |g| integral_y^level rho`` (``g_h`` = ``|g| h``), at the point.

    The net force is kept vertical (its horizontal part dropped; the torque about the centre
    of gravity is that of the whole pressure field): the level's tilt between the two sides
    of a body is mostly the surface's standing bumps, and a horizontal push from it made a
    floating ball wander by half its size in 10 s of still water. Currents carry bodies
    through the drag."""
    below = np.empty(prof.shape[1])
    k0 = 0
    while k0 < local.shape[0]:  # runs of points of one body share its column sums
        b = owner[k0]
        k1 = k0 + 1
        while k1 < local.shape[0] and owner[k1] == b:
            k1 += 1
        column_sums(prof, b, below)
        buoyancy_range(k0, k1, (local, normal, length, owner), state, levels, prof, below, a0,
                       g_h, (out_j, out_tau))
        k0 = k1


@njit(cache=True)
def buoyancy_range(k0, k1, surface, state, levels, prof, below, a0, g_h, out):
    """:func:`surface_buoyancy` over the surface points ``k0..k1``, all of one body, whose
    :func:`column_sums` are ``below`` (``surface = (local, normal, length, owner)``, ``out =
    (out_j, out_tau)``)."""
    local, normal, length, owner = surface
    out_j, out_tau = out
    for k in range(k0, k1):
        b = np.uint64(owner[k])  # unsigned: no negative-index wrap-around
        c = state[b, 2]
        s = state[b, 3]
        lx = local[k, 0]
        ly = local[k, 1]
        x = state[b, 0] + c * lx - s * ly
        y = state[b, 1] + s * lx + c * ly
        lev = _level_at(levels, b, x)
        if math.isnan(lev) or y >= lev:
            continue
        p = g_h * (_column_weight(prof, below, b, a0, lev)
                   - _column_weight(prof, below, b, a0, y))
        if p <= 0.0:
            continue
        nx = c * normal[k, 0] - s * normal[k, 1]
        ny = s * normal[k, 0] + c * normal[k, 1]
        jx = -p * length[k] * nx
        jy = -p * length[k] * ny
        out_j[b, 1] += jy
        out_tau[b] += (x - state[b, 7]) * jy - (y - state[b, 8]) * jx
