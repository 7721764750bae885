"""Numba kernels of the coupling: the bodies' state and poses, their samples and cover, and the
two stage drivers (:func:`sync_geometry`, :func:`exchange_impulses`). The fluid's forces on the
samples are in :mod:`.fluid_forces`, the water level beside each body in :mod:`.surface`, the
containment in :mod:`.containment`; their kernels are importable from here too.

Body state crosses from pymunk into one ``(n_bodies, 9)`` array per substep (see
:data:`STATE_COLUMNS`); impulses go back as ``(n_bodies, 2)`` linear and ``(n_bodies,)`` angular
sums. Nothing here knows pymunk.

The stage kernels (:func:`sync_geometry`, :func:`exchange_impulses`, and
:func:`~.containment.contain_particles`, :func:`drag_impulses`, :func:`pressure_impulses` that
they or the coupler call) take grouped arrays: tuples the coupler builds (those of its own
arrays once, with its arrays; the fluid's per call, since the fluid can reallocate them), which
the kernels unpack on their first lines. The layouts, the same in every kernel:

* ``fluid``: ``(pos, vel, mat, n, start_pos, cell_of)``, the particles (``n`` of them live),
  where each was when the substep began and its pressure cell;
* ``mats``: ``(mass, bounce, rest, keep, rho)``, per material: particle mass, bounce (else
  adhere) at walls, restitution, ``1 - adhesion``, density;
* ``cells``: ``(count, vel, grad, solid_frac, cover_vel, wall_cover)``, the pressure grid:
  particle count, mean velocity and correction of each cell, the bodies' solid cover and its
  velocity, and the cells that walls cover (uint8);
* ``bins``: ``(nb_start, inv_nb, nb_nx, nb_ny)``, the fluid's neighbour grid (``bin`` stage);
* ``bodies``: ``(state, dynamic, levels, kick_levels, box, prof, out_j, out_tau, submerged)``,
  per body: :data:`STATE_COLUMNS`, whether it is dynamic, its water levels and those its cover
  was built on, the box of its interior samples, the fluid's density beside it per cell row,
  the linear and angular impulse and submerged area accumulated;
* ``outline``: ``(local, owner, normal, pos, vel, imp, inset)``, the outline's solid particles:
  body frame, body, surface normal (body frame), then posed position and velocity and the
  contact impulse the fluid gave them (views of the fluid's solid arrays), and how far inside
  the surface each sits;
* ``interior``: ``(local, owner, area, pos, vel, cover_area)``, the interior (volume) samples,
  the same way, with each one's share of the solid cover;
* ``surface``: ``(local, normal, length, owner)``, the buoyancy's surface quadrature;
* ``shapes``: ``(kind, vstart, verts, radius, thick, body, box, active, wall, vlocal, vowner,
  vvel)``, the containment geometry: each shape's kind, vertex range, posed vertices, radius,
  thickness, body, bounding box (grown by the margin), whether it contains, whether it is a
  wall (scratch), and the vertices' body-frame positions, body and velocities;
* ``scratch`` and ``params``: each stage's own scratch arrays and scalars, listed at the kernel.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..fluid.pressure_converged import SPARSE_RATIO
from .buoyancy import (
    _level_at,
    cell_densities,
    density_profiles,
    sum_contact_impulses,
    surface_buoyancy,
)
from .containment import contain_particles, shape_bounds
from .cut_cells import _shape_cells, _still_body
from .fluid_forces import (
    drag_impulses,
    pressure_impulses,
    sum_point_impulses,
)
from .per_body import (
    contact_pressure_bounds_parallel,
    drag_parallel,
    submerged_buoyancy_parallel,
)
from .shapetests import _edge_normal, _segment_meets
from .surface import (
    DRY_LEVEL,
    body_rows_range,
    cap_columns,
    cap_side_columns,
    cap_wall_columns,
    column_tops,
    column_tops_parallel,
    sample_bounds,
    submerged_areas,
    water_levels,
)

#: From this many particles the exchange finds the column tops in parallel (the same result).
PARALLEL_TOPS = 20_000

__all__ = [
    "STATE_COLUMNS",
    "limit_speeds",
    "body_state",
    "impulse_velocities",
    "pose_points",
    "rasterise_cover",
    "rasterise_walls",
    "rasterise_wall_surfaces",
    "rasterise_wall_faces",
    "sum_point_impulses",
    "shape_bounds",
    "contain_particles",
    "column_tops",
    "water_levels",
    "submerged_areas",
    "drag_impulses",
    "measure_levels",
    "sample_bounds",
    "pressure_impulses",
    "submerged_cover",
    "body_rows_range",
    "exchange_impulses",
    "sync_geometry",
]

#: Columns of the per-body state array: origin (px, py), rotation (cos, sin), centre-of-gravity
#: velocity (vx, vy), angular velocity w, centre of gravity in world coordinates (gx, gy).
STATE_COLUMNS = ("px", "py", "cos", "sin", "vx", "vy", "w", "gx", "gy")


@njit(cache=True)
def body_state(raw, cog_local, state):
    """Each body's :attr:`Coupler.state` row from its raw pose ``(x, y, angle, vx, vy, w)``:
    ``(x, y, cos, sin, vx, vy, w, cog_x, cog_y)``, the centre of gravity in world coordinates."""
    for k in range(raw.shape[0]):
        x = raw[k, 0]
        y = raw[k, 1]
        c = math.cos(raw[k, 2])
        s = math.sin(raw[k, 2])
        gx = cog_local[k, 0]
        gy = cog_local[k, 1]
        state[k, 0] = x
        state[k, 1] = y
        state[k, 2] = c
        state[k, 3] = s
        state[k, 4] = raw[k, 3]
        state[k, 5] = raw[k, 4]
        state[k, 6] = raw[k, 5]
        state[k, 7] = x + c * gx - s * gy
        state[k, 8] = y + s * gx + c * gy


@njit(cache=True)
def impulse_velocities(raw, rows, dynamic, J, tau, inv_mass, inv_moment, out):
    """The velocities ``(vx, vy, w)`` of every body of a space after the impulses.

    Args:
        raw: (n, 6) ``(x, y, angle, vx, vy, w)`` of the space's bodies, in its order.
        rows: (nb,) row of each coupled body in ``raw``. dynamic: (nb,) which of them move.
        J, tau: (nb, 2) and (nb,) impulse and angular impulse of each coupled body.
        inv_mass, inv_moment: (nb,) their inverse mass and moment.
        out: (n, 3) receives ``v + J/m`` and ``w + tau/I`` (the same operations, in the same
            order, as the coupler's body-by-body write), ``raw``'s velocities elsewhere.
    """
    for r in range(raw.shape[0]):
        out[r, 0] = raw[r, 3]
        out[r, 1] = raw[r, 4]
        out[r, 2] = raw[r, 5]
    for k in range(rows.shape[0]):
        if dynamic[k]:
            r = rows[k]
            out[r, 0] = raw[r, 3] + J[k, 0] * inv_mass[k]
            out[r, 1] = raw[r, 4] + J[k, 1] * inv_mass[k]
            out[r, 2] = raw[r, 5] + tau[k] * inv_moment[k]


@njit(cache=True)
def limit_speeds(state, J, tau, inv_mass, inv_moment, fastest, slack):
    """Cut each body's impulses so that its speed after them is at most ``max(|v| + slack,
    fastest)`` along the new velocity's direction, its spin at most that over its radius of
    gyration ``sqrt(I / m)`` (``state``: :data:`STATE_COLUMNS`; a body with no inverse mass or
    moment is left alone)."""
    for b in range(J.shape[0]):
        im = inv_mass[b]
        if not im > 0.0:
            continue
        vx = state[b, 4]
        vy = state[b, 5]
        cap = max(math.sqrt(vx * vx + vy * vy) + slack, fastest)
        nx = vx + J[b, 0] * im
        ny = vy + J[b, 1] * im
        speed = math.sqrt(nx * nx + ny * ny)
        if speed > cap:
            f = cap / speed
            J[b, 0] = (nx * f - vx) / im
            J[b, 1] = (ny * f - vy) / im
        ii = inv_moment[b]
        if ii > 0.0:
            w = state[b, 6]
            w_cap = cap / math.sqrt(im / ii)
            nw = w + tau[b] * ii
            if abs(nw) > w_cap:
                tau[b] = (math.copysign(w_cap, nw) - w) / ii


@njit(cache=True)
def pose_points(local, owner, state, out_pos, out_vel):
    """World positions and velocities ``v + w x r`` of body-local points.

    Args:
        local: (m, 2) body-local points. owner: (m,) body index of each point.
        state: (n_bodies, 9) body state (:data:`STATE_COLUMNS`).
        out_pos, out_vel: (m, 2) outputs.
    """
    for k in range(local.shape[0]):
        b = np.uint64(owner[k])  # unsigned: no negative-index wrap-around
        c = state[b, 2]
        s = state[b, 3]
        lx = local[k, 0]
        ly = local[k, 1]
        x = state[b, 0] + c * lx - s * ly
        y = state[b, 1] + s * lx + c * ly
        out_pos[k, 0] = x
        out_pos[k, 1] = y
        w = state[b, 6]
        out_vel[k, 0] = state[b, 4] - w * (y - state[b, 8])
        out_vel[k, 1] = state[b, 5] + w * (x - state[b, 7])


@njit(cache=True)
def rasterise_cover(pos, vel, area, n, a0, frac, cover_vel):
    """Deposit area samples into the pressure grid: ``frac`` (ny, nx) += area / a0^2 and the
    area-weighted velocity into ``cover_vel`` (ny, nx, 2); then normalise the velocity and clamp
    the cover to 1. Both outputs are overwritten."""
    ny, nx = frac.shape
    frac[:, :] = 0.0
    cover_vel[:, :, :] = 0.0
    inv = 1.0 / a0
    inv_cell = inv * inv
    for k in range(n):
        i = int(math.floor(pos[k, 0] * inv))
        j = int(math.floor(pos[k, 1] * inv))
        if i < 0 or i >= nx or j < 0 or j >= ny:
            continue
        f = area[k] * inv_cell
        frac[j, i] += f
        cover_vel[j, i, 0] += f * vel[k, 0]
        cover_vel[j, i, 1] += f * vel[k, 1]
    for j in range(ny):
        for i in range(nx):
            f = frac[j, i]
            if f > 0.0:
                cover_vel[j, i, 0] /= f
                cover_vel[j, i, 1] /= f
                if f > 1.0:
                    frac[j, i] = 1.0


@njit(cache=True)
def rasterise_walls(pos, owner, n, dynamic, state, a0, cover):
    """Mark the pressure cells that the interior samples of walls fall in (bodies that are not
    dynamic and do not move: :data:`STATE_COLUMNS` 4-6 zero): ``cover`` (ny, nx) uint8,
    overwritten; returns how many cells (the fluid's wall cells are those of them without a
    fluid particle, see ``fluid/pressure_walls.py``)."""
    ny, nx = cover.shape
    cover[:, :] = 0
    inv = 1.0 / a0
    count = 0
    for k in range(n):
        b = np.uint64(owner[k])  # unsigned: no negative-index wrap-around
        if not _still_body(b, dynamic, state):
            continue
        i = int(math.floor(pos[k, 0] * inv))
        j = int(math.floor(pos[k, 1] * inv))
        if 0 <= i < nx and 0 <= j < ny and not cover[j, i] & 1:
            cover[j, i] |= 1
            count += 1
    return count


@njit(cache=True, inline="always")
def _mark(x, y, inv, cover):
    """Mark the cell of ``(x, y)`` in ``cover``; returns 1 if it was not marked yet."""
    ny, nx = cover.shape
    i = int(math.floor(x * inv))
    j = int(math.floor(y * inv))
    if 0 <= i < nx and 0 <= j < ny and not cover[j, i] & 1:
        cover[j, i] |= 1
        return 1
    return 0


@njit(cache=True)
def _mark_line(ax, ay, bx, by, nx_, ny_, offsets, a0, cover):
    """Mark the cells along the line a -> b moved by each of ``offsets`` along ``n`` (steps of a
    quarter cell); returns how many were new."""
    inv = 1.0 / a0
    steps = int(math.ceil(math.hypot(bx - ax, by - ay) / (0.25 * a0))) + 1
    count = 0
    for k in range(steps + 1):
        t = k / steps
        x = ax + t * (bx - ax)
        y = ay + t * (by - ay)
        for o in offsets:
            count += _mark(x + o * nx_, y + o * ny_, inv, cover)
    return count


@njit(cache=True)
def rasterise_wall_surfaces(shapes, dynamic, state, a0, cover):
    """Add to ``cover`` (:func:`rasterise_walls`) the cells just inside the surface of every
    wall shape, which its interior samples can miss: a segment thinner than a cell, or one on a
    cell's edge, has samples on its centre line in the cell above and none in the cell below
    it (that cell was then air under a floor). A capsule marks both sides of its core line
    (``max(r - d, d)`` off it, ``d`` = 2 % of a cell), a polygon the inside of each edge (``r -
    d`` out along its normal; ``-d`` for a sharp one), a circle its centre and four points
    ``max(r - d, d)`` out. Returns how many cells were new."""
    (kind, vstart, verts, radius, thick, shape_body, box, active, wall, vlocal, vowner,
     vvel) = shapes
    d = 0.02 * a0
    count = 0
    for q in range(kind.shape[0]):
        b = shape_body[q]
        if not _still_body(b, dynamic, state):
            continue
        v0 = vstart[q]
        r = radius[q]
        o = max(r - d, d)
        if kind[q] == 0:
            cx = verts[v0, 0]
            cy = verts[v0, 1]
            count += _mark_line(cx - o, cy, cx + o, cy, 0.0, 0.0, (0.0,), a0, cover)
            count += _mark_line(cx, cy - o, cx, cy + o, 0.0, 0.0, (0.0,), a0, cover)
            continue
        k = vstart[q + 1] - v0
        if kind[q] == 1:
            ax = verts[v0, 0]
            ay = verts[v0, 1]
            ex = verts[v0 + 1, 0] - ax
            ey = verts[v0 + 1, 1] - ay
            ln = math.hypot(ex, ey)
            nx_ = -ey / ln if ln > 1e-12 else 0.0
            ny_ = ex / ln if ln > 1e-12 else 1.0
            count += _mark_line(ax, ay, ax + ex, ay + ey, nx_, ny_, (-o, 0.0, o), a0, cover)
            continue
        for e in range(k):
            ax, ay, nx_, ny_, ok = _edge_normal(verts, v0, k, e)
            if not ok:
                continue
            bx = verts[v0 + (e + 1) % k, 0]
            by = verts[v0 + (e + 1) % k, 1]
            count += _mark_line(ax, ay, bx, by, nx_, ny_, (r - d,), a0, cover)
    return count


@njit(cache=True)
def rasterise_wall_faces(shapes, dynamic, state, a0, cover):
    """Add to ``cover`` the faces between neighbouring pressure cells that a wall stands
    across (the segment between the two cells' centres meets the wall): bit 1 (value 2) of
    cell ``(j, i)`` for its face to ``(j, i + 1)``, bit 2 (value 4) for its face to ``(j + 1,
    i)``. A wall thinner than a cell inside a cell that also holds water (a thin floor across
    a cell's middle) leaves that cell fluid and the cell beyond it empty, and nothing else
    said that the two are apart: the empty cell was a free surface under the water (a tank
    on such a floor rested 80-85 deep for a fill of 100). :func:`fluidworld.fluid.pressure_walls
    .mark_walls` makes an empty cell a wall cell where it touches fluid only across walls.

    Only faces between a marked cell (bit 0, run :func:`rasterise_walls` and
    :func:`rasterise_wall_surfaces` first) and an unmarked one are tested: a wall across a
    face lies in one of its two cells, and where both are marked an empty one is a wall cell
    anyway (this keeps the deep inside of a large polygon out of the loop)."""
    (kind, vstart, verts, radius, thick, shape_body, box, active, wall, vlocal, vowner,
     vvel) = shapes
    ny, nx = cover.shape
    for q in range(kind.shape[0]):
        if not _still_body(shape_body[q], dynamic, state):
            continue
        v0 = vstart[q]
        v1 = vstart[q + 1]
        r = radius[q]
        i0, j0, i1, j1 = _shape_cells(verts, v0, v1, r, a0, nx, ny, 1)
        for j in range(j0, j1 + 1):
            cy = (j + 0.5) * a0
            for i in range(i0, i1 + 1):
                cx = (i + 0.5) * a0
                own = cover[j, i] & 1
                if i + 1 < nx and own != cover[j, i + 1] & 1 and not cover[j, i] & 2 and (
                        _segment_meets(cx, cy, cx + a0, cy, kind[q], v0, v1, verts, r)):
                    cover[j, i] |= 2
                if j + 1 < ny and own != cover[j + 1, i] & 1 and not cover[j, i] & 4 and (
                        _segment_meets(cx, cy, cx, cy + a0, kind[q], v0, v1, verts, r)):
                    cover[j, i] |= 4


@njit(cache=True)
def submerged_cover(pos, owner, n, dynamic, levels, spacing, area, kick_x, kick_y, vel,
                    out_area):
    """Weight and velocity of the interior samples for the cell-pressure stage's solid cover:
    the fluid the body displaces, at the velocity that fluid would have.

    Below the body's water level (weight ``w`` as in :func:`buoyancy_impulses`; ``w = 1`` where
    no level is known) the sample counts with area ``w A`` and its velocity carries the gravity
    kick ``g h`` that the fluid got this substep. A dynamic body's velocity already holds that
    kick (pymunk's last step; its buoyancy only comes in the exchange stage), a static or
    kinematic body's does not and gets it added. The part above the water is left out: the
    pressure solve would treat it as a column of fluid standing above the surface.
    """
    for k in range(n):
        b = np.uint64(owner[k])  # unsigned: no negative-index wrap-around
        w = 1.0
        lev = _level_at(levels, b, pos[k, 0])
        if not math.isnan(lev):
            w = min(max((lev - (pos[k, 1] - 0.5 * spacing)) / spacing, 0.0), 1.0)
        out_area[k] = w * area[k]
        if not dynamic[b]:
            vel[k, 0] += kick_x
            vel[k, 1] += kick_y


@njit(cache=True)
def exchange_impulses(fluid, mats, cells, bins, bodies, outline, interior, surface, starts,
                      scratch, params, vmax):
    """The ``exchange`` stage's impulses in one call (the coupler's order; each step is the
    kernel named, see there):

    1. :func:`~.buoyancy.sum_contact_impulses`: what the outline's solid particles got from the
       fluid (``out_normal``: their surface normals, body-local);
    2. :func:`pressure_impulses` (if ``push``): the pressure stage's push on the cover, with the
       density profiles ``prof`` of the last measure;
    3. :func:`sample_bounds`, :func:`column_tops` (if ``measure``, or no level is known yet;
       then :func:`cap_columns`, :func:`cap_side_columns` and :func:`cap_wall_columns`) and
       :func:`water_levels`: the water level beside each body; then, where measured and no
       fixed density is given (``rho_fixed <= 0``), the fluid's density beside each body row
       by row (:func:`~.buoyancy.cell_densities` over the particles of the bodies' rows,
       :func:`~.buoyancy.density_profiles` into ``prof``);
    4. :func:`submerged_areas` and, if ``buoyancy``, :func:`~.buoyancy.surface_buoyancy`
       (``g_h`` = ``|g| h``);
    5. :func:`drag_impulses` (if ``drag_coef > 0``): the shear between the outline and the
       fluid particles beside it (found through the neighbour grid ``bins``, within ``r_l``),
       and its reaction on them.

    ``vmax`` is the largest particle speed component known; returns it, measured again by
    :func:`column_tops` if that ran. The groups are those of the module docstring, and

    * ``starts``: ``(out_start, in_start, surf_start)``, each body's run of outline, interior
      and surface samples (:func:`.per_body.body_starts`);
    * ``scratch``: ``(tops, cell_rho, cell_n, prof_sum, prof_n, drag_jt, drag_m)``;
    * ``params``: ``(gamma, a0, half_layer, spacing, push, kick_x, kick_y, measure,
      col_w, near, far, min_clean, buoyancy, g_h, drag_coef, r_l, rho_fixed,
      per_body, width)`` (``width``: the domain's, :func:`cap_side_columns`); with
      ``per_body`` (the samples grouped by body, ``starts`` their runs) steps 1, 2, 3's
      :func:`sample_bounds`, 4 and 5's impulses on the bodies run one body per task in
      parallel (:mod:`.per_body`), with the same results.
    """
    (gamma, a0, half_layer, spacing, push, kick_x, kick_y, measure, col_w, near, far,
     min_clean, buoyancy, g_h, drag_coef, r_l, rho_fixed, per_body, width) = params
    awash = (SPARSE_RATIO * gamma, half_layer)  # see fluid_forces.pressure_impulses
    if per_body:
        contact_pressure_bounds_parallel(starts, outline, interior, bodies, cells,
                                         (a0, spacing, kick_x, kick_y, push, awash))
    else:
        _contacts_and_push(outline, interior, bodies, cells, a0, spacing,
                           (kick_x, kick_y, push, awash))
    vmax = _levels_and_profiles(fluid, mats, cells, bins, bodies, outline, scratch, params,
                                vmax)
    if per_body:
        submerged_buoyancy_parallel(starts, interior, surface, bodies,
                                    (a0, spacing, g_h, buoyancy))
    else:
        _buoyancy(interior, surface, bodies, a0, spacing, g_h, buoyancy)
    if drag_coef > 0.0 and outline[3].shape[0] and fluid[3]:
        f_pos, f_vel, f_mat, n = fluid[0], fluid[1], fluid[2], fluid[3]
        drag_scratch = (scratch[5], scratch[6])
        if per_body:
            drag_parallel(starts, outline, bodies, (f_pos, f_vel, f_mat, n), mats[0], bins,
                          (a0, r_l, drag_coef), drag_scratch)
        else:
            drag_impulses(outline, bodies, (f_pos, f_vel, f_mat, n), mats[0], bins, a0, r_l,
                          drag_coef, drag_scratch)
    return vmax


@njit(cache=True)
def measure_levels(fluid, mats, cells, bins, bodies, outline, interior, scratch, params, vmax):
    """The water level beside each body and the density of the fluid beside it, as
    :func:`exchange_impulses`' step 3 measures them (``params`` its, ``measure`` true), from
    the samples where :func:`sync_geometry` posed them: for bodies new to the coupling before
    their first exchange. Returns ``vmax`` as that step does."""
    sample_bounds(interior[3], interior[1], bodies[0].shape[0], 0.5 * params[3], bodies[4])
    return _levels_and_profiles(fluid, mats, cells, bins, bodies, outline, scratch, params,
                                vmax)


@njit(cache=True)
def _contacts_and_push(outline, interior, bodies, cells, a0, spacing, push_consts):
    """Steps 1-2 and 3's :func:`sample_bounds` of :func:`exchange_impulses`, serially
    (``push_consts``: ``(kick_x, kick_y, push, awash)``)."""
    kick_x, kick_y, push, awash = push_consts
    state, out_j, out_tau, body_box = bodies[0], bodies[6], bodies[7], bodies[4]
    out_pos, out_imp, out_normal, out_owner = outline[3], outline[5], outline[2], outline[1]
    in_pos, in_owner = interior[3], interior[1]
    if out_pos.shape[0]:
        sum_contact_impulses(out_pos, out_imp, out_normal, out_owner, state, out_j, out_tau)
    if push:
        pressure_impulses(interior, bodies, cells, a0, spacing, kick_x, kick_y, awash)
    sample_bounds(in_pos, in_owner, state.shape[0], 0.5 * spacing, body_box)


@njit(cache=True)
def _levels_and_profiles(fluid, mats, cells, bins, bodies, outline, scratch, params, vmax):
    """Step 3 of :func:`exchange_impulses` after the bounds: the water level beside each body
    (the columns' tops measured again if ``measure`` or none is known) and, where measured,
    the fluid's density beside it row by row. Returns ``vmax``, measured again with the
    tops."""
    f_pos, f_vel, f_mat, n = fluid[0], fluid[1], fluid[2], fluid[3]
    rho_table = mats[4]
    cell_count, solid_frac = cells[0], cells[3]
    nb_start, inv_nb, nb_nx, nb_ny = bins
    dynamic, levels, body_box, prof = bodies[1], bodies[2], bodies[4], bodies[5]
    out_pos = outline[3]
    tops, cell_rho, cell_n, prof_sum, prof_n = scratch[:5]
    gamma, a0, half_layer = params[0], params[1], params[2]
    measure, col_w, near, far, min_clean = params[7:12]
    rho_fixed = params[16]
    nb = levels.shape[0]
    known = False
    for b in range(nb):
        for c in range(4):
            if math.isfinite(levels[b, c]):
                known = True
    fresh = measure or not known
    if fresh:
        if n >= PARALLEL_TOPS:
            vmax = column_tops_parallel(f_pos, f_vel, n, a0, cell_count, solid_frac, gamma, col_w,
                                        tops)
        else:
            vmax = column_tops(f_pos, f_vel, n, a0, cell_count, solid_frac, gamma, col_w, tops)
        cap_columns(out_pos, out_pos.shape[0], tops, col_w, a0)
        cap_side_columns(tops, col_w, params[18])
        cap_wall_columns(out_pos, outline[1], dynamic, out_pos.shape[0], tops, col_w, a0)
    water_levels(body_box, tops, col_w, solid_frac, a0, half_layer, near, far, min_clean, levels)
    for b in range(nb):  # dry is for bodies that move: a wall's cover counts whole, as solid
        if not dynamic[b] and levels[b, 1] == DRY_LEVEL:
            levels[b, :] = np.nan
    if rho_fixed > 0.0:
        prof[:, :] = rho_fixed
    elif fresh:
        lo, hi = body_rows_range(body_box, levels, a0, nb_start, inv_nb, nb_nx, nb_ny)
        cell_densities(f_pos[lo:min(hi, n)], f_mat[lo:min(hi, n)], min(hi, n) - lo, rho_table,
                       a0, cell_rho, cell_n)
        density_profiles(body_box, cell_rho, cell_n, a0, near, far, rho_table[0], prof,
                         prof_sum, prof_n)
    return vmax


@njit(cache=True)
def _buoyancy(interior, surface, bodies, a0, spacing, g_h, buoyancy):
    """Step 4 of :func:`exchange_impulses`, serially."""
    in_pos, in_area, in_owner = interior[3], interior[2], interior[1]
    surf_local, surf_normal, surf_len, surf_owner = surface
    state, levels, prof, out_j, out_tau, submerged = (bodies[0], bodies[2], bodies[5], bodies[6],
                                                      bodies[7], bodies[8])
    submerged_areas(in_pos, in_area, in_owner, in_pos.shape[0], levels, spacing, submerged)
    if buoyancy:
        surface_buoyancy(surf_local, surf_normal, surf_len, surf_owner, state, levels, prof,
                         a0, g_h, out_j, out_tau)


@njit(cache=True)
def sync_geometry(bodies, outline, interior, shapes, cells, params):
    """The ``sync_bodies`` stage's kernels in one call, from the bodies' :data:`STATE_COLUMNS`
    (the groups are those of the module docstring; ``params``: ``(use_levels, spacing, kick_x,
    kick_y, a0, margin)``):

    1. :func:`pose_points`: the outline's solid particles and the interior samples;
    2. :func:`submerged_cover` on the levels of the last exchange (``kick_levels`` receives
       them, or NaN where ``use_levels`` is false: without gravity the whole body counts) and
       :func:`rasterise_cover`: the solid cover of the pressure cells; :func:`rasterise_walls`:
       the cells that walls' samples fall in;
    3. :func:`pose_points` and :func:`shape_bounds`: the containment geometry, boxes grown by
       ``margin``; :func:`rasterise_wall_surfaces` on it (the cells walls cover, returned: how
       many);
    4. the impulse accumulators ``out_j``, ``out_tau`` and ``submerged`` zeroed.
    """
    state, dynamic, levels, kick_levels, body_box, prof, out_j, out_tau, submerged = bodies
    out_local, out_owner, out_normal, out_pos, out_vel, out_imp, out_inset = outline
    in_local, in_owner, in_area, in_pos, in_vel, cover_area, in_arm = interior
    (shape_kind, shape_vstart, shape_verts, shape_radius, shape_thick, shape_body, shape_box,
     shape_active, shape_wall, shape_vlocal, shape_vowner, shape_vvel) = shapes
    cell_count, cell_vel, grad, frac, cover_vel, wall_cover = cells
    use_levels, spacing, kick_x, kick_y, a0, margin = params
    if out_local.shape[0]:
        pose_points(out_local, out_owner, state, out_pos, out_vel)
    pose_points(in_local, in_owner, state, in_pos, in_vel)
    for b in range(kick_levels.shape[0]):
        for c in range(4):
            kick_levels[b, c] = levels[b, c] if use_levels else np.nan
    submerged_cover(in_pos, in_owner, in_pos.shape[0], dynamic, kick_levels, spacing, in_area,
                    kick_x, kick_y, in_vel, cover_area)
    rasterise_cover(in_pos, in_vel, cover_area, in_pos.shape[0], a0, frac, cover_vel)
    walls = rasterise_walls(in_pos, in_owner, in_pos.shape[0], dynamic, state, a0, wall_cover)
    pose_points(shape_vlocal, shape_vowner, state, shape_verts, shape_vvel)
    walls += rasterise_wall_surfaces(shapes, dynamic, state, a0, wall_cover)
    if walls:
        rasterise_wall_faces(shapes, dynamic, state, a0, wall_cover)
    shape_bounds(shape_kind, shape_vstart, shape_verts, shape_radius, margin, shape_box)
    out_j[:] = 0.0
    out_tau[:] = 0.0
    submerged[:] = 0.0
    return walls
